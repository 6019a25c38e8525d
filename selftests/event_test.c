// SPDX-License-Identifier: GPL-2.0
/*
 * event_test - posix_trace_event(): what is recorded (id, data, pid,
 * thread, program address, timestamp), truncation, ids that are not the
 * process's, when nothing is recorded, reentrancy from a signal handler,
 * and many concurrent writers.
 */
#include "pt_selftest.h"

#include <stdatomic.h>
#include <sys/resource.h>

FIXTURE(event) {
	trace_id_t trid;
	trace_id_t trid2;
};

FIXTURE_SETUP(event)
{
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, st_create(0, 1 << 20, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
}

FIXTURE_TEARDOWN(event)
{
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->trid2 > 0)
		posix_trace_shutdown(self->trid2);
}

/*
 * A trace point whose call site we know: the event's posix_prog_address
 * must lie inside this (small) function.  The empty asm after the call
 * keeps the compiler from turning it into a tail call.
 */
static __attribute__((noinline)) void trace_point(trace_event_id_t id,
						  const void *data, size_t len)
{
	posix_trace_event(id, data, len);
	__asm__ volatile("" ::: "memory");
}

static int creation_time(trace_id_t trid, uint64_t *ns)
{
	struct timespec ct;
	trace_attr_t a;
	int ret;

	ret = posix_trace_attr_init(&a);
	if (!ret)
		ret = posix_trace_get_attr(trid, &a);
	if (!ret)
		ret = posix_trace_attr_getcreatetime(&a, &ct);
	if (!ret)
		*ns = st_ts_ns(&ct);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* REQ: EVENT-1 EVENT-4 RULE-4 MODEL-28 RULE-7 5.18 5.21 */
TEST_F(event, event_records_id_data_pid_thread_address_and_time)
{
	uint64_t before, after, ts, creation;
	trace_event_id_t id;
	struct st_ev ev;
	uintptr_t fn = (uintptr_t)trace_point, addr;

	ASSERT_EQ(0, posix_trace_eventid_open("recorded", &id));
	/* 5.18: timestamps are on the creation-time scale. */
	ASSERT_EQ(0, creation_time(self->trid, &creation));
	before = st_realtime_ns();
	trace_point(id, "hello", 5);
	after = st_realtime_ns();

	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(id, ev.info.posix_event_id);
	ASSERT_EQ(5u, ev.len);
	ASSERT_EQ(0, memcmp("hello", ev.data, 5));
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.info.posix_truncation_status);
	EXPECT_EQ(getpid(), ev.info.posix_pid);
	EXPECT_TRUE(pthread_equal(pthread_self(), ev.info.posix_thread_id));
	addr = (uintptr_t)ev.info.posix_prog_address;
	EXPECT_GT(addr, fn) TH_LOG("address %p, trace_point at %p",
				   ev.info.posix_prog_address, (void *)fn);
	EXPECT_LT(addr, fn + 256);
	ts = st_ts_ns(&ev.info.posix_timestamp);
	EXPECT_GE(ev.info.posix_timestamp.tv_nsec, 0);
	EXPECT_LT(ev.info.posix_timestamp.tv_nsec, 1000000000L);
	EXPECT_GE(ts + ST_TS_SLACK_NS, before);
	EXPECT_LE(ts, after + ST_TS_SLACK_NS);
	EXPECT_GE(ts, creation);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/*
 * <trace.h> also defines posix_trace_event() as a macro with the test of
 * the wanted bitmap inlined; the function itself stays callable by name in
 * parentheses and through a pointer (XSH 2.1.1), and records the same.
 */
/* REQ: EVENT-1 */
TEST_F(event, macro_function_and_pointer_forms_record_alike)
{
	void (*fp)(trace_event_id_t, const void *, size_t) = posix_trace_event;
	trace_event_id_t id;
	struct st_ev ev;
	int i;

	ASSERT_EQ(0, posix_trace_eventid_open("forms", &id));
	posix_trace_event(id, "m", 1);
	(posix_trace_event)(id, "f", 1);
	fp(id, "p", 1);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, st_try(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable);
		EXPECT_EQ(id, ev.info.posix_event_id);
		ASSERT_EQ(1u, ev.len);
		EXPECT_EQ("mfp"[i], ((char *)ev.data)[0]);
	}
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

struct writer_arg {
	trace_event_id_t id;
	pthread_t self;
};

static void *write_one(void *p)
{
	struct writer_arg *w = p;

	w->self = pthread_self();
	posix_trace_event(w->id, "t", 1);
	return NULL;
}

/* REQ: EVENT-4 RULE-77 MODEL-28 */
TEST_F(event, event_records_the_writing_thread)
{
	struct writer_arg w = { .id = POSIX_TRACE_UNNAMED_USEREVENT };
	pthread_t th;
	struct st_ev ev;

	ASSERT_EQ(0, pthread_create(&th, NULL, write_one, &w));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_TRUE(pthread_equal(w.self, ev.info.posix_thread_id));
	EXPECT_FALSE(pthread_equal(pthread_self(), ev.info.posix_thread_id));
	EXPECT_EQ(getpid(), ev.info.posix_pid);
}

/* REQ: EVENT-2 MAXDATA-2 RULE-66 RULE-68 GETNEXT-C3 */
TEST_F(event, data_longer_than_max_data_size_is_truncated_on_record)
{
	unsigned char buf[64];
	struct st_ev ev;
	int i;

	ASSERT_EQ(0, st_create(0, 65536, 0, 16, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	for (i = 0; i < 64; i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, buf, 40);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, buf, 16);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, buf, 17);

	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(16u, ev.len);
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD,
		  ev.info.posix_truncation_status);
	EXPECT_EQ(0, memcmp(buf, ev.data, 16));

	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(16u, ev.len);
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.info.posix_truncation_status);
	EXPECT_EQ(0, memcmp(buf, ev.data, 16));

	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(16u, ev.len);
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD,
		  ev.info.posix_truncation_status);
}

