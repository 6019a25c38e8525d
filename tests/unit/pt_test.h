/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Minimal unit test framework.  Each test is a void function run by
 * PT_RUN(); it prints "ok N - name" or "not ok N - name" (KTAP-ish), with
 * "# ..." diagnostics for each failed expectation before it.
 * pt_test_done() prints "P passed, F failed" as the last line and gives
 * the exit status.
 */
#ifndef PT_TEST_H
#define PT_TEST_H

#include <errno.h>
#include <stdio.h>

/* Stored in errno before every call: FN-1 forbids touching errno. */
#define PT_ERRNO_CANARY	12345

static int pt_t_num, pt_t_failed, pt_t_cur;

#define PT_FAIL(...) do {						\
	pt_t_cur++;							\
	printf("# %s:%d: ", __FILE__, __LINE__);			\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
} while (0)

#define EXPECT(cond) do {						\
	if (!(cond))							\
		PT_FAIL("expected %s", #cond);				\
} while (0)

/* Compares as unsigned long long, which keeps -1 == SIZE_MAX cases equal. */
#define EXPECT_EQ(a, b) do {						\
	unsigned long long a_ = (unsigned long long)(a);		\
	unsigned long long b_ = (unsigned long long)(b);		\
	if (a_ != b_)							\
		PT_FAIL("%s == %lld, expected %s == %lld",		\
			#a, (long long)a_, #b, (long long)b_);		\
} while (0)

/* Evaluate @call once: it must return @want and leave errno unchanged. */
#define EXPECT_RC(call, want) do {					\
	int rc_, errno_;						\
	errno = PT_ERRNO_CANARY;					\
	rc_ = (call);							\
	errno_ = errno;							\
	if (rc_ != (want))						\
		PT_FAIL("%s returned %d, expected %d", #call, rc_,	\
			(int)(want));					\
	if (errno_ != PT_ERRNO_CANARY)					\
		PT_FAIL("%s changed errno to %d", #call, errno_);	\
} while (0)

#define PT_RUN(fn, name) pt_test_run(fn, name)

static inline void pt_test_run(void (*fn)(void), const char *name)
{
	pt_t_cur = 0;
	fn();
	pt_t_num++;
	if (pt_t_cur)
		pt_t_failed++;
	printf("%sok %d - %s\n", pt_t_cur ? "not " : "", pt_t_num, name);
	fflush(stdout);
}

static inline int pt_test_done(void)
{
	printf("%d passed, %d failed\n", pt_t_num - pt_t_failed, pt_t_failed);
	return pt_t_failed ? 1 : 0;
}

#endif /* PT_TEST_H */
