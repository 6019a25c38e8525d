// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the posix_trace_attr_* functions (spec 3.1, 5.4-5.6,
 * 5.23).  No kernel module is needed.  Every call goes through EXPECT_RC,
 * which also checks that errno is left alone (FN-1).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <trace.h>

#include "internal.h"
#include "pt_test.h"

#define CANARY		0x5a
#define CANARY_LEN	32

/* An object that was never initialized: zeroed, or garbage. */
static void uninit(trace_attr_t *attr, int garbage)
{
	memset(attr, garbage ? 0xa5 : 0, sizeof(*attr));
}

static size_t round8(size_t n)
{
	return (n + 7) / 8 * 8;
}

/* REQ: ATTRINIT-1 ATTRINIT-2 GETCLOCKRES-1 GETGENVERSION-1 GETNAME-1 SETNAME-3 INHERIT-3 LOGPOL-3 STRSIZE-3 MAXDATA-3 LOGSIZE-4 FN-1 */
static void test_defaults(void)
{
	trace_attr_t attr;
	struct timespec ts = { 1, 1 }, res;
	char buf[TRACE_NAME_MAX];
	size_t sz;
	int v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "") == 0);
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, buf), 0);
	EXPECT(strcmp(buf, POSIX_TRACE_GENVERSION) == 0);
	EXPECT(strlen(buf) > 0 && strlen(buf) < TRACE_NAME_MAX);
	EXPECT_RC(posix_trace_attr_getcreatetime(&attr, &ts), 0);
	EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 0);
	EXPECT_RC(posix_trace_attr_getclockres(&attr, &ts), 0);
	EXPECT(ts.tv_sec > 0 || ts.tv_nsec > 0);
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0 &&
	    (res.tv_sec || res.tv_nsec))
		EXPECT(ts.tv_sec == res.tv_sec && ts.tv_nsec == res.tv_nsec);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
	EXPECT_RC(posix_trace_attr_getlogfullpolicy(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_LOOP);
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_LOOP);
	/* 5.6: the policy is reported LOOP but stays "not explicitly set". */
	EXPECT(!(attr.__flags & PT_ATTR_STREAM_POLICY_SET));
	EXPECT_RC(posix_trace_attr_getstreamsize(&attr, &sz), 0);
	EXPECT_EQ(sz, PT_DEFAULT_STREAM_SIZE);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(&attr, &sz), 0);
	EXPECT_EQ(sz, PT_DEFAULT_MAX_DATA_SIZE);
	EXPECT_RC(posix_trace_attr_getlogsize(&attr, &sz), 0);
	EXPECT_EQ(sz, PT_DEFAULT_LOG_SIZE);
	EXPECT_RC(posix_trace_attr_destroy(&attr), 0);
}

/* Defaults do not depend on what the memory held before init. */
/* REQ: ATTRINIT-1 */
static void test_init_over_garbage(void)
{
	trace_attr_t a, b;
	char n1[TRACE_NAME_MAX], n2[TRACE_NAME_MAX];
	size_t s1, s2;

	uninit(&a, 1);
	uninit(&b, 0);
	EXPECT_RC(posix_trace_attr_init(&a), 0);
	EXPECT_RC(posix_trace_attr_init(&b), 0);
	EXPECT(memcmp(&a, &b, sizeof(a)) == 0);
	EXPECT_RC(posix_trace_attr_getname(&a, n1), 0);
	EXPECT_RC(posix_trace_attr_getname(&b, n2), 0);
	EXPECT(strcmp(n1, n2) == 0);
	EXPECT_RC(posix_trace_attr_getstreamsize(&a, &s1), 0);
	EXPECT_RC(posix_trace_attr_getstreamsize(&b, &s2), 0);
	EXPECT_EQ(s1, s2);
}

/* REQ: SETNAME-1 GETNAME-1 */
static void test_name_roundtrip(void)
{
	trace_attr_t attr;
	char buf[TRACE_NAME_MAX];

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, "my-trace"), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "my-trace") == 0);
	/* A shorter name replaces the longer one completely. */
	EXPECT_RC(posix_trace_attr_setname(&attr, "ab"), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "ab") == 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, ""), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "") == 0);
	/* Names are byte strings. */
	EXPECT_RC(posix_trace_attr_setname(&attr, "\xc3\xa9t\xc3\xa9 \x01\xff"), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "\xc3\xa9t\xc3\xa9 \x01\xff") == 0);
}

