// SPDX-License-Identifier: GPL-2.0
/*
 * A traced or untraced process across exec (spec 5.17, 4.12):
 *   - an untraced process starts the new image with a fresh, empty
 *     mapping of event names; a traced one keeps its mapping;
 *   - an exec that raises privileges (a set-user-ID root binary) detaches
 *     the process from the streams of a controller that could no longer
 *     ptrace it: they get POSIX_TRACE_DETACHED and nothing of the new
 *     image, and the process cannot map or notify the writer lane it
 *     opened before; a root controller keeps tracing;
 *   - a create racing such an exec judges the new image: it fails for a
 *     controller that could not ptrace it (the stream never attaches to
 *     it), and traces it for root.
 * The new images are this binary again, run with HELPER_ARG.
 */
#include "pt_selftest.h"
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <linux/posix_trace.h>

#define HELPER_ARG	"--pt-exec-helper"
#define NOBODY		65534

enum {
	C_NOT_SET_UID = ST_C_FIRST_OWN,	/* the set-uid image ran without euid 0 */
	C_CREDS,
	C_CREATE,
	C_PIPE,
	C_CHILD_EXIT,
	C_FIRST_NOT_BEFORE,
	C_NO_DETACHED,
	C_DETACHED_PID,
	C_AFTER_EVENT,
	C_NEW_IMAGE_MISSING,
	C_LANE,
	C_EXEC,
	C_RACE_EARLY,		/* the create returned before waiting for its log */
	C_RACE_NO_IMAGE,	/* the new image never said it runs */
	C_RACE_SLOW,		/* the exec took longer than the log's stall bound */
	C_RACE_REFUSED,		/* the create failed with EPERM */
	C_RACE_CREATED,		/* the create succeeded */
	C_RACE_SEEN,		/* ... and the new image's event reached it */
	C_NAMES_SHARED,		/* the set-user-ID image got an id planted for it */
	C_NAME_LEAK,		/* the detached stream names the image's name */
	C_ROOT_NAMES,		/* root's stream does not name the image's name */
};

/* ------------------------------------------------------------------ */
/* New images                                                          */
/* ------------------------------------------------------------------ */

/* "names" BACK NAME...: open each name in order, send the ids over BACK. */
static int names_image(int back, int argc, char **argv)
{
	trace_event_id_t id;
	int i;

	for (i = 0; i < argc; i++) {
		if (posix_trace_eventid_open(argv[i], &id))
			return C_SETUP;
		if (write(back, &id, sizeof(id)) != sizeof(id))
			return C_PIPE;
	}
	return 0;
}

/* A writer lane the old image opened: what the new one may still do. */
struct lane {
	struct posix_trace_writer w;
	char mapped;		/* out: mmap() of the lane worked */
	char notified;		/* out: WRITER_NOTIFY(WAKE) worked */
};

static void try_lane(int fd, struct lane *l)
{
	struct posix_trace_notify n = {
		.size = sizeof(n),
		.trid = l->w.trid,
		.index = l->w.index,
		.what = POSIX_TRACE_NOTIFY_WAKE,
	};
	void *p = mmap(NULL, l->w.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, l->w.mmap_offset);

	l->mapped = p != MAP_FAILED;
	if (l->mapped)
		munmap(p, l->w.mmap_size);
	l->notified = ioctl(fd, POSIX_TRACE_IOC_WRITER_NOTIFY, &n) == 0;
}

/*
 * "setuid" BACK LANE: the set-user-ID root image.  Records through the
 * library (lanes) and through the ioctl path, tries the old image's lane,
 * then sends 'x' and the lane's results on BACK.
 */
