// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reader against hostile writer lanes, without the module (lane_fake.h
 * builds the stream): a traced process may write anything into its lane's
 * control page and ring at any time.  The reader must never load outside
 * the ring, never deliver a record of a type the stream filters out or
 * stamped while the stream was not running, and report losses only as
 * the lane can really have had them (Documentation/design.md, "Writer
 * lanes", Trust).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>

#include "lane_fake.h"
#include "pt_test.h"

#define U	POSIX_TRACE_UNNAMED_USEREVENT
#define DRAIN	100000

/* ------------------------------------------------------------------ */
/* Positions off the 8-byte grid, near the end of the ring             */
/* ------------------------------------------------------------------ */

/* Writer lane 0 claims records from @oldest to @head; a record that looks
 * valid sits at @oldest.  Whatever the reader makes of it, it ends, and
 * loads nothing past the ring (the guard page). */
static void misaligned_case(uint64_t base, uint64_t oldest, uint64_t head)
{
	struct lf_drain d;
	struct lf f;
	uint64_t ts = lf_now();
	int k;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, ts, NULL);
	lf_drain(&f, &d, DRAIN, 0);
	/* Two valid-looking records from @oldest on, whatever it is. */
	for (k = 0; k < 2; k++)
		lf_rec_put(f.w[0].ring, LF_WSIZE, base + oldest + 64 * k, U,
			   ts + 1 + k, k, &k, sizeof(k));
	__atomic_store_n(&f.w[0].ctl->oldest, base + oldest, __ATOMIC_RELEASE);
	__atomic_store_n(&f.w[0].ctl->head, base + head, __ATOMIC_RELEASE);
	lf_drain(&f, &d, DRAIN, 0);
	if (!d.ended)
		PT_FAIL("oldest %llu head %llu: the drain did not end",
			(unsigned long long)oldest, (unsigned long long)head);
	/* The writer goes on at an honest head: read, or lost, never stuck. */
	__atomic_store_n(&f.w[0].ctl->head, base + LF_WSIZE * 3, __ATOMIC_RELEASE);
	lf_drain(&f, &d, DRAIN, 0);
	if (!d.ended)
		PT_FAIL("oldest %llu head %llu: the second drain did not end",
			(unsigned long long)oldest, (unsigned long long)head);
	lf_teardown(&f);
}

/* Issue 19, item 12: oldest = size - 33, head = size - 1 made the
 * controller load 8 bytes at ring + size - 1 (SIGSEGV at the end of the
 * mapping); so did any position 41..47 bytes before the end. */
