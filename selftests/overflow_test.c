// SPDX-License-Identifier: GPL-2.0
/*
 * overflow_test - full streams.  LOOP: the oldest events are overwritten,
 * the reader gets OVERFLOW + RESUME before the oldest survivor, overrun is
 * reported once.  UNTIL_FULL: the stream stops itself, later events are
 * lost, the reader gets STOP(auto) after the last event and START before
 * the first event after the automatic restart; an explicit stop cancels the
 * restart.
 *
 * A stream is a set of per-CPU lanes of stream-min-size bytes each, so the
 * writer (this thread) is pinned to one CPU to fill one lane
 * deterministically.
 */
#include "pt_selftest.h"

#include <stdatomic.h>

FIXTURE(overflow) {
	trace_id_t trid;
	struct st_sizes sz;
	size_t cap;		/* user records of 8 data bytes per lane */
	size_t cap_with_start;	/* the same, leaving room for a START */
	struct st_ev *ev;
	int nev;
	int max_ev;
};

/* CPUs allowed before the fixture pinned this thread to the first one. */
static int nr_cpus;
static int second_cpu = -1;

FIXTURE_SETUP(overflow)
{
	cpu_set_t set;
	int cpu = 0;

	self->ev = NULL;
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	nr_cpus = CPU_COUNT(&set);
	ASSERT_EQ(0, st_pin_nth_cpu(0, &cpu));
	for (second_cpu = cpu + 1; second_cpu < CPU_SETSIZE; second_cpu++)
		if (CPU_ISSET(second_cpu, &set))
			break;
}

FIXTURE_TEARDOWN(overflow)
{
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	free(self->ev);
}

#define SEQ_LEN sizeof(uint64_t)

static void make_stream(struct __test_metadata *_metadata,
			FIXTURE_DATA(overflow) *self, int policy)
{
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, policy, 0, &self->trid));
	ASSERT_EQ(0, st_stream_sizes(self->trid, SEQ_LEN, &self->sz));
	ASSERT_GE(self->sz.stream, (size_t)ST_SMALL_STREAM);
	ASSERT_GT(self->sz.userev, SEQ_LEN);
	ASSERT_GE(self->sz.sysev, sizeof(trace_event_set_t));
	self->cap = self->sz.stream / self->sz.userev;
	self->cap_with_start = (self->sz.stream - self->sz.sysev) /
			       self->sz.userev;
	ASSERT_GT(self->cap_with_start, 4u);
	self->max_ev = 8 * (int)self->cap + 64;
	self->ev = calloc(self->max_ev, sizeof(*self->ev));
	ASSERT_NE(NULL, self->ev);
}


static void drain(struct __test_metadata *_metadata,
		  FIXTURE_DATA(overflow) *self)
{
	ASSERT_EQ(0, st_drain(self->trid, self->ev, self->max_ev, &self->nev));
	ASSERT_LT(self->nev, self->max_ev);
}

static void expect_status(struct __test_metadata *_metadata, trace_id_t trid,
			  int running, int full, int overrun)
{
	struct posix_trace_status_info st;

	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	if (running >= 0) {
		EXPECT_EQ(running, st.posix_stream_status);
	}
	if (full >= 0) {
		EXPECT_EQ(full, st.posix_stream_full_status);
	}
	if (overrun >= 0) {
		EXPECT_EQ(overrun, st.posix_stream_overrun_status);
	}
}

static void dump_events(struct __test_metadata *_metadata,
			FIXTURE_DATA(overflow) *self, int from, int n)
{
	int i;

	for (i = from; i < self->nev && i < from + n; i++)
		TH_LOG("  ev[%d] %s len %zu seq %llu ts %llu", i,
		       st_id_str(self->ev[i].info.posix_event_id),
		       self->ev[i].len,
		       self->ev[i].len == SEQ_LEN ?
		       (unsigned long long)st_seq_of(&self->ev[i]) : 0ULL,
		       (unsigned long long)
		       st_ts_ns(&self->ev[i].info.posix_timestamp));
	TH_LOG("  (%d events read)", self->nev);
}

/* Index of the first event with @id at or after @from, or -1. */
static int find(FIXTURE_DATA(overflow) *self, int from, trace_event_id_t id)
{
	int i;

	for (i = from; i < self->nev; i++)
		if (self->ev[i].info.posix_event_id == id)
			return i;
	return -1;
}

/*
 * Check ev[from ..] = user events with consecutive sequence numbers ending
 * at @last; returns the first sequence number.
 */