/* setname(len), then getname into a canary-guarded TRACE_NAME_MAX buffer. */
static void check_name_len(size_t len)
{
	trace_attr_t attr;
	char *name = malloc(len + 1);
	unsigned char guarded[CANARY_LEN + TRACE_NAME_MAX + CANARY_LEN];
	char *buf = (char *)guarded + CANARY_LEN;
	size_t want = len < TRACE_NAME_MAX - 1 ? len : TRACE_NAME_MAX - 1;
	size_t i;

	if (!name) {
		PT_FAIL("malloc");
		return;
	}
	for (i = 0; i < len; i++)
		name[i] = 'a' + i % 26;
	name[len] = '\0';
	memset(guarded, CANARY, sizeof(guarded));
	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, name), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT_EQ(strlen(buf), want);
	EXPECT(memcmp(buf, name, want) == 0);
	for (i = 0; i < CANARY_LEN; i++) {
		EXPECT(guarded[i] == CANARY);
		EXPECT(guarded[CANARY_LEN + TRACE_NAME_MAX + i] == CANARY);
	}
	free(name);
}

/* REQ: SETNAME-2 GETNAME-2 */
static void test_name_truncation(void)
{
	check_name_len(300);
	check_name_len(TRACE_NAME_MAX + 1);
	check_name_len(TRACE_NAME_MAX);
	check_name_len(TRACE_NAME_MAX - 1);
	check_name_len(TRACE_NAME_MAX - 2);
	check_name_len(4096);
}

/* Exactly TRACE_NAME_MAX heap bytes: ASan reports any overflow. */
/* REQ: GETNAME-2 GETGENVERSION-2 */
static void test_name_heap_buffer(void)
{
	trace_attr_t attr;
	char *buf = malloc(TRACE_NAME_MAX);
	char name[300];

	if (!buf) {
		PT_FAIL("malloc");
		return;
	}
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, name), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT_EQ(strlen(buf), TRACE_NAME_MAX - 1);
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, buf), 0);
	EXPECT(strcmp(buf, POSIX_TRACE_GENVERSION) == 0);
	free(buf);
}

/* The name may come from the object itself (no restrict on setname). */
/* REQ: SETNAME-1 */
static void test_name_overlap(void)
{
	trace_attr_t attr;
	char buf[TRACE_NAME_MAX];

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, "abcdef"), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, attr.__name + 2), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "cdef") == 0);
}

/* get_attr fills the fields from outside: unterminated fields are bounded. */
/* REQ: GETNAME-2 GETGENVERSION-2 5.4 */
static void test_name_unterminated_fields(void)
{
	trace_attr_t attr;
	unsigned char guarded[CANARY_LEN + TRACE_NAME_MAX + CANARY_LEN];
	char *buf = (char *)guarded + CANARY_LEN;
	size_t i;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	memset(attr.__name, 'n', sizeof(attr.__name));
	memset(attr.__genversion, 'g', sizeof(attr.__genversion));
	memset(guarded, CANARY, sizeof(guarded));
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT_EQ(strlen(buf), TRACE_NAME_MAX - 1);
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, buf), 0);
	EXPECT_EQ(strlen(buf), sizeof(attr.__genversion) - 1);
	for (i = 0; i < CANARY_LEN; i++) {
		EXPECT(guarded[i] == CANARY);
		EXPECT(guarded[CANARY_LEN + TRACE_NAME_MAX + i] == CANARY);
	}
}