static void test_misaligned_positions(void)
{
	const uint64_t S = LF_WSIZE;
	uint64_t o, m, bases[] = { 0, S, 7 * S };
	unsigned int b;

	misaligned_case(0, S - 33, S - 1);
	misaligned_case(0, S - 108, S + 64);
	for (b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		for (o = S - 128; o < S; o += 8) {
			for (m = 1; m < 8; m++) {
				misaligned_case(bases[b], o + m, o + m + 128);
				misaligned_case(bases[b], o, o + 64 + m);
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Filter and stream state                                             */
/* ------------------------------------------------------------------ */

/* Issue 19, item 16: the stream filters U + 1 out; the lane holds both. */
static void test_filtered_types_are_not_delivered(void)
{
	trace_event_set_t filter;
	struct lf_drain d;
	struct lf f;
	uint64_t ts = lf_now();
	int i, bad = 0;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	posix_trace_eventset_empty(&filter);
	posix_trace_eventset_add(U + 1, &filter);
	lf_start(&f, ts, &filter);
	for (i = 0; i < 20; i++)
		lf_write(&f, 0, U + (uint32_t)(i & 1), ts + 1 + (uint64_t)i,
			 (uint32_t)(i & 1));
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.start, 1);
	EXPECT_EQ(d.user, 10);
	for (i = 0; i < d.user && i < 64; i++)
		bad += d.ids[i] != 0;
	EXPECT_EQ(bad, 0);
	lf_teardown(&f);
}

/* Records stamped before START or after STOP are not delivered; those
 * stamped between them are, even when written after the STOP. */
static void test_records_outside_a_run_are_not_delivered(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now(), t1 = t0 + 1000;
	int i, bad = 0;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_write(&f, 0, U, t0 - 10, 90);	/* before START */
	lf_start(&f, t0, NULL);
	lf_write(&f, 1, U, t0 + 10, 1);
	lf_stop(&f, t1);
	lf_write(&f, 1, U, t1 - 10, 2);		/* late, but from the run */
	for (i = 0; i < 10; i++)
		lf_write(&f, 1, U, t1 + 1 + (uint64_t)i, 91);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.user, 2);
	for (i = 0; i < d.user && i < 64; i++)
		bad += d.ids[i] >= 90;
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(d.user_bad_pid, 0);
	lf_teardown(&f);
}

/* ------------------------------------------------------------------ */
/* Losses                                                              */
/* ------------------------------------------------------------------ */

/* A lane that is nowhere near full claims, again and again, that the
 * record the reader is about to read was lost, with a time of its
 * choosing.  Today's reader: one OVERFLOW/RESUME pair, pid 0, per claim. */
static void test_forged_losses_are_not_reported(void)
{
	struct lf_drain d, all;
	struct lf f;
	uint64_t ts = lf_now(), pos;
	int i;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, ts, NULL);
	lf_drain(&f, &d, DRAIN, 0);
	for (i = 0; i < 40; i++)
		lf_write(&f, 0, U, ts + 1 + (uint64_t)i, (uint32_t)i);
	memset(&all, 0, sizeof(all));
	for (i = 0; i < 19; i++) {
		/* The next unread record is "lost"; so claims the lane. */
		pos = __atomic_load_n(&f.w[0].ctl->tail, __ATOMIC_ACQUIRE);
		__atomic_store_n(&f.w[0].ctl->lost_timestamp, 12345, __ATOMIC_RELAXED);
		__atomic_store_n(&f.w[0].ctl->lost_seq, (uint64_t)(2 * i), __ATOMIC_RELEASE);
		__atomic_store_n(&f.w[0].ctl->oldest, pos + 64, __ATOMIC_RELEASE);
		lf_drain(&f, &d, 1, 0);
		all.overflow += d.overflow;
		all.resume += d.resume;
		all.error += d.error;
		lf_drain(&f, &d, 1, 0);
		all.overflow += d.overflow;
		all.resume += d.resume;
		all.error += d.error;
	}
	EXPECT_EQ(all.overflow, 0);
	EXPECT_EQ(all.resume, 0);
	EXPECT(all.error <= 1);
	lf_teardown(&f);
}

/* An honest LOOP writer laps the reader: one OVERFLOW/RESUME pair, with
 * the writer's pid, the first lost record's time and the survivor's. */
static void test_real_loss_is_reported_once_with_the_lane_pid(void)
{
	struct lf_wlane *w;
	struct lf_drain d;
	struct lf f;
	uint64_t ts = lf_now(), head, oldest, first_lost = 0;
	uint32_t i, n = LF_CAP / 64 + 10;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	w = &f.w[0];
	lf_start(&f, ts, NULL);
	lf_drain(&f, &d, DRAIN, 0);
	for (i = 0; i < n; i++) {
		/* As libtrace/writer.c makes room: oldest first. */
		head = w->ctl->head;
		oldest = w->ctl->oldest;
		while (head + 64 - oldest > LF_CAP) {
			if (oldest == w->ctl->tail) {
				first_lost = ts + 1 + oldest / 64;
				w->ctl->lost_timestamp = first_lost;
				__atomic_store_n(&w->ctl->lost_seq, oldest / 64,
						 __ATOMIC_RELEASE);
			}
			oldest += 64;
		}
		__atomic_store_n(&w->ctl->oldest, oldest, __ATOMIC_RELEASE);
		lf_write(&f, 0, U, ts + 1 + i, i);
	}
	lf_drain(&f, &d, DRAIN, LF_PID);
	EXPECT(d.ended);
	EXPECT_EQ(d.overflow, 1);
	EXPECT_EQ(d.resume, 1);
	EXPECT_EQ(d.sys_bad_pid, 0);
	EXPECT_EQ(d.user, LF_CAP / 64);
	EXPECT_EQ(d.error, 0);
	if (d.overflow == 1 && d.resume == 1) {
		EXPECT_EQ(d.overflow_ts[0] - f.h->created_real + f.h->created_mono,
			  first_lost);
		EXPECT_EQ(d.resume_ts[0] - f.h->created_real + f.h->created_mono,
			  ts + 1 + 10);
	}
	lf_teardown(&f);
}

/* A FILTER event changes what passes from its own time on: a record is
 * judged by the filter at its timestamp, also when it comes late. */
static void test_filter_change_applies_from_its_time(void)
{
	trace_event_set_t none, u;
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now(), t1 = t0 + 1000;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	posix_trace_eventset_empty(&none);
	posix_trace_eventset_empty(&u);
	posix_trace_eventset_add(U, &u);
	lf_start(&f, t0, NULL);
	lf_write(&f, 0, U, t0 + 10, 1);
	lf_filter(&f, t1, &none, &u);
	lf_write(&f, 0, U, t1 + 10, 90);
	lf_write(&f, 0, U + 1, t1 + 20, 2);
	lf_write(&f, 1, U, t1 - 10, 3);		/* from before, read after */
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.filter, 1);
	EXPECT_EQ(d.user, 3);
	EXPECT_EQ(d.ids[0], 1);
	EXPECT_EQ(d.ids[1], 3);
	EXPECT_EQ(d.ids[2], 2);
	EXPECT_EQ(f.h->gate.refused, 1);
	lf_teardown(&f);
}