static uint64_t check_run(struct __test_metadata *_metadata,
			  FIXTURE_DATA(overflow) *self, int from, int to,
			  uint64_t last)
{
	uint64_t first;
	int i;

	ASSERT_LT(from, to);
	first = st_seq_of(&self->ev[from]);
	for (i = from; i < to; i++) {
		ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
			  self->ev[i].info.posix_event_id)
			TH_LOG("event %d is %s", i,
			       st_id_str(self->ev[i].info.posix_event_id));
		ASSERT_EQ(SEQ_LEN, self->ev[i].len);
		ASSERT_EQ(first + (uint64_t)(i - from), st_seq_of(&self->ev[i]))
			TH_LOG("gap or duplicate at event %d", i);
	}
	ASSERT_EQ(last, st_seq_of(&self->ev[to - 1]));
	return first;
}

/* ---------------------------------------------------------------- */
/* LOOP                                                              */
/* ---------------------------------------------------------------- */

/* REQ: MODEL-8 RULE-2 RULE-14 RULE-15 RULE-16 RULE-17 RULE-8 RULE-9 RULE-31 RULE-32 GETSTAT-2 GETNEXT-C8 MAXUSREV-2 5.15 5.21 */
TEST_F(overflow, loop_overwrites_oldest_and_reports_overflow_then_resume)
{
	uint64_t t0, t1, written, first, kept, ovf_ts, res_ts;
	struct st_ev *ovf, *res;
	int i;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	written = 3 * self->cap + 7;
	t0 = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, 1);
	t1 = st_realtime_ns();
	st_record_seq(1, written - 1);

	/* Running and full; the overrun is reported once. */
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_FULL, POSIX_TRACE_OVERRUN);
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_FULL, POSIX_TRACE_NO_OVERRUN);

	drain(_metadata, self);
	ASSERT_GE(self->nev, 3);
	i = 0;
	/* START is older than everything lost; it may only come first. */
	if (self->ev[0].info.posix_event_id == POSIX_TRACE_START)
		i = 1;
	ovf = &self->ev[i];
	res = &self->ev[i + 1];
	if (ovf->info.posix_event_id != POSIX_TRACE_OVERFLOW ||
	    res->info.posix_event_id != POSIX_TRACE_RESUME)
		dump_events(_metadata, self, 0, 6);
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, ovf->info.posix_event_id)
		TH_LOG("event %d is %s", i, st_id_str(ovf->info.posix_event_id));
	ASSERT_EQ(POSIX_TRACE_RESUME, res->info.posix_event_id)
		TH_LOG("event %d is %s", i + 1,
		       st_id_str(res->info.posix_event_id));
	EXPECT_EQ(0u, ovf->len);
	EXPECT_EQ(0u, res->len);
	/* The events went through this process's writer lane: its loss is
	 * reported with the writer's pid (design.md, "Writer lanes"). */
	EXPECT_EQ(getpid(), ovf->info.posix_pid);
	EXPECT_EQ(getpid(), res->info.posix_pid);
	EXPECT_TRUE(pthread_equal((pthread_t)0, ovf->info.posix_thread_id));
	EXPECT_TRUE(pthread_equal((pthread_t)0, res->info.posix_thread_id));

	first = check_run(_metadata, self, i + 2, self->nev, written - 1);
	kept = written - first;
	TH_LOG("wrote %llu, kept %llu, capacity %zu records",
	       (unsigned long long)written, (unsigned long long)kept,
	       self->cap);
	/* The newest events that fit in stream-min-size all survive. */
	ASSERT_GE(kept, (uint64_t)self->cap);
	ASSERT_GT(first, 0u);
	ASSERT_EQ(-1, find(self, i + 2, POSIX_TRACE_OVERFLOW));

	/* OVERFLOW: time of the first lost event (START or event 0). */
	ovf_ts = st_ts_ns(&ovf->info.posix_timestamp);
	res_ts = st_ts_ns(&res->info.posix_timestamp);
	EXPECT_GE(ovf_ts + ST_TS_SLACK_NS, t0);
	EXPECT_LE(ovf_ts, t1 + ST_TS_SLACK_NS);
	EXPECT_LE(ovf_ts, res_ts);
	/* RESUME: time of the first surviving event, reported before it. */
	EXPECT_EQ(st_ts_ns(&self->ev[i + 2].info.posix_timestamp), res_ts);

	/* Read empty: space again, no new overrun. */
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
	st_record_seq(written, 1);
	drain(_metadata, self);
	ASSERT_EQ(1, self->nev);
	ASSERT_EQ(written, st_seq_of(&self->ev[0]));
}

/*
 * The lane the overwritten events were in was new to the reader (its first
 * read of the stream), so the reader cannot have seen a sequence number in
 * it yet: OVERFLOW must still carry the time of the first lost event, not
 * that of the first survivor.  The pause makes the two differ by far more
 * than the slack, where the test above only tells them apart when the
 * writer happens to be slow.
 */