/* REQ: GETGENVERSION-1 GETGENVERSION-2 */
static void test_genversion_guarded(void)
{
	trace_attr_t attr;
	unsigned char guarded[CANARY_LEN + TRACE_NAME_MAX + CANARY_LEN];
	char *buf = (char *)guarded + CANARY_LEN;
	size_t i;

	memset(guarded, CANARY, sizeof(guarded));
	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, buf), 0);
	EXPECT(strcmp(buf, POSIX_TRACE_GENVERSION) == 0);
	for (i = 0; i < CANARY_LEN; i++)
		EXPECT(guarded[i] == CANARY);
	/* Nothing beyond the NUL is written. */
	for (i = strlen(POSIX_TRACE_GENVERSION) + 1; i < TRACE_NAME_MAX + CANARY_LEN; i++)
		EXPECT(guarded[CANARY_LEN + i] == CANARY);
}

/* REQ: INHERIT-1 INHERIT-2 */
static void test_inherited(void)
{
	trace_attr_t attr;
	int v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED), 0);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_INHERITED);
	EXPECT_RC(posix_trace_attr_setinherited(&attr, -1), EINVAL);
	EXPECT_RC(posix_trace_attr_setinherited(&attr, 2), EINVAL);
	EXPECT_RC(posix_trace_attr_setinherited(&attr, POSIX_TRACE_LOOP + 100), EINVAL);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_INHERITED);
	EXPECT_RC(posix_trace_attr_setinherited(&attr, POSIX_TRACE_CLOSE_FOR_CHILD), 0);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
}

/* REQ: LOGPOL-1 LOGPOL-2 */
static void test_logfullpolicy(void)
{
	static const int good[] = {
		POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND, POSIX_TRACE_LOOP,
	};
	static const int bad[] = { POSIX_TRACE_FLUSH, 0, 5, -1, 1000 };
	trace_attr_t attr;
	size_t i;
	int v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setlogfullpolicy(&attr, good[i]), 0);
		EXPECT_RC(posix_trace_attr_getlogfullpolicy(&attr, &v), 0);
		EXPECT_EQ(v, good[i]);
	}
	EXPECT_RC(posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setlogfullpolicy(&attr, bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getlogfullpolicy(&attr, &v), 0);
		EXPECT_EQ(v, POSIX_TRACE_APPEND);
	}
}

/* REQ: STRPOL-1 STRPOL-2 5.6 */
static void test_streamfullpolicy(void)
{
	static const int good[] = {
		POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP,
	};
	static const int bad[] = { POSIX_TRACE_APPEND, 0, 5, -1, 1000 };
	trace_attr_t attr;
	size_t i;
	int v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	/* A rejected value does not mark the policy as set (5.6). */
	EXPECT_RC(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_APPEND), EINVAL);
	EXPECT(!(attr.__flags & PT_ATTR_STREAM_POLICY_SET));
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setstreamfullpolicy(&attr, good[i]), 0);
		EXPECT(attr.__flags & PT_ATTR_STREAM_POLICY_SET);
		EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
		EXPECT_EQ(v, good[i]);
	}
	/* Explicit LOOP stays explicit: create_withlog must not use FLUSH. */
	EXPECT(attr.__flags & PT_ATTR_STREAM_POLICY_SET);
	EXPECT_EQ(attr.__stream_policy, POSIX_TRACE_LOOP);
	EXPECT_RC(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setstreamfullpolicy(&attr, bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
		EXPECT_EQ(v, POSIX_TRACE_UNTIL_FULL);
	}
}

/* REQ: STRSIZE-1 STRSIZE-2 */
static void test_streamsize(void)
{
	static const size_t good[] = {
		PT_MAX_SYSTEM_EVENT_SIZE, PT_MAX_SYSTEM_EVENT_SIZE + 1, 4096,
		PT_MAX_STREAM_SIZE - 1, PT_MAX_STREAM_SIZE,
	};
	static const size_t bad[] = {
		0, 1, PT_MAX_SYSTEM_EVENT_SIZE - 1, PT_MAX_STREAM_SIZE + 1,
		SIZE_MAX,
	};
	trace_attr_t attr;
	size_t i, v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setstreamsize(&attr, good[i]), 0);
		EXPECT_RC(posix_trace_attr_getstreamsize(&attr, &v), 0);
		EXPECT_EQ(v, good[i]);
	}
	EXPECT_RC(posix_trace_attr_setstreamsize(&attr, 8192), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setstreamsize(&attr, bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getstreamsize(&attr, &v), 0);
		EXPECT_EQ(v, 8192);
	}
}

