// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of sysconf() and __posix_trace_sysconf() (spec 1.8, 1.9,
 * 5.1-5.3, 5.26).  They pass with and without the kernel module: the
 * module's presence decides only _SC_TRACE and _SC_TRACE_SYS_MAX, and the
 * tests check that those two agree with each other.
 */
#include <limits.h>
#include <unistd.h>
#include <trace.h>
#include <linux/posix_trace.h>

#include "pt_test.h"

typedef long (*sysconf_fn)(int);

static const struct {
	sysconf_fn fn;
	const char *name;
} fns[] = {
	{ sysconf, "sysconf" },
	{ __posix_trace_sysconf, "__posix_trace_sysconf" },
};

#define NFNS	(sizeof(fns) / sizeof(fns[0]))

/* Call @fn(@name): errno must be unchanged, -1 included (no error). */
static long call(sysconf_fn fn, int name)
{
	long v;

	errno = PT_ERRNO_CANARY;
	v = fn(name);
	if (errno != PT_ERRNO_CANARY)
		PT_FAIL("sysconf(%d) changed errno to %d", name, errno);
	return v;
}

static int module_present(void)
{
	return __posix_trace_sysconf(_SC_TRACE) != -1;
}

/* 5.2, 5.3: the actual fixed limits, at least the POSIX minima (MODEL-33). */
/* REQ: MODEL-33 5.2 5.3 */
static void test_fixed_limits(void)
{
	size_t i;

	for (i = 0; i < NFNS; i++) {
		long v;

		v = call(fns[i].fn, _SC_TRACE_EVENT_NAME_MAX);
		EXPECT_EQ(v, TRACE_EVENT_NAME_MAX);
		EXPECT(v >= _POSIX_TRACE_EVENT_NAME_MAX);
		v = call(fns[i].fn, _SC_TRACE_NAME_MAX);
		EXPECT_EQ(v, TRACE_NAME_MAX);
		EXPECT(v >= _POSIX_TRACE_NAME_MAX);
		v = call(fns[i].fn, _SC_TRACE_USER_EVENT_MAX);
		EXPECT_EQ(v, TRACE_USER_EVENT_MAX);
		EXPECT(v >= _POSIX_TRACE_USER_EVENT_MAX);
	}
}

/* MODEL-32: the minima have exactly the POSIX values. */
/* REQ: MODEL-32 */
static void test_minima(void)
{
	EXPECT_EQ(_POSIX_TRACE_EVENT_NAME_MAX, 30);
	EXPECT_EQ(_POSIX_TRACE_NAME_MAX, 8);
	EXPECT_EQ(_POSIX_TRACE_SYS_MAX, 8);
	EXPECT_EQ(_POSIX_TRACE_USER_EVENT_MAX, 32);
}

/* MODEL-35: -1 or 200809L; 5.26: -1 without the module. */
/* REQ: MODEL-35 5.26 */
static void test_trace_option(void)
{
	size_t i;

	for (i = 0; i < NFNS; i++) {
		long v = call(fns[i].fn, _SC_TRACE);

		EXPECT(v == -1 || v == 200809L);
		if (access(POSIX_TRACE_DEVICE, F_OK) != 0)
			EXPECT_EQ(v, -1);
	}
}

/* MODEL-35/36: sub-options are -1 or 200809L and need _SC_TRACE. */
/* REQ: MODEL-35 MODEL-36 */
static void test_sub_options(void)
{
	static const int names[] = {
		_SC_TRACE_EVENT_FILTER, _SC_TRACE_LOG, _SC_TRACE_INHERIT,
	};
	size_t i, j;

	for (i = 0; i < NFNS; i++) {
		long trace = call(fns[i].fn, _SC_TRACE);

		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			long v = call(fns[i].fn, names[j]);

			EXPECT(v == -1 || v == 200809L);
			if (v != -1)
				EXPECT_EQ(trace, 200809L);
		}
	}
}

/* TRACE_SYS_MAX comes from the module: >= 8 if loaded, else -1 (5.2). */
/* REQ: 5.2 */
static void test_sys_max(void)
{
	size_t i;

	for (i = 0; i < NFNS; i++) {
		long v = call(fns[i].fn, _SC_TRACE_SYS_MAX);

		if (module_present())
			EXPECT(v >= _POSIX_TRACE_SYS_MAX);
		else
			EXPECT_EQ(v, -1);
	}
}

/* Other names reach glibc unchanged. */
/* REQ: 5.1 */
static void test_forwarding(void)
{
	size_t i;

	for (i = 0; i < NFNS; i++) {
		long v;

		EXPECT_EQ(call(fns[i].fn, _SC_PAGESIZE), getpagesize());
		EXPECT(call(fns[i].fn, _SC_CLK_TCK) > 0);
		EXPECT(call(fns[i].fn, _SC_OPEN_MAX) > 0);
		EXPECT_EQ(call(fns[i].fn, _SC_VERSION), _POSIX_VERSION);
		/* glibc reports an invalid name with EINVAL. */
		errno = 0;
		v = fns[i].fn(-1);
		EXPECT_EQ(v, -1);
		EXPECT_EQ(errno, EINVAL);
	}
}

/* A program linked with the library gets its sysconf(), not glibc's. */
/* REQ: 5.1 */
static void test_interposition(void)
{
	long (*volatile fn)(int) = sysconf;

	EXPECT_EQ(fn(_SC_TRACE_NAME_MAX), TRACE_NAME_MAX);
	EXPECT_EQ(fn(_SC_TRACE), __posix_trace_sysconf(_SC_TRACE));
}

int main(void)
{
	PT_RUN(test_minima, "MODEL-32 _POSIX_TRACE_*_MAX values");
	PT_RUN(test_fixed_limits, "MODEL-33 5.3 fixed TRACE_*_MAX limits");
	PT_RUN(test_trace_option, "MODEL-35 5.26 _SC_TRACE");
	PT_RUN(test_sub_options, "MODEL-35/36 _SC_TRACE_EVENT_FILTER/LOG/INHERIT");
	PT_RUN(test_sys_max, "5.2 _SC_TRACE_SYS_MAX");
	PT_RUN(test_forwarding, "5.1 other names are passed to glibc");
	PT_RUN(test_interposition, "5.1 sysconf() is interposed");
	return pt_test_done();
}
