// SPDX-License-Identifier: GPL-2.0
/*
 * sysconf_test - the option macros and sysconf() answers of a program
 * linked with -lposixtrace (spec 1.8, 1.9, 5.1-5.3).
 */
#include "pt_selftest.h"

FIXTURE(sysconf) {
	int unused;
};

FIXTURE_SETUP(sysconf)
{
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(sysconf)
{
}

/*
 * The Trace option is there; each sub-option is either advertised
 * (200809L) or left to sysconf() (0) while the library does not implement
 * it yet.
 */
static bool option_value_ok(long v)
{
	return v == 0 || v == 200809L;
}

/* REQ: MODEL-35 MODEL-36 HDR-1 5.1 */
TEST_F(sysconf, header_advertises_trace_and_valid_sub_options)
{
	ASSERT_EQ(200809L, _POSIX_TRACE);
	ASSERT_TRUE(option_value_ok(_POSIX_TRACE_EVENT_FILTER));
	ASSERT_TRUE(option_value_ok(_POSIX_TRACE_LOG));
	ASSERT_TRUE(option_value_ok(_POSIX_TRACE_INHERIT));
}

/* REQ: MODEL-32 MODEL-33 */
TEST_F(sysconf, header_limits_meet_posix_minima)
{
	ASSERT_EQ(30, _POSIX_TRACE_EVENT_NAME_MAX);
	ASSERT_EQ(8, _POSIX_TRACE_NAME_MAX);
	ASSERT_EQ(8, _POSIX_TRACE_SYS_MAX);
	ASSERT_EQ(32, _POSIX_TRACE_USER_EVENT_MAX);
	ASSERT_EQ(255, TRACE_EVENT_NAME_MAX);
	ASSERT_EQ(255, TRACE_NAME_MAX);
	ASSERT_EQ(1024, TRACE_USER_EVENT_MAX);
	ASSERT_EQ((trace_event_id_t)POSIX_TRACE_UNNAMED_USEREVENT,
		  (trace_event_id_t)POSIX_TRACE_UNNAMED_USER_EVENT);
}

/* sysconf() must confirm a compile-time 200809L; with 0 it decides. */
static bool sysconf_agrees(long header, long runtime)
{
	if (header == 200809L)
		return runtime == 200809L;
	return runtime == -1 || runtime == 200809L;
}

/* REQ: MODEL-35 MODEL-36 MODEL-38 5.1 */
TEST_F(sysconf, sysconf_reports_trace_supported_and_sub_options_consistently)
{
	ASSERT_EQ(200809L, sysconf(_SC_TRACE));
	EXPECT_TRUE(sysconf_agrees(_POSIX_TRACE_EVENT_FILTER,
				   sysconf(_SC_TRACE_EVENT_FILTER)));
	EXPECT_TRUE(sysconf_agrees(_POSIX_TRACE_LOG, sysconf(_SC_TRACE_LOG)));
	EXPECT_TRUE(sysconf_agrees(_POSIX_TRACE_INHERIT,
				   sysconf(_SC_TRACE_INHERIT)));
	TH_LOG("TEF %ld, TRL %ld, TRI %ld", sysconf(_SC_TRACE_EVENT_FILTER),
	       sysconf(_SC_TRACE_LOG), sysconf(_SC_TRACE_INHERIT));
}

/* The whole Tracing option group is implemented: every option is
 * advertised at compile time and confirmed at run time. */
/* REQ: MODEL-37 */
TEST_F(sysconf, whole_tracing_option_group_is_advertised)
{
	EXPECT_EQ(200809L, _POSIX_TRACE);
	EXPECT_EQ(200809L, _POSIX_TRACE_EVENT_FILTER);
	EXPECT_EQ(200809L, _POSIX_TRACE_LOG);
	EXPECT_EQ(200809L, _POSIX_TRACE_INHERIT);
	EXPECT_EQ(200809L, sysconf(_SC_TRACE));
	EXPECT_EQ(200809L, sysconf(_SC_TRACE_EVENT_FILTER));
	EXPECT_EQ(200809L, sysconf(_SC_TRACE_LOG));
	EXPECT_EQ(200809L, sysconf(_SC_TRACE_INHERIT));
}

/* REQ: 5.26 (a sub-option reported absent has no working functions) */
TEST_F(sysconf, sub_options_reported_absent_are_not_implemented)
{
	trace_event_set_t set;
	trace_id_t trid, t2 = -1;
	char path[] = "/tmp/pt-sysconf-XXXXXX";
	int fd;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &trid));
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	unlink(path);
	if (sysconf(_SC_TRACE_LOG) == -1) {
		EXPECT_NE(0, posix_trace_create_withlog(0, NULL, fd, &t2));
		EXPECT_NE(0, posix_trace_open(fd, &t2));
	}
	if (sysconf(_SC_TRACE_EVENT_FILTER) == -1) {
		ASSERT_EQ(0, posix_trace_eventset_empty(&set));
		EXPECT_NE(0, posix_trace_set_filter(trid, &set,
						    POSIX_TRACE_SET_EVENTSET));
	}
	close(fd);
	posix_trace_shutdown(trid);
}

/* REQ: MODEL-33 MODEL-34 MODEL-38 5.2 5.3 */
TEST_F(sysconf, sysconf_reports_limits)
{
	ASSERT_EQ(TRACE_EVENT_NAME_MAX, sysconf(_SC_TRACE_EVENT_NAME_MAX));
	ASSERT_EQ(TRACE_NAME_MAX, sysconf(_SC_TRACE_NAME_MAX));
	ASSERT_EQ(TRACE_USER_EVENT_MAX, sysconf(_SC_TRACE_USER_EVENT_MAX));
	ASSERT_GE(sysconf(_SC_TRACE_SYS_MAX), _POSIX_TRACE_SYS_MAX);
}

/* REQ: 5.1 */
TEST_F(sysconf, helper_agrees_with_sysconf_and_forwards_other_names)
{
	static const int names[] = {
		_SC_TRACE, _SC_TRACE_EVENT_FILTER, _SC_TRACE_LOG,
		_SC_TRACE_INHERIT, _SC_TRACE_EVENT_NAME_MAX,
		_SC_TRACE_NAME_MAX, _SC_TRACE_SYS_MAX,
		_SC_TRACE_USER_EVENT_MAX, _SC_PAGESIZE, _SC_OPEN_MAX,
		_SC_NPROCESSORS_ONLN,
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		errno = 0;
		EXPECT_EQ(sysconf(names[i]), __posix_trace_sysconf(names[i]))
			TH_LOG("sysconf name %d", names[i]);
	}
	/* Names other than _SC_TRACE* still reach glibc. */
	ASSERT_EQ(getpagesize(), sysconf(_SC_PAGESIZE));
	ASSERT_GE(sysconf(_SC_NPROCESSORS_ONLN), 1);
}

TEST_HARNESS_MAIN