/* The kernel lane loses its first records (LOOP): START at @t0; the
 * first left is stamped @first_left. */
static void lose_kernel_records(struct lf *f, uint64_t t0, uint64_t first_left)
{
	uint64_t pos;

	lf_start(f, t0, NULL);
	pos = f->kd->head;
	lf_kernel(f, U, first_left, NULL, 0);
	__atomic_store_n(&f->kd->oldest, pos, __ATOMIC_RELEASE);
}

/* With START lost, the controller's own calls decide: what it started
 * passes, what it stopped does not, a change within a call's bracket
 * lets either side through. */
static void test_lost_control_events_fall_back_to_the_calls(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();
	int i, bad = 0;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	pt_gate_command(&f.h->gate, PT_CMD_START, NULL, t0 - 5, t0 + 5);
	pt_gate_command(&f.h->gate, PT_CMD_STOP, NULL, t0 + 2000, t0 + 2010);
	lose_kernel_records(&f, t0, t0 + 3000);
	lf_write(&f, 0, U, t0 - 10, 90);	/* before the start call */
	lf_write(&f, 0, U, t0, 1);		/* within it */
	lf_write(&f, 0, U, t0 + 100, 2);
	lf_write(&f, 0, U, t0 + 2005, 3);	/* within the stop call */
	lf_write(&f, 0, U, t0 + 2020, 91);	/* after it */
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.overflow, 1);	/* the kernel lane's loss */
	EXPECT_EQ(d.user, 4);		/* 1, 2, 3 and the kernel lane's own */
	for (i = 0; i < d.user && i < 64; i++)
		bad += d.ids[i] >= 90;
	EXPECT_EQ(bad, 0);
	lf_teardown(&f);
}

/* After the loss, the next control event read says the state again: a
 * STOP the controller did not ask for (an automatic one) stops writer
 * records from its time on. */
static void test_a_control_event_after_a_loss_is_believed(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();
	int i, bad = 0;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	pt_gate_command(&f.h->gate, PT_CMD_START, NULL, t0 - 5, t0 + 5);
	lose_kernel_records(&f, t0, t0 + 100);
	lf_stop(&f, t0 + 200);
	lf_write(&f, 0, U, t0 + 150, 1);
	lf_write(&f, 0, U, t0 + 250, 90);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.stop, 1);
	EXPECT_EQ(d.user, 2);		/* 1 and the kernel lane's own */
	for (i = 0; i < d.user && i < 64; i++)
		bad += d.ids[i] >= 90;
	EXPECT_EQ(bad, 0);
	lf_teardown(&f);
}

/* A writer stamps a record before it commits it: a record stamped later
 * than the reader's clock is a lie. */
static void test_records_from_the_future_are_not_delivered(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, t0, NULL);
	lf_write(&f, 0, U, t0 + 10, 1);
	lf_write(&f, 0, U, t0 + 3600ULL * 1000000000u, 90);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.user, 1);
	EXPECT_EQ(d.ids[0], 1);
	lf_teardown(&f);
}