/* REQ: MAXDATA-1 MAXDATA-2 */
static void test_maxdatasize(void)
{
	static const size_t vals[] = {
		0, 1, 7, 256, POSIX_TRACE_MAX_DATA_MAX,
		POSIX_TRACE_MAX_DATA_MAX + 1, SIZE_MAX,
	};
	trace_attr_t attr;
	size_t i, v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	/* Stored as given; the module clamps at create (MAXDATA-4). */
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		EXPECT_RC(posix_trace_attr_setmaxdatasize(&attr, vals[i]), 0);
		EXPECT_RC(posix_trace_attr_getmaxdatasize(&attr, &v), 0);
		EXPECT_EQ(v, vals[i]);
	}
}

/* REQ: LOGSIZE-1 LOGSIZE-2 */
static void test_logsize(void)
{
	static const size_t good[] = {
		2 * PT_MAX_SYSTEM_EVENT_SIZE, 2 * PT_MAX_SYSTEM_EVENT_SIZE + 1,
		1 << 20, SIZE_MAX / 2, SIZE_MAX,
	};
	static const size_t bad[] = {
		0, 1, PT_MAX_SYSTEM_EVENT_SIZE, 2 * PT_MAX_SYSTEM_EVENT_SIZE - 1,
	};
	trace_attr_t attr;
	size_t i, v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setlogsize(&attr, good[i]), 0);
		EXPECT_RC(posix_trace_attr_getlogsize(&attr, &v), 0);
		EXPECT_EQ(v, good[i]);
	}
	EXPECT_RC(posix_trace_attr_setlogsize(&attr, 1 << 20), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setlogsize(&attr, bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getlogsize(&attr, &v), 0);
		EXPECT_EQ(v, 1 << 20);
	}
}

/*
 * The never-lose mode attribute: 0 after init, any wait from 1 ns to 60 s
 * kept as given, and bad ones refused without changing it.
 */