static int setuid_image(int back, const char *lane)
{
	struct posix_trace_event_req req = {
		.size = sizeof(req),
		.event_id = POSIX_TRACE_UNNAMED_USEREVENT,
		.data_ptr = (uintptr_t)"raw",
		.data_len = 3,
	};
	struct lane l = { .w.size = sizeof(l.w) };
	char res[3] = "x";
	trace_event_id_t id;
	int fd;

	if (geteuid() != 0)
		return C_NOT_SET_UID;
	if (posix_trace_eventid_open("after", &id))
		return C_SETUP;
	posix_trace_event(id, "new", 3);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "img", 3);
	fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, POSIX_TRACE_IOC_EVENT, &req))
		return C_SETUP;
	if (sscanf(lane, "%u:%u:%llu:%llu", &l.w.trid, &l.w.index,
		   &l.w.mmap_offset, &l.w.mmap_size) != 4)
		return C_SETUP;
	try_lane(fd, &l);
	close(fd);
	res[1] = l.mapped;
	res[2] = l.notified;
	if (write(back, res, sizeof(res)) != sizeof(res))	/* one read */
		return C_PIPE;
	return 0;
}

static void exec_helper(const char *path, const char *mode, int back,
			char *const *names)
{
	char *argv[8] = { "exec_test", HELPER_ARG, (char *)mode };
	char fd[16];
	int i = 4;

	snprintf(fd, sizeof(fd), "%d", back);
	argv[3] = fd;
	while (names && *names && i < 7)
		argv[i++] = *names++;
	argv[i] = NULL;
	execv(path, argv);
	_exit(C_EXEC);
}

/* ------------------------------------------------------------------ */
/* Name mappings across exec                                           */
/* ------------------------------------------------------------------ */

FIXTURE(exec) {
	pid_t child;
	trace_id_t trid;
	char dir[64];
	char bin[96];
	bool mounted;
};

FIXTURE_SETUP(exec)
{
	self->child = -1;
	self->trid = 0;
	self->dir[0] = self->bin[0] = '\0';
	self->mounted = false;
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(exec)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid)
		posix_trace_shutdown(self->trid);
	st_setuid_copy_remove(self->dir, self->bin, self->mounted);
}

/*
 * A child opens "alpha" and "beta" (ids sent in @before), is traced by a
 * stream of ours if @traced, then execs an image that opens @after in that
 * order (ids in @ids).
 */
static void names_across_exec(struct __test_metadata *_metadata,
			      FIXTURE_DATA(exec) *self, bool traced,
			      char *const *after, trace_event_id_t before[2],
			      trace_event_id_t *ids, int n)
{
	int go[2], back[2], status, i;
	char c;

	if (traced)
		ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(go[1]);
		close(back[0]);
		if (posix_trace_eventid_open("alpha", &before[0]) ||
		    posix_trace_eventid_open("beta", &before[1]))
			_exit(C_SETUP);
		if (write(back[1], before, 2 * sizeof(*before)) !=
		    2 * sizeof(*before))
			_exit(C_PIPE);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		exec_helper("/proc/self/exe", "names", back[1], after);
	}
	close(go[0]);
	close(back[1]);
	ASSERT_EQ((ssize_t)(2 * sizeof(*before)),
		  read(back[0], before, 2 * sizeof(*before)));
	if (traced)
		ASSERT_EQ(0, st_create(self->child, ST_SMALL_STREAM, 0, 0,
				       &self->trid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 0; i < n; i++) {
		ASSERT_EQ((ssize_t)sizeof(ids[i]),
			  read(back[0], &ids[i], sizeof(ids[i])))
			TH_LOG("new image sent %d of %d ids", i, n);
	}
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = -1;
	close(go[1]);
	close(back[0]);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
}

/* REQ: 5.17 (untraced: a fresh mapping at exec) */
TEST_F(exec, untraced_process_gets_fresh_name_mapping_at_exec)
{
	static char *const after[] = { "gamma", "alpha", NULL };
	trace_event_id_t before[2], ids[2];

	names_across_exec(_metadata, self, false, after, before, ids, 2);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 1, before[0]);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 2, before[1]);
	/* Ids are handed out afresh, in the new order. */
	EXPECT_EQ(before[0], ids[0]) TH_LOG("\"gamma\" did not get the first id");
	EXPECT_EQ(before[1], ids[1]) TH_LOG("\"alpha\" kept its old id");
}