/* REQ: RULE-8 RULE-17 */
TEST_F(overflow, loop_overflow_in_a_lane_never_read_carries_the_first_lost_time)
{
	const uint64_t pause_ns = 50 * 1000 * 1000ULL;
	uint64_t t1, written, ovf_ts, res_ts;
	struct timespec pause = { 0, (long)pause_ns };
	int i;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	written = 2 * self->cap;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, 1);
	t1 = st_realtime_ns();
	ASSERT_EQ(0, nanosleep(&pause, NULL));
	st_record_seq(1, written - 1);

	drain(_metadata, self);
	i = self->nev > 0 &&
	    self->ev[0].info.posix_event_id == POSIX_TRACE_START;
	ASSERT_GE(self->nev, i + 3);
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, self->ev[i].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_RESUME, self->ev[i + 1].info.posix_event_id);
	ASSERT_GT(check_run(_metadata, self, i + 2, self->nev, written - 1), 0u);
	ovf_ts = st_ts_ns(&self->ev[i].info.posix_timestamp);
	res_ts = st_ts_ns(&self->ev[i + 1].info.posix_timestamp);
	EXPECT_LE(ovf_ts, t1 + ST_TS_SLACK_NS)
		TH_LOG("OVERFLOW %llu ns after the first lost event's recording",
		       (unsigned long long)(ovf_ts - t1));
	EXPECT_GE(res_ts + ST_TS_SLACK_NS, t1 + pause_ns);
}

/* REQ: RULE-18 GETNEXT-C6 */
TEST_F(overflow, loop_reader_keeping_up_never_overflows)
{
	struct st_ev ev;
	uint64_t i;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	for (i = 0; i < 4 * self->cap; i++) {
		st_record_seq(i, 1);
		ASSERT_EQ(0, st_try(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable);
		ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id)
			TH_LOG("event %llu: %s", (unsigned long long)i,
			       st_id_str(ev.info.posix_event_id));
		ASSERT_EQ(i, st_seq_of(&ev));
	}
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
}

/* REQ: MAXUSREV-2 MAXSYSEV-2 STRSIZE-1 5.23 */
TEST_F(overflow, loop_events_that_fit_stream_min_size_are_all_kept)
{
	uint64_t n;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	n = self->cap_with_start;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, n);
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING, -1,
		      POSIX_TRACE_NO_OVERRUN);
	drain(_metadata, self);
	ASSERT_EQ((int)n + 1, self->nev);
	ASSERT_EQ(POSIX_TRACE_START, self->ev[0].info.posix_event_id);
	check_run(_metadata, self, 1, self->nev, n - 1);
	ASSERT_EQ(0u, st_seq_of(&self->ev[1]));
}

/* REQ: RULE-19 STOP-2 STOP-4 5.8 */
TEST_F(overflow, loop_stop_while_full_suspends_and_records_stop)
{
	struct st_ev *last;
	uint64_t written;
	int i;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	written = 3 * self->cap;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, written);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, POSIX_TRACE_OVERRUN);
	/* Suspended: not recorded. */
	st_record_seq(written, 1);

	drain(_metadata, self);
	ASSERT_GE(self->nev, 4);
	last = &self->ev[self->nev - 1];
	ASSERT_EQ(POSIX_TRACE_STOP, last->info.posix_event_id);
	EXPECT_EQ(0, st_stop_auto(last));
	EXPECT_EQ(getpid(), last->info.posix_pid);
	i = self->ev[0].info.posix_event_id == POSIX_TRACE_START ? 1 : 0;
	if (self->ev[i].info.posix_event_id != POSIX_TRACE_OVERFLOW)
		dump_events(_metadata, self, 0, 6);
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, self->ev[i].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_RESUME, self->ev[i + 1].info.posix_event_id);
	check_run(_metadata, self, i + 2, self->nev - 1, written - 1);
}

/* REQ: CLEAR-2 CLEAR-3 RULE-32 5.9 */
TEST_F(overflow, loop_clear_resets_full_overrun_and_pending_overflow)
{
	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, 3 * self->cap);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	/* First get_status after the overrun: already reset by clear. */
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
	drain(_metadata, self);
	ASSERT_EQ(0, self->nev) TH_LOG("first event after clear: %s",
				       st_id_str(self->ev[0].info.posix_event_id));
	st_record_seq(1000, 1);
	drain(_metadata, self);
	ASSERT_EQ(1, self->nev);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
		  self->ev[0].info.posix_event_id);
	ASSERT_EQ(1000u, st_seq_of(&self->ev[0]));
}

/* ---------------------------------------------------------------- */
/* UNTIL_FULL                                                        */
/* ---------------------------------------------------------------- */