static void test_fullwait_np(void)
{
	static const struct timespec good[] = {
		{ 0, 0 }, { 0, 1 }, { 1, 0 }, { 0, 999999999 }, { 59, 999999999 },
		{ 60, 0 },
	};
	static const struct timespec bad[] = {
		{ -1, 0 }, { 0, -1 }, { 0, 1000000000 }, { 60, 1 }, { 61, 0 },
		{ 1L << 40, 0 },
	};
	struct timespec v, keep = { 2, 500 };
	trace_attr_t attr;
	size_t i;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_getfullwait_np(&attr, &v), 0);
	EXPECT(v.tv_sec == 0 && v.tv_nsec == 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setfullwait_np(&attr, &good[i]), 0);
		EXPECT_RC(posix_trace_attr_getfullwait_np(&attr, &v), 0);
		EXPECT(v.tv_sec == good[i].tv_sec && v.tv_nsec == good[i].tv_nsec);
	}
	EXPECT_RC(posix_trace_attr_setfullwait_np(&attr, &keep), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setfullwait_np(&attr, &bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getfullwait_np(&attr, &v), 0);
		EXPECT(v.tv_sec == keep.tv_sec && v.tv_nsec == keep.tv_nsec);
	}
	EXPECT_RC(posix_trace_attr_setfullwait_np(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getfullwait_np(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_setfullwait_np(NULL, &keep), EINVAL);
	EXPECT_RC(posix_trace_attr_getfullwait_np(NULL, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_destroy(&attr), 0);
	EXPECT_RC(posix_trace_attr_getfullwait_np(&attr, &v), EINVAL);
}

/*
 * The kernel events attribute: 0 (off) after init, every combination of
 * the known classes kept as given, any other bit refused without a
 * change.  It lives where trace_attr_t had a reserved int: the object's
 * size and layout are those of before.
 */
static void test_kernelclasses_np(void)
{
	static const unsigned int good[] = {
		0, POSIX_TRACE_KERNEL_SYSCALL_NP, POSIX_TRACE_KERNEL_SIGNAL_NP,
		POSIX_TRACE_KERNEL_SCHED_NP, POSIX_TRACE_KERNEL_PROCESS_NP,
		POSIX_TRACE_KERNEL_ALL_NP,
		POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_PROCESS_NP,
		POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP,
		POSIX_TRACE_KERNEL_SIGNAL_NP | POSIX_TRACE_KERNEL_PROCESS_NP,
		POSIX_TRACE_KERNEL_SCHED_NP | POSIX_TRACE_KERNEL_SYSCALL_NP,
		POSIX_TRACE_KERNEL_SCHED_NP | POSIX_TRACE_KERNEL_PROCESS_NP,
		POSIX_TRACE_KERNEL_ALL_NP & ~POSIX_TRACE_KERNEL_SCHED_NP,
		POSIX_TRACE_KERNEL_FAULT_NP,
		POSIX_TRACE_KERNEL_FAULT_NP | POSIX_TRACE_KERNEL_SCHED_NP,
		POSIX_TRACE_KERNEL_FAULT_NP | POSIX_TRACE_KERNEL_SYSCALL_NP,
		POSIX_TRACE_KERNEL_ALL_NP & ~POSIX_TRACE_KERNEL_FAULT_NP,
		1u << 1, 1u << 2, 1u << 3,
	};
	static const unsigned int bad[] = {
		1u << 5, 1u << 6, 1u << 8, 1u << 31, ~0u,
		POSIX_TRACE_KERNEL_ALL_NP | 1u << 5, POSIX_TRACE_KERNEL_ALL_NP | 1u << 6,
		POSIX_TRACE_KERNEL_SIGNAL_NP | 1u << 5,
		POSIX_TRACE_KERNEL_FAULT_NP | 1u << 5,
		POSIX_TRACE_KERNEL_FAULT_NP | 1u << 31,
		POSIX_TRACE_KERNEL_SCHED_NP | 1u << 31, ~POSIX_TRACE_KERNEL_ALL_NP,
	};
	unsigned int v;
	trace_attr_t attr;
	size_t i;

	EXPECT_EQ(POSIX_TRACE_KERNEL_SYSCALL_NP, POSIX_TRACE_KCLASS_SYSCALL);
	EXPECT_EQ(POSIX_TRACE_KERNEL_SIGNAL_NP, POSIX_TRACE_KCLASS_SIGNAL);
	EXPECT_EQ(POSIX_TRACE_KERNEL_SIGNAL_NP, 1u << 1);
	EXPECT_EQ(POSIX_TRACE_KERNEL_SCHED_NP, POSIX_TRACE_KCLASS_SCHED);
	EXPECT_EQ(POSIX_TRACE_KERNEL_SCHED_NP, 1u << 2);
	EXPECT_EQ(POSIX_TRACE_KERNEL_FAULT_NP, POSIX_TRACE_KCLASS_FAULT);
	EXPECT_EQ(POSIX_TRACE_KERNEL_FAULT_NP, 1u << 3);
	EXPECT_EQ(POSIX_TRACE_KERNEL_PROCESS_NP, 1u << 4);
	EXPECT_EQ(POSIX_TRACE_KERNEL_PROCESS_NP, POSIX_TRACE_KCLASS_PROCESS);
	EXPECT_EQ(POSIX_TRACE_KERNEL_ALL_NP, POSIX_TRACE_KCLASS_ALL);
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
	EXPECT_EQ(sizeof(trace_attr_t), 496);
#endif
	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	v = 77;
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(&attr, &v), 0);
	EXPECT_EQ(v, 0);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_RC(posix_trace_attr_setkernelclasses_np(&attr, good[i]), 0);
		EXPECT_RC(posix_trace_attr_getkernelclasses_np(&attr, &v), 0);
		EXPECT_EQ(v, good[i]);
	}
	EXPECT_RC(posix_trace_attr_setkernelclasses_np(&attr, POSIX_TRACE_KERNEL_PROCESS_NP), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_attr_setkernelclasses_np(&attr, bad[i]), EINVAL);
		EXPECT_RC(posix_trace_attr_getkernelclasses_np(&attr, &v), 0);
		EXPECT_EQ(v, POSIX_TRACE_KERNEL_PROCESS_NP);
	}
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_setkernelclasses_np(NULL, 0), EINVAL);
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(NULL, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_destroy(&attr), 0);
	EXPECT_RC(posix_trace_attr_setkernelclasses_np(&attr, 0), EINVAL);
	v = 77;
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(&attr, &v), EINVAL);
	EXPECT_EQ(v, 77);
}

