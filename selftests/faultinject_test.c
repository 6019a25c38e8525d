// SPDX-License-Identifier: GPL-2.0
/*
 * faultinject_test - every allocation and user copy failure the module's
 * paths can meet (issue 6), taken systematically with the kernel's
 * fail-nth: writing N to /proc/thread-self/fail-nth makes the N-th
 * injectable call of this thread fail (failslab, fail_page_alloc,
 * fail_usercopy).  For each operation, N goes 1, 2, ... until a run
 * consumes no fault: each N is one failure site on its path.  Every
 * failed run must return a documented error (or succeed, when the module
 * has a fallback), leave no stream behind, and, once everything is shut
 * down, the module's object counts must be back where they were.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION and root (debugfs, fail-nth):
 * it SKIPs elsewhere.  "make check-debug" runs it on its debug kernel.
 */
#include "pt_selftest.h"

#include <sys/mount.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/stat.h>

#define MAX_SITES	400	/* per operation: a loop bound, not a limit */
#define FAULT_DIR	"/sys/kernel/debug"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = errno;
	close(fd);
	return ret;
}

/* Let fail-nth reach sleeping allocations too (failslab and
 * fail_page_alloc skip them by default), and keep the log quiet. */
static bool fault_knobs(void)
{
	static const char *const knobs[][2] = {
		{ FAULT_DIR "/failslab/ignore-gfp-wait", "N" },
		{ FAULT_DIR "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ FAULT_DIR "/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ FAULT_DIR "/fail_page_alloc/min-order", "0" },
		{ FAULT_DIR "/failslab/verbose", "0" },
		{ FAULT_DIR "/fail_page_alloc/verbose", "0" },
		{ FAULT_DIR "/fail_usercopy/verbose", "0" },
	};
	unsigned int i;

	if (access("/proc/thread-self/fail-nth", W_OK))
		return false;
	if (access(FAULT_DIR "/failslab", F_OK))
		mount("none", FAULT_DIR, "debugfs", 0, NULL);
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		write_str(knobs[i][0], knobs[i][1]);
	return access(FAULT_DIR "/failslab", F_OK) == 0;
}

static int fail_nth_set(unsigned int n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	return write_str("/proc/thread-self/fail-nth", buf);
}