/* Start, write @written events (more than fit), optionally stop(). */
static void until_full_fill(struct __test_metadata *_metadata,
			    FIXTURE_DATA(overflow) *self, uint64_t written,
			    bool stop_after)
{
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, written);
	if (stop_after) {
		ASSERT_EQ(0, posix_trace_stop(self->trid));
	}
}

/*
 * Drain a filled UNTIL_FULL stream.  Checks: START, events 0..k-1, then
 * STOP(auto) and nothing else.  Returns k in *kept and the STOP timestamp
 * in *stop_ts.
 */
static void until_full_drain(struct __test_metadata *_metadata,
			     FIXTURE_DATA(overflow) *self, uint64_t *kept,
			     uint64_t *stop_ts)
{
	struct st_ev *stop;

	drain(_metadata, self);
	ASSERT_GE(self->nev, 3);
	ASSERT_EQ(POSIX_TRACE_START, self->ev[0].info.posix_event_id);
	EXPECT_EQ(getpid(), self->ev[0].info.posix_pid);
	stop = &self->ev[self->nev - 1];
	ASSERT_EQ(POSIX_TRACE_STOP, stop->info.posix_event_id)
		TH_LOG("last event is %s", st_id_str(stop->info.posix_event_id));
	ASSERT_EQ(sizeof(int), stop->len);
	EXPECT_NE(0, st_stop_auto(stop));
	EXPECT_EQ(0, stop->info.posix_pid);
	EXPECT_TRUE(pthread_equal((pthread_t)0, stop->info.posix_thread_id));
	/* The events recorded are the first ones, without a gap. */
	ASSERT_EQ(0u, st_seq_of(&self->ev[1]));
	*kept = st_seq_of(&self->ev[self->nev - 2]) + 1;
	check_run(_metadata, self, 1, self->nev - 1, *kept - 1);
	ASSERT_EQ(-1, find(self, 0, POSIX_TRACE_OVERFLOW));
	ASSERT_EQ(-1, find(self, 0, POSIX_TRACE_RESUME));
	*stop_ts = st_ts_ns(&stop->info.posix_timestamp);
	EXPECT_GE(*stop_ts,
		  st_ts_ns(&self->ev[self->nev - 2].info.posix_timestamp));
}

static void fill_until_full_and_drain(struct __test_metadata *_metadata,
				      FIXTURE_DATA(overflow) *self,
				      uint64_t written, uint64_t *kept,
				      uint64_t *stop_ts, bool stop_after)
{
	until_full_fill(_metadata, self, written, stop_after);
	until_full_drain(_metadata, self, kept, stop_ts);
}

/* Read: automatic START (filter as data), then user event @seq. */
static void expect_auto_start_then(struct __test_metadata *_metadata,
				   FIXTURE_DATA(overflow) *self,
				   uint64_t after_ts, uint64_t seq)
{
	struct st_ev *start;

	drain(_metadata, self);
	ASSERT_EQ(2, self->nev);
	start = &self->ev[0];
	ASSERT_EQ(POSIX_TRACE_START, start->info.posix_event_id)
		TH_LOG("got %s", st_id_str(start->info.posix_event_id));
	EXPECT_EQ(sizeof(trace_event_set_t), start->len);
	EXPECT_EQ(0, start->info.posix_pid);
	EXPECT_TRUE(pthread_equal((pthread_t)0, start->info.posix_thread_id));
	EXPECT_GE(st_ts_ns(&start->info.posix_timestamp), after_ts);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
		  self->ev[1].info.posix_event_id);
	ASSERT_EQ(seq, st_seq_of(&self->ev[1]));
	EXPECT_LE(st_ts_ns(&start->info.posix_timestamp),
		  st_ts_ns(&self->ev[1].info.posix_timestamp));
}

/* REQ: MODEL-17 RULE-20 RULE-21 RULE-22 RULE-26 RULE-31 RULE-32 HDR-8 STRPOL-2 GETSTAT-2 MAXUSREV-2 5.15 5.21 */
TEST_F(overflow, until_full_stops_itself_and_reports_stop_auto)
{
	uint64_t written, kept, stop_ts;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	until_full_fill(_metadata, self, written, false);
	/* Suspended + full; the lost events are an overrun, reported once. */
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, POSIX_TRACE_OVERRUN);
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, POSIX_TRACE_NO_OVERRUN);
	until_full_drain(_metadata, self, &kept, &stop_ts);
	TH_LOG("wrote %llu, kept %llu, capacity %zu (%zu with START)",
	       (unsigned long long)written, (unsigned long long)kept,
	       self->cap, self->cap_with_start);
	ASSERT_GE(kept, (uint64_t)self->cap_with_start);
	ASSERT_LT(kept, written);
}