/* REQ: MAXSYSEV-1 */
static void test_maxsystemeventsize(void)
{
	trace_attr_t attr;
	size_t v, min;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_getmaxsystemeventsize(&attr, &v), 0);
	EXPECT_EQ(v, PT_MAX_SYSTEM_EVENT_SIZE);
	/* The FILTER event: a record header plus two sets (HDR-10). */
	EXPECT(v >= sizeof(struct posix_trace_record) + 2 * sizeof(trace_event_set_t));
	EXPECT_EQ(v % 8, 0);
	/* Independent of the max-data-size attribute. */
	EXPECT_RC(posix_trace_attr_setmaxdatasize(&attr, SIZE_MAX), 0);
	EXPECT_RC(posix_trace_attr_getmaxsystemeventsize(&attr, &min), 0);
	EXPECT_EQ(min, v);
	/* MAXSYSEV-2: the smallest stream holds one maximal system event. */
	EXPECT_RC(posix_trace_attr_setstreamsize(&attr, v), 0);
}

/* Expected size of a user event with @len bytes under max-data-size @max. */
static size_t user_size(size_t max, size_t len)
{
	size_t hdr = sizeof(struct posix_trace_record);

	if (max > POSIX_TRACE_MAX_DATA_MAX)
		max = POSIX_TRACE_MAX_DATA_MAX;
	if (len > max)
		len = max;
	return round8(hdr + len);
}

/* REQ: MAXUSREV-1 */
static void test_maxusereventsize(void)
{
	static const size_t maxes[] = {
		0, 1, 8, 256, 1000, POSIX_TRACE_MAX_DATA_MAX,
		POSIX_TRACE_MAX_DATA_MAX + 1, SIZE_MAX,
	};
	static const size_t lens[] = {
		0, 1, 7, 8, 9, 255, 256, 257, 1000, POSIX_TRACE_MAX_DATA_MAX,
		POSIX_TRACE_MAX_DATA_MAX + 1, SIZE_MAX - 7, SIZE_MAX,
	};
	size_t hdr = sizeof(struct posix_trace_record);
	trace_attr_t attr;
	size_t i, j, v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	/* Default max-data-size 256: worked examples. */
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(&attr, 0, &v), 0);
	EXPECT_EQ(v, round8(hdr));
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(&attr, 1, &v), 0);
	EXPECT_EQ(v, round8(hdr + 1));
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(&attr, 100000, &v), 0);
	EXPECT_EQ(v, round8(hdr + 256));
	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		EXPECT_RC(posix_trace_attr_setmaxdatasize(&attr, maxes[i]), 0);
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			EXPECT_RC(posix_trace_attr_getmaxusereventsize(&attr,
					lens[j], &v), 0);
			EXPECT_EQ(v, user_size(maxes[i], lens[j]));
			EXPECT_EQ(v % 8, 0);
			EXPECT(v >= hdr);
		}
	}
}

