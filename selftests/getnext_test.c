// SPDX-License-Identifier: GPL-2.0
/*
 * getnext_test - posix_trace_getnext_event(), _timedgetnext_event() and
 * _trygetnext_event(): blocking and wake-ups (events, shutdown, signals,
 * cancellation), timeouts, truncated reads, ordering and timestamps, and a
 * controller reading the events of another (traced) process.
 */
#include "pt_selftest.h"

#include <stdatomic.h>

enum rmode { R_GET, R_TIMED };

struct reader {
	trace_id_t trid;
	enum rmode mode;
	struct timespec abstime;
	pthread_t th;
	pid_t tid;
	atomic_int ready;
	int ret;
	struct st_ev ev;
	int efd;
	bool started;
};

FIXTURE(getnext) {
	trace_id_t trid;
	trace_id_t trid2;
	struct reader rd[2];
	struct st_agent child;
};

FIXTURE_SETUP(getnext)
{
	self->child.pid = -1;
	self->child.fd = -1;
	self->rd[0].efd = -1;
	self->rd[1].efd = -1;
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
}

FIXTURE_TEARDOWN(getnext)
{
	/* Shutting the streams down wakes any reader still blocked. */
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->trid2 > 0)
		posix_trace_shutdown(self->trid2);
	st_agent_kill(&self->child);
}

static void *reader_fn(void *p)
{
	struct reader *r = p;

	r->tid = st_gettid();
	atomic_store(&r->ready, 1);
	if (r->mode == R_GET)
		r->ret = st_get(r->trid, &r->ev);
	else
		r->ret = st_timed(r->trid, &r->ev, &r->abstime);
	st_efd_signal(r->efd);
	return NULL;
}

static int reader_start(struct reader *r, trace_id_t trid, enum rmode mode,
			unsigned int timeout_ms)
{
	r->trid = trid;
	r->mode = mode;
	r->abstime = st_ns_ts(st_realtime_ns() +
			      (uint64_t)timeout_ms * 1000000ULL);
	atomic_store(&r->ready, 0);
	r->ret = -1;
	r->efd = eventfd(0, EFD_CLOEXEC);
	if (r->efd < 0)
		return errno;
	if (pthread_create(&r->th, NULL, reader_fn, r))
		return -1;
	r->started = true;
	while (!atomic_load(&r->ready))
		sched_yield();
	return 0;
}

/* The reader is asleep in the call and has not returned. */
static bool reader_blocked(struct reader *r)
{
	return st_wait_sleeping(r->tid, 3000) && !st_wait_fd(r->efd, 20);
}

static bool reader_done(struct reader *r, int timeout_ms)
{
	if (!st_wait_fd(r->efd, timeout_ms))
		return false;
	pthread_join(r->th, NULL);
	r->started = false;
	return true;
}

/* REQ: GETNEXT-2 RULE-88 RULE-89 GETNEXT-C9 */
TEST_F(getnext, getnext_blocks_until_an_event_is_recorded)
{
	struct reader *r = &self->rd[0];

	ASSERT_EQ(0, reader_start(r, self->trid, R_GET, 0));
	ASSERT_TRUE(reader_blocked(r));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "wake", 4);
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(0, r->ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, r->ev.info.posix_event_id);
	ASSERT_EQ(4u, r->ev.len);
	ASSERT_EQ(0, memcmp("wake", r->ev.data, 4));
}

/* REQ: GETNEXT-2 RULE-88 (blocks although never started) */
TEST_F(getnext, getnext_blocks_on_never_started_stream_until_start)
{
	struct reader *r = &self->rd[0];

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, reader_start(r, self->trid2, R_GET, 0));
	ASSERT_TRUE(reader_blocked(r));
	ASSERT_EQ(0, posix_trace_start(self->trid2));
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(POSIX_TRACE_START, r->ev.info.posix_event_id);
}

/* REQ: GETNEXT-2 RULE-88 (blocks although stopped) */
TEST_F(getnext, getnext_blocks_on_stopped_stream)
{
	struct reader *r = &self->rd[0];
	struct st_ev ev;

	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(POSIX_TRACE_STOP, ev.info.posix_event_id);
	ASSERT_EQ(0, reader_start(r, self->trid, R_GET, 0));
	ASSERT_TRUE(reader_blocked(r));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(POSIX_TRACE_START, r->ev.info.posix_event_id);
}