/* A stream that filled up or overran keeps every attribute readable. */
/* REQ: RULE-98 */
TEST_F(overflow, full_or_overrun_stream_still_reports_its_attributes)
{
	static const int policies[] = { POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_LOOP };
	char name[TRACE_NAME_MAX], ver[TRACE_NAME_MAX], want[TRACE_NAME_MAX];
	struct posix_trace_status_info st;
	trace_attr_t a, got;
	uint64_t i;
	size_t size;
	int p, policy;

	for (p = 0; p < 2; p++) {
		ASSERT_EQ(0, st_attr_make(&a, ST_SMALL_STREAM, policies[p], 0));
		ASSERT_EQ(0, posix_trace_attr_setname(&a, "full-stream"));
		ASSERT_EQ(0, posix_trace_attr_getgenversion(&a, want));
		ASSERT_EQ(0, posix_trace_create(0, &a, &self->trid));
		ASSERT_EQ(0, posix_trace_start(self->trid));
		for (i = 0; i < 4 * ST_SMALL_STREAM / SEQ_LEN; i++)
			posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, SEQ_LEN);
		ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
		if (policies[p] == POSIX_TRACE_UNTIL_FULL)
			EXPECT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status);
		EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
		ASSERT_EQ(0, posix_trace_attr_init(&got));
		ASSERT_EQ(0, posix_trace_get_attr(self->trid, &got));
		ASSERT_EQ(0, posix_trace_attr_getname(&got, name));
		EXPECT_STREQ("full-stream", name);
		ASSERT_EQ(0, posix_trace_attr_getgenversion(&got, ver));
		EXPECT_STREQ(want, ver);
		ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&got, &policy));
		EXPECT_EQ(policies[p], policy);
		ASSERT_EQ(0, posix_trace_attr_getstreamsize(&got, &size));
		EXPECT_GE(size, (size_t)ST_SMALL_STREAM);
		posix_trace_attr_destroy(&got);
		posix_trace_attr_destroy(&a);
		EXPECT_EQ(0, posix_trace_shutdown(self->trid));
		self->trid = 0;
	}
}

/* REQ: MODEL-17 RULE-23 RULE-24 STRPOL-2 GETNEXT-C8 GETSTAT-2 5.21 */
TEST_F(overflow, until_full_restarts_after_drain_on_next_event_with_start)
{
	uint64_t kept, stop_ts, written;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	fill_until_full_and_drain(_metadata, self, written, &kept, &stop_ts,
				  false);
	/* Drained: the next event restarts the stream. */
	st_record_seq(written, 1);
	expect_auto_start_then(_metadata, self, stop_ts, written);
	/* Running again; the overrun of the full period is still unread. */
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_OVERRUN);
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
	st_record_seq(written + 1, 1);
	drain(_metadata, self);
	ASSERT_EQ(1, self->nev);
	ASSERT_EQ(written + 1, st_seq_of(&self->ev[0]));
}

/* REQ: RULE-24 STRPOL-2 GETNEXT-C8 */
TEST_F(overflow, until_full_restarts_after_drain_on_get_status)
{
	uint64_t kept, stop_ts, written;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	fill_until_full_and_drain(_metadata, self, written, &kept, &stop_ts,
				  false);
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, -1);
	st_record_seq(written, 1);
	expect_auto_start_then(_metadata, self, stop_ts, written);
}

/* REQ: RULE-25 STOP-4 5.8 */
TEST_F(overflow, until_full_explicit_stop_cancels_automatic_restart)
{
	uint64_t kept, stop_ts, written;
	struct st_ev *start;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	/* stop() on the auto-stopped stream: 0, no STOP(auto 0) event. */
	fill_until_full_and_drain(_metadata, self, written, &kept, &stop_ts,
				  true);
	ASSERT_EQ(-1, find(self, 1, POSIX_TRACE_START));

	/* Drained, but stays stopped. */
	st_record_seq(written, 1);
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED, -1, -1);
	drain(_metadata, self);
	ASSERT_EQ(0, self->nev) TH_LOG("got %s",
				       st_id_str(self->ev[0].info.posix_event_id));

	/* An explicit start works as usual. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, -1);
	st_record_seq(written + 1, 1);
	drain(_metadata, self);
	ASSERT_EQ(2, self->nev);
	start = &self->ev[0];
	ASSERT_EQ(POSIX_TRACE_START, start->info.posix_event_id);
	EXPECT_EQ(getpid(), start->info.posix_pid);
	EXPECT_TRUE(pthread_equal(pthread_self(), start->info.posix_thread_id));
	ASSERT_EQ(written + 1, st_seq_of(&self->ev[1]));
}

/* REQ: START-4 5.8 RULE-24 */
TEST_F(overflow, until_full_start_while_auto_stopped_is_a_no_op)
{
	uint64_t written, kept, stop_ts;
	int stop;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, written);
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, -1);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, -1);

	/* START, events, STOP(auto) -- no second START. */
	drain(_metadata, self);
	ASSERT_GE(self->nev, 3);
	ASSERT_EQ(POSIX_TRACE_START, self->ev[0].info.posix_event_id);
	ASSERT_EQ(-1, find(self, 1, POSIX_TRACE_START));
	stop = self->nev - 1;
	ASSERT_EQ(POSIX_TRACE_STOP, self->ev[stop].info.posix_event_id);
	EXPECT_NE(0, st_stop_auto(&self->ev[stop]));
	kept = st_seq_of(&self->ev[stop - 1]) + 1;
	check_run(_metadata, self, 1, stop, kept - 1);
	stop_ts = st_ts_ns(&self->ev[stop].info.posix_timestamp);

	/* The automatic restart still happens. */
	st_record_seq(written, 1);
	expect_auto_start_then(_metadata, self, stop_ts, written);
}

