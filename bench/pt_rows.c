// SPDX-License-Identifier: GPL-2.0
/*
 * posix_trace_event() rows: untraced, traced but filtered out, traced and
 * recorded, for LOOP and UNTIL_FULL streams.
 *
 * In the VM the streams are real (the module); on the host the fake stream
 * of the library's hook (fake.h) stands in, so that the same library code
 * writes the same lane layout without the module.
 *
 * UNTIL_FULL must record every event, so a repetition is cut into segments
 * that fit in the stream, and the stream is drained between them: in the
 * VM by reading every event back, which also checks that none was dropped
 * (the cell is "invalid" otherwise); on the host by the hook, which cannot
 * count.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "fake.h"
#include "pt_stream.h"

enum pt_mode { PT_UNTRACED, PT_FILTERED, PT_RECORDED };

struct pt_cell {
	trace_id_t trid;	/* VM stream; 0 on the host */
	uint32_t len;
};

static void run_event(void *arg, int thread, uint64_t n)
{
	struct pt_cell *c = arg;

	(void)thread;
	while (n--)
		posix_trace_event(pt_id, bench_payload, c->len);
}

/* UNTIL_FULL, after each segment: every event is there, then gone. */
static int finish_until_full(void *arg, uint64_t n, int nthreads, char *why)
{
	struct pt_cell *c = arg;
	uint64_t want = n * (uint64_t)nthreads, ours, bad;
	struct posix_trace_status_info st;
	int err;

	if (!c->trid) {
		pt_bench_fake_drain();
		return 0;
	}
	err = pt_drain(c->trid, c->len, &ours, &bad);
	if (err) {
		snprintf(why, BENCH_WHY, "invalid (trygetnext: %s)", strerror(err));
		return -1;
	}
	if (ours != want || bad) {
		snprintf(why, BENCH_WHY, "invalid (recorded %llu of %llu, %llu bad)",
			 (unsigned long long)ours, (unsigned long long)want,
			 (unsigned long long)bad);
		return -1;
	}
	if (posix_trace_get_status(c->trid, &st) == 0 &&
	    st.posix_stream_status != POSIX_TRACE_RUNNING) {
		snprintf(why, BENCH_WHY, "invalid (stream stopped itself)");
		return -1;
	}
	return 0;
}

/* After a whole cell in the VM: filtered events must be absent, recorded
 * LOOP events present and intact (overwritten ones are gone, not bad).
 * UNTIL_FULL was checked segment by segment and is empty by now. */
static void check_cell(struct pt_cell *c, enum pt_mode mode, int policy,
		       struct bench_result *r)
{
	uint64_t ours, bad;
	int err;

	if (!c->trid || r->ns < 0 ||
	    (mode == PT_RECORDED && policy == POSIX_TRACE_UNTIL_FULL))
		return;
	err = pt_drain(c->trid, c->len, &ours, &bad);
	if (err)
		snprintf(r->why, BENCH_WHY, "invalid (trygetnext: %s)", strerror(err));
	else if (mode == PT_FILTERED && ours + bad)
		snprintf(r->why, BENCH_WHY, "invalid (%llu filtered events recorded)",
			 (unsigned long long)(ours + bad));
	else if (mode == PT_RECORDED && (!ours || bad))
		snprintf(r->why, BENCH_WHY, "invalid (%llu recorded, %llu bad)",
			 (unsigned long long)ours, (unsigned long long)bad);
	else
		return;
	r->ns = -1;
}

static int start_stream(enum pt_mode mode, int policy, trace_id_t *trid, char *why)
{
	*trid = 0;
	if (mode == PT_UNTRACED) {
		if (bench_cfg.env == BENCH_HOST && bench_have_fake())
			pt_bench_fake_untrace();
		return 0;
	}
	if (bench_cfg.env == BENCH_VM)
		return pt_open(policy, mode == PT_FILTERED, trid, why);
	pt_bench_fake_stream((uint32_t)policy, BENCH_STREAM_SIZE, BENCH_PAYLOAD_MAX);
	pt_bench_fake_filter(pt_id, mode == PT_FILTERED);
	return 0;
}

static void stop_stream(enum pt_mode mode, trace_id_t trid)
{
	if (trid)
		pt_close(trid);
	else if (mode != PT_UNTRACED && bench_cfg.env == BENCH_HOST)
		pt_bench_fake_untrace();
}

static void pt_row(const char *key, const char *label, enum pt_mode mode, int policy,
		   const char *na)
{
	struct pt_cell c;
	struct bench_op op = { .run = run_event, .arg = &c };
	struct bench_result r;
	char why[BENCH_WHY];
	trace_id_t trid;
	int p, t;

	if (na) {
		bench_row_na(key, label, 1, BENCH_MAX_THREADS, na);
		return;
	}
	if (start_stream(mode, policy, &trid, why)) {
		bench_row_na(key, label, 1, BENCH_MAX_THREADS, why);
		return;
	}
	for (p = 0; p < 3; p++)
		for (t = 1; t <= BENCH_MAX_THREADS; t++) {
			c = (struct pt_cell){ .trid = trid, .len = (uint32_t)bench_payloads[p] };
			if (mode == PT_RECORDED && policy == POSIX_TRACE_UNTIL_FULL) {
				op.seg_max = pt_fit(trid, c.len, t);
				op.finish = finish_until_full;
			}
			bench_watchdog(key, label, bench_payloads[p], t);
			bench_measure(&op, t, &r);
			check_cell(&c, mode, policy, &r);
			bench_row(key, label, bench_payloads[p], t, &r);
		}
	stop_stream(mode, trid);
}

void pt_rows(void)
{
	char why[BENCH_WHY];
	const char *na = pt_setup(why) ? why : NULL;

	/* Untraced needs neither module nor hook: the library finds no
	 * stream either way. */
	pt_row("pte_untraced", "posix_trace_event, untraced", PT_UNTRACED, 0, NULL);
	pt_row("pte_filt_loop", "posix_trace_event, filtered out, LOOP",
	       PT_FILTERED, POSIX_TRACE_LOOP, na);
	pt_row("pte_filt_uf", "posix_trace_event, filtered out, UNTIL_FULL",
	       PT_FILTERED, POSIX_TRACE_UNTIL_FULL, na);
	pt_row("pte_rec_loop", "posix_trace_event, recorded, LOOP",
	       PT_RECORDED, POSIX_TRACE_LOOP, na);
	pt_row("pte_rec_uf", "posix_trace_event, recorded, UNTIL_FULL",
	       PT_RECORDED, POSIX_TRACE_UNTIL_FULL, na);
}
