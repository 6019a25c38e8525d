// SPDX-License-Identifier: GPL-2.0
/*
 * Read side: posix_trace_getnext_event() draining a full stream, against
 * the floor of copying each record out of a single-producer ring.
 *
 * Each segment first fills the stream (or ring) with as many events as fit
 * (untimed), then times reading all of them back.  One reader thread.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "pt_stream.h"
#include "ring.h"

struct read_cell {
	trace_id_t trid;
	struct ring *ring;
	uint32_t len;
	uint64_t bad;		/* events read back wrong or missing */
};

/* One event more than will be timed, and that one read back at once: a
 * stream that records nothing is then invalid here instead of leaving
 * posix_trace_getnext_event() waiting for ever. */
static int fill_stream(void *arg, uint64_t n, int nthreads, char *why)
{
	struct read_cell *c = arg;
	struct posix_trace_event_info ev;
	unsigned char buf[BENCH_PAYLOAD_MAX];
	size_t got;
	int unavailable = 1, err;

	(void)nthreads;
	c->bad = 0;
	for (n++; n; n--)
		posix_trace_event(pt_id, bench_payload, c->len);
	err = posix_trace_trygetnext_event(c->trid, &ev, buf, sizeof(buf), &got,
					   &unavailable);
	if (err || unavailable || ev.posix_event_id != pt_id || got != c->len) {
		snprintf(why, BENCH_WHY, "invalid (%s)", err ? strerror(err) :
			 unavailable ? "nothing recorded" : "not the event written");
		return -1;
	}
	return 0;
}

static void run_getnext(void *arg, int thread, uint64_t n)
{
	struct read_cell *c = arg;
	struct posix_trace_event_info ev;
	unsigned char buf[BENCH_PAYLOAD_MAX];
	size_t got;
	int unavailable;

	(void)thread;
	while (n--) {
		/* Blocks if an event is missing: the watchdog ends that. */
		if (posix_trace_getnext_event(c->trid, &ev, buf, sizeof(buf), &got,
					      &unavailable) ||
		    ev.posix_event_id != pt_id || got != c->len)
			c->bad++;
	}
}

static int fill_ring(void *arg, uint64_t n, int nthreads, char *why)
{
	struct read_cell *c = arg;

	(void)nthreads;
	(void)why;
	c->bad = 0;
	while (n--)
		ring_sp_write(c->ring, 256, bench_payload, c->len);
	return 0;
}

static void run_ring_drain(void *arg, int thread, uint64_t n)
{
	struct read_cell *c = arg;
	struct ring_event ev;
	unsigned char buf[BENCH_PAYLOAD_MAX];

	(void)thread;
	while (n--)
		if (!ring_sp_read(c->ring, &ev, buf, sizeof(buf)) || ev.data_len != c->len)
			c->bad++;
}

static int check_read(void *arg, uint64_t n, int nthreads, char *why)
{
	struct read_cell *c = arg;

	(void)nthreads;
	if (!c->bad)
		return 0;
	snprintf(why, BENCH_WHY, "invalid (%llu of %llu events not read back)",
		 (unsigned long long)c->bad, (unsigned long long)n);
	return -1;
}

static void read_row(const char *key, const char *label, struct read_cell *c,
		     struct bench_op *op)
{
	struct bench_result r;
	int p;

	for (p = 0; p < 3; p++) {
		c->len = (uint32_t)bench_payloads[p];
		if (c->ring)
			op->seg_max = BENCH_STREAM_SIZE * 9 / 10 / ring_rec_size(c->len);
		else
			op->seg_max = pt_fit(c->trid, c->len, 1) - 1;	/* fill_stream's one */
		bench_watchdog(key, label, bench_payloads[p], 1);
		bench_measure(op, 1, &r);
		bench_row(key, label, bench_payloads[p], 1, &r);
	}
}

static void getnext_row(void)
{
	static const char key[] = "read_pt";
	static const char label[] = "posix_trace_getnext_event, full stream";
	struct read_cell c = { 0 };
	struct bench_op op = { .prepare = fill_stream, .run = run_getnext,
			       .finish = check_read, .arg = &c };
	char why[BENCH_WHY];

	if (bench_cfg.env == BENCH_HOST) {
		bench_row_na(key, label, 1, 1, "n/a (host)");
		return;
	}
	if (pt_setup(why) || pt_open(POSIX_TRACE_UNTIL_FULL, 0, &c.trid, why)) {
		bench_row_na(key, label, 1, 1, why);
		return;
	}
	read_row(key, label, &c, &op);
	pt_close(c.trid);
}

static void ring_row(void)
{
	static const char key[] = "read_ring";
	static const char label[] = "ring drain, single producer";
	struct read_cell c = { 0 };
	struct bench_op op = { .prepare = fill_ring, .run = run_ring_drain,
			       .finish = check_read, .arg = &c };

	c.ring = ring_new(BENCH_STREAM_SIZE);
	if (!c.ring) {
		bench_row_na(key, label, 1, 1, "n/a (mmap failed)");
		return;
	}
	read_row(key, label, &c, &op);
	ring_free(c.ring);
}

/* The ring first: should getnext hang after all, the watchdog ends the
 * process and only its own row is lost. */
void pt_read_rows(void)
{
	ring_row();
	getnext_row();
}