/* True if the fault armed by fail_nth_set() was injected. */
static bool fail_nth_injected(void)
{
	char buf[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	/* Disarm whatever is left before the next syscall. */
	write_str("/proc/thread-self/fail-nth", "0");
	return n > 0 && atoi(buf) == 0;
}

/* One operation under test: @run does it (with the fault armed) and
 * returns 0 or an errno; @undo releases what a successful run made. */
struct op {
	const char *name;
	int (*run)(void *ctx);
	void (*undo)(void *ctx);
	const int *errs;	/* errors it may return, 0-terminated */
};

/* Where the walk is, for the report of a signal that kills it. */
static const char *volatile walk_op = "setup";
static volatile unsigned int walk_n;

static void walk_crashed(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	int len;

	(void)uc;
	/* snprintf is not async-signal-safe, but we are dying anyway. */
	len = snprintf(msg, sizeof(msg),
		       "# %s, fault %u: signal %d (code %d) at %p\n",
		       walk_op, walk_n, sig, si->si_code, si->si_addr);
	if (len > 0 && write(2, msg, (size_t)len) < 0)
		len = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * glibc registers each thread's rseq area, which the kernel writes on the
 * way back to user space.  Right after fork() that page is copy-on-write:
 * a fault left armed by an operation that did not use it all (fork's own
 * sites end before the count does) then fails the copy, and the kernel
 * kills the process with SIGSEGV (SI_KERNEL), nothing the module did.
 * Seen as "fork of a traced process, fault 278: signal 11 (code 128)".
 */
static long rseq_unregister(void)
{
	void *area = (char *)__builtin_thread_pointer() + __rseq_offset;

	if (!__rseq_size)
		return 0;	/* glibc did not register it */
	/* __rseq_size is the feature size (20 in Debian 12's glibc); the
	 * kernel wants the registered length, at least sizeof(struct rseq). */
	if (!syscall(SYS_rseq, area, sizeof(struct rseq), RSEQ_FLAG_UNREGISTER,
		     RSEQ_SIG))
		return 0;
	return syscall(SYS_rseq, area, __rseq_size, RSEQ_FLAG_UNREGISTER,
		       RSEQ_SIG);
}

struct ctx {
	trace_id_t trid;	/* a running stream on this process, or 0 */
	trace_id_t made;	/* what the run created */
	trace_event_id_t id;
	char path[64];
	int fd;
};

static const int create_errs[] = { ENOMEM, EAGAIN, EFAULT, EINTR, 0 };
static const int small_errs[] = { ENOMEM, EFAULT, 0 };
static const int log_errs[] = { ENOMEM, EFAULT, ENOSPC, EIO, EINTR, 0 };

static int op_create(void *p)
{
	struct ctx *c = p;

	return st_create(0, ST_SMALL_STREAM, POSIX_TRACE_LOOP, 0, &c->made);
}

static int op_create_withlog(void *p)
{
	struct ctx *c = p;
	trace_attr_t a;
	int ret = st_attr_make(&a, ST_SMALL_STREAM, POSIX_TRACE_LOOP, 0);

	if (!ret)
		ret = posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND);
	if (!ret)
		ret = posix_trace_create_withlog(0, &a, c->fd, &c->made);
	posix_trace_attr_destroy(&a);
	return ret;
}

static void undo_made(void *p)
{
	struct ctx *c = p;

	if (c->made > 0)
		posix_trace_shutdown(c->made);
	c->made = 0;
}

static int op_eventid_open(void *p)
{
	struct ctx *c = p;
	static unsigned int n;
	char name[32];

	snprintf(name, sizeof(name), "fault-%u", n++);
	return posix_trace_eventid_open(name, &c->id);
}

static int op_start_stop(void *p)
{
	struct ctx *c = p;
	int ret = posix_trace_start(c->trid);

	return ret ? ret : posix_trace_stop(c->trid);
}

static int op_set_filter(void *p)
{
	struct ctx *c = p;
	trace_event_set_t set;

	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(POSIX_TRACE_UNNAMED_USEREVENT, &set);
	return posix_trace_set_filter(c->trid, &set, POSIX_TRACE_SET_EVENTSET);
}

/* The ioctl event path: a record through the kernel (no writer lane). */
static int op_event_ioctl(void *p)
{
	struct ctx *c = p;
	struct posix_trace_event_req req;
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), ret = 0;
	char data[64] = "x";

	if (fd < 0)
		return errno;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.event_id = c->id;
	req.data_ptr = (uint64_t)(uintptr_t)data;
	req.data_len = sizeof(data);
	if (ioctl(fd, POSIX_TRACE_IOC_EVENT, &req))
		ret = errno;
	close(fd);
	return ret;
}

static int op_flush(void *p)
{
	struct ctx *c = p;
	int ret = op_create_withlog(p);

	if (ret)
		return ret;
	ret = posix_trace_start(c->made);
	if (!ret) {
		posix_trace_event(c->id, "f", 1);
		ret = posix_trace_flush(c->made);
	}
	return ret;
}

static int op_fork_inherit(void *p)
{
	pid_t pid = fork();

	(void)p;
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(0);
	return st_wait_exit(pid) ? ECHILD : 0;
}

static const struct op ops[] = {
	{ "create", op_create, undo_made, create_errs },
	{ "create_withlog", op_create_withlog, undo_made, log_errs },
	{ "eventid_open", op_eventid_open, NULL, small_errs },
	{ "start+stop", op_start_stop, NULL, small_errs },
	{ "set_filter", op_set_filter, NULL, small_errs },
	{ "event through the ioctl", op_event_ioctl, NULL, small_errs },
	{ "create_withlog+start+flush", op_flush, undo_made, log_errs },
	{ "fork of a traced process", op_fork_inherit, NULL, small_errs },
};

static bool allowed(const int *errs, int err)
{
	for (; *errs; errs++)
		if (*errs == err)
			return true;
	return false;
}

