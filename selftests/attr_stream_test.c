// SPDX-License-Identifier: GPL-2.0
/*
 * attr_stream_test - posix_trace_get_attr() of created streams: name,
 * effective sizes and policies, creation time, generation version, clock
 * resolution, and independence from the attributes object after create.
 */
#include "pt_selftest.h"

FIXTURE(attr_stream) {
	trace_attr_t attr;	/* used to create */
	trace_attr_t got;	/* filled by get_attr */
	trace_id_t trid[4];
	int ntrid;
};

FIXTURE_SETUP(attr_stream)
{
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_init(&self->got));
}

FIXTURE_TEARDOWN(attr_stream)
{
	int i;

	for (i = 0; i < self->ntrid; i++)
		posix_trace_shutdown(self->trid[i]);
	posix_trace_attr_destroy(&self->attr);
	posix_trace_attr_destroy(&self->got);
}

static int create_from(FIXTURE_DATA(attr_stream) *self, trace_id_t *trid)
{
	int ret = posix_trace_create(0, &self->attr, trid);

	if (!ret)
		self->trid[self->ntrid++] = *trid;
	return ret;
}

/* REQ: MODEL-31 GETATTR-1 GETATTR-2 GETNAME-1 SETNAME-1 */
TEST_F(attr_stream, get_attr_reports_trace_name)
{
	char name[TRACE_NAME_MAX];
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "selftest-stream"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	ASSERT_STREQ("selftest-stream", name);
}

/* REQ: GETATTR-2 SETNAME-2 SETNAME-3 GETNAME-2 5.4 */
TEST_F(attr_stream, get_attr_reports_default_and_truncated_names)
{
	char longname[TRACE_NAME_MAX + 50];
	char name[TRACE_NAME_MAX + 1];
	trace_id_t t1, t2;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, create_from(self, &t1));
	ASSERT_EQ(0, posix_trace_get_attr(t1, &self->got));
	memset(name, 'x', sizeof(name));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	ASSERT_STREQ("", name);

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, longname));
	ASSERT_EQ(0, create_from(self, &t2));
	ASSERT_EQ(0, posix_trace_get_attr(t2, &self->got));
	memset(name, 'x', sizeof(name));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	/* At most TRACE_NAME_MAX bytes including the NUL are written. */
	ASSERT_EQ('x', name[TRACE_NAME_MAX]);
	ASSERT_EQ((size_t)TRACE_NAME_MAX - 1, strlen(name));
	ASSERT_EQ(0, strncmp(longname, name, TRACE_NAME_MAX - 1));
}

/* REQ: GETATTR-2 STRSIZE-1 STRSIZE-4 MAXDATA-1 STRPOL-1 INHERIT-1 */
TEST_F(attr_stream, get_attr_reports_effective_sizes_and_policies)
{
	size_t stream, data;
	int policy, inherit;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 8192));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 100));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
						POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&self->attr,
						   POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));

	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &stream));
	EXPECT_GE(stream, 8192u);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data));
	EXPECT_EQ(100u, data);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->got, &policy));
	EXPECT_EQ(POSIX_TRACE_UNTIL_FULL, policy);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->got, &inherit));
	EXPECT_EQ(POSIX_TRACE_INHERITED, inherit);
}

/* REQ: MAXDATA-4 GETATTR-2 5.23 */
TEST_F(attr_stream, get_attr_shows_max_data_size_clamped_to_64k)
{
	trace_id_t trid;
	size_t data;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 262144));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 1 << 20));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data));
	ASSERT_EQ(65536u, data);
}

/* REQ: GETATTR-2 LOGSIZE-1 LOGPOL-1 */
TEST_F(attr_stream, get_attr_reports_log_attributes)
{
	size_t logsize;
	int logpolicy;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&self->attr, 3 << 20));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&self->attr,
						       POSIX_TRACE_APPEND));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getlogsize(&self->got, &logsize));
	EXPECT_EQ((size_t)3 << 20, logsize);
	ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&self->got, &logpolicy));
	EXPECT_EQ(POSIX_TRACE_APPEND, logpolicy);
}

/* REQ: CREATE-4 RULE-11 GETCREATETIME-1 GETCREATETIME-2 */
TEST_F(attr_stream, creation_time_is_realtime_at_create)
{
	uint64_t before, after, ct;
	struct timespec ts;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	before = st_realtime_ns();
	ASSERT_EQ(0, create_from(self, &trid));
	after = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getcreatetime(&self->got, &ts));
	ASSERT_GE(ts.tv_nsec, 0);
	ASSERT_LT(ts.tv_nsec, 1000000000L);
	ct = st_ts_ns(&ts);
	EXPECT_GE(ct, before);
	EXPECT_LE(ct, after);
}