/* REQ: EVENT-2 (truncation is applied per stream) */
TEST_F(event, truncation_is_decided_per_stream)
{
	char buf[32];
	struct st_ev ev;

	memset(buf, 'q', sizeof(buf));
	ASSERT_EQ(0, st_create(0, 65536, 0, 8, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, buf, sizeof(buf));

	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(8u, ev.len);
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD,
		  ev.info.posix_truncation_status);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(32u, ev.len);
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.info.posix_truncation_status);
}

/* REQ: MAXDATA-4 EVENT-2 5.23 */
TEST_F(event, max_data_size_above_64k_is_clamped_and_enforced)
{
	size_t len = 70000, got = 0;
	unsigned char *buf = malloc(len), *rd = malloc(len);
	struct posix_trace_event_info info;
	int unav = -1;
	size_t i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, rd);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i ^ (i >> 8));
	ASSERT_EQ(0, st_create(0, 1 << 18, 0, 1 << 20, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, buf, len);
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid2, &info, rd, len,
						  &got, &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(65536u, got);
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD, info.posix_truncation_status);
	EXPECT_EQ(0, memcmp(buf, rd, got));
	free(buf);
	free(rd);
}

/* REQ: EVENT-1 GETNEXT-C2 */
TEST_F(event, zero_length_data_records_an_empty_event)
{
	struct st_ev ev;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "ignored", 0);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(0u, ev.len);
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.info.posix_truncation_status);
}

/* REQ: 5.22 (data_ptr NULL with data_len > 0: no data) */
TEST_F(event, null_data_pointer_records_event_without_data)
{
	struct st_ev ev;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, NULL, 10);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	EXPECT_EQ(0u, ev.len);
}

/* REQ: 5.22 5.24 (unreadable data: no user event, ERROR(EFAULT)) */
TEST_F(event, unreadable_data_records_error_efault_not_the_event)
{
	struct st_ev ev;
	int err;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, (void *)16, 8);
	/* The process survived; the stream still works. */
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "ok", 2);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_ERROR, ev.info.posix_event_id)
		TH_LOG("got %s", st_id_str(ev.info.posix_event_id));
	ASSERT_EQ(sizeof(int), ev.len);
	memcpy(&err, ev.data, sizeof(err));
	EXPECT_EQ(EFAULT, err);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	ASSERT_EQ(2u, ev.len);
}