FIXTURE(fault) {
	struct ctx c;
	struct posix_trace_stats base;
};

FIXTURE_SETUP(fault)
{
	ST_REQUIRE_MODULE();
	ST_REQUIRE_ROOT();
	if (!fault_knobs())
		ST_SKIP("no fault injection in this kernel (fail-nth)");
	memset(&self->c, 0, sizeof(self->c));
	snprintf(self->c.path, sizeof(self->c.path), "/tmp/faultinject.XXXXXX");
	self->c.fd = mkostemp(self->c.path, O_CLOEXEC);
	ASSERT_LE(0, self->c.fd);
	unlink(self->c.path);
	ASSERT_EQ(0, st_stats(&self->base));
}

FIXTURE_TEARDOWN(fault)
{
	fail_nth_set(0);
	if (self->c.trid > 0)
		posix_trace_shutdown(self->c.trid);
	if (self->c.fd > 0)
		close(self->c.fd);
}

/*
 * Walk every operation's failure sites; returns the number of wrong
 * answers.  In a child of the test: the library lends writer lanes to
 * threads and unmaps them lazily, so only the exit of the process that
 * used them shows whether the module let everything go.
 */
static unsigned int walk_sites(struct __test_metadata *_metadata,
			       struct ctx *c, unsigned int *total)
{
	unsigned int o, n, sites, failed = 0;
	int ret;

	*total = 0;
	for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		const struct op *op = &ops[o];

		for (n = 1, sites = 0; n < MAX_SITES; n++) {
			bool injected;

			c->made = 0;
			walk_op = op->name;
			walk_n = n;
			if (fail_nth_set(n))
				return failed + 1;
			ret = op->run(c);
			injected = fail_nth_injected();
			if (ret && !allowed(op->errs, ret)) {
				TH_LOG("%s, fault %u: %d (%s)", op->name, n, ret,
				       strerror(ret));
				failed++;
			}
			if (op->undo)
				op->undo(c);
			if (!injected) {
				if (ret) {
					TH_LOG("%s without a fault: %s", op->name,
					       strerror(ret));
					failed++;
				}
				break;
			}
			sites++;
		}
		TH_LOG("%s: %u failure sites", op->name, sites);
		*total += sites;
	}
	return failed;
}

/*
 * Every operation's failure paths (create's ENOMEM among them): the
 * documented error, no partial state, no leak.
 */
/* REQ: CREATE-1 SHUT-2 */
TEST_F_TIMEOUT(fault, every_failure_site_returns_a_documented_error_and_leaks_nothing, 1800)
{
	struct posix_trace_stats now;
	unsigned int total = 0, failed, waited;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct sigaction sa = { .sa_sigaction = walk_crashed,
					.sa_flags = SA_SIGINFO };

		if (rseq_unregister()) {
			TH_LOG("rseq unregistration: %s", strerror(errno));
			_exit(102);
		}
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		/* A running stream on ourselves for the operations that need
		 * one; children inherit it (fork path). */
		if (st_create_self_started(POSIX_TRACE_INHERITED, &self->c.trid) ||
		    posix_trace_eventid_open("fault-ev", &self->c.id))
			_exit(100);
		posix_trace_event(self->c.id, "w", 1);	/* a writer lane, now */
		failed = walk_sites(_metadata, &self->c, &total);
		TH_LOG("%u failure sites in all", total);
		if (posix_trace_shutdown(self->c.trid))
			failed++;
		_exit(failed ? 1 : total ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("the walking process was killed by signal %d",
		       WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_TRUE(st_stats_settle(&self->base, &now, 30000, &waited))
		TH_LOG("streams %u/%u active %u/%u procs %u/%u attaches %u/%u writers %u/%u maps %u/%u mappings %u/%u users %u/%u",
		       now.streams, self->base.streams, now.active_streams,
		       self->base.active_streams, now.procs, self->base.procs,
		       now.attaches, self->base.attaches,
		       now.writers, self->base.writers, now.maps, self->base.maps,
		       now.mappings, self->base.mappings, now.users, self->base.users);
}

TEST_HARNESS_MAIN