/* REQ: MAXUSREV-2 MAXSYSEV-2 RULE-20 */
TEST_F(overflow, until_full_events_that_fit_do_not_stop_the_stream)
{
	uint64_t n;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	n = self->cap_with_start;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	st_record_seq(0, n);
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING, -1,
		      POSIX_TRACE_NO_OVERRUN);
	drain(_metadata, self);
	ASSERT_EQ((int)n + 1, self->nev);
	ASSERT_EQ(POSIX_TRACE_START, self->ev[0].info.posix_event_id);
	check_run(_metadata, self, 1, self->nev, n - 1);
}

/* ---------------------------------------------------------------- */
/* Reader position, several lanes, ring wrap                         */
/* ---------------------------------------------------------------- */

/* REQ: RULE-8 RULE-9 RULE-17 GETNEXT-C6 (gap starts at the reader) */
TEST_F(overflow, loop_overflow_after_partial_read_starts_at_the_reader)
{
	uint64_t t5a, t5b, written, first, ovf_ts, last_read_ts;
	struct st_ev ev;
	int i;

	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	st_record_seq(0, 5);
	t5a = st_realtime_ns();
	st_record_seq(5, 1);
	t5b = st_realtime_ns();
	st_record_seq(6, 4);
	/* Read 0..4; the reader now waits at event 5. */
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, st_try(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable);
		ASSERT_EQ((uint64_t)i, st_seq_of(&ev));
	}
	last_read_ts = st_ts_ns(&ev.info.posix_timestamp);
	written = 10 + 3 * self->cap;
	st_record_seq(10, written - 10);

	drain(_metadata, self);
	ASSERT_GE(self->nev, 3);
	if (self->ev[0].info.posix_event_id != POSIX_TRACE_OVERFLOW)
		dump_events(_metadata, self, 0, 6);
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, self->ev[0].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_RESUME, self->ev[1].info.posix_event_id);
	first = check_run(_metadata, self, 2, self->nev, written - 1);
	ASSERT_GT(first, 5u);
	ASSERT_GE(written - first, (uint64_t)self->cap);
	/* The first lost event is event 5, the reader's next one. */
	ovf_ts = st_ts_ns(&self->ev[0].info.posix_timestamp);
	EXPECT_GE(ovf_ts, last_read_ts);
	EXPECT_GE(ovf_ts + ST_TS_SLACK_NS, t5a);
	EXPECT_LE(ovf_ts, t5b + ST_TS_SLACK_NS);
	EXPECT_EQ(st_ts_ns(&self->ev[2].info.posix_timestamp),
		  st_ts_ns(&self->ev[1].info.posix_timestamp));
}

struct other_cpu {
	uint64_t first, n;
	int err;
};

static void *record_on_second_cpu(void *p)
{
	struct other_cpu *o = p;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(second_cpu, &one);
	o->err = sched_setaffinity(0, sizeof(one), &one) ? errno : 0;
	if (!o->err)
		st_record_seq(o->first, o->n);
	return NULL;
}

static int record_elsewhere(uint64_t first, uint64_t n)
{
	struct other_cpu o = { .first = first, .n = n };
	pthread_t th;

	if (pthread_create(&th, NULL, record_on_second_cpu, &o))
		return -1;
	pthread_join(th, NULL);
	return o.err;
}

#define B_SEQ 1000000u

/*
 * Checks the events are in non-decreasing timestamp order.  OVERFLOW is
 * left out: it comes right before RESUME but carries the time of the first
 * lost event, which may be older than events of other lanes reported
 * before it (RULE-8, RULE-17).
 */