/*
 * Signal the blocked reader until it returns (a signal that arrives just
 * before it sleeps would only run the handler).
 */
static void interrupt_reader(struct __test_metadata *_metadata,
			     FIXTURE_DATA(getnext) *self, enum rmode mode,
			     int sa_flags)
{
	struct reader *r = &self->rd[0];
	struct st_ev ev;
	int i;

	ASSERT_EQ(0, st_catch(SIGUSR1, sa_flags));
	ASSERT_EQ(0, reader_start(r, self->trid, mode, 60000));
	ASSERT_TRUE(reader_blocked(r));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, pthread_kill(r->th, SIGUSR1));
		if (st_wait_fd(r->efd, 100))
			break;
	}
	ASSERT_LT(i, 50) TH_LOG("the reader was not interrupted");
	ASSERT_TRUE(reader_done(r, 1000));
	ASSERT_EQ(EINTR, r->ret);

	/* Nothing was consumed; the stream works as before. */
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "after", 5);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(5u, ev.len);
	ASSERT_EQ(0, memcmp("after", ev.data, 5));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: GETNEXT-2 RULE-89 5.27 (EINTR) */
TEST_F(getnext, getnext_interrupted_by_signal_is_eintr)
{
	interrupt_reader(_metadata, self, R_GET, 0);
}

/* REQ: GETNEXT-2 RULE-89 5.27 (EINTR even with SA_RESTART) */
TEST_F(getnext, getnext_interrupted_by_sa_restart_signal_is_eintr)
{
	interrupt_reader(_metadata, self, R_GET, SA_RESTART);
}

/* REQ: TGETNEXT-1 RULE-89 5.27 (EINTR) */
TEST_F(getnext, timedgetnext_interrupted_by_signal_is_eintr)
{
	interrupt_reader(_metadata, self, R_TIMED, 0);
}

/* REQ: TGETNEXT-1 RULE-89 5.27 (EINTR even with SA_RESTART) */
TEST_F(getnext, timedgetnext_interrupted_by_sa_restart_signal_is_eintr)
{
	interrupt_reader(_metadata, self, R_TIMED, SA_RESTART);
}

/* REQ: SHUT-5 RULE-89 RULE-81 */
TEST_F(getnext, shutdown_wakes_blocked_readers_in_two_threads_with_einval)
{
	struct reader *a = &self->rd[0], *b = &self->rd[1];

	ASSERT_EQ(0, reader_start(a, self->trid, R_GET, 0));
	ASSERT_EQ(0, reader_start(b, self->trid, R_TIMED, 60000));
	ASSERT_TRUE(reader_blocked(a));
	ASSERT_TRUE(reader_blocked(b));
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_TRUE(reader_done(a, 5000));
	ASSERT_TRUE(reader_done(b, 5000));
	EXPECT_EQ(EINVAL, a->ret);
	EXPECT_EQ(EINVAL, b->ret);
}

/*
 * One thread reading two streams in turn gets each stream's own events in
 * order (the library keeps the last stream a thread read, and where each
 * lane's next record is, across calls), and once a stream is shut down its
 * trid is EINVAL in a thread that was reading it, even when that thread
 * read it last.  REQ: RULE-81
 */
TEST_F(getnext, alternating_streams_in_one_thread_then_shutdown_is_einval)
{
	struct st_ev ev;
	uint32_t i, a = 0, b = 0;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	for (i = 0; i < 40; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	for (i = 0; i < 80; i++) {
		trace_id_t t = i % 2 ? self->trid2 : self->trid;
		uint32_t *next = i % 2 ? &b : &a, v;

		ASSERT_EQ(0, st_try(t, &ev));
		ASSERT_EQ(0, ev.unavailable);
		ASSERT_EQ(sizeof(v), ev.len);
		memcpy(&v, ev.data, sizeof(v));
		EXPECT_EQ(*next, v);
		(*next)++;
	}
	ASSERT_EQ(0, st_try(self->trid, &ev));
	EXPECT_EQ(1, ev.unavailable);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	EXPECT_EQ(EINVAL, st_try(self->trid, &ev));
	EXPECT_EQ(EINVAL, st_get(self->trid, &ev));
	EXPECT_EQ(EINVAL, st_timed_ms(self->trid, &ev, 10));
	self->trid = 0;
	/* The other stream, read last before the shutdown of the first. */
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid2));
	EXPECT_EQ(EINVAL, st_try(self->trid2, &ev));
	self->trid2 = 0;
}

