// SPDX-License-Identifier: GPL-2.0
/*
 * noread_syscall_test - when events are available, the getnext family
 * reads them from the mapped stream without any system call; it enters the
 * kernel only to block on an empty stream.
 *
 * A forked child is the controller (a trid is valid only in its creator):
 * it creates a stream on itself, records events, installs a seccomp filter
 * that kills the process on every system call a reader could use to reach
 * the module or to wait (ioctl, read*, poll/select/epoll, sleeps), then
 * reads.  The parent checks the child exited 0 and was not killed by
 * SIGSYS.  A control test shows the same filter does kill a reader that
 * has to wait.
 */
#include "pt_selftest.h"
#include "st_seccomp.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/resource.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>


static const int forbidden[] = {
	__NR_ioctl, __NR_read, __NR_readv, __NR_pread64, __NR_preadv,
	__NR_preadv2, __NR_ppoll, __NR_pselect6, __NR_epoll_pwait,
	__NR_clock_nanosleep, __NR_recvfrom, __NR_recvmsg,
#ifdef __NR_poll
	__NR_poll,
#endif
#ifdef __NR_select
	__NR_select,
#endif
#ifdef __NR_epoll_wait
	__NR_epoll_wait,
#endif
#ifdef __NR_epoll_pwait2
	__NR_epoll_pwait2,
#endif
#ifdef __NR_nanosleep
	__NR_nanosleep,
#endif
};
#define NR_FORBIDDEN (sizeof(forbidden) / sizeof(forbidden[0]))

/* Install the filter on the calling thread only.  0 or an errno. */
static int forbid_reader_syscalls(void)
{
	return st_seccomp_thread(forbidden, NR_FORBIDDEN, SECCOMP_RET_KILL_PROCESS,
				 SECCOMP_RET_ALLOW);
}

/* Child exit codes of this file (the common ones: pt_selftest.h). */
enum {
	C_RETURNED = ST_C_FIRST_OWN,
};

static const char *child_code_str(int code)
{
	switch (code) {
	case C_SETUP: return "setup failed";
	case C_FILTER: return "seccomp filter not installed";
	case C_READ_RET: return "a getnext call returned an error";
	case C_UNAVAILABLE: return "an available event was not reported";
	case C_WRONG_EVENT: return "wrong event";
	case C_WRONG_DATA: return "wrong event data";
	case C_NOT_EMPTY: return "more events than recorded";
	case C_RETURNED: return "blocking read returned";
	}
	return "?";
}

FIXTURE(noread) {
	pid_t child;
};

FIXTURE_SETUP(noread)
{
	self->child = -1;
	ST_REQUIRE_MODULE();
#ifndef ST_AUDIT_ARCH
	ST_SKIP("no seccomp arch value for this architecture");
#endif
}

FIXTURE_TEARDOWN(noread)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
}

