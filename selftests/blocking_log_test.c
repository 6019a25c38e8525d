// SPDX-License-Identifier: GPL-2.0
/*
 * blocking_log_test - a log file whose writes never complete (issue 19,
 * item 5).  Any user can mount FUSE in a user namespace, and an NFS server
 * can stall: the module's log worker then waits in kernel_write() for as
 * long as the file system likes.  Nothing a user does that way may put
 * another process, or the controller's own exit, into an unkillable wait:
 *
 *  - a shutdown, a clear, or a create waiting for such a write dies on
 *    SIGKILL; a flush returns on any signal;
 *  - a controller that exits (or is killed) is reaped within the bound of
 *    the final flush at exit (10 s) plus slack;
 *  - other processes create, use and shut down streams meanwhile;
 *  - once the writes end (answered, daemon gone, or connection aborted
 *    through fusectl) every object is freed.
 *
 * The file is on fuse_stall (selftests/fuse_stall.c), a FUSE daemon that
 * answers everything but holds every WRITE once told to.  Mounting it
 * needs root (the VM's chroot forbids user namespaces), so the tests run
 * as root and their controllers as nobody; as nobody they skip.
 *
 * Before the fix the shutdown, the clear and the create waited for the
 * worker with flush_work() or mutex_lock(), and so did the exit's final
 * flush: a controller there stayed in D after SIGKILL until the write was
 * let go (5 of the 7 tests failed, "not reaped 30 s after SIGKILL (state
 * D ...)").  Other processes were not held then (no module lock is kept
 * across the wait); that test guards the fix, whose exit leaves the log to
 * finish in the background, against holding them.
 */
#include "pt_selftest.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define NOBODY		65534
#define FUSECTL		"/sys/fs/fuse/connections"
/* A held WRITE shows up within this (the VM is slow). */
#define HOLD_WAIT_MS	30000
/* How long a stuck call waits in the kernel before we act. */
#define ASLEEP_MS	500
/* SIGKILL ends a killable wait promptly. */
#define KILL_BOUND_MS	5000
/* The kernel waits at most 10 s for the final flush at exit; slack 20 s. */
#define EXIT_BOUND_MS	30000
/* Each step of another process's stream work. */
#define STEP_BOUND_MS	10000
#define SETTLE_MS	10000
#define LOG_SIZE	(1u << 20)
#define MAX_STRAYS	8

FIXTURE(blocking) {
	char mnt[32];		/* fuse_stall's mount point */
	char log[48];		/* the controller's log file on it */
	unsigned int conn;	/* its fusectl connection number */
	pid_t daemon;
	int cmd, rep;		/* the daemon's stdin and stdout */
	int held;		/* WRITEs it reported held */
	pid_t ctl;		/* the controller, as nobody */
	int sock;		/* its commands and replies */
	pid_t stray[MAX_STRAYS];	/* children a hang left behind */
	int nr_strays;
	struct posix_trace_stats base;
	unsigned long limit;	/* max_streams_per_user to restore */
	bool limit_set;
	bool fusectl_mounted;
};

static uint64_t now_ms(void)
{
	return st_now_ns(CLOCK_MONOTONIC) / 1000000ULL;
}

/* /dev/fuse, loading fuse.ko if needed (the guest shares the host's
 * /lib/modules).
 */