/* REQ: TGETNEXT-2 RULE-91 */
TEST_F(getnext, timedgetnext_with_past_deadline_on_empty_stream_is_etimedout)
{
	struct timespec epoch = { 0, 0 };
	struct timespec past = st_ns_ts(st_realtime_ns() - ST_NSEC_PER_SEC);
	struct st_ev ev;
	uint64_t t0;

	t0 = st_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(ETIMEDOUT, st_timed(self->trid, &ev, &epoch));
	ASSERT_EQ(ETIMEDOUT, st_timed(self->trid, &ev, &past));
	/* "Expires at once": allow generous emulation overhead. */
	ASSERT_LT(st_now_ns(CLOCK_MONOTONIC) - t0, 500000000ULL);
}

/* REQ: TGETNEXT-1 TGETNEXT-2 TGETNEXT-3 RULE-12 RULE-91 */
TEST_F(getnext, timedgetnext_waits_until_the_realtime_deadline)
{
	uint64_t deadline = st_realtime_ns() + 200000000ULL, now, t0;
	struct timespec abs = st_ns_ts(deadline);
	struct st_ev ev;

	t0 = st_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(ETIMEDOUT, st_timed(self->trid, &ev, &abs));
	now = st_realtime_ns();
	ASSERT_GE(now, deadline);
	ASSERT_LT(st_now_ns(CLOCK_MONOTONIC) - t0, 3 * ST_NSEC_PER_SEC);
}

/* REQ: TGETNEXT-1 RULE-91 (EINVAL: abstime invalid and must wait) */
TEST_F(getnext, timedgetnext_invalid_nsec_on_empty_stream_is_einval)
{
	struct timespec bad[] = {
		{ .tv_sec = 0, .tv_nsec = -1 },
		{ .tv_sec = 0, .tv_nsec = 1000000000L },
		{ .tv_sec = (time_t)(st_realtime_ns() / ST_NSEC_PER_SEC) + 60,
		  .tv_nsec = LONG_MAX },
	};
	struct st_ev ev;
	unsigned int i;

	st_watchdog(5);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long nsec = bad[i].tv_nsec;

		EXPECT_EQ(EINVAL, st_timed(self->trid, &ev, &bad[i]))
			TH_LOG("tv_nsec %ld", nsec);
	}
	alarm(0);
}

/* REQ: TGETNEXT-4 RULE-91 */
TEST_F(getnext, timedgetnext_invalid_abstime_with_event_available_succeeds)
{
	struct timespec bad = { .tv_sec = 0, .tv_nsec = -1 };
	struct timespec past = { 0, 0 };
	struct st_ev ev;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "a", 1);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "b", 1);
	ASSERT_EQ(0, st_timed(self->trid, &ev, &bad));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(0, memcmp("a", ev.data, 1));
	/* A deadline in the past does not time out with an event there. */
	ASSERT_EQ(0, st_timed(self->trid, &ev, &past));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(0, memcmp("b", ev.data, 1));
}

/* REQ: TGETNEXT-1 RULE-89 */
TEST_F(getnext, timedgetnext_returns_event_recorded_before_deadline)
{
	struct reader *r = &self->rd[0];
	uint64_t t0;

	ASSERT_EQ(0, reader_start(r, self->trid, R_TIMED, 20000));
	ASSERT_TRUE(reader_blocked(r));
	t0 = st_now_ns(CLOCK_MONOTONIC);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "t", 1);
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(0, r->ev.unavailable);
	ASSERT_LT(st_now_ns(CLOCK_MONOTONIC) - t0, 5 * ST_NSEC_PER_SEC);
}