/* REQ: EVENT-3 5.22 (ids that are not the process's are ignored) */
TEST_F(event, ids_not_obtained_by_the_process_record_nothing)
{
	static const trace_event_id_t foreign[] = {
		0, POSIX_TRACE_ERROR, POSIX_TRACE_START, POSIX_TRACE_STOP,
		POSIX_TRACE_FILTER, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME,
		POSIX_TRACE_FLUSH_START, POSIX_TRACE_FLUSH_STOP, 9, 255, 999,
		POSIX_TRACE_UNNAMED_USEREVENT + 1,
		256 + TRACE_USER_EVENT_MAX - 1, 256 + TRACE_USER_EVENT_MAX,
		0x7fffffffu, 0xffffffffu,
	};
	trace_event_id_t mine;
	struct st_ev ev;
	unsigned int i;
	int v = 0;

	/* Use the ids of this process only after the foreign ones. */
	for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		posix_trace_event(foreign[i], &v, sizeof(v));
	ASSERT_EQ(0, posix_trace_eventid_open("mine", &mine));
	posix_trace_event(mine, &v, sizeof(v));

	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(mine, ev.info.posix_event_id)
		TH_LOG("foreign id recorded: %s",
		       st_id_str(ev.info.posix_event_id));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: RULE-59 EVOPEN-4 (the unnamed id needs no registration) */
TEST_F(event, unnamed_user_event_is_always_recordable)
{
	struct st_ev ev;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "u", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
}

/* REQ: EVENT-3 RULE-1 MODEL-15 */
TEST_F(event, events_while_suspended_are_not_recorded)
{
	struct st_ev ev[8];
	int n;

	ASSERT_EQ(0, posix_trace_stop(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "s", 1);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "r", 1);
	ASSERT_EQ(0, st_drain(self->trid, ev, 8, &n));
	ASSERT_EQ(3, n);
	EXPECT_EQ(POSIX_TRACE_STOP, ev[0].info.posix_event_id);
	EXPECT_EQ(POSIX_TRACE_START, ev[1].info.posix_event_id);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev[2].info.posix_event_id);
	EXPECT_EQ(0, memcmp("r", ev[2].data, 1));
}

/* REQ: EVENT-3 RULE-1 CREATE-14 */
TEST_F(event, events_before_create_or_start_are_not_recorded)
{
	struct st_ev ev;

	/* No stream of this process but the started fixture one. */
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "none", 4);
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "created", 7);
	ASSERT_EQ(0, posix_trace_start(self->trid2));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* ---------------------------------------------------------------- */
/* Signal handler interrupting posix_trace_event()                   */
/* ---------------------------------------------------------------- */

#define SIG_MAIN_MAX	40000
#define SIG_NESTED_WANT	20
#define SIG_SECONDS	3

static volatile sig_atomic_t in_event;
static atomic_int handler_calls, nested_calls;
static trace_event_id_t handler_id;

static void record_from_handler(int sig)
{
	uint32_t v = (uint32_t)atomic_fetch_add(&handler_calls, 1);

	(void)sig;
	if (in_event)
		atomic_fetch_add(&nested_calls, 1);
	posix_trace_event(handler_id, &v, sizeof(v));
}

struct kicker {
	pthread_t target;
	atomic_int stop;
};