/* A record the kernel is writing (its lane's inflight_ts, set under the
 * lane lock between its stamp and its commit) holds back newer records of the
 * writer lanes until it is committed; the reader once looked at writer
 * lanes only. */
static void test_a_kernel_record_in_flight_is_not_overtaken(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, t0, NULL);
	__atomic_store_n(&f.kd->inflight_ts, t0 + 10, __ATOMIC_RELEASE);
	lf_write(&f, 0, U, t0 + 20, 1);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT_EQ(d.start, 1);
	EXPECT_EQ(d.user, 0);		/* held: older one in flight */
	lf_kernel(&f, U, t0 + 10, &(uint32_t){ 2 }, sizeof(uint32_t));
	__atomic_store_n(&f.kd->inflight_ts, 0, __ATOMIC_RELEASE);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT_EQ(d.user, 2);
	EXPECT_EQ(d.ids[0], 2);
	EXPECT_EQ(d.ids[1], 1);
	lf_teardown(&f);
}

/* More start/stop calls than the gate keeps, with the control events
 * lost: a record older than all it remembers is not delivered. */
static void test_forgotten_history_lets_nothing_through(void)
{
	struct pt_gate g;
	uint64_t t = 1000000;
	int i;

	pt_gate_init(&g);
	pt_gate_gap(&g, 0, UINT64_MAX / 2);
	for (i = 0; i < PT_ERAS; i++, t += 100)
		pt_gate_command(&g, i % 2 ? PT_CMD_STOP : PT_CMD_START, NULL, t, t + 10);
	EXPECT(pt_gate_pass(&g, t - 150, U));		/* started at t - 200 */
	EXPECT(!pt_gate_pass(&g, t - 50, U));		/* stopped at t - 100 */
	pt_gate_command(&g, PT_CMD_START, NULL, t, t + 10);
	pt_gate_command(&g, PT_CMD_STOP, NULL, t + 100, t + 110);
	EXPECT(!pt_gate_pass(&g, 1000050, U));	/* forgotten: started then */
	EXPECT(pt_gate_pass(&g, t + 50, U));
}

/* A lane full of records the gate refuses, all older than another
 * lane's: skipping them costs the reader no round, the other lane's
 * record comes in the same call. */
static void test_refused_records_do_not_hide_others(void)
{
	trace_event_set_t filter;
	struct lf_ev ev;
	struct lf f;
	uint64_t t0 = lf_now();
	uint32_t i, v = 0;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	posix_trace_eventset_empty(&filter);
	posix_trace_eventset_add(U + 1, &filter);
	lf_start(&f, t0, &filter);
	lf_read(&f, &ev);
	for (i = 0; i < LF_CAP / 64; i++)
		lf_write(&f, 0, U + 1, t0 + 1 + i, 90);
	lf_write(&f, 1, U, t0 + 1000, 1);
	EXPECT_EQ(lf_read(&f, &ev), 0);
	EXPECT_EQ(ev.unavailable, 0);
	if (ev.len == sizeof(v))
		memcpy(&v, ev.data, sizeof(v));
	EXPECT_EQ(v, 1);
	EXPECT_EQ(f.h->gate.refused, LF_CAP / 64);
	lf_teardown(&f);
}

/* A lane corrupt over and over: one ERROR, with its pid, per second at
 * most; the others are counted. */
static void test_errors_of_a_corrupt_lane_are_rate_limited(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now(), head;
	int i, errors = 0, bad_pid = 0;
	struct lf_ev ev;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, t0, NULL);
	lf_drain(&f, &d, DRAIN, 0);
	for (i = 0; i < 1000; i++) {
		head = f.w[0].ctl->tail;
		lf_rec_put(f.w[0].ring, LF_WSIZE, head, U, t0, 0, NULL, 0);
		f.w[0].ring[head % LF_WSIZE] = 3;	/* size 3: corrupt */
		__atomic_store_n(&f.w[0].ctl->head, head + 64, __ATOMIC_RELEASE);
		while (!lf_read(&f, &ev) && !ev.unavailable) {
			errors += ev.info.posix_event_id == POSIX_TRACE_ERROR;
			bad_pid += ev.info.posix_pid != (pid_t)LF_PID;
		}
	}
	EXPECT(errors >= 1);
	EXPECT(errors <= 1 + (int)((lf_now() - t0) / 1000000000u));
	EXPECT_EQ(bad_pid, 0);
	EXPECT_EQ(f.h->gate.withheld + (uint64_t)errors, 1000);
	lf_teardown(&f);
}