/* REQ: TRYGET-1 TRYGET-2 RULE-92 GETNEXT-C7 */
TEST_F(getnext, trygetnext_on_empty_stream_returns_unavailable_at_once)
{
	struct st_ev ev;
	uint64_t t0;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	t0 = st_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_NE(0, ev.unavailable);
	ASSERT_LT(st_now_ns(CLOCK_MONOTONIC) - t0, 500000000ULL);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "y", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(0, memcmp("y", ev.data, 1));
	/* Consumed: not reported again. */
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: GETNEXT-C1 GETNEXT-C2 GETNEXT-C3 GETNEXT-C4 RULE-67 RULE-68 */
TEST_F(getnext, short_buffer_gives_truncated_read_and_consumes_event)
{
	struct posix_trace_event_info info;
	unsigned char data[64], want[32];
	size_t len;
	int unav, i;

	for (i = 0; i < 32; i++)
		want[i] = (unsigned char)(0xa0 + i);
	for (i = 0; i < 4; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, want, 32);

	memset(data, 0, sizeof(data));
	ASSERT_EQ(0, posix_trace_getnext_event(self->trid, &info, data, 10,
					       &len, &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(10u, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
	ASSERT_EQ(0, memcmp(want, data, 10));
	ASSERT_EQ(0, data[10]);

	/* Exactly the data size: whole, not truncated. */
	ASSERT_EQ(0, posix_trace_getnext_event(self->trid, &info, data, 32,
					       &len, &unav));
	ASSERT_EQ(32u, len);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, info.posix_truncation_status);
	ASSERT_EQ(0, memcmp(want, data, 32));

	/* No room at all. */
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, data, 0,
						  &len, &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(0u, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);

	/* Larger buffer. */
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, data,
						  sizeof(data), &len, &unav));
	ASSERT_EQ(32u, len);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, info.posix_truncation_status);

	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, data,
						  sizeof(data), &len, &unav));
	ASSERT_NE(0, unav);
}

