/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt_selftest.h - what every posix-trace selftest includes first.
 *
 * It pulls in <trace.h>, the kernel's kselftest_harness.h (extracted by
 * the Makefile into build/harness/) and the declarations of the helpers
 * that the Makefile compiles once, into build/st/libst.a:
 *
 *  - st_stream.h: wrappers to build attributes, create streams and read
 *    events;
 *  - st_agent.h: "agents", forked helper processes driven over a
 *    SOCK_SEQPACKET socket, used as traced processes, as second
 *    controllers and as tracers with other credentials;
 *  - st_system.h: time, thread and process helpers (waiting until a thread
 *    sleeps in the kernel, CPU pinning, a SIGALRM watchdog that turns a
 *    hang into EINTR), credentials, ptrace and Yama;
 *  - st_module.h: the module's device, parameters and object counts.
 *
 * (st_lane.h and st_seccomp.h are included by the tests that need them.)
 * Here stays only what needs the harness: ST_REQUIRE_MODULE(),
 * ST_REQUIRE_ROOT() and ST_REQUIRE_TRACE_CHILDREN() skip a test when
 * /dev/posix_trace is absent, when it needs root, or when Yama forbids
 * it; they reach the test's _metadata, so they are macros.
 *
 * Requirement ids in "REQ:" comments refer to shared/spec/POSIX-TRACE.md.
 */
#ifndef PT_SELFTEST_H
#define PT_SELFTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/posix_trace.h>

#include <trace.h>

#include "st_agent.h"
#include "st_module.h"
#include "st_stream.h"
#include "st_system.h"

/*
 * The unmodified 6.1 harness does not build with -Wextra -Werror
 * (unused parameters in its own functions): silence that inside it only.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/*
 * The 6.1 kselftest_harness.h runs the test body even when FIXTURE_SETUP
 * called SKIP(return, ...) (it only checks ->passed, which SKIP sets).
 * Leave through the harness's jump buffer instead: the wrapper then skips
 * both the body and (when called from setup) the teardown, and the test is
 * reported as skipped.  Works from FIXTURE_SETUP and from TEST_F bodies.
 */
#define ST_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

/* Used by every FIXTURE_SETUP: skip when the module is not loaded. */
#define ST_REQUIRE_MODULE() do {					\
	if (!st_module_loaded())					\
		ST_SKIP("%s absent: posix_trace module not loaded",	\
			ST_DEVICE);					\
} while (0)

#define ST_REQUIRE_ROOT() do {						\
	if (geteuid() != 0)						\
		ST_SKIP("needs root (euid %d)", (int)geteuid());	\
} while (0)

/*
 * Tests that trace a child process as an unprivileged user cannot work
 * when Yama forbids ptrace of children (ptrace_scope >= 2): skip them.
 */
#define ST_REQUIRE_TRACE_CHILDREN() do {				\
	int __scope = st_ptrace_scope();				\
	if (__scope >= 3 || (__scope == 2 && geteuid() != 0))		\
		ST_SKIP("Yama ptrace_scope %d forbids tracing children",	\
			__scope);					\
} while (0)

/* Exit codes of the forked children that read under seccomp; each test
 * file adds its own from ST_C_FIRST_OWN. */
enum {
	C_OK = 0,
	C_SETUP = 10,
	C_FILTER,
	C_READ_RET,
	C_UNAVAILABLE,
	C_WRONG_EVENT,
	C_WRONG_DATA,
	C_NOT_EMPTY,
	ST_C_FIRST_OWN,
};

#endif /* PT_SELFTEST_H */