static void check_ts_order(struct __test_metadata *_metadata,
			   FIXTURE_DATA(overflow) *self)
{
	uint64_t prev = 0, ts;
	int i;

	for (i = 0; i < self->nev; i++) {
		if (st_is(&self->ev[i], POSIX_TRACE_OVERFLOW)) {
			ASSERT_LT(i + 1, self->nev);
			ASSERT_LE(st_ts_ns(&self->ev[i].info.posix_timestamp),
				  st_ts_ns(&self->ev[i + 1].info.posix_timestamp));
			continue;
		}
		ts = st_ts_ns(&self->ev[i].info.posix_timestamp);
		ASSERT_GE(ts, prev) TH_LOG("event %d (%s) goes back in time",
					   i, st_id_str(
					   self->ev[i].info.posix_event_id));
		prev = ts;
	}
}

/* REQ: RULE-13 RULE-14 RULE-17 RULE-6 (a full lane loses only its own) */
TEST_F(overflow, loop_overflow_of_one_lane_keeps_the_other_lanes_events)
{
	uint64_t written;
	int i, ovf, b_before = 0, b_after = 0;

	if (nr_cpus < 2)
		ST_SKIP("needs two CPUs");
	make_stream(_metadata, self, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, record_elsewhere(B_SEQ, 3));
	written = 3 * self->cap;
	st_record_seq(0, written);
	ASSERT_EQ(0, record_elsewhere(B_SEQ + 3, 2));

	drain(_metadata, self);
	check_ts_order(_metadata, self);
	ovf = find(self, 0, POSIX_TRACE_OVERFLOW);
	if (ovf < 0)
		dump_events(_metadata, self, 0, 8);
	ASSERT_GE(ovf, 0);
	ASSERT_EQ(-1, find(self, ovf + 1, POSIX_TRACE_OVERFLOW));
	ASSERT_EQ(POSIX_TRACE_RESUME, self->ev[ovf + 1].info.posix_event_id);
	/* The other lane's five events are all there, in order. */
	for (i = 0; i < self->nev; i++) {
		struct st_ev *e = &self->ev[i];

		if (!st_is(e, POSIX_TRACE_UNNAMED_USEREVENT) ||
		    st_seq_of(e) < B_SEQ)
			continue;
		ASSERT_EQ(B_SEQ + (uint64_t)(b_before + b_after), st_seq_of(e));
		if (i < ovf)
			b_before++;
		else
			b_after++;
	}
	ASSERT_EQ(3, b_before);
	ASSERT_EQ(2, b_after);
	/* The survivors of the full lane: contiguous, newest kept. */
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
		  self->ev[ovf + 2].info.posix_event_id);
	ASSERT_LT(st_seq_of(&self->ev[ovf + 2]), (uint64_t)B_SEQ);
	EXPECT_EQ(st_ts_ns(&self->ev[ovf + 1].info.posix_timestamp),
		  st_ts_ns(&self->ev[ovf + 2].info.posix_timestamp));
	check_run(_metadata, self, ovf + 2, self->nev - 2, written - 1);
}

/* REQ: RULE-20 RULE-21 RULE-22 RULE-13 (one full lane stops the stream) */
TEST_F(overflow, until_full_one_full_lane_stops_every_lane)
{
	struct posix_trace_status_info st;
	uint64_t written;
	int i, stop, b = 0;

	if (nr_cpus < 2)
		ST_SKIP("needs two CPUs");
	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, record_elsewhere(B_SEQ, 2));
	written = 2 * self->cap + 10;
	st_record_seq(0, written);
	/* Stopped: the other lane's later events are lost too. */
	ASSERT_EQ(0, record_elsewhere(B_SEQ + 2, 2));
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);

	drain(_metadata, self);
	check_ts_order(_metadata, self);
	ASSERT_EQ(POSIX_TRACE_START, self->ev[0].info.posix_event_id);
	stop = self->nev - 1;
	ASSERT_EQ(POSIX_TRACE_STOP, self->ev[stop].info.posix_event_id)
		TH_LOG("last is %s", st_id_str(self->ev[stop].info.posix_event_id));
	EXPECT_NE(0, st_stop_auto(&self->ev[stop]));
	ASSERT_EQ(-1, find(self, 1, POSIX_TRACE_START));
	for (i = 1; i < stop; i++) {
		ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
			  self->ev[i].info.posix_event_id);
		if (st_seq_of(&self->ev[i]) >= B_SEQ) {
			ASSERT_EQ(B_SEQ + (uint64_t)b, st_seq_of(&self->ev[i]));
			b++;
		}
	}
	ASSERT_EQ(2, b);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
		  self->ev[3].info.posix_event_id);
	check_run(_metadata, self, 3, stop, st_seq_of(&self->ev[stop - 1]));
	ASSERT_EQ(0u, st_seq_of(&self->ev[3]));
}

static void fill_pattern(unsigned char *buf, uint32_t n, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(n * 131 + i * 7 + (i >> 3));
}