/* REQ: GETNEXT-C4 RULE-67 (TRUNCATED_READ overrides TRUNCATED_RECORD) */
TEST_F(getnext, truncated_read_takes_precedence_over_truncated_record)
{
	struct posix_trace_event_info info;
	unsigned char data[64], big[40];
	size_t len;
	int unav;

	memset(big, 0x3c, sizeof(big));
	ASSERT_EQ(0, st_create(0, 65536, 0, 16, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, big, sizeof(big));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, big, sizeof(big));
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid2, &info, data, 8,
						  &len, &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(8u, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid2, &info, data, 16,
						  &len, &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(16u, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD, info.posix_truncation_status);
}

/* REQ: GETNEXT-C5 RULE-6 RULE-7 5.18 */
TEST_F(getnext, events_come_oldest_first_with_increasing_timestamps)
{
	uint64_t before[100], after[100], prev = 0;
	struct st_ev ev;
	uint32_t i, v;

	for (i = 0; i < 100; i++) {
		before[i] = st_realtime_ns();
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
		after[i] = st_realtime_ns();
	}
	for (i = 0; i < 100; i++) {
		uint64_t ts;

		ASSERT_EQ(0, st_get(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable);
		memcpy(&v, ev.data, sizeof(v));
		ASSERT_EQ(i, v);
		ts = st_ts_ns(&ev.info.posix_timestamp);
		ASSERT_GE(ts, prev);
		ASSERT_GE(ts + ST_TS_SLACK_NS, before[i]);
		ASSERT_LE(ts, after[i] + ST_TS_SLACK_NS);
		prev = ts;
	}
}

/* ---------------------------------------------------------------- */

#define PP_ROUNDS 200

struct pingpong {
	int cpu_nth;
	int my_efd, peer_efd;
	uint32_t first;
	int err;
};

static void *pingpong_fn(void *p)
{
	struct pingpong *pp = p;
	uint32_t r, v;
	uint64_t tok;

	pp->err = st_pin_nth_cpu(pp->cpu_nth, NULL);
	for (r = 0; r < PP_ROUNDS; r++) {
		/* Strict alternation: wait for the peer's (or main's) turn. */
		if (read(pp->my_efd, &tok, sizeof(tok)) != sizeof(tok))
			pp->err = errno;
		v = 2 * r + (pp->first ? 0 : 1);
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &v, sizeof(v));
		st_efd_signal(pp->peer_efd);
	}
	return NULL;
}

/* REQ: RULE-13 RULE-6 GETNEXT-C5 (events of two CPUs in one order) */
TEST_F(getnext, events_from_two_cpus_are_merged_in_generation_order)
{
	struct pingpong a = { .cpu_nth = 0, .first = 1 };
	struct pingpong b = { .cpu_nth = 1, .first = 0 };
	uint64_t prev_ts = 0;
	uint32_t expect = 0, v;
	pthread_t ta, tb;
	struct st_ev ev;

	if (st_nr_allowed_cpus() < 2)
		ST_SKIP("needs two CPUs");
	a.my_efd = eventfd(0, EFD_CLOEXEC);
	b.my_efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_GE(a.my_efd, 0);
	ASSERT_GE(b.my_efd, 0);
	a.peer_efd = b.my_efd;
	b.peer_efd = a.my_efd;
	ASSERT_EQ(0, pthread_create(&ta, NULL, pingpong_fn, &a));
	ASSERT_EQ(0, pthread_create(&tb, NULL, pingpong_fn, &b));
	/* Kick the first thread. */
	st_efd_signal(a.my_efd);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ASSERT_EQ(0, a.err);
	ASSERT_EQ(0, b.err);

	for (expect = 0; expect < 2 * PP_ROUNDS; expect++) {
		uint64_t ts;

		ASSERT_EQ(0, st_try(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable) TH_LOG("event %u missing", expect);
		memcpy(&v, ev.data, sizeof(v));
		ts = st_ts_ns(&ev.info.posix_timestamp);
		if (v != expect) {
			/* Only events with equal timestamps may swap. */
			struct st_ev ev2;
			uint32_t v2;

			ASSERT_EQ(expect + 1, v) TH_LOG("got %u, want %u", v,
							expect);
			ASSERT_EQ(0, st_try(self->trid, &ev2));
			ASSERT_EQ(0, ev2.unavailable);
			memcpy(&v2, ev2.data, sizeof(v2));
			ASSERT_EQ(expect, v2);
			ASSERT_EQ(ts, st_ts_ns(&ev2.info.posix_timestamp))
				TH_LOG("events %u and %u out of order", v2, v);
			expect++;
		}
		ASSERT_GE(ts, prev_ts);
		prev_ts = ts;
	}
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
	close(a.my_efd);
	close(b.my_efd);
}

/* ---------------------------------------------------------------- */

#define MR_EVENTS 300

struct multi_reader {
	trace_id_t trid;
	uint32_t got[MR_EVENTS];
	int n;
	int last_ret;
	atomic_int *total;
};

static void *multi_read(void *p)
{
	struct multi_reader *m = p;
	struct st_ev ev;
	uint32_t v;

	for (;;) {
		m->last_ret = st_timed_ms(m->trid, &ev, 20000);
		if (m->last_ret)
			return NULL;
		memcpy(&v, ev.data, sizeof(v));
		if (m->n < MR_EVENTS)
			m->got[m->n] = v;
		m->n++;
		atomic_fetch_add(m->total, 1);
	}
}

/* REQ: RULE-90 GETNEXT-C6 SHUT-5 */
TEST_F(getnext, each_event_goes_to_exactly_one_of_two_readers)
{
	static struct multi_reader m[2];
	unsigned char seen[MR_EVENTS] = { 0 };
	atomic_int total = 0;
	pthread_t th[2];
	uint64_t end;
	uint32_t i;
	int k, j;

	for (k = 0; k < 2; k++) {
		memset(&m[k], 0, sizeof(m[k]));
		m[k].trid = self->trid;
		m[k].total = &total;
		ASSERT_EQ(0, pthread_create(&th[k], NULL, multi_read, &m[k]));
	}
	for (i = 0; i < MR_EVENTS; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	end = st_now_ns(CLOCK_MONOTONIC) + 10 * ST_NSEC_PER_SEC;
	while (atomic_load(&total) < MR_EVENTS &&
	       st_now_ns(CLOCK_MONOTONIC) < end)
		st_sleep_ms(1);
	/* Give a duplicate delivery a chance to show, then stop. */
	st_sleep_ms(20);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		EXPECT_EQ(EINVAL, m[k].last_ret);
	}
	ASSERT_EQ(MR_EVENTS, m[0].n + m[1].n);
	for (k = 0; k < 2; k++) {
		for (j = 0; j < m[k].n; j++) {
			ASSERT_LT(m[k].got[j], (uint32_t)MR_EVENTS);
			ASSERT_EQ(0, seen[m[k].got[j]])
				TH_LOG("event %u delivered twice",
				       m[k].got[j]);
			seen[m[k].got[j]] = 1;
			/* Each reader sees its share in order. */
			if (j) {
				ASSERT_GT(m[k].got[j], m[k].got[j - 1]);
			}
		}
	}
}

/* ---------------------------------------------------------------- */

static void *cancel_reader(void *p)
{
	struct reader *r = p;

	r->tid = st_gettid();
	atomic_store(&r->ready, 1);
	r->ret = st_get(r->trid, &r->ev);
	return NULL;
}

/* REQ: MODEL-48 RULE-96 5.28 */
TEST_F(getnext, blocked_getnext_is_a_cancellation_point_and_loses_nothing)
{
	struct reader *r = &self->rd[0];
	struct timespec deadline;
	struct st_ev ev;
	void *res = NULL;

	r->trid = self->trid;
	r->ret = -1;
	atomic_store(&r->ready, 0);
	ASSERT_EQ(0, pthread_create(&r->th, NULL, cancel_reader, r));
	while (!atomic_load(&r->ready))
		sched_yield();
	ASSERT_TRUE(st_wait_sleeping(r->tid, 3000));
	ASSERT_EQ(0, pthread_cancel(r->th));
	deadline = st_ns_ts(st_realtime_ns() + 5 * ST_NSEC_PER_SEC);
	ASSERT_EQ(0, pthread_timedjoin_np(r->th, &res, &deadline))
		TH_LOG("blocked getnext was not cancelled");
	ASSERT_EQ(PTHREAD_CANCELED, res);

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "c", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(0, memcmp("c", ev.data, 1));
}

/* ---------------------------------------------------------------- */
/* Controller and traced process are different processes             */
/* ---------------------------------------------------------------- */

/* REQ: CREATE-5 MODEL-1 EVENT-4 EVNAME-4 RULE-89 GETNEXT-2 5.16 */
TEST_F(getnext, controller_reads_events_of_traced_child)
{
	struct reader *r = &self->rd[0];
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	pthread_t child_thread;
	struct st_ev ev;
	int cpid, i;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "child-ev", &id));

	/* A reader blocked in the controller is woken by the child. */
	ASSERT_EQ(0, reader_start(r, self->trid2, R_GET, 0));
	ASSERT_TRUE(reader_blocked(r));
	ASSERT_EQ(0, st_agent_event(&self->child, id, 0, &child_thread));
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ev = r->ev;
	for (i = 0; i < 3; i++) {
		char want[16];

		if (i > 0) {
			ASSERT_EQ(0, st_agent_event(&self->child, id, i,
						    NULL));
			ASSERT_EQ(0, st_try(self->trid2, &ev));
			ASSERT_EQ(0, ev.unavailable);
		}
		snprintf(want, sizeof(want), "ev%d", i);
		ASSERT_EQ(id, ev.info.posix_event_id);
		ASSERT_EQ(cpid, ev.info.posix_pid);
		ASSERT_TRUE(pthread_equal(child_thread,
					  ev.info.posix_thread_id));
		ASSERT_EQ(strlen(want), ev.len);
		ASSERT_EQ(0, memcmp(want, ev.data, ev.len));
	}
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid2, id, name));
	ASSERT_STREQ("child-ev", name);
	/* The controller's own events do not go to the child's stream. */
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "ctl", 3);
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: RULE-79 MODEL-5 (events of an exited traced process stay) */
TEST_F(getnext, events_of_exited_traced_child_remain_readable)
{
	struct posix_trace_status_info st;
	trace_event_id_t id = POSIX_TRACE_UNNAMED_USEREVENT;
	struct st_ev ev;
	int cpid, i;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, st_agent_event(&self->child, id, i, NULL));
	}
	st_agent_kill(&self->child);

	ASSERT_EQ(0, posix_trace_get_status(self->trid2, &st));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, st_try(self->trid2, &ev));
		ASSERT_EQ(0, ev.unavailable);
		ASSERT_EQ(cpid, ev.info.posix_pid);
	}
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_NE(0, ev.unavailable);
	/* The stream itself is still usable. */
	ASSERT_EQ(0, posix_trace_stop(self->trid2));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(POSIX_TRACE_STOP, ev.info.posix_event_id);
}