static bool fuse_available(void)
{
	pid_t pid;

	if (!access("/dev/fuse", R_OK | W_OK))
		return true;
	pid = fork();
	if (pid == 0) {
		execl("/sbin/modprobe", "modprobe", "-q", "fuse", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		st_wait_exit(pid);
	return !access("/dev/fuse", R_OK | W_OK);
}

/* ------------------------------------------------------------------ */
/* The FUSE daemon                                                     */
/* ------------------------------------------------------------------ */

/*
 * Read the daemon's reports for up to @ms until @want comes ('W': until
 * some WRITE is held; 0: just read them).  False on time-out or once the
 * daemon is gone; sleeps @ms then, so a caller may poll with it.
 */
static bool daemon_wait(FIXTURE_DATA(blocking) *self, char want, int ms)
{
	uint64_t end = now_ms() + ms;
	int64_t left;
	char c;

	for (;;) {
		if (want == 'W' && self->held)
			return true;
		left = (int64_t)(end - now_ms());
		if (left < 0)
			return false;
		if (self->rep < 0) {
			st_sleep_ms(left);
			return false;
		}
		if (!st_wait_fd(self->rep, (int)left))
			return false;
		if (read(self->rep, &c, 1) != 1) {
			close(self->rep);
			self->rep = -1;
			continue;
		}
		if (c == 'W')
			self->held++;
		else if (want && c == want)
			return true;
	}
}

static bool daemon_cmd(FIXTURE_DATA(blocking) *self, char c)
{
	return self->cmd >= 0 && write(self->cmd, &c, 1) == 1 &&
	       daemon_wait(self, c, STEP_BOUND_MS);
}

static int start_daemon(FIXTURE_DATA(blocking) *self)
{
	char exe[PATH_MAX];
	int in[2], out[2];
	ssize_t n;
	char *slash;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - sizeof("fuse_stall"));
	if (n <= 0)
		return errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return ENOENT;
	strcpy(slash + 1, "fuse_stall");
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return errno;
	self->daemon = fork();
	if (self->daemon == 0) {
		/* dup2() clears close-on-exec on the copies */
		if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execl(exe, "fuse_stall", self->mnt, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	self->cmd = in[1];
	self->rep = out[0];
	return self->daemon < 0 ? errno : 0;
}

/* Reap child @pid within @ms (reading the daemon's reports meanwhile). */
static bool reap_within(FIXTURE_DATA(blocking) *self, pid_t pid, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	pid_t r;

	do {
		r = waitpid(pid, NULL, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		daemon_wait(self, 0, 20);
	} while (now_ms() < end);
	return false;
}

/* The daemon quits: closing /dev/fuse aborts the connection. */
static void daemon_quit(FIXTURE_DATA(blocking) *self)
{
	if (self->cmd >= 0) {
		if (write(self->cmd, "q", 1) != 1) {
			/* gone already (fusectl abort): SIGPIPE is ignored */
		}
		close(self->cmd);
		self->cmd = -1;
	}
	if (self->daemon > 0 && !reap_within(self, self->daemon, 10000)) {
		kill(self->daemon, SIGKILL);
		st_wait_exit(self->daemon);
	}
	self->daemon = -1;
	if (self->rep >= 0)
		close(self->rep);
	self->rep = -1;
}

/* /sys/fs/fuse/connections/N/abort, fusectl mounted if it is not. */
static bool fusectl_abort(FIXTURE_DATA(blocking) *self)
{
	char path[64];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), FUSECTL "/%u/abort", self->conn);
	if (access(path, W_OK)) {
		if (mount("fusectl", FUSECTL, "fusectl", 0, NULL))
			return false;
		self->fusectl_mounted = true;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, "1", 1) == 1;
	close(fd);
	return ok;
}

/* ------------------------------------------------------------------ */
/* The controller: a child as nobody, driven one command at a time     */
/* ------------------------------------------------------------------ */

struct ctl_reply {
	char op;
	int ret;
};

/* A stream on ourselves logging to @path, which the module keeps open. */
static int ctl_create(const char *path, trace_id_t *trid)
{
	trace_attr_t a;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	ret = st_attr_make(&a, 65536, 0, 0);
	if (!ret)
		ret = posix_trace_attr_setlogsize(&a, LOG_SIZE);
	if (!ret)
		ret = posix_trace_create_withlog(0, &a, fd, trid);
	posix_trace_attr_destroy(&a);
	/* Ours is not needed: the log must not depend on it. */
	close(fd);
	return ret;
}

/* Started, with events for the next flush to write. */
static int ctl_begin(trace_id_t trid)
{
	int ret = posix_trace_start(trid);

	if (!ret)
		st_record_seq(0, 16);
	return ret;
}

static int ctl_op(char op, const char *path, trace_id_t *trid)
{
	switch (op) {
	case 'o':
		return ctl_create(path, trid);
	case 'b':
		return ctl_begin(*trid);
	case 'f':
		return posix_trace_flush(*trid);
	case 'c':
		return posix_trace_clear(*trid);
	case 's':
		return posix_trace_shutdown(*trid);
	case 'x':
		_exit(0);	/* the stream is left to the exit */
	}
	return EINVAL;
}

static void __attribute__((noreturn)) ctl_main(int sock, const char *path)
{
	struct ctl_reply r;
	trace_id_t trid = 0;
	ssize_t n;
	char op;

	/* A signal with a handler interrupts a flush (test below). */
	st_catch(SIGUSR1, 0);
	for (;;) {
		n = recv(sock, &op, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1)
			_exit(0);	/* the test closed: exit with the stream */
		r.op = op;
		r.ret = ctl_op(op, path, &trid);
		send(sock, &r, sizeof(r), MSG_NOSIGNAL);
	}
}

/* A child of ours that must not keep the daemon's pipes open. */
static void child_closes(FIXTURE_DATA(blocking) *self)
{
	if (self->cmd >= 0)
		close(self->cmd);
	if (self->rep >= 0)
		close(self->rep);
	if (self->sock >= 0)
		close(self->sock);
}

static int spawn_ctl(FIXTURE_DATA(blocking) *self)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return errno;
	self->ctl = fork();
	if (self->ctl == 0) {
		close(sv[0]);
		child_closes(self);
		if (st_set_creds(NOBODY, NOBODY, 1))
			_exit(C_SETUP);
		ctl_main(sv[1], self->log);
	}
	close(sv[1]);
	self->sock = sv[0];
	return self->ctl < 0 ? errno : 0;
}

static bool ctl_send(FIXTURE_DATA(blocking) *self, char op)
{
	return send(self->sock, &op, 1, MSG_NOSIGNAL) == 1;
}

/* The reply to @op within @ms: its result, or -1. */
static int ctl_reply(FIXTURE_DATA(blocking) *self, char op, int ms)
{
	struct ctl_reply r;

	if (!st_wait_fd(self->sock, ms) ||
	    recv(self->sock, &r, sizeof(r), MSG_DONTWAIT) != sizeof(r) ||
	    r.op != op)
		return -1;
	return r.ret;
}

static int ctl_do(FIXTURE_DATA(blocking) *self, char op)
{
	return ctl_send(self, op) ? ctl_reply(self, op, STEP_BOUND_MS) : -1;
}

/* The controller, a stream logging to the FUSE file, started. */
static void start_logging(struct __test_metadata *_metadata,
			  FIXTURE_DATA(blocking) *self)
{
	ASSERT_EQ(0, spawn_ctl(self));
	ASSERT_EQ(0, ctl_do(self, 'o')) TH_LOG("create_withlog on %s", self->log);
	ASSERT_EQ(0, ctl_do(self, 'b'));
}

/*
 * The controller was sent @op and must now wait behind a held WRITE:
 * wait for the hold, then give it time to fall asleep in the kernel.
 */
static void wait_stuck(struct __test_metadata *_metadata,
		       FIXTURE_DATA(blocking) *self, char op)
{
	int ret;

	ASSERT_TRUE(daemon_wait(self, 'W', HOLD_WAIT_MS))
		TH_LOG("no log write reached the file system in %d s",
		       HOLD_WAIT_MS / 1000);
	st_sleep_ms(ASLEEP_MS);
	ret = ctl_reply(self, op, 0);
	ASSERT_EQ(-1, ret)
		TH_LOG("'%c' returned %d while the log write is held: nothing to interrupt",
		       op, ret);
}

/* SIGKILL the controller; true if it is reaped within @ms. */
static bool killed_within(struct __test_metadata *_metadata,
			  FIXTURE_DATA(blocking) *self, unsigned int ms,
			  const char *what)
{
	char before = st_proc_state(self->ctl);
	uint64_t t0 = now_ms();

	kill(self->ctl, SIGKILL);
	if (reap_within(self, self->ctl, ms)) {
		TH_LOG("%s: reaped %llu ms after SIGKILL", what,
		       (unsigned long long)(now_ms() - t0));
		self->ctl = -1;
		return true;
	}
	TH_LOG("%s: not reaped %u s after SIGKILL (state %c before it, %c now)",
	       what, ms / 1000, before, st_proc_state(self->ctl));
	return false;
}

/*
 * Let the held WRITEs go: 'r' the daemon answers them, 'q' it quits,
 * 'a' the connection is aborted through fusectl.  Then whatever waited
 * must end, and every object of the module be freed.
 */
static void release_and_settle(struct __test_metadata *_metadata,
			       FIXTURE_DATA(blocking) *self, char how)
{
	struct posix_trace_stats now;
	unsigned int waited;

	if (how == 'r') {
		ASSERT_TRUE(daemon_cmd(self, 'r'));
	} else if (how == 'a') {
		if (!fusectl_abort(self)) {
			TH_LOG("no fusectl (%s): the daemon quits instead",
			       strerror(errno));
			daemon_quit(self);
		}
	} else {
		daemon_quit(self);
	}
	if (self->ctl > 0) {
		close(self->sock);	/* a live controller exits */
		self->sock = -1;
		ASSERT_TRUE(reap_within(self, self->ctl, EXIT_BOUND_MS))
			TH_LOG("the controller is still there %d s after the write was let go (state %c)",
			       EXIT_BOUND_MS / 1000, st_proc_state(self->ctl));
		self->ctl = -1;
	}
	ASSERT_TRUE(st_stats_settle(&self->base, &now, SETTLE_MS, &waited))
		TH_LOG("left once the write was let go: %u streams, %u procs, %u attaches, %u users (%u, %u, %u, %u before)",
		       now.streams, now.procs, now.attaches, now.users,
		       self->base.streams, self->base.procs,
		       self->base.attaches, self->base.users);
}

/* ------------------------------------------------------------------ */
/* Another process's streams                                           */
/* ------------------------------------------------------------------ */

enum {
	O_CREATE = 1, O_USE, O_SHUTDOWN, O_LOG_CREATE, O_LOG_USE,
	O_LOG_SHUTDOWN, O_LIMIT_FIRST, O_LIMIT_SECOND, O_END,
};

static const char *const other_steps[O_END] = {
	[O_CREATE] = "posix_trace_create",
	[O_USE] = "start, event, getnext, stop",
	[O_SHUTDOWN] = "posix_trace_shutdown",
	[O_LOG_CREATE] = "posix_trace_create_withlog on /tmp",
	[O_LOG_USE] = "start, event, flush",
	[O_LOG_SHUTDOWN] = "shutdown of the stream with log",
	[O_LIMIT_FIRST] = "create at max_streams_per_user 1",
	[O_LIMIT_SECOND] = "create beyond max_streams_per_user 1",
};

static void step_done(int fd, int step, int ret)
{
	int msg[2] = { step, ret };

	if (write(fd, msg, sizeof(msg)) != sizeof(msg) || ret)
		_exit(0);
}

static int other_use(trace_id_t trid)
{
	struct st_ev ev;
	int ret = posix_trace_start(trid);

	if (ret)
		return ret;
	st_record_seq(0, 3);
	ret = st_try(trid, &ev);
	if (!ret && (ev.unavailable || !st_is(&ev, POSIX_TRACE_START)))
		ret = EPROTO;
	return ret ? ret : posix_trace_stop(trid);
}

static int other_log_create(trace_id_t *trid)
{
	char path[] = "/tmp/pt-blocking-other.XXXXXX";
	trace_attr_t a;
	int fd = mkstemp(path), ret;

	if (fd < 0)
		return errno;
	unlink(path);
	ret = st_attr_make(&a, 65536, 0, 0);
	if (!ret)
		ret = posix_trace_attr_setlogsize(&a, LOG_SIZE);
	if (!ret)
		ret = posix_trace_create_withlog(0, &a, fd, trid);
	posix_trace_attr_destroy(&a);
	close(fd);
	return ret;
}

static int other_log_use(trace_id_t trid)
{
	int ret = posix_trace_start(trid);

	if (ret)
		return ret;
	st_record_seq(0, 3);
	return posix_trace_flush(trid);
}

/* With the limit at 1: the first create takes the one slot (unless a
 * stream still holds it), the second finds none.  Either may wait for
 * the module's queued work, never for the hung log.
 */
static void other_at_limit(int fd)
{
	trace_id_t a, b;
	int ra = st_create(0, ST_SMALL_STREAM, 0, 0, &a), rb;

	step_done(fd, O_LIMIT_FIRST, ra == EAGAIN ? 0 : ra);
	rb = st_create(0, ST_SMALL_STREAM, 0, 0, &b);
	/* -1: a second stream, beyond the limit */
	step_done(fd, O_LIMIT_SECOND, rb == EAGAIN ? 0 : rb ? rb : -1);
	if (!ra)
		posix_trace_shutdown(a);
}

static void __attribute__((noreturn)) other_main(int fd, bool at_limit)
{
	trace_id_t trid;

	step_done(fd, O_CREATE, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	step_done(fd, O_USE, other_use(trid));
	step_done(fd, O_SHUTDOWN, posix_trace_shutdown(trid));
	step_done(fd, O_LOG_CREATE, other_log_create(&trid));
	step_done(fd, O_LOG_USE, other_log_use(trid));
	step_done(fd, O_LOG_SHUTDOWN, posix_trace_shutdown(trid));
	if (at_limit)
		other_at_limit(fd);
	_exit(0);
}

/*
 * Another process, as @uid, creates, uses and shuts down streams (and,
 * @at_limit, creates at its stream limit): each step within 10 s, each
 * one succeeding.
 */
static void run_other(struct __test_metadata *_metadata,
		      FIXTURE_DATA(blocking) *self, uid_t uid, bool at_limit)
{
	int p[2], msg[2], step, last = at_limit ? O_LIMIT_SECOND : O_LOG_SHUTDOWN;
	pid_t pid;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(p[0]);
		child_closes(self);
		if (uid && st_set_creds(uid, uid, 1))
			_exit(C_SETUP);
		other_main(p[1], at_limit);
	}
	close(p[1]);
	for (step = O_CREATE; step <= last; step++) {
		if (!st_wait_fd(p[0], STEP_BOUND_MS) ||
		    read(p[0], msg, sizeof(msg)) != sizeof(msg)) {
			TH_LOG("as uid %d, '%s' did not end within %d s while a log write hangs (state %c)",
			       (int)uid, other_steps[step], STEP_BOUND_MS / 1000,
			       st_proc_state(pid));
			break;
		}
		if (msg[0] != step || msg[1]) {
			TH_LOG("as uid %d, '%s': %s", (int)uid, other_steps[step],
			       msg[0] != step ? "out of order" : msg[1] < 0 ?
			       "succeeded" : strerror(msg[1]));
			break;
		}
	}
	close(p[0]);
	EXPECT_GT(step, last);
	kill(pid, SIGKILL);
	if (!reap_within(self, pid, EXIT_BOUND_MS) && self->nr_strays < MAX_STRAYS)
		self->stray[self->nr_strays++] = pid;
}

/* ------------------------------------------------------------------ */
/* Fixture                                                             */
/* ------------------------------------------------------------------ */

static void cleanup(struct __test_metadata *_metadata,
		    FIXTURE_DATA(blocking) *self)
{
	int i;

	if (self->ctl > 0)
		kill(self->ctl, SIGKILL);
	/* Whatever still waits for a write is let go by the abort. */
	daemon_quit(self);
	if (self->ctl > 0 && !reap_within(self, self->ctl, EXIT_BOUND_MS))
		TH_LOG("the controller was not reaped after the abort (state %c)",
		       st_proc_state(self->ctl));
	for (i = 0; i < self->nr_strays; i++)
		if (!reap_within(self, self->stray[i], EXIT_BOUND_MS))
			TH_LOG("process %d was not reaped after the abort (state %c)",
			       (int)self->stray[i], st_proc_state(self->stray[i]));
	if (self->sock >= 0)
		close(self->sock);
	umount2(self->mnt, MNT_DETACH);
	rmdir(self->mnt);
	if (self->fusectl_mounted)
		umount2(FUSECTL, MNT_DETACH);
	if (self->limit_set)
		st_param_write("max_streams_per_user", self->limit);
}

FIXTURE_SETUP(blocking)
{
	struct stat st;

	self->daemon = self->ctl = -1;
	self->cmd = self->rep = self->sock = -1;
	/* The daemon may be gone when we write to it (fusectl abort). */
	signal(SIGPIPE, SIG_IGN);
	ST_REQUIRE_MODULE();
	if (geteuid() != 0)
		ST_SKIP("mounting FUSE needs root");
	if (!fuse_available())
		ST_SKIP("no /dev/fuse, and modprobe fuse did not make one");
	ASSERT_TRUE(st_stats_quiet(&self->base));
	strcpy(self->mnt, "/tmp/pt-fuse.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	ASSERT_EQ(0, chmod(self->mnt, 0755));
	snprintf(self->log, sizeof(self->log), "%s/log", self->mnt);
	ASSERT_EQ(0, start_daemon(self));
	if (!daemon_wait(self, 'R', HOLD_WAIT_MS) || stat(self->mnt, &st)) {
		cleanup(_metadata, self);
		ASSERT_TRUE(false) TH_LOG("fuse_stall did not mount %s", self->mnt);
	}
	self->conn = (major(st.st_dev) << 20) | minor(st.st_dev);
}

FIXTURE_TEARDOWN(blocking)
{
	cleanup(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

TEST_F_TIMEOUT(blocking, a_shutdown_behind_a_hung_log_write_dies_on_sigkill, 180)
{
	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 's'));
	wait_stuck(_metadata, self, 's');
	EXPECT_TRUE(killed_within(_metadata, self, KILL_BOUND_MS,
				  "a controller in posix_trace_shutdown()"));
	release_and_settle(_metadata, self, 'r');
}

TEST_F_TIMEOUT(blocking, a_controller_that_exits_with_a_hung_log_is_reaped_within_the_bound, 180)
{
	uint64_t t0;

	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	t0 = now_ms();
	ASSERT_TRUE(ctl_send(self, 'x'));
	if (reap_within(self, self->ctl, EXIT_BOUND_MS)) {
		TH_LOG("reaped %llu ms after its exit",
		       (unsigned long long)(now_ms() - t0));
		self->ctl = -1;
	} else {
		EXPECT_TRUE(false)
			TH_LOG("a controller that exited with its log write hung was not reaped within %d s (state %c)",
			       EXIT_BOUND_MS / 1000, st_proc_state(self->ctl));
	}
	ASSERT_TRUE(daemon_wait(self, 'W', HOLD_WAIT_MS))
		TH_LOG("the final flush never wrote: nothing was held");
	/* The daemon dies: the write fails, the log is let go. */
	release_and_settle(_metadata, self, 'q');
}

TEST_F_TIMEOUT(blocking, a_controller_killed_in_a_hung_flush_is_reaped_within_the_bound, 180)
{
	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 'f'));
	wait_stuck(_metadata, self, 'f');
	/* The flush is killable already; the exit's final flush must be
	 * bounded too.
	 */
	EXPECT_TRUE(killed_within(_metadata, self, EXIT_BOUND_MS,
				  "a controller killed in posix_trace_flush()"));
	release_and_settle(_metadata, self, 'a');
}