/* REQ: GETNEXT-C1 GETNEXT-C3 GETNEXT-C4 RULE-67 (records wrap the ring) */
TEST_F(overflow, variable_size_records_wrap_the_ring_intact)
{
	unsigned char want[256], got[256];
	struct posix_trace_event_info info;
	uint32_t n = 0, batch, k, done;
	size_t len, lens[16], rd, total;
	int unav;

	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, POSIX_TRACE_LOOP, 256,
			       &self->trid));
	ASSERT_EQ(0, st_stream_sizes(self->trid, 256, &self->sz));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	/* Batches of unread records (well within one lane), many laps. */
	for (batch = 0; batch < 120; batch++) {
		uint32_t cnt = 1 + batch % 12;

		total = 0;
		for (k = 0; k < cnt; k++) {
			lens[k] = (n + k) * 37 % 241;
			fill_pattern(want, n + k, lens[k]);
			total += lens[k] + 64;
			posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, want,
					  lens[k]);
		}
		ASSERT_LE(total, self->sz.stream);
		for (k = 0, done = 0; k < cnt; k++, done++) {
			/* Every third record is read with a short buffer. */
			rd = (n % 3 == 2) ? lens[k] / 2 : sizeof(got);
			memset(got, 0, sizeof(got));
			ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid,
						&info, got, rd, &len, &unav));
			ASSERT_EQ(0, unav) TH_LOG("record %u missing", n);
			ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
				  info.posix_event_id)
				TH_LOG("record %u: %s", n,
				       st_id_str(info.posix_event_id));
			fill_pattern(want, n, lens[k]);
			if (rd < lens[k]) {
				ASSERT_EQ(rd, len);
				ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ,
					  info.posix_truncation_status);
			} else {
				ASSERT_EQ(lens[k], len) TH_LOG("record %u", n);
				ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED,
					  info.posix_truncation_status);
			}
			ASSERT_EQ(0, memcmp(want, got, len))
				TH_LOG("record %u data corrupted", n);
			n++;
		}
		ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info,
						got, sizeof(got), &len, &unav));
		ASSERT_NE(0, unav);
	}
	expect_status(_metadata, self->trid, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
}

struct blocked_reader {
	trace_id_t trid;
	pid_t tid;
	atomic_int ready;
	int ret;
	struct st_ev ev;
};

static void *blocked_read(void *p)
{
	struct blocked_reader *r = p;

	r->tid = st_gettid();
	atomic_store(&r->ready, 1);
	r->ret = st_timed_ms(r->trid, &r->ev, 20000);
	return NULL;
}

/* REQ: RULE-24 RULE-89 GETNEXT-C8 (a waiting reader gets the START) */
TEST_F(overflow, until_full_restart_wakes_blocked_reader_with_start)
{
	struct blocked_reader r = { .ret = -1 };
	uint64_t kept, stop_ts, written;
	pthread_t th;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	written = 2 * self->cap + 10;
	fill_until_full_and_drain(_metadata, self, written, &kept, &stop_ts,
				  false);
	r.trid = self->trid;
	ASSERT_EQ(0, pthread_create(&th, NULL, blocked_read, &r));
	while (!atomic_load(&r.ready))
		sched_yield();
	ASSERT_TRUE(st_wait_sleeping(r.tid, 3000));
	st_record_seq(written, 1);
	pthread_join(th, NULL);
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ(0, r.ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, r.ev.info.posix_event_id)
		TH_LOG("got %s", st_id_str(r.ev.info.posix_event_id));
	drain(_metadata, self);
	ASSERT_EQ(1, self->nev);
	ASSERT_EQ(written, st_seq_of(&self->ev[0]));
}

/* REQ: EVENT-1 EVENT-3 RULE-49 MODEL-2 (policies are per stream) */
TEST_F(overflow, full_until_full_stream_does_not_affect_a_loop_stream)
{
	trace_id_t loop;
	uint64_t written;
	int n;

	make_stream(_metadata, self, POSIX_TRACE_UNTIL_FULL);
	ASSERT_EQ(0, st_create(0, 1 << 20, POSIX_TRACE_LOOP, 0, &loop));
	ASSERT_EQ(0, st_start_and_skip(loop));
	written = 2 * self->cap + 10;
	until_full_fill(_metadata, self, written, false);
	expect_status(_metadata, self->trid, POSIX_TRACE_SUSPENDED,
		      POSIX_TRACE_FULL, -1);
	expect_status(_metadata, loop, POSIX_TRACE_RUNNING,
		      POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN);
	ASSERT_EQ(0, st_count_available(loop, &n));
	posix_trace_shutdown(loop);
	ASSERT_EQ((int)written, n);
}

TEST_HARNESS_MAIN