/* REQ: MODEL-40 RULE-71 INHERIT-2 (CLOSE_FOR_CHILD: child not traced) */
TEST_F(getnext, child_of_traced_process_is_not_traced_by_close_for_child_stream)
{
	struct st_ev ev;

	/* The fixture's running stream traces this process; fork now. */
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_event(&self->child,
				    POSIX_TRACE_UNNAMED_USEREVENT, 0, NULL));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "parent", 6);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(getpid(), ev.info.posix_pid);
	ASSERT_EQ(6u, ev.len);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: CREATE-5 EVENT-1 5.17 5.22 (library state inherited over fork) */
TEST_F(getnext, child_forked_from_untraced_library_user_is_traceable)
{
	trace_event_id_t id;
	struct st_ev ev;
	int cpid;

	ST_REQUIRE_TRACE_CHILDREN();
	/* Not traced any more, but the library has been used. */
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_EQ(0, posix_trace_eventid_open("pre-fork", &id));
	posix_trace_event(id, "x", 1);

	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	ASSERT_EQ(0, st_agent_event(&self->child,
				    POSIX_TRACE_UNNAMED_USEREVENT, 0, NULL));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable) TH_LOG("child's event not recorded");
	ASSERT_EQ(cpid, ev.info.posix_pid);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	ASSERT_EQ(0, memcmp("ev0", ev.data, 3));

	/* 5.17: the child got a copy of its parent's name -> id mapping. */
	ASSERT_EQ(0, st_agent_event(&self->child, id, 1, NULL));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable)
		TH_LOG("event with the id inherited over fork not recorded");
	ASSERT_EQ(id, ev.info.posix_event_id);
	ASSERT_EQ(0, memcmp("ev1", ev.data, 3));
}