static void *kick(void *p)
{
	struct kicker *k = p;

	while (!atomic_load(&k->stop)) {
		pthread_kill(k->target, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

/* REQ: MODEL-47 RULE-95 EVENT-6 */
TEST_F(event, event_from_signal_handler_interrupting_event_both_recorded)
{
	struct sigaction sa;
	struct kicker k;
	trace_event_id_t main_id;
	uint32_t i, next_main = 0, next_handler = 0;
	pthread_t th;
	struct st_ev ev;
	int calls, ret;
	uint64_t end;

	ASSERT_EQ(0, posix_trace_eventid_open("main-loop", &main_id));
	ASSERT_EQ(0, posix_trace_eventid_open("in-handler", &handler_id));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_from_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));

	/* A stream that holds everything: at most 40000 + handler events. */
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_EQ(0, st_create(0, 8 << 20, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	k.target = pthread_self();
	atomic_store(&k.stop, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, kick, &k));
	st_watchdog(20);
	end = st_now_ns(CLOCK_MONOTONIC) + SIG_SECONDS * ST_NSEC_PER_SEC;
	for (i = 0; i < SIG_MAIN_MAX; i++) {
		in_event = 1;
		posix_trace_event(main_id, &i, sizeof(i));
		in_event = 0;
		if (atomic_load(&nested_calls) >= SIG_NESTED_WANT ||
		    st_now_ns(CLOCK_MONOTONIC) > end) {
			i++;
			break;
		}
	}
	/* i events were recorded by the main loop. */
	atomic_store(&k.stop, 1);
	pthread_join(th, NULL);
	alarm(0);
	signal(SIGUSR1, SIG_IGN);
	calls = atomic_load(&handler_calls);
	TH_LOG("%u main events, %d handler events, %d nested", i, calls,
	       atomic_load(&nested_calls));
	ASSERT_GT(atomic_load(&nested_calls), 0);

	/* Every event of both kinds is there, each kind in order. */
	for (;;) {
		uint32_t v;

		ret = st_try(self->trid2, &ev);
		ASSERT_EQ(0, ret);
		if (ev.unavailable)
			break;
		ASSERT_EQ(sizeof(v), ev.len);
		memcpy(&v, ev.data, sizeof(v));
		if (ev.info.posix_event_id == main_id) {
			ASSERT_EQ(next_main, v);
			next_main++;
		} else {
			ASSERT_EQ(handler_id, ev.info.posix_event_id)
				TH_LOG("unexpected %s",
				       st_id_str(ev.info.posix_event_id));
			ASSERT_EQ(next_handler, v);
			next_handler++;
		}
	}
	ASSERT_EQ(i, next_main);
	ASSERT_EQ((uint32_t)calls, next_handler);
}

/* ---------------------------------------------------------------- */
/* Concurrent writers                                                */
/* ---------------------------------------------------------------- */

#define CW_THREADS	8
#define CW_EVENTS	1500

struct cw_rec {
	uint32_t thread;
	uint32_t seq;
	uint32_t len;
	uint32_t check;
	unsigned char fill[48];
};

static uint32_t cw_check(const struct cw_rec *r)
{
	uint32_t h = 2166136261u ^ r->thread;
	uint32_t i;

	h = (h ^ r->seq) * 16777619u;
	h = (h ^ r->len) * 16777619u;
	for (i = 0; i < r->len; i++)
		h = (h ^ r->fill[i]) * 16777619u;
	return h;
}

static void cw_make(struct cw_rec *r, uint32_t thread, uint32_t seq)
{
	uint32_t i;

	r->thread = thread;
	r->seq = seq;
	r->len = (seq * 13 + thread) % sizeof(r->fill);
	for (i = 0; i < r->len; i++)
		r->fill[i] = (unsigned char)(thread * 31 + seq + i);
	r->check = cw_check(r);
}

struct cw_writer {
	trace_event_id_t id;
	uint32_t idx;
	pthread_t self;
	atomic_int *go;
	atomic_ullong max_call_ns;	/* longest posix_trace_event() */
};

/*
 * The bound of the order across lanes (Documentation/design.md, "Order
 * across lanes"; libtrace/inflight.c): an event may be overtaken only if its
 * own posix_trace_event() call took longer than CW_INFLIGHT_NS (its stamp
 * is then no longer believed), or if an earlier call of its lane (its
 * thread's) did, at most CW_HOLD_OFF_NS plus twice the bound before this
 * call began (the lane is then held off).  Anything else out of order is
 * a failure, whatever other threads' calls took.
 */
#define CW_INFLIGHT_NS	1000000000ULL
#define CW_HOLD_OFF_NS	5000000000ULL
#define CW_MAX_SEQ	12000	/* events per thread, CS_MAX_EVENTS too */

/* Each call's start and length, by thread and sequence number. */
static uint64_t cw_call_start[CW_THREADS][CW_MAX_SEQ];
static uint64_t cw_call_ns[CW_THREADS][CW_MAX_SEQ];

/* Record @r as writer @w, keeping the longest call and each call's times. */
static void cw_event(struct cw_writer *w, const struct cw_rec *r)
{
	uint64_t t0 = st_now_ns(CLOCK_MONOTONIC), t;

	posix_trace_event(w->id, r, offsetof(struct cw_rec, fill) + r->len);
	t = st_now_ns(CLOCK_MONOTONIC) - t0;
	if (r->seq < CW_MAX_SEQ) {
		cw_call_start[w->idx][r->seq] = t0;
		cw_call_ns[w->idx][r->seq] = t;
	}
	if (t > atomic_load(&w->max_call_ns))
		atomic_store(&w->max_call_ns, t);
}

static uint64_t cw_max_call(struct cw_writer *w)
{
	uint64_t max = 0, t;
	int i;

	for (i = 0; i < CW_THREADS; i++) {
		t = atomic_load(&w[i].max_call_ns);
		if (t > max)
			max = t;
	}
	return max;
}

/* Timestamps of the events read so far, and each event read late. */
struct cw_order {
	uint64_t prev_ts;
	uint32_t prev_thread, prev_seq;
	int backwards;
	struct { uint32_t thread, seq; } late[CW_THREADS * CW_MAX_SEQ];
};

static void cw_order_next(struct __test_metadata *_metadata, struct cw_order *o,
			  const struct st_ev *ev, const struct cw_rec *r, int total)
{
	uint64_t ts = st_ts_ns(&ev->info.posix_timestamp);

	if (ts < o->prev_ts) {
		if (!o->backwards)
			TH_LOG("timestamps go backwards by %llu ns after %d events: thread %u event %u after thread %u event %u",
			       (unsigned long long)(o->prev_ts - ts), total, r->thread,
			       r->seq, o->prev_thread, o->prev_seq);
		if (o->backwards < CW_THREADS * CW_MAX_SEQ) {
			o->late[o->backwards].thread = r->thread;
			o->late[o->backwards].seq = r->seq;
		}
		o->backwards++;
	}
	o->prev_ts = ts;
	o->prev_thread = r->thread;
	o->prev_seq = r->seq;
}

/* May event @seq of thread @t be overtaken (see CW_INFLIGHT_NS)? */
static bool cw_overtake_excused(uint32_t t, uint32_t seq)
{
	uint64_t begin = cw_call_start[t][seq];
	uint32_t s;

	if (cw_call_ns[t][seq] > CW_INFLIGHT_NS)
		return true;
	for (s = seq; s-- > 0;) {
		uint64_t end = cw_call_start[t][s] + cw_call_ns[t][s];

		if (end + CW_HOLD_OFF_NS + 2 * CW_INFLIGHT_NS < begin)
			break;
		if (cw_call_ns[t][s] > CW_INFLIGHT_NS)
			return true;
	}
	return false;
}

/* Every event read late was covered by the documented bound. */
static void cw_order_check(struct __test_metadata *_metadata,
			   const struct cw_order *o, uint64_t max_call)
{
	int i, n = o->backwards, bad = 0;

	TH_LOG("longest event call %llu us, %d events read late",
	       (unsigned long long)max_call / 1000, n);
	ASSERT_LE(n, CW_THREADS * CW_MAX_SEQ);
	for (i = 0; i < n; i++) {
		if (cw_overtake_excused(o->late[i].thread, o->late[i].seq))
			continue;
		if (!bad++)
			TH_LOG("thread %u event %u (its call %llu us) was overtaken",
			       o->late[i].thread, o->late[i].seq,
			       (unsigned long long)cw_call_ns[o->late[i].thread][o->late[i].seq] / 1000);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d late events not covered by the bound", bad, n);
}

/*
 * @ev is the next event read from a stream the cw_write() threads record
 * into: one of theirs, intact, and the next one of its thread (each
 * thread's events come in the order they were made).  Returns it in @r.
 */
static void cw_expect_next(struct __test_metadata *_metadata,
			   const struct st_ev *ev, trace_event_id_t id, int total,
			   uint32_t next[CW_THREADS], struct cw_rec *r)
{
	ASSERT_EQ(0, ev->unavailable);
	ASSERT_EQ(id, ev->info.posix_event_id)
		TH_LOG("unexpected %s after %d events",
		       st_id_str(ev->info.posix_event_id), total);
	ASSERT_GE(ev->len, offsetof(struct cw_rec, fill));
	memset(r, 0, sizeof(*r));
	memcpy(r, ev->data, ev->len);
	ASSERT_LT(r->thread, (uint32_t)CW_THREADS);
	ASSERT_EQ(offsetof(struct cw_rec, fill) + r->len, ev->len);
	ASSERT_EQ(cw_check(r), r->check) TH_LOG("torn event");
	ASSERT_EQ(next[r->thread], r->seq) TH_LOG("thread %u", r->thread);
	next[r->thread]++;
}

static void *cw_write(void *p)
{
	struct cw_writer *w = p;
	struct cw_rec r;
	uint32_t s;

	w->self = pthread_self();
	while (!atomic_load(w->go))
		;
	for (s = 0; s < CW_EVENTS; s++) {
		cw_make(&r, w->idx, s);
		cw_event(w, &r);
	}
	return NULL;
}

/*
 * Eight threads record at once while the main thread reads: every event
 * once, intact, each thread's in its order, and all in timestamp order
 * unless a writer was stopped inside posix_trace_event() past the reader's
 * bound (CW_INFLIGHT_NS), as a loaded debug kernel under TCG can.
 */
/* REQ: FN-4 RULE-94 RULE-13 RULE-6 GETNEXT-C5 GETNEXT-C6 EVENT-6 MODEL-2 */
TEST_F(event, concurrent_writers_events_received_once_in_order_untorn)
{
	struct cw_writer w[CW_THREADS];
	uint32_t next[CW_THREADS] = { 0 };
	pthread_t th[CW_THREADS];
	static struct cw_order order;	/* too large for the stack */
	atomic_int go = 0;
	trace_event_id_t id;
	struct st_ev ev;
	int i, total = 0, ret;

	/* A fresh stream large enough for everything, read concurrently. */
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_EQ(0, st_create(0, 2 << 20, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	ASSERT_EQ(0, posix_trace_eventid_open("concurrent", &id));
	memset(w, 0, sizeof(w));
	for (i = 0; i < CW_THREADS; i++) {
		w[i].id = id;
		w[i].idx = i;
		w[i].go = &go;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, cw_write, &w[i]));
	}
	atomic_store(&go, 1);

	while (total < CW_THREADS * CW_EVENTS) {
		struct cw_rec r;

		ret = st_timed_ms(self->trid2, &ev, 10000);
		ASSERT_EQ(0, ret) TH_LOG("after %d events", total);
		cw_expect_next(_metadata, &ev, id, total, next, &r);
		EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED,
			  ev.info.posix_truncation_status);
		EXPECT_EQ(getpid(), ev.info.posix_pid);
		/* w[].self is written before the thread's first event. */
		ASSERT_TRUE(pthread_equal(w[r.thread].self,
					  ev.info.posix_thread_id));
		cw_order_next(_metadata, &order, &ev, &r, total);
		total++;
	}
	for (i = 0; i < CW_THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < CW_THREADS; i++) {
		EXPECT_EQ((uint32_t)CW_EVENTS, next[i]);
	}
	cw_order_check(_metadata, &order, cw_max_call(w));
	ASSERT_EQ(0, st_try(self->trid2, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/*
 * The same, with the writers stopped at random points for a while: a
 * signal handler that sleeps.  A writer stopped between taking its
 * timestamp and committing its record must not see later events of the
 * other threads delivered first (RULE-6, RULE-13): the reader holds them
 * back while the record is in flight.  The writers run until CS_KICKS
 * signals were sent and CS_MIN_EVENTS recorded (or CS_SECONDS passed), so
 * that enough of them land inside an event whatever the machine's speed;
 * CS_MAX_EVENTS per writer
 * fit in its lane, so nothing is lost even if the reader falls behind.
 */
#define CS_SLEEP_MIN_US	20
#define CS_SLEEP_SPAN_US 300
#define CS_KICK_US	50
#define CS_KICKS	4000
#define CS_SECONDS	15
#define CS_MIN_EVENTS	16000	/* in all, signals or not */
#define CS_MAX_EVENTS	CW_MAX_SEQ /* x at most 120 bytes: in a 2 MiB lane */
#define CS_NICE		10

static _Thread_local uint64_t cs_rand;

static void cs_sleep_handler(int sig)
{
	int saved = errno;
	struct timespec d;

	(void)sig;
	if (!cs_rand)
		cs_rand = (uint64_t)st_gettid() * 0x9e3779b97f4a7c15ULL;
	cs_rand ^= cs_rand << 13;
	cs_rand ^= cs_rand >> 7;
	cs_rand ^= cs_rand << 17;
	d.tv_sec = 0;
	d.tv_nsec = (long)(CS_SLEEP_MIN_US + cs_rand % CS_SLEEP_SPAN_US) * 1000;
	nanosleep(&d, NULL);
	errno = saved;
}

struct cs_writer {
	struct cw_writer cw;
	atomic_int *stop;
	atomic_uint n;		/* events recorded */
	atomic_int done;
};

static void *cs_write(void *p)
{
	struct cs_writer *w = p;
	struct cw_rec r;
	uint32_t s;

	w->cw.self = pthread_self();
	/* Below the kicker, which must not starve (a nicer value is always
	 * allowed); being preempted more is no harm here either. */
	setpriority(PRIO_PROCESS, (id_t)st_gettid(), CS_NICE);
	while (!atomic_load(w->cw.go))
		;
	for (s = 0; s < CS_MAX_EVENTS && !atomic_load(w->stop); s++) {
		cw_make(&r, w->cw.idx, s);
		cw_event(&w->cw, &r);
		atomic_store(&w->n, s + 1);
	}
	atomic_store(&w->done, 1);
	return NULL;
}

struct cs_kicker {
	pthread_t *th;
	struct cs_writer *w;
	atomic_int stop;	/* the writers' */
	long kicks;
};

static bool cs_all_done(const struct cs_writer *w)
{
	int i;

	for (i = 0; i < CW_THREADS; i++) {
		if (!atomic_load(&w[i].done))
			return false;
	}
	return true;
}

static uint64_t cs_recorded(const struct cs_writer *w)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < CW_THREADS; i++)
		n += atomic_load(&w[i].n);
	return n;
}

static void *cs_kick(void *p)
{
	struct cs_kicker *k = p;
	const struct timespec d = { .tv_nsec = CS_KICK_US * 1000 };
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) + CS_SECONDS * ST_NSEC_PER_SEC;
	unsigned int i;

	for (i = 0; (k->kicks < CS_KICKS || cs_recorded(k->w) < CS_MIN_EVENTS) &&
		    !cs_all_done(k->w) && st_now_ns(CLOCK_MONOTONIC) < end; i++) {
		if (pthread_kill(k->th[i % CW_THREADS], SIGUSR2) == 0)
			k->kicks++;
		if (i % CW_THREADS == CW_THREADS - 1)
			nanosleep(&d, NULL);
	}
	atomic_store(&k->stop, 1);
	return NULL;
}

/* REQ: RULE-6 RULE-13 GETNEXT-C5 GETNEXT-C6 */
TEST_F_TIMEOUT(event, writers_stopped_mid_event_are_not_overtaken, 120)
{
	struct cs_writer w[CW_THREADS];
	uint32_t next[CW_THREADS] = { 0 };
	pthread_t th[CW_THREADS], kt;
	struct cs_kicker k = { .th = th, .w = w };
	struct sigaction sa;
	static struct cw_order order;	/* too large for the stack */
	atomic_int go = 0;
	trace_event_id_t id;
	uint64_t recorded = 0, end, max_call = 0;
	struct st_ev ev;
	int i, total = 0, ret;

	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	ASSERT_EQ(0, st_create(0, 2 << 20, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	ASSERT_EQ(0, posix_trace_eventid_open("stopped", &id));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cs_sleep_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	atomic_store(&k.stop, 0);
	memset(w, 0, sizeof(w));
	for (i = 0; i < CW_THREADS; i++) {
		w[i].cw.id = id;
		w[i].cw.idx = i;
		w[i].cw.go = &go;
		w[i].stop = &k.stop;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, cs_write, &w[i]));
	}
	ASSERT_EQ(0, pthread_create(&kt, NULL, cs_kick, &k));
	atomic_store(&go, 1);

	end = st_now_ns(CLOCK_MONOTONIC) + 4 * CS_SECONDS * ST_NSEC_PER_SEC;
	for (;;) {
		struct cw_rec r;

		ret = st_timed_ms(self->trid2, &ev, 200);
		if (ret == ETIMEDOUT) {
			ASSERT_LT(st_now_ns(CLOCK_MONOTONIC), end)
				TH_LOG("after %d events", total);
			if (!cs_all_done(w))
				continue;
			/* Everything is committed: one last look. */
			ASSERT_EQ(0, st_try(self->trid2, &ev));
			if (ev.unavailable)
				break;
			ret = 0;
		}
		ASSERT_EQ(0, ret) TH_LOG("after %d events", total);
		cw_expect_next(_metadata, &ev, id, total, next, &r);
		/* Judged once the writers are done: see CW_INFLIGHT_NS. */
		cw_order_next(_metadata, &order, &ev, &r, total);
		total++;
	}
	pthread_join(kt, NULL);
	for (i = 0; i < CW_THREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(atomic_load(&w[i].n), next[i]) TH_LOG("thread %d", i);
		recorded += atomic_load(&w[i].n);
		if (atomic_load(&w[i].cw.max_call_ns) > max_call)
			max_call = atomic_load(&w[i].cw.max_call_ns);
	}
	signal(SIGUSR2, SIG_IGN);
	TH_LOG("%ld signals, %d events", k.kicks, total);
	cw_order_check(_metadata, &order, max_call);
	ASSERT_EQ(recorded, (uint64_t)total);
	ASSERT_GT(k.kicks, 0);
}

/* ---------------------------------------------------------------- */

static trace_event_id_t other_handler_id;
static atomic_int other_handler_calls;

static void record_in_handler(int sig)
{
	uint32_t v = (uint32_t)atomic_fetch_add(&other_handler_calls, 1);

	(void)sig;
	posix_trace_event(other_handler_id, &v, sizeof(v));
}

/* REQ: MODEL-47 RULE-95 EVENT-6 (handler interrupting any library call) */
TEST_F(event, event_from_signal_handler_interrupting_other_library_calls)
{
	struct posix_trace_status_info st;
	struct sigaction sa;
	struct kicker k;
	trace_event_id_t id;
	trace_attr_t a;
	pthread_t th;
	struct st_ev ev;
	char name[TRACE_EVENT_NAME_MAX + 1];
	uint32_t next = 0, v;
	int i, calls, unav;
	uint64_t end;

	ASSERT_EQ(0, posix_trace_eventid_open("handler-only", &other_handler_id));
	/* A second stream, never read until the end, counts the events. */
	ASSERT_EQ(0, st_create(0, 1 << 20, 0, 0, &self->trid2));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_in_handler;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, posix_trace_attr_init(&a));

	k.target = pthread_self();
	atomic_store(&k.stop, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, kick, &k));
	end = st_now_ns(CLOCK_MONOTONIC) + SIG_SECONDS * ST_NSEC_PER_SEC;
	for (i = 0; atomic_load(&other_handler_calls) < 200 &&
		    st_now_ns(CLOCK_MONOTONIC) < end; i++) {
		switch (i % 6) {
		case 0:
			st_try(self->trid, &ev);
			break;
		case 1:
			posix_trace_get_status(self->trid, &st);
			break;
		case 2:
			posix_trace_eventid_open("main-name", &id);
			break;
		case 3:
			posix_trace_get_attr(self->trid, &a);
			break;
		case 4:
			posix_trace_eventid_get_name(self->trid,
						     other_handler_id, name);
			break;
		case 5:
			posix_trace_eventtypelist_getnext_id(self->trid, &id,
							     &unav);
			break;
		}
	}
	atomic_store(&k.stop, 1);
	pthread_join(th, NULL);
	signal(SIGUSR1, SIG_IGN);
	calls = atomic_load(&other_handler_calls);
	TH_LOG("%d handler events", calls);
	ASSERT_GT(calls, 0);
	for (;;) {
		ASSERT_EQ(0, st_try(self->trid2, &ev));
		if (ev.unavailable)
			break;
		ASSERT_EQ(other_handler_id, ev.info.posix_event_id);
		memcpy(&v, ev.data, sizeof(v));
		ASSERT_EQ(next, v);
		next++;
	}
	ASSERT_EQ((uint32_t)calls, next);
	posix_trace_attr_destroy(&a);
}

TEST_HARNESS_MAIN