/* Every function with a NULL attributes object. */
/* REQ: FN-1 */
static void test_null_attr(void)
{
	struct timespec ts;
	char buf[TRACE_NAME_MAX];
	size_t sz;
	int v;

	EXPECT_RC(posix_trace_attr_init(NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_destroy(NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getclockres(NULL, &ts), EINVAL);
	EXPECT_RC(posix_trace_attr_getcreatetime(NULL, &ts), EINVAL);
	EXPECT_RC(posix_trace_attr_getgenversion(NULL, buf), EINVAL);
	EXPECT_RC(posix_trace_attr_getname(NULL, buf), EINVAL);
	EXPECT_RC(posix_trace_attr_setname(NULL, "x"), EINVAL);
	EXPECT_RC(posix_trace_attr_getinherited(NULL, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setinherited(NULL, POSIX_TRACE_INHERITED), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogfullpolicy(NULL, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setlogfullpolicy(NULL, POSIX_TRACE_LOOP), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(NULL, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setstreamfullpolicy(NULL, POSIX_TRACE_LOOP), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogsize(NULL, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setlogsize(NULL, 1 << 20), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(NULL, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setmaxdatasize(NULL, 16), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxsystemeventsize(NULL, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(NULL, 16, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamsize(NULL, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setstreamsize(NULL, 1 << 20), EINVAL);
	EXPECT_EQ(pt_attr_check(NULL), EINVAL);
}

/*
 * Every function except init on @attr must fail with EINVAL, write no
 * output and leave the object as it was.
 */
static void expect_all_einval(trace_attr_t *attr)
{
	trace_attr_t before = *attr;
	struct timespec ts = { 77, 77 };
	char buf[8] = "canary!";
	size_t sz = 77;
	int v = 77;

	EXPECT_EQ(pt_attr_check(attr), EINVAL);
	EXPECT_RC(posix_trace_attr_destroy(attr), EINVAL);
	EXPECT_RC(posix_trace_attr_getclockres(attr, &ts), EINVAL);
	EXPECT_RC(posix_trace_attr_getcreatetime(attr, &ts), EINVAL);
	EXPECT_RC(posix_trace_attr_getgenversion(attr, buf), EINVAL);
	EXPECT_RC(posix_trace_attr_getname(attr, buf), EINVAL);
	EXPECT_RC(posix_trace_attr_setname(attr, "x"), EINVAL);
	EXPECT_RC(posix_trace_attr_getinherited(attr, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setinherited(attr, POSIX_TRACE_INHERITED), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogfullpolicy(attr, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setlogfullpolicy(attr, POSIX_TRACE_APPEND), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(attr, &v), EINVAL);
	EXPECT_RC(posix_trace_attr_setstreamfullpolicy(attr, POSIX_TRACE_FLUSH), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogsize(attr, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setlogsize(attr, 1 << 20), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(attr, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setmaxdatasize(attr, 16), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxsystemeventsize(attr, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(attr, 16, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamsize(attr, &sz), EINVAL);
	EXPECT_RC(posix_trace_attr_setstreamsize(attr, 1 << 20), EINVAL);
	EXPECT(ts.tv_sec == 77 && ts.tv_nsec == 77);
	EXPECT(strcmp(buf, "canary!") == 0);
	EXPECT_EQ(sz, 77);
	EXPECT_EQ(v, 77);
	EXPECT(memcmp(&before, attr, sizeof(before)) == 0);
}

/* REQ: FN-1 FN-2 */
static void test_uninitialized(void)
{
	trace_attr_t attr;

	uninit(&attr, 0);
	expect_all_einval(&attr);
	uninit(&attr, 1);
	expect_all_einval(&attr);
}

/* Every getter with a NULL output, and setname with a NULL name. */
/* REQ: FN-1 */
static void test_null_outputs(void)
{
	trace_attr_t attr, before;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, "keep"), 0);
	before = attr;
	EXPECT_RC(posix_trace_attr_getclockres(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getcreatetime(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getname(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_setname(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogfullpolicy(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getlogsize(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxsystemeventsize(&attr, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getmaxusereventsize(&attr, 16, NULL), EINVAL);
	EXPECT_RC(posix_trace_attr_getstreamsize(&attr, NULL), EINVAL);
	EXPECT(memcmp(&before, &attr, sizeof(attr)) == 0);
}

/* REQ: ATTRDES-1 ATTRDES-2 */
static void test_destroy_reinit(void)
{
	trace_attr_t attr;
	char buf[TRACE_NAME_MAX];
	size_t sz;
	int v;

	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_EQ(pt_attr_check(&attr), 0);
	EXPECT_RC(posix_trace_attr_setname(&attr, "old"), 0);
	EXPECT_RC(posix_trace_attr_setstreamsize(&attr, 4096), 0);
	EXPECT_RC(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL), 0);
	EXPECT_RC(posix_trace_attr_destroy(&attr), 0);
	/* Destroyed: unusable, and a second destroy fails too (ATTRDES-2). */
	expect_all_einval(&attr);
	/* Re-initialized: back to the defaults. */
	EXPECT_RC(posix_trace_attr_init(&attr), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, buf), 0);
	EXPECT(strcmp(buf, "") == 0);
	EXPECT_RC(posix_trace_attr_getstreamsize(&attr, &sz), 0);
	EXPECT_EQ(sz, PT_DEFAULT_STREAM_SIZE);
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_LOOP);
	EXPECT(!(attr.__flags & PT_ATTR_STREAM_POLICY_SET));
	EXPECT_RC(posix_trace_attr_destroy(&attr), 0);
}

/* Two objects are independent; a copy is a snapshot (MODEL-30 spirit). */
static void test_independent_objects(void)
{
	trace_attr_t a, b;
	char buf[TRACE_NAME_MAX];
	int v;

	EXPECT_RC(posix_trace_attr_init(&a), 0);
	EXPECT_RC(posix_trace_attr_init(&b), 0);
	EXPECT_RC(posix_trace_attr_setname(&a, "A"), 0);
	EXPECT_RC(posix_trace_attr_setinherited(&a, POSIX_TRACE_INHERITED), 0);
	EXPECT_RC(posix_trace_attr_getname(&b, buf), 0);
	EXPECT(strcmp(buf, "") == 0);
	EXPECT_RC(posix_trace_attr_getinherited(&b, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
	EXPECT_RC(posix_trace_attr_destroy(&a), 0);
	EXPECT_RC(posix_trace_attr_getname(&b, buf), 0);
	EXPECT_RC(posix_trace_attr_destroy(&b), 0);
}

int main(void)
{
	PT_RUN(test_defaults, "ATTRINIT-1/2 defaults after posix_trace_attr_init");
	PT_RUN(test_fullwait_np, "never-lose mode attribute (setfullwait_np)");
	PT_RUN(test_kernelclasses_np, "kernel events attribute (setkernelclasses_np)");
	PT_RUN(test_init_over_garbage, "ATTRINIT-1 init ignores previous contents");
	PT_RUN(test_name_roundtrip, "SETNAME-1 GETNAME-1 name round trip");
	PT_RUN(test_name_truncation, "SETNAME-2 long names truncated, canaries intact");
	PT_RUN(test_name_heap_buffer, "GETNAME-2 GETGENVERSION-2 exact TRACE_NAME_MAX buffer");
	PT_RUN(test_name_overlap, "SETNAME-1 name taken from the object itself");
	PT_RUN(test_name_unterminated_fields, "5.4 unterminated fields bounded");
	PT_RUN(test_genversion_guarded, "GETGENVERSION-1/2 genversion, canaries intact");
	PT_RUN(test_inherited, "INHERIT-1/2 round trip and EINVAL");
	PT_RUN(test_logfullpolicy, "LOGPOL-1/2 round trip and EINVAL");
	PT_RUN(test_streamfullpolicy, "STRPOL-1/2 5.6 round trip, set flag, EINVAL");
	PT_RUN(test_streamsize, "STRSIZE-1/2 round trip and bounds");
	PT_RUN(test_maxdatasize, "MAXDATA-1/2 stored as given");
	PT_RUN(test_logsize, "LOGSIZE-1/2 round trip and lower bound");
	PT_RUN(test_maxsystemeventsize, "MAXSYSEV-1/2 maximal system event size");
	PT_RUN(test_maxusereventsize, "MAXUSREV-1 user event size arithmetic");
	PT_RUN(test_null_attr, "EINVAL for a NULL attributes object");
	PT_RUN(test_uninitialized, "EINVAL for uninitialized objects, outputs untouched");
	PT_RUN(test_null_outputs, "EINVAL for NULL output pointers and name");
	PT_RUN(test_destroy_reinit, "ATTRDES-1/2 destroy, then re-init");
	PT_RUN(test_independent_objects, "objects are independent");
	return pt_test_done();
}