/* REQ: CLEAR-1 5.9 (blocked readers keep waiting across a clear) */
TEST_F(getnext, clear_does_not_wake_a_blocked_reader)
{
	struct reader *r = &self->rd[0];

	ASSERT_EQ(0, reader_start(r, self->trid, R_GET, 0));
	ASSERT_TRUE(reader_blocked(r));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_FALSE(st_wait_fd(r->efd, 100)) TH_LOG("woken by clear: %d",
						     r->ret);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "post", 4);
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(0, memcmp("post", r->ev.data, 4));
}

#define STORM_EVENTS 3000

struct storm {
	trace_id_t trid;
	atomic_int done;
	int eintr;
	int err;
	uint32_t next;
	pid_t tid;
	atomic_int ready;
};

static void *storm_reader(void *p)
{
	struct storm *st = p;
	struct st_ev ev;
	uint32_t v;
	int ret;

	st->tid = st_gettid();
	atomic_store(&st->ready, 1);
	while (st->next < STORM_EVENTS) {
		ret = (st->next & 1) ? st_get(st->trid, &ev) :
				       st_timed_ms(st->trid, &ev, 30000);
		if (ret == EINTR) {
			st->eintr++;
			continue;
		}
		if (ret || ev.unavailable || ev.len != sizeof(v)) {
			st->err = ret ? ret : -1;
			break;
		}
		memcpy(&v, ev.data, sizeof(v));
		if (v != st->next) {
			st->err = -2;
			break;
		}
		st->next++;
	}
	atomic_store(&st->done, 1);
	return NULL;
}

static void *storm_writer(void *p)
{
	uint32_t i;

	(void)p;
	for (i = 0; i < STORM_EVENTS; i++) {
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
		if (i % 64 == 0)
			sched_yield();
	}
	return NULL;
}