/* After posix_trace_clear() the cleared control events are not known:
 * the controller's calls decide until the next one is read. */
static void test_clear_falls_back_to_the_calls(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	pt_gate_command(&f.h->gate, PT_CMD_START, NULL, t0 - 5, t0 + 5);
	lf_start(&f, t0, NULL);
	/* Cleared before the reader saw START: as the module clears. */
	f.kd->oldest = f.kd->head;
	pt_rlanes_cleared(f.h, t0 + 50);
	lf_write(&f, 0, U, t0 + 100, 1);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.start, 0);
	EXPECT_EQ(d.user, 1);
	lf_teardown(&f);
}

/* A lane that claimed a position past what any writer reaches is read
 * no more, until a clear starts it again where the kernel says. */
static void test_a_lane_ignored_starts_again_after_a_clear(void)
{
	struct lf_drain d;
	struct lf f;
	uint64_t t0 = lf_now();

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	pt_gate_command(&f.h->gate, PT_CMD_START, NULL, t0 - 5, t0 + 5);
	lf_start(&f, t0, NULL);
	lf_write(&f, 0, U, t0 + 1, 1);
	__atomic_store_n(&f.w[0].ctl->head, 1ULL << 63, __ATOMIC_RELEASE);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT(d.ended);
	EXPECT_EQ(d.error, 1);
	__atomic_store_n(&f.w[0].ctl->head, 128, __ATOMIC_RELEASE);
	lf_write(&f, 0, U, t0 + 2, 90);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT_EQ(d.user, 0);
	/* posix_trace_clear(): the kernel moves oldest and tail to head. */
	f.w[0].ctl->oldest = f.w[0].ctl->tail = f.w[0].ctl->head;
	f.kd->oldest = f.kd->head;
	pt_rlanes_cleared(f.h, lf_now());
	lf_write(&f, 0, U, lf_now(), 2);
	lf_drain(&f, &d, DRAIN, 0);
	EXPECT_EQ(d.user, 1);
	EXPECT_EQ(d.ids[0], 2);
	lf_teardown(&f);
}

/* ------------------------------------------------------------------ */
/* A forger rewriting a lane while the reader reads                    */
/* ------------------------------------------------------------------ */

#define FZ_NS		1500000000ULL	/* how long the forger forges */
#define FZ_RUN_NS	20000000ULL	/* the controller stops and starts */
#define FZ_WINDOWS	256

struct fz {
	struct lf *f;
	atomic_int stop;
	uint64_t seed;
	unsigned long writes;
};

static uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A position near the reader's: around its tail, often off the grid. */
static uint64_t fz_pos(struct fz *z, const struct lf_wlane *w)
{
	uint64_t r = fz_rand(&z->seed), tail = w->ctl->tail;

	switch (r % 6) {
	case 0:
		return tail + (r >> 8) % (2 * LF_WSIZE);
	case 1:
		return tail - (r >> 8) % 256;
	case 2:
		return (tail + (r >> 8) % LF_WSIZE) & ~(uint64_t)7;
	case 3:
		return r >> 3;
	case 4:
		return tail + LF_WSIZE - (r >> 8) % 64;
	default:
		return ((tail / LF_WSIZE + 1) * LF_WSIZE) - (r >> 8) % 128;
	}
}