TEST_F_TIMEOUT(blocking, other_processes_create_use_and_shut_down_streams_while_a_log_hangs, 400)
{
	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 's'));
	wait_stuck(_metadata, self, 's');
	/* Its owner waits in the shutdown ... */
	run_other(_metadata, self, NOBODY, false);
	run_other(_metadata, self, 0, false);
	/* ... or has gone, leaving the log to finish on its own. */
	kill(self->ctl, SIGKILL);
	if (reap_within(self, self->ctl, EXIT_BOUND_MS))
		self->ctl = -1;
	else
		TH_LOG("(the controller is not reaped yet: state %c)",
		       st_proc_state(self->ctl));
	ASSERT_EQ(0, st_param_read("max_streams_per_user", &self->limit));
	ASSERT_EQ(0, st_param_write("max_streams_per_user", 1));
	self->limit_set = true;
	run_other(_metadata, self, NOBODY, true);
	ASSERT_EQ(0, st_param_write("max_streams_per_user", self->limit));
	self->limit_set = false;
	run_other(_metadata, self, 0, false);
	release_and_settle(_metadata, self, 'r');
}

TEST_F_TIMEOUT(blocking, a_flush_behind_a_hung_log_write_returns_on_a_signal, 180)
{
	int ret;

	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 'f'));
	wait_stuck(_metadata, self, 'f');
	kill(self->ctl, SIGUSR1);
	/* Interrupted, the flush counts as initiated (FLUSH-1): 0. */
	ret = ctl_reply(self, 'f', KILL_BOUND_MS);
	EXPECT_EQ(0, ret) TH_LOG("posix_trace_flush(): %d within %d s of a signal",
				 ret, KILL_BOUND_MS / 1000);
	ASSERT_TRUE(daemon_cmd(self, 'r'));
	EXPECT_EQ(0, ctl_do(self, 's'));
	release_and_settle(_metadata, self, 'q');
}

TEST_F_TIMEOUT(blocking, a_clear_behind_a_hung_log_write_is_killable, 180)
{
	start_logging(_metadata, self);
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 'c'));
	wait_stuck(_metadata, self, 'c');
	/* Killed in the clear, then the exit's bounded final flush. */
	EXPECT_TRUE(killed_within(_metadata, self, EXIT_BOUND_MS,
				  "a controller in posix_trace_clear()"));
	release_and_settle(_metadata, self, 'r');
}

TEST_F_TIMEOUT(blocking, a_create_whose_log_header_write_hangs_is_killable, 180)
{
	ASSERT_EQ(0, spawn_ctl(self));
	ASSERT_TRUE(daemon_cmd(self, 's'));
	ASSERT_TRUE(ctl_send(self, 'o'));
	wait_stuck(_metadata, self, 'o');
	/* No stream yet: nothing for the exit to flush, so the bound of an
	 * exit is generous.
	 */
	EXPECT_TRUE(killed_within(_metadata, self, EXIT_BOUND_MS,
				  "a controller in posix_trace_create_withlog()"));
	release_and_settle(_metadata, self, 'r');
}

TEST_HARNESS_MAIN