/* REQ: GETNEXT-2 RULE-89 5.27 (EINTR never loses or repeats an event) */
TEST_F(getnext, signals_during_concurrent_reading_lose_no_event)
{
	static struct storm st;
	pthread_t rd, wr;
	uint64_t end;

	memset(&st, 0, sizeof(st));
	ASSERT_EQ(0, st_catch(SIGUSR1, 0));
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_EQ(0, st_create(0, 1 << 20, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	st.trid = self->trid2;
	ASSERT_EQ(0, pthread_create(&rd, NULL, storm_reader, &st));
	while (!atomic_load(&st.ready))
		sched_yield();
	ASSERT_EQ(0, pthread_create(&wr, NULL, storm_writer, &st));
	end = st_now_ns(CLOCK_MONOTONIC) + 25 * ST_NSEC_PER_SEC;
	while (!atomic_load(&st.done) && st_now_ns(CLOCK_MONOTONIC) < end) {
		pthread_kill(rd, SIGUSR1);
		sched_yield();
	}
	pthread_join(wr, NULL);
	ASSERT_TRUE(atomic_load(&st.done)) TH_LOG("reader stuck at %u",
						  st.next);
	pthread_join(rd, NULL);
	TH_LOG("%d EINTR returns", st.eintr);
	ASSERT_EQ(0, st.err) TH_LOG("at event %u", st.next);
	ASSERT_EQ((uint32_t)STORM_EVENTS, st.next);
}

/* REQ: RULE-79 RULE-89 (the traced process exiting wakes nobody) */
TEST_F(getnext, traced_child_exit_does_not_wake_or_invalidate_reader)
{
	struct reader *r = &self->rd[0];
	struct posix_trace_status_info st;
	int cpid;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	ASSERT_EQ(0, reader_start(r, self->trid2, R_TIMED, 60000));
	ASSERT_TRUE(reader_blocked(r));
	st_agent_kill(&self->child);
	ASSERT_FALSE(st_wait_fd(r->efd, 200)) TH_LOG("woken with %d", r->ret);
	ASSERT_EQ(0, posix_trace_get_status(self->trid2, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_stop(self->trid2));
	ASSERT_TRUE(reader_done(r, 5000));
	ASSERT_EQ(0, r->ret);
	ASSERT_EQ(POSIX_TRACE_STOP, r->ev.info.posix_event_id);
}

static void *cancel_timed_reader(void *p)
{
	struct reader *r = p;

	r->tid = st_gettid();
	atomic_store(&r->ready, 1);
	r->ret = st_timed_ms(r->trid, &r->ev, 60000);
	return NULL;
}

/* REQ: MODEL-48 RULE-96 5.28 */
TEST_F(getnext, blocked_timedgetnext_is_a_cancellation_point)
{
	struct reader *r = &self->rd[0];
	struct timespec deadline;
	struct st_ev ev;
	void *res = NULL;

	r->trid = self->trid;
	atomic_store(&r->ready, 0);
	ASSERT_EQ(0, pthread_create(&r->th, NULL, cancel_timed_reader, r));
	while (!atomic_load(&r->ready))
		sched_yield();
	ASSERT_TRUE(st_wait_sleeping(r->tid, 3000));
	ASSERT_EQ(0, pthread_cancel(r->th));
	deadline = st_ns_ts(st_realtime_ns() + 5 * ST_NSEC_PER_SEC);
	ASSERT_EQ(0, pthread_timedjoin_np(r->th, &res, &deadline));
	ASSERT_EQ(PTHREAD_CANCELED, res);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "k", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
}

/* REQ: TGETNEXT-2 RULE-91 (a deadline before 1970 is in the past) */
TEST_F(getnext, timedgetnext_with_negative_seconds_times_out_at_once)
{
	struct timespec neg[] = {
		{ .tv_sec = -1, .tv_nsec = 0 },
		{ .tv_sec = -1000000, .tv_nsec = 999999999 },
		{ .tv_sec = LONG_MIN, .tv_nsec = 0 },
	};
	struct st_ev ev;
	unsigned int i;

	st_watchdog(5);
	for (i = 0; i < sizeof(neg) / sizeof(neg[0]); i++) {
		long sec = (long)neg[i].tv_sec;

		EXPECT_EQ(ETIMEDOUT, st_timed(self->trid, &ev, &neg[i]))
			TH_LOG("tv_sec %ld", sec);
	}
	alarm(0);
}

/* REQ: TGETNEXT-1 TGETNEXT-2 RULE-91 (no overflow of far deadlines) */
TEST_F(getnext, timedgetnext_with_far_future_deadline_waits_for_event)
{
	static const time_t far[] = {
		(time_t)1 << 34, (time_t)1 << 35, (time_t)100000000000LL,
		LONG_MAX,
	};
	struct reader *r = &self->rd[0];
	unsigned int i;

	for (i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		long sec = (long)far[i];

		r->trid = self->trid;
		r->mode = R_TIMED;
		r->abstime.tv_sec = far[i];
		r->abstime.tv_nsec = 0;
		atomic_store(&r->ready, 0);
		r->ret = -1;
		r->efd = eventfd(0, EFD_CLOEXEC);
		ASSERT_GE(r->efd, 0);
		ASSERT_EQ(0, pthread_create(&r->th, NULL, reader_fn, r));
		while (!atomic_load(&r->ready))
			sched_yield();
		ASSERT_TRUE(reader_blocked(r))
			TH_LOG("tv_sec %ld: returned %d at once", sec, r->ret);
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "f", 1);
		ASSERT_TRUE(reader_done(r, 5000));
		ASSERT_EQ(0, r->ret) TH_LOG("tv_sec %ld", sec);
		ASSERT_EQ(0, r->ev.unavailable);
		close(r->efd);
	}
}

TEST_HARNESS_MAIN