/* REQ: 5.17 RULE-61 (traced: the mapping survives exec) */
TEST_F(exec, traced_process_keeps_name_mapping_at_exec)
{
	static char *const after[] = { "beta", "alpha", "gamma", NULL };
	trace_event_id_t before[2], ids[3];
	char name[TRACE_EVENT_NAME_MAX + 1];

	names_across_exec(_metadata, self, true, after, before, ids, 3);
	EXPECT_EQ(before[1], ids[0]);
	EXPECT_EQ(before[0], ids[1]);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 3, ids[2]);
	/* The stream names them as the process does. */
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, ids[2], name));
	EXPECT_STREQ("gamma", name);
}

/* ------------------------------------------------------------------ */
/* Exec of a set-user-ID binary                                        */
/* ------------------------------------------------------------------ */

/* A set-user-ID root copy of this binary in a suid-capable directory. */
static void make_setuid_copy(struct __test_metadata *_metadata,
			     FIXTURE_DATA(exec) *self)
{
	ASSERT_EQ(0, st_setuid_copy("/proc/self/exe", "exec_test", self->dir,
				    self->bin, sizeof(self->bin), &self->mounted));
}

/*
 * Controller: unprivileged (@drop) or root.  Traces a child running as
 * NOBODY that records "before", then execs the set-user-ID copy @bin.
 * Returns 0 if the stream holds exactly what it should.
 */
static int setuid_controller(const char *bin, bool drop)
{
	char name[TRACE_EVENT_NAME_MAX + 1], res[3];
	int go[2], back[2], status;
	trace_event_id_t before;
	trace_id_t trid;
	struct st_ev ev;
	pid_t t;

	if (drop && st_set_creds(NOBODY, NOBODY, 1))
		return C_CREDS;
	if (pipe(go) || pipe(back))
		return C_PIPE;
	t = fork();
	if (t < 0)
		return C_SETUP;
	if (t == 0) {
		close(go[1]);
		close(back[0]);
		if (!drop && st_set_creds(NOBODY, NOBODY, 1))
			_exit(C_CREDS);
		struct posix_trace_writer w = { .size = sizeof(w) };
		char lane[96], *args[] = { lane, NULL };
		int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);

		if (posix_trace_eventid_open("before", &before))
			_exit(C_SETUP);
		if (read(go[0], &w.trid, sizeof(w.trid)) != sizeof(w.trid))
			_exit(C_PIPE);
		posix_trace_event(before, "old", 3);
		/* A lane of its own, for the new image to try. */
		if (fd < 0 || ioctl(fd, POSIX_TRACE_IOC_WRITER_OPEN, &w))
			_exit(C_LANE);
		snprintf(lane, sizeof(lane), "%u:%u:%llu:%llu", w.trid, w.index,
			 (unsigned long long)w.mmap_offset,
			 (unsigned long long)w.mmap_size);
		exec_helper(bin, "setuid", back[1], args);
	}
	close(go[0]);
	close(back[1]);
	if (st_create(t, 65536, 0, 0, &trid) || st_start_and_skip(trid))
		return C_CREATE;
	if (write(go[1], &trid, sizeof(trid)) != sizeof(trid) ||
	    read(back[0], res, 3) != 3 || res[0] != 'x')
		return C_PIPE;
	if (waitpid(t, &status, 0) != t || !WIFEXITED(status))
		return C_CHILD_EXIT;
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status);

	/* The old image's event is there in any case. */
	if (st_try(trid, &ev) || ev.unavailable || ev.info.posix_pid != t ||
	    posix_trace_eventid_get_name(trid, ev.info.posix_event_id, name) ||
	    strcmp(name, "before"))
		return C_FIRST_NOT_BEFORE;
	if (drop) {
		/* Detached at the exec: the event says who, then nothing. */
		if (st_try(trid, &ev) || ev.unavailable ||
		    !st_is(&ev, POSIX_TRACE_DETACHED))
			return C_NO_DETACHED;
		if (ev.info.posix_pid != t)
			return C_DETACHED_PID;
		if (st_try(trid, &ev) || !ev.unavailable)
			return C_AFTER_EVENT;
		return res[1] || res[2] ? C_LANE : 0;
	}
	/* Root could still ptrace it: the new image's three events. */
	if (st_try(trid, &ev) || ev.unavailable || ev.len != 3 ||
	    memcmp(ev.data, "new", 3))
		return C_NEW_IMAGE_MISSING;
	if (st_try(trid, &ev) || ev.unavailable ||
	    !st_is(&ev, POSIX_TRACE_UNNAMED_USEREVENT) || memcmp(ev.data, "img", 3))
		return C_NEW_IMAGE_MISSING;
	if (st_try(trid, &ev) || ev.unavailable ||
	    !st_is(&ev, POSIX_TRACE_UNNAMED_USEREVENT) || memcmp(ev.data, "raw", 3))
		return C_NEW_IMAGE_MISSING;
	if (st_try(trid, &ev) || !ev.unavailable)
		return C_AFTER_EVENT;
	return res[1] && res[2] ? 0 : C_LANE;
}