/* One hostile step on writer lane 0. */
static void fz_step(struct fz *z)
{
	struct lf_wlane *w = &z->f->w[0];
	uint64_t r = fz_rand(&z->seed), head = w->ctl->head, now = lf_now();
	uint64_t ts = now - (r >> 16) % 50000000u + (r % 7 == 0 ? 100000000u : 0);
	uint32_t id = U + (uint32_t)(r >> 4) % 2, v = 90 + id - U;

	switch (r % 9) {
	case 0:
	case 1:
	case 2:
		/* A record that looks right, filtered or not, stamped now,
		 * a little before, or in the future. */
		head += lf_rec_put(w->ring, LF_WSIZE, head, id, ts, w->seq++, &v,
				   sizeof(v));
		__atomic_store_n(&w->ctl->head, head, __ATOMIC_RELEASE);
		break;
	case 3:
		__atomic_store_n(&w->ctl->head, fz_pos(z, w), __ATOMIC_RELEASE);
		break;
	case 4:
		__atomic_store_n(&w->ctl->oldest, fz_pos(z, w), __ATOMIC_RELEASE);
		break;
	case 5:
		__atomic_store_n(&w->ctl->inflight_ts, r % 3 ? now : r >> 20,
				 __ATOMIC_RELEASE);
		break;
	case 6:
		w->ring[(r >> 8) % LF_WSIZE] = (uint8_t)(r >> 32);
		break;
	case 7:
		w->ctl->lost_seq = r >> 40;
		w->ctl->lost_timestamp = r % 2 ? ts : r >> 1;
		break;
	default:
		__atomic_store_n(&w->ctl->tail, fz_pos(z, w), __ATOMIC_RELEASE);
	}
}

static void *fz_forge(void *p)
{
	struct fz *z = p;

	while (!atomic_load_explicit(&z->stop, memory_order_relaxed)) {
		fz_step(z);
		z->writes++;
	}
	return NULL;
}

/* Run windows of the stream, as the kernel lane says: START at
 * @on[k], STOP at @off[k] (0: still running). */
struct fz_runs {
	uint64_t on[FZ_WINDOWS], off[FZ_WINDOWS];
	int n;
};

static int fz_running_at(const struct fz_runs *w, uint64_t ts)
{
	int k;

	for (k = 0; k < w->n; k++) {
		if (ts >= w->on[k] && (!w->off[k] || ts < w->off[k]))
			return 1;
	}
	return 0;
}

struct fz_seen {
	unsigned long user, honest, filtered, outside, bad_pid, other;
	uint32_t next_honest;
};

static void fz_check(struct lf *f, const struct fz_runs *runs, struct fz_seen *s,
		     const struct lf_ev *ev)
{
	uint64_t ts = lf_ev_ts(ev) - f->h->created_real + f->h->created_mono;
	trace_event_id_t id = ev->info.posix_event_id;
	uint32_t v = 0;

	if (id == POSIX_TRACE_START || id == POSIX_TRACE_STOP)
		return;
	if (id == POSIX_TRACE_ERROR || id == POSIX_TRACE_OVERFLOW ||
	    id == POSIX_TRACE_RESUME) {
		s->bad_pid += ev->info.posix_pid != (pid_t)LF_PID;
		return;
	}
	/* A system event the lane forged, or one nobody recorded. */
	if (id < U) {
		if (!s->other++)
			printf("# unexpected event %u\n", id);
		return;
	}
	s->user++;
	if (ev->len == sizeof(v))
		memcpy(&v, ev->data, sizeof(v));
	s->filtered += id == U + 1;	/* any other id of its own may pass */
	s->outside += !fz_running_at(runs, ts);
	if (ev->info.posix_pid == (pid_t)LF_PID + 1) {
		/* The honest lane: in order, none lost. */
		s->bad_pid += v != s->next_honest;
		s->next_honest = v + 1;
		s->honest++;
	} else {
		s->bad_pid += ev->info.posix_pid != (pid_t)LF_PID;
	}
}

static void fz_read_all(struct lf *f, const struct fz_runs *runs, struct fz_seen *s)
{
	struct lf_ev ev;
	int k;

	for (k = 0; k < 1000; k++) {
		if (lf_read(f, &ev) || ev.unavailable)
			return;
		fz_check(f, runs, s, &ev);
	}
}

/* The controller stops and starts the stream every FZ_RUN_NS, filters
 * U + 1 out, and an honest thread writes lane 1, while a forger rewrites
 * lane 0 at random.  Never a crash (the guard pages, ASan), never a
 * filtered record, never one stamped while stopped, nothing of lane 0
 * with another pid, and every honest record, in order. */