static void no_core_dumps(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

enum how { HOW_GET, HOW_TIMED, HOW_TRY };

/* Read one event expected to be user event @seq; returns a C_* code. */
static int read_one(trace_id_t trid, enum how how, uint32_t seq,
		    const struct timespec *abs)
{
	struct st_ev ev;
	uint32_t v;
	int ret;

	switch (how) {
	case HOW_GET:
		ret = st_get(trid, &ev);
		break;
	case HOW_TIMED:
		ret = st_timed(trid, &ev, abs);
		break;
	default:
		ret = st_try(trid, &ev);
		break;
	}
	if (ret)
		return C_READ_RET;
	if (ev.unavailable)
		return C_UNAVAILABLE;
	if (ev.info.posix_event_id != POSIX_TRACE_UNNAMED_USEREVENT)
		return C_WRONG_EVENT;
	if (ev.len != sizeof(v))
		return C_WRONG_DATA;
	memcpy(&v, ev.data, sizeof(v));
	return v == seq ? C_OK : C_WRONG_DATA;
}

static int reader_child_single_batch(void)
{
	struct timespec abs = st_ns_ts(st_realtime_ns() +
				       3600 * ST_NSEC_PER_SEC);
	struct st_ev ev;
	trace_id_t trid;
	uint32_t i;
	int code;

	no_core_dumps();
	if (st_create(0, 65536, 0, 0, &trid) || posix_trace_start(trid))
		return C_SETUP;
	for (i = 0; i < 40; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	if (forbid_reader_syscalls())
		return C_FILTER;

	/* From here on: no ioctl, read, poll, sleep ... or SIGSYS. */
	if (st_get(trid, &ev))
		return C_READ_RET;
	if (ev.unavailable)
		return C_UNAVAILABLE;
	if (ev.info.posix_event_id != POSIX_TRACE_START)
		return C_WRONG_EVENT;
	for (i = 0; i < 40; i++) {
		enum how how = i < 20 ? HOW_GET : i < 30 ? HOW_TIMED : HOW_TRY;

		code = read_one(trid, how, i, &abs);
		if (code)
			return code;
	}
	return C_OK;
}

static void run_child(struct __test_metadata *_metadata,
		      FIXTURE_DATA(noread) *self, int (*fn)(void),
		      int want_sig)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(fn());
	self->child = pid;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	self->child = -1;
	if (want_sig) {
		ASSERT_TRUE(WIFSIGNALED(status))
			TH_LOG("child exited with %d (%s) instead of signal %d",
			       WEXITSTATUS(status),
			       child_code_str(WEXITSTATUS(status)), want_sig);
		ASSERT_EQ(want_sig, WTERMSIG(status));
		return;
	}
	ASSERT_FALSE(WIFSIGNALED(status))
		TH_LOG("reader killed by signal %d%s", WTERMSIG(status),
		       WTERMSIG(status) == SIGSYS ?
		       " (SIGSYS: it made a forbidden system call)" : "");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("reader: %s", child_code_str(WEXITSTATUS(status)));
}

/* REQ: 5.22 GETNEXT-1 TGETNEXT-4 TRYGET-1 (implementation: mapped reads) */
TEST_F(noread, available_events_are_read_without_system_calls)
{
	run_child(_metadata, self, reader_child_single_batch, 0);
}

/* ---------------------------------------------------------------- */

#define BATCHES		5
#define BATCH_EVENTS	12

static atomic_int turn;
static trace_id_t batch_trid;

static void *batch_writer(void *arg)
{
	uint32_t b, i, v;

	(void)arg;
	for (b = 0; b < BATCHES; b++) {
		while (atomic_load(&turn) != (int)(2 * b))
			sched_yield();
		for (i = 0; i < BATCH_EVENTS; i++) {
			v = b * BATCH_EVENTS + i;
			posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &v,
					  sizeof(v));
		}
		atomic_store(&turn, 2 * b + 1);
	}
	return NULL;
}

static int reader_child_batches(void)
{
	struct timespec abs = st_ns_ts(st_realtime_ns() +
				       3600 * ST_NSEC_PER_SEC);
	struct st_ev ev;
	pthread_t th;
	uint32_t b, i;
	int code;

	no_core_dumps();
	if (st_create(0, 65536, 0, 0, &batch_trid) ||
	    st_start_and_skip(batch_trid))
		return C_SETUP;
	atomic_store(&turn, -1);
	if (pthread_create(&th, NULL, batch_writer, NULL))
		return C_SETUP;
	/* The filter applies to this (reading) thread only. */
	if (forbid_reader_syscalls())
		return C_FILTER;
	atomic_store(&turn, 0);
	for (b = 0; b < BATCHES; b++) {
		while (atomic_load(&turn) != (int)(2 * b + 1))
			sched_yield();
		for (i = 0; i < BATCH_EVENTS; i++) {
			enum how how = (i + b) % 3;

			code = read_one(batch_trid, how,
					b * BATCH_EVENTS + i, &abs);
			if (code)
				return code;
		}
		if (st_try(batch_trid, &ev) || !ev.unavailable)
			return C_NOT_EMPTY;
		atomic_store(&turn, 2 * b + 2);
	}
	return C_OK;
}

/* REQ: 5.22 GETNEXT-1 GETNEXT-C6 (implementation: mapped reads) */
TEST_F(noread, events_written_after_the_filter_are_read_without_syscalls)
{
	run_child(_metadata, self, reader_child_batches, 0);
}

/* ---------------------------------------------------------------- */

static int reader_child_empty(void)
{
	struct st_ev ev;
	trace_id_t trid;

	no_core_dumps();
	signal(SIGALRM, SIG_DFL);
	if (st_create(0, 65536, 0, 0, &trid))
		return C_SETUP;
	/* Never started: empty.  A waiting reader must enter the kernel. */
	alarm(20);
	if (forbid_reader_syscalls())
		return C_FILTER;
	st_get(trid, &ev);
	return C_RETURNED;
}

/* REQ: GETNEXT-2 (control: a reader that must wait enters the kernel) */
TEST_F(noread, reader_that_must_wait_is_killed_by_the_filter)
{
	run_child(_metadata, self, reader_child_empty, SIGSYS);
}

TEST_HARNESS_MAIN