static void setuid_exec(struct __test_metadata *_metadata,
			FIXTURE_DATA(exec) *self, bool drop)
{
	int status;

	ST_REQUIRE_ROOT();
	ST_REQUIRE_TRACE_CHILDREN();
	make_setuid_copy(_metadata, self);
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0)
		_exit(setuid_controller(self->bin, drop));
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
	ASSERT_NE(C_NOT_SET_UID, WEXITSTATUS(status))
		TH_LOG("%s: the set-user-ID bit had no effect", self->bin);
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("controller failed: code %d", WEXITSTATUS(status));
}

/* REQ: RULE-87 4.12 5.16 (exec raising privileges beyond the controller's) */
TEST_F(exec, setuid_exec_detaches_process_from_unprivileged_controller)
{
	setuid_exec(_metadata, self, true);
}

/* REQ: 4.12 5.16 (CAP_SYS_PTRACE could still trace it) */
TEST_F(exec, setuid_exec_stays_traced_by_root_controller)
{
	setuid_exec(_metadata, self, false);
}

/* ------------------------------------------------------------------ */
/* A set-ID exec racing CREATE                                         */
/* ------------------------------------------------------------------ */

/*
 * The privilege check of CREATE comes first and the attach last; in
 * between the create sets up its log, which waits for the log's header to
 * be written.  A log on a pipe whose buffer is full holds the create there
 * (up to the log's 5 s stall bound) until the pipe is read, so the target
 * can exec a set-user-ID program in between, deterministically: the
 * create must then judge the new image.  The system's su(1), which waits
 * for a password on its stdin, is the set-user-ID program any user can
 * run; as root, the set-user-ID copy of this binary also records.
 */
#define SU_PATH		"/usr/bin/su"
#define RACE_TRIES	3

/*
 * "race": the set-user-ID image of the race.  Says 'x' on stdout, then
 * records "secret" once it reads a byte on stdin, says 'y', and waits for
 * the end of its stdin.
 */
static int race_image(void)
{
	char c;

	if (geteuid() != 0)
		return C_NOT_SET_UID;
	if (write(1, "x", 1) != 1 || read(0, &c, 1) != 1)
		return C_PIPE;
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "secret", 6);
	if (write(1, "y", 1) != 1)
		return C_PIPE;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

struct race {
	pid_t target;
	int logr, logw;		/* the log: a pipe with a full buffer */
	int memfd;		/* what the log wrote, read from the pipe */
	size_t filler;		/* bytes of ours in the pipe before the log */
	trace_id_t trid;
	int ret;
	pid_t tid;		/* the creating thread, once it runs */
	int done;		/* the create returned */
	int stop;		/* the stream is shut down: drain what is left */
};

static void *race_create(void *arg)
{
	struct race *r = arg;
	trace_attr_t a;
	int ret;

	__atomic_store_n(&r->tid, st_gettid(), __ATOMIC_RELEASE);
	ret = st_attr_make(&a, ST_SMALL_STREAM, 0, 0);
	if (!ret)
		ret = posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND);
	if (!ret)
		ret = posix_trace_create_withlog(r->target, &a, r->logw, &r->trid);
	posix_trace_attr_destroy(&a);
	r->ret = ret;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Does thread @tid of ours sleep in a function whose name holds @fn? */