/* REQ: GETATTR-2 GETGENVERSION-1 GETGENVERSION-2 GETCLOCKRES-1 RULE-7 */
TEST_F(attr_stream, get_attr_reports_genversion_and_clock_resolution)
{
	char v1[TRACE_NAME_MAX + 1], v2[TRACE_NAME_MAX + 1];
	struct timespec res;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	memset(v2, 'x', sizeof(v2));
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&self->attr, v1));
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&self->got, v2));
	ASSERT_STREQ(v1, v2);
	ASSERT_GT(strlen(v2), 0u);
	ASSERT_LT(strlen(v2), (size_t)TRACE_NAME_MAX);
	ASSERT_EQ('x', v2[TRACE_NAME_MAX]);

	ASSERT_EQ(0, posix_trace_attr_getclockres(&self->got, &res));
	EXPECT_EQ(0, res.tv_sec);
	EXPECT_GT(res.tv_nsec, 0);
	/* The rationale asks for at least microsecond resolution. */
	EXPECT_LE(res.tv_nsec, 1000);
}

/* REQ: CREATE-3 MODEL-30 ATTRINIT-5 */
TEST_F(attr_stream, attr_changed_after_create_does_not_change_stream)
{
	char name[TRACE_NAME_MAX];
	size_t stream0, data0, stream, data;
	int policy;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "before"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &stream0));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data0));

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "after"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 1 << 20));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 200));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
						POSIX_TRACE_UNTIL_FULL));

	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	EXPECT_STREQ("before", name);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &stream));
	EXPECT_EQ(stream0, stream);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data));
	EXPECT_EQ(data0, data);
	EXPECT_EQ(64u, data);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->got, &policy));
	EXPECT_EQ(POSIX_TRACE_LOOP, policy);
}

/* REQ: ATTRDES-3 CREATE-3 MODEL-30 */
TEST_F(attr_stream, attr_destroyed_after_create_does_not_change_stream)
{
	char name[TRACE_NAME_MAX];
	trace_id_t trid;
	size_t data;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "destroyed"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 48));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_attr_destroy(&self->attr));
	memset(&self->attr, 0xff, sizeof(self->attr));
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));

	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	EXPECT_STREQ("destroyed", name);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data));
	EXPECT_EQ(48u, data);
}

/* REQ: MODEL-30 ATTRINIT-5 CREATE-10 */
TEST_F(attr_stream, one_attr_object_creates_several_identical_streams)
{
	char n1[TRACE_NAME_MAX], n2[TRACE_NAME_MAX];
	size_t s1, s2;
	trace_id_t t1, t2;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "twin"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 16384));
	ASSERT_EQ(0, create_from(self, &t1));
	ASSERT_EQ(0, create_from(self, &t2));
	ASSERT_NE(t1, t2);
	ASSERT_EQ(0, posix_trace_get_attr(t1, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, n1));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &s1));
	ASSERT_EQ(0, posix_trace_get_attr(t2, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, n2));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &s2));
	EXPECT_STREQ(n1, n2);
	EXPECT_EQ(s1, s2);
}

/* REQ: MAXUSREV-1 MAXSYSEV-1 5.23 */
TEST_F(attr_stream, max_event_sizes_of_stream_attributes)
{
	size_t u0, u16, ubig, sys, data;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 16));
	ASSERT_EQ(0, create_from(self, &trid));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &data));
	ASSERT_EQ(16u, data);
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->got, 0, &u0));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->got, 16,
							   &u16));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->got, 100000,
							   &ubig));
	ASSERT_EQ(0, posix_trace_attr_getmaxsystemeventsize(&self->got, &sys));
	EXPECT_GT(u0, 0u);
	EXPECT_GE(u16, u0 + 16);
	/* Longer data is truncated to max-data-size: it costs no more. */
	EXPECT_EQ(u16, ubig);
	/* Two event sets (the FILTER event) fit in a system event. */
	EXPECT_GE(sys, 2 * sizeof(trace_event_set_t));
}

/* REQ: GETATTR-1 ATTRINIT-6 */
TEST_F(attr_stream, get_attr_invalid_trid_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_get_attr(0, &self->got));
	ASSERT_EQ(EINVAL, posix_trace_get_attr(-1, &self->got));
	ASSERT_EQ(EINVAL, posix_trace_get_attr(INT_MAX, &self->got));
}

TEST_HARNESS_MAIN
