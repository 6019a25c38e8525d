// SPDX-License-Identifier: GPL-2.0
/*
 * A traced or untraced process across exec (spec 5.17, 4.12):
 *   - an untraced process starts the new image with a fresh, empty
 *     mapping of event names; a traced one keeps its mapping;
 *   - an exec that raises privileges (a set-user-ID root binary) detaches
 *     the process from the streams of a controller that could no longer
 *     ptrace it: they get POSIX_TRACE_DETACHED and nothing of the new
 *     image, and the process cannot map or notify the writer lane it
 *     opened before; a root controller keeps tracing.
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
	C_NOT_SET_UID = PT_C_FIRST_OWN,	/* the set-uid image ran without euid 0 */
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
	fd = open(PT_DEVICE, O_RDWR | O_CLOEXEC);
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
	PT_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(exec)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid)
		posix_trace_shutdown(self->trid);
	if (self->bin[0])
		unlink(self->bin);
	if (self->mounted)
		umount(self->dir);
	if (self->dir[0])
		rmdir(self->dir);
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
		PT_REQUIRE_TRACE_CHILDREN();
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
		ASSERT_EQ(0, pt_create(self->child, PT_SMALL_STREAM, 0, 0,
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
	struct statvfs sv;
	char buf[65536];
	int in, out;
	ssize_t n;

	strcpy(self->dir, "/tmp/pt-exec-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, statvfs(self->dir, &sv));
	if (sv.f_flag & ST_NOSUID) {
		ASSERT_EQ(0, mount("tmpfs", self->dir, "tmpfs", 0, "mode=0755"));
		self->mounted = true;
	}
	ASSERT_EQ(0, chmod(self->dir, 0755));
	snprintf(self->bin, sizeof(self->bin), "%s/exec_test", self->dir);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, in);
	out = open(self->bin, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ASSERT_LE(0, out);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(n, write(out, buf, n));
	ASSERT_EQ(0, n);
	ASSERT_EQ(0, fchown(out, 0, 0));
	ASSERT_EQ(0, fchmod(out, 04755));	/* after chown, which clears it */
	close(out);
	close(in);
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
	struct pt_ev ev;
	pid_t t;

	if (drop && pt_set_creds(NOBODY, NOBODY, 1))
		return C_CREDS;
	if (pipe(go) || pipe(back))
		return C_PIPE;
	t = fork();
	if (t < 0)
		return C_SETUP;
	if (t == 0) {
		close(go[1]);
		close(back[0]);
		if (!drop && pt_set_creds(NOBODY, NOBODY, 1))
			_exit(C_CREDS);
		struct posix_trace_writer w = { .size = sizeof(w) };
		char lane[96], *args[] = { lane, NULL };
		int fd = open(PT_DEVICE, O_RDWR | O_CLOEXEC);

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
	if (pt_create(t, 65536, 0, 0, &trid) || pt_start_and_skip(trid))
		return C_CREATE;
	if (write(go[1], &trid, sizeof(trid)) != sizeof(trid) ||
	    read(back[0], res, 3) != 3 || res[0] != 'x')
		return C_PIPE;
	if (waitpid(t, &status, 0) != t || !WIFEXITED(status))
		return C_CHILD_EXIT;
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status);

	/* The old image's event is there in any case. */
	if (pt_try(trid, &ev) || ev.unavailable || ev.info.posix_pid != t ||
	    posix_trace_eventid_get_name(trid, ev.info.posix_event_id, name) ||
	    strcmp(name, "before"))
		return C_FIRST_NOT_BEFORE;
	if (drop) {
		/* Detached at the exec: the event says who, then nothing. */
		if (pt_try(trid, &ev) || ev.unavailable ||
		    !pt_is(&ev, POSIX_TRACE_DETACHED))
			return C_NO_DETACHED;
		if (ev.info.posix_pid != t)
			return C_DETACHED_PID;
		if (pt_try(trid, &ev) || !ev.unavailable)
			return C_AFTER_EVENT;
		return res[1] || res[2] ? C_LANE : 0;
	}
	/* Root could still ptrace it: the new image's three events. */
	if (pt_try(trid, &ev) || ev.unavailable || ev.len != 3 ||
	    memcmp(ev.data, "new", 3))
		return C_NEW_IMAGE_MISSING;
	if (pt_try(trid, &ev) || ev.unavailable ||
	    !pt_is(&ev, POSIX_TRACE_UNNAMED_USEREVENT) || memcmp(ev.data, "img", 3))
		return C_NEW_IMAGE_MISSING;
	if (pt_try(trid, &ev) || ev.unavailable ||
	    !pt_is(&ev, POSIX_TRACE_UNNAMED_USEREVENT) || memcmp(ev.data, "raw", 3))
		return C_NEW_IMAGE_MISSING;
	if (pt_try(trid, &ev) || !ev.unavailable)
		return C_AFTER_EVENT;
	return res[1] && res[2] ? 0 : C_LANE;
}

static void setuid_exec(struct __test_metadata *_metadata,
			FIXTURE_DATA(exec) *self, bool drop)
{
	int status;

	PT_REQUIRE_ROOT();
	PT_REQUIRE_TRACE_CHILDREN();
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

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], HELPER_ARG)) {
		int back = atoi(argv[3]);

		if (!strcmp(argv[2], "names"))
			return names_image(back, argc - 4, argv + 4);
		if (argc == 5)
			return setuid_image(back, argv[4]);
		return C_SETUP;
	}
	return test_harness_run(argc, argv);
}