static bool thread_waits_in(pid_t tid, const char *fn)
{
	char path[64], buf[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, fn) != NULL;
}

/* Wait until the create waits for its log (true), or returned (false). */
static bool race_wait_log(struct race *r)
{
	pid_t tid;
	int i;

	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			return false;
		tid = __atomic_load_n(&r->tid, __ATOMIC_ACQUIRE);
		/* The create waits for its log's header in pt_log_create(). */
		if (tid && (thread_waits_in(tid, "pt_log_create") ||
			    thread_waits_in(tid, "flush_work")))
			return true;
		st_sleep_ms(1);
	}
	return false;
}

/* Shrink pipe @fd to one page and fill it: the bytes written, or 0. */
static size_t fill_pipe(int fd)
{
	static const char page[4096];
	int fl = fcntl(fd, F_GETFL);
	size_t bytes = 0;
	ssize_t n;

	if (fl < 0 || fcntl(fd, F_SETPIPE_SZ, (int)sizeof(page)) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return 0;
	while ((n = write(fd, page, sizeof(page))) > 0)
		bytes += n;
	if (errno != EAGAIN || fcntl(fd, F_SETFL, fl))
		return 0;
	return bytes;
}

/* Copy the log pipe, past the filler, to the memfd until told to stop
 * and the pipe is empty.
 */
static void *race_drain(void *arg)
{
	struct pollfd p = { .events = POLLIN };
	struct race *r = arg;
	char buf[4096];
	size_t skip;
	ssize_t n;
	bool stop;

	p.fd = r->logr;
	for (;;) {
		stop = __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
		if (poll(&p, 1, 10) != 1) {
			if (stop)
				break;
			continue;
		}
		n = read(r->logr, buf, sizeof(buf));
		if (n <= 0)
			break;
		skip = r->filler < (size_t)n ? r->filler : (size_t)n;
		r->filler -= skip;
		if (write(r->memfd, buf + skip, n - skip) != (ssize_t)(n - skip))
			break;
	}
	return NULL;
}

/*
 * The target: runs @argv once told to on @go, with stdin @in (the
 * controller keeps it open: su waits there for a password) and stdout
 * and stderr @out.  As NOBODY if @drop.
 */
static pid_t race_target(int go, int in, int out, char *const argv[], bool drop)
{
	pid_t t = fork();
	char c;

	if (t)
		return t;
	if (drop && st_set_creds(NOBODY, NOBODY, 1))
		_exit(C_CREDS);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(C_SETUP);
	if (read(go, &c, 1) != 1)
		_exit(C_PIPE);
	execv(argv[0], argv);
	_exit(C_EXEC);
}

/* Run race_image() to its event: 0, or a code. */
static int race_record(struct race *r, int in, int out)
{
	char c;

	if (posix_trace_start(r->trid) || write(in, "e", 1) != 1 ||
	    !st_wait_fd(out, 10000) || read(out, &c, 1) != 1 || c != 'y')
		return C_SETUP;
	return 0;
}

/* Is race_image()'s event in the log the stream wrote? */
static int race_seen(struct race *r)
{
	trace_id_t log;
	struct st_ev ev;
	int code = C_RACE_CREATED;

	if (lseek(r->memfd, 0, SEEK_SET) || posix_trace_open(r->memfd, &log))
		return C_SETUP;
	while (!st_get(log, &ev) && !ev.unavailable) {
		if (ev.info.posix_pid == r->target && ev.len == 6 &&
		    !memcmp(ev.data, "secret", 6))
			code = C_RACE_SEEN;
	}
	posix_trace_close(log);
	return code;
}

/* What became of the create; 0 if it worked. */
static int race_result(const struct race *r)
{
	switch (r->ret) {
	case 0:
		return 0;
	case EIO:
		return C_RACE_SLOW;
	case EPERM:
		return C_RACE_REFUSED;
	default:
		return C_CREATE;
	}
}

/*
 * One race: the target (NOBODY) execs @argv, a set-user-ID program,
 * while a create of ours waits for its log.  @own: the image is
 * race_image(), whose event is looked for if the create succeeds.
 */
static int race_once(char *const argv[], bool own)
{
	int go[2], in[2], out[2], logp[2], code;
	struct race r = { 0 };
	pthread_t cr, dr;
	char c;

	if (pipe2(go, O_CLOEXEC) || pipe2(in, O_CLOEXEC) ||
	    pipe2(out, O_CLOEXEC) || pipe2(logp, O_CLOEXEC))
		return C_PIPE;
	r.memfd = memfd_create("log", MFD_CLOEXEC);
	r.filler = fill_pipe(logp[1]);
	r.logr = logp[0];
	r.logw = logp[1];
	if (r.memfd < 0 || !r.filler || fcntl(r.logr, F_SETFL, O_NONBLOCK))
		return C_PIPE;
	r.target = race_target(go[0], in[0], out[1], argv, getuid() == 0);
	if (r.target < 0 || pthread_create(&cr, NULL, race_create, &r))
		return C_SETUP;
	close(go[0]);
	close(in[0]);
	close(out[1]);
	code = C_RACE_EARLY;
	if (race_wait_log(&r)) {
		/* Past its privilege check: the target execs now.  Once the
		 * new image runs, its exec is complete.
		 */
		code = 0;
		if (write(go[1], "g", 1) != 1 || !st_wait_fd(out[0], 10000) ||
		    read(out[0], &c, 1) != 1)
			code = C_RACE_NO_IMAGE;
	}
	if (pthread_create(&dr, NULL, race_drain, &r))
		return C_SETUP;
	pthread_join(cr, NULL);
	if (!code)
		code = race_result(&r);
	if (!r.ret) {
		if (!code && own)
			code = race_record(&r, in[1], out[0]);
		posix_trace_shutdown(r.trid);	/* writes all to the log */
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(dr, NULL);
	if (!code)
		code = own ? race_seen(&r) : C_RACE_CREATED;
	kill(r.target, SIGKILL);
	waitpid(r.target, NULL, 0);
	close(go[1]);
	close(in[1]);
	close(out[0]);
	close(logp[0]);
	close(logp[1]);
	close(r.memfd);
	return code;
}

/* The first image to run from cold caches can take longer than the log
 * waits: run it once to its prompt, and retry a race that was too slow.
 */
static int race(char *const argv[], bool own, bool drop)
{
	int in[2], out[2], go[2], i, code = C_RACE_SLOW;
	pid_t t;

	/* Run as nobody, the test is unprivileged already. */
	if (drop && geteuid() == 0 && st_set_creds(NOBODY, NOBODY, 1))
		return C_CREDS;
	if (pipe2(go, O_CLOEXEC) || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return C_PIPE;
	t = race_target(go[0], in[0], out[1], argv, getuid() == 0);
	close(out[1]);
	if (t < 0 || write(go[1], "g", 1) != 1)
		return C_SETUP;
	st_wait_fd(out[0], 30000);
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	for (i = 0; i < RACE_TRIES && code == C_RACE_SLOW; i++)
		code = race_once(argv, own);
	return code;
}

static void race_expect(struct __test_metadata *_metadata,
			FIXTURE_DATA(exec) *self, char *const argv[], bool own,
			bool drop, int want)
{
	int status;

	ST_REQUIRE_TRACE_CHILDREN();
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0)
		_exit(race(argv, own, drop));
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
	ASSERT_NE(C_NOT_SET_UID, WEXITSTATUS(status))
		TH_LOG("%s: the set-user-ID bit had no effect", argv[0]);
	ASSERT_NE(C_RACE_SLOW, WEXITSTATUS(status))
		TH_LOG("%d times the exec took longer than the log waits", RACE_TRIES);
	EXPECT_EQ(want, WEXITSTATUS(status)) {
		if (WEXITSTATUS(status) == C_RACE_CREATED)
			TH_LOG("the create attached to the set-user-ID image");
		else if (WEXITSTATUS(status) == C_RACE_SEEN)
			TH_LOG("the set-user-ID image's event reached the controller");
		else
			TH_LOG("controller: code %d", WEXITSTATUS(status));
	}
}

/* A set-user-ID root program any user can run, which waits on stdin. */
static void require_su(struct __test_metadata *_metadata)
{
	struct stat st;

	if (stat(SU_PATH, &st) || !(st.st_mode & S_ISUID) || st.st_uid != 0)
		ST_SKIP("no set-user-ID root %s", SU_PATH);
}

/* REQ: 4.12 5.16 (the check holds at the attach, as ptrace's does) */
TEST_F(exec, an_unprivileged_create_racing_a_setuid_exec_fails)
{
	static char *const su[] = { SU_PATH, "root", NULL };

	require_su(_metadata);
	race_expect(_metadata, self, su, false, true, C_RACE_REFUSED);
}

/* REQ: 4.12 5.16 */
TEST_F(exec, no_event_of_a_setuid_image_reaches_a_create_that_raced_its_exec)
{
	char *argv[] = { self->bin, HELPER_ARG, "race", "1", NULL };

	ST_REQUIRE_ROOT();
	make_setuid_copy(_metadata, self);
	race_expect(_metadata, self, argv, true, true, C_RACE_REFUSED);
}

/* REQ: 4.12 5.16 (CAP_SYS_PTRACE could trace it) */
TEST_F(exec, a_root_create_racing_a_setuid_exec_traces_the_new_image)
{
	char *argv[] = { self->bin, HELPER_ARG, "race", "1", NULL };

	ST_REQUIRE_ROOT();
	make_setuid_copy(_metadata, self);
	race_expect(_metadata, self, argv, true, false, C_RACE_SEEN);
}

/* ------------------------------------------------------------------ */
/* Names after a set-ID exec                                           */
/* ------------------------------------------------------------------ */

/*
 * "late": the set-user-ID image of the name tests.  Says 'r' on BACK,
 * then once it reads a byte on stdin opens "secret" and "planted" and
 * sends their ids on BACK.
 */
static int late_names_image(int back)
{
	static char *const names[] = { "secret", "planted", NULL };
	char c;

	if (geteuid() != 0)
		return C_NOT_SET_UID;
	if (write(back, "r", 1) != 1 || read(0, &c, 1) != 1)
		return C_PIPE;
	return names_image(back, 2, (char **)names);
}

/* Until DETACHED of @pid is read from @trid: 0, or C_NO_DETACHED. */
static int wait_detached(trace_id_t trid, pid_t pid)
{
	struct st_ev ev;

	while (!st_try(trid, &ev) && !ev.unavailable) {
		if (st_is(&ev, POSIX_TRACE_DETACHED) && ev.info.posix_pid == pid)
			return 0;
	}
	return C_NO_DETACHED;
}

/*
 * Controller (NOBODY) of a child NOBODY that opened no name, then execs
 * the set-user-ID copy @bin.  Once its stream is detached, it registers
 * "planted" through the stream; then the image opens "secret" and
 * "planted".  Neither side must see the other's names: the image's first
 * name gets the first id, and the stream does not name it "secret".  If
 * @up >= 0, root traces the child too: the child's pid goes up, and the
 * exec waits for a byte on @down.
 */
static int names_controller(const char *bin, int up, int down)
{
	char name[TRACE_EVENT_NAME_MAX + 1], c;
	int go[2], in[2], back[2], ret;
	trace_event_id_t planted, ids[2];
	trace_id_t trid;
	pid_t t;

	if (st_set_creds(NOBODY, NOBODY, 1))
		return C_CREDS;
	if (pipe2(go, O_CLOEXEC) || pipe2(in, O_CLOEXEC) || pipe2(back, 0))
		return C_PIPE;
	t = fork();
	if (t < 0)
		return C_SETUP;
	if (t == 0) {
		if (dup2(in[0], 0) < 0 || read(go[0], &c, 1) != 1)
			_exit(C_PIPE);
		exec_helper(bin, "late", back[1], NULL);
	}
	close(back[1]);
	if (st_create(t, 65536, 0, 0, &trid) || posix_trace_start(trid))
		return C_CREATE;
	if (up >= 0 && (write(up, &t, sizeof(t)) != sizeof(t) ||
			read(down, &c, 1) != 1))
		return C_PIPE;
	if (write(go[1], "g", 1) != 1 || read(back[0], &c, 1) != 1 || c != 'r')
		return C_PIPE;
	ret = wait_detached(trid, t);
	if (ret)
		return ret;
	if (posix_trace_trid_eventid_open(trid, "planted", &planted))
		return C_SETUP;
	/* One write per id. */
	if (write(in[1], "n", 1) != 1 ||
	    read(back[0], &ids[0], sizeof(ids[0])) != sizeof(ids[0]) ||
	    read(back[0], &ids[1], sizeof(ids[1])) != sizeof(ids[1]))
		return C_PIPE;
	if (st_wait_exit(t) != 0)
		return C_CHILD_EXIT;
	if (ids[0] != POSIX_TRACE_UNNAMED_USEREVENT + 1)
		return C_NAMES_SHARED;
	if (!posix_trace_eventid_get_name(trid, ids[0], name) &&
	    !strcmp(name, "secret"))
		return C_NAME_LEAK;
	return 0;
}

static void names_expect(struct __test_metadata *_metadata,
			 FIXTURE_DATA(exec) *self, bool root_too)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	int up[2], down[2], status;
	trace_id_t trid = 0;
	pid_t t;

	ST_REQUIRE_ROOT();
	ST_REQUIRE_TRACE_CHILDREN();
	make_setuid_copy(_metadata, self);
	ASSERT_EQ(0, pipe2(up, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(down, O_CLOEXEC));
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0)
		_exit(names_controller(self->bin, root_too ? up[1] : -1, down[0]));
	close(up[1]);
	if (root_too) {
		ASSERT_EQ((ssize_t)sizeof(t), read(up[0], &t, sizeof(t)));
		ASSERT_EQ(0, st_create(t, 65536, 0, 0, &trid));
		self->trid = trid;
		ASSERT_EQ(0, posix_trace_start(trid));
		ASSERT_EQ(1, write(down[1], "d", 1));
	}
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
	ASSERT_NE(C_NOT_SET_UID, WEXITSTATUS(status))
		TH_LOG("%s: the set-user-ID bit had no effect", self->bin);
	EXPECT_NE(C_NAMES_SHARED, WEXITSTATUS(status))
		TH_LOG("the image's first name did not get the first id: the old controller planted one");
	EXPECT_NE(C_NAME_LEAK, WEXITSTATUS(status))
		TH_LOG("the detached stream names the image's \"secret\"");
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Root traces it still, with its names (RULE-61). */
	if (root_too) {
		ASSERT_EQ(0, posix_trace_eventid_get_name(trid,
				POSIX_TRACE_UNNAMED_USEREVENT + 1, name));
		EXPECT_STREQ("secret", name);
	}
	close(up[0]);
	close(down[0]);
	close(down[1]);
}

/* REQ: 4.12 5.16 5.17 */
TEST_F(exec, a_setuid_image_shares_no_names_with_the_stream_it_left)
{
	names_expect(_metadata, self, false);
}

/* REQ: 4.12 5.16 5.17 */
TEST_F(exec, a_setuid_image_traced_by_root_shares_no_names_with_the_stream_it_left)
{
	names_expect(_metadata, self, true);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], HELPER_ARG)) {
		int back = atoi(argv[3]);

		if (!strcmp(argv[2], "names"))
			return names_image(back, argc - 4, argv + 4);
		if (!strcmp(argv[2], "race"))
			return race_image();
		if (!strcmp(argv[2], "late"))
			return late_names_image(back);
		if (argc == 5)
			return setuid_image(back, argv[4]);
		return C_SETUP;
	}
	return test_harness_run(argc, argv);
}