static void test_a_forger_rewriting_its_lane_gets_nothing_through(void)
{
	trace_event_set_t filter;
	struct fz_runs runs = { .n = 0 };
	struct fz_seen seen = { 0 };
	struct fz z = { .seed = 0x9e3779b97f4a7c15ULL };
	uint32_t honest = 0;
	uint64_t t0, last;
	pthread_t th;
	struct lf f;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	z.f = &f;
	posix_trace_eventset_empty(&filter);
	posix_trace_eventset_add(U + 1, &filter);
	t0 = last = lf_now();
	runs.on[runs.n++] = t0;
	lf_start(&f, t0, &filter);
	if (pthread_create(&th, NULL, fz_forge, &z)) {
		PT_FAIL("pthread_create");
		lf_teardown(&f);
		return;
	}
	while (lf_now() - t0 < FZ_NS) {
		if (lf_now() - last >= FZ_RUN_NS && runs.n < FZ_WINDOWS) {
			last = lf_now();
			if (runs.off[runs.n - 1]) {
				runs.on[runs.n++] = last;
				lf_start(&f, last, &filter);
			} else {
				runs.off[runs.n - 1] = last;
				lf_stop(&f, last);
			}
		}
		if (!runs.off[runs.n - 1] && f.w[1].ctl->head - f.w[1].ctl->tail < LF_CAP / 2)
			lf_write(&f, 1, U, lf_now(), honest++);
		fz_read_all(&f, &runs, &seen);
	}
	atomic_store(&z.stop, 1);
	pthread_join(th, NULL);
	/* The forger's last stamp may hold the honest lane a while. */
	while (seen.honest < honest && lf_now() - t0 < FZ_NS + 10000000000ULL)
		fz_read_all(&f, &runs, &seen);
	printf("# %lu forger steps, %d runs, %lu user events read (%u honest written)\n",
	       z.writes, runs.n, seen.user, honest);
	EXPECT_EQ(seen.filtered, 0);
	EXPECT_EQ(seen.outside, 0);
	EXPECT_EQ(seen.bad_pid, 0);
	EXPECT_EQ(seen.other, 0);
	EXPECT_EQ(seen.honest, honest);
	lf_teardown(&f);
}

int main(void)
{
	PT_RUN(test_misaligned_positions,
	       "positions off the 8-byte grid never make the reader load past the ring");
	PT_RUN(test_filtered_types_are_not_delivered,
	       "records of a type the stream filters out are not delivered");
	PT_RUN(test_records_outside_a_run_are_not_delivered,
	       "records stamped before START or after STOP are not delivered");
	PT_RUN(test_forged_losses_are_not_reported,
	       "a lane cannot make the reader report losses it cannot have had");
	PT_RUN(test_real_loss_is_reported_once_with_the_lane_pid,
	       "a real loss is reported once, with the lane's pid and times");
	PT_RUN(test_filter_change_applies_from_its_time,
	       "a FILTER event applies to records stamped after it");
	PT_RUN(test_lost_control_events_fall_back_to_the_calls,
	       "with control events lost, the controller's calls decide");
	PT_RUN(test_a_control_event_after_a_loss_is_believed,
	       "the first control event after a loss decides again");
	PT_RUN(test_records_from_the_future_are_not_delivered,
	       "records stamped later than the reader's clock are not delivered");
	PT_RUN(test_a_kernel_record_in_flight_is_not_overtaken,
	       "a record the kernel is still writing is not overtaken by newer writer-lane records");
	PT_RUN(test_forgotten_history_lets_nothing_through,
	       "a record older than the calls the gate keeps is not delivered");
	PT_RUN(test_refused_records_do_not_hide_others,
	       "records the gate refuses cost no round of a read");
	PT_RUN(test_errors_of_a_corrupt_lane_are_rate_limited,
	       "a corrupt lane gives one ERROR a second, with its pid");
	PT_RUN(test_clear_falls_back_to_the_calls,
	       "after a clear, the controller's calls decide");
	PT_RUN(test_a_lane_ignored_starts_again_after_a_clear,
	       "a lane ignored for a position past 2^62 starts again after a clear");
	PT_RUN(test_a_forger_rewriting_its_lane_gets_nothing_through,
	       "a forger rewriting its lane gets nothing through, stalls nothing");
	return pt_test_done();
}
