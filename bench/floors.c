// SPDX-License-Identifier: GPL-2.0
/*
 * The floors: what an event costs at the least.  clock_gettime is the
 * timestamp every record takes, getppid the cheapest system call, and the
 * rings (ring.c) a tracer that only writes shared memory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ring.h"

/*
 * Not a floor: arithmetic with no memory traffic and nothing shared.  Its
 * 1T/2T ratio is how far two threads can scale on this machine at all
 * (vCPUs that are SMT siblings or overcommitted scale less than 2), to
 * read the other rows' ratios against.
 */
static __attribute__((noinline)) uint64_t mix(uint64_t x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static void run_alu(void *arg, int thread, uint64_t n)
{
	uint64_t x = (uint64_t)thread;

	(void)arg;
	while (n--)
		x = mix(x);
	__asm__ volatile("" : : "r"(x));
}

static void run_clock(void *arg, int thread, uint64_t n)
{
	struct timespec ts;

	(void)arg;
	(void)thread;
	while (n--)
		clock_gettime(CLOCK_MONOTONIC, &ts);
}

static void run_getppid(void *arg, int thread, uint64_t n)
{
	(void)arg;
	(void)thread;
	while (n--)
		getppid();
}

struct ring_cell {
	struct ring *ring[BENCH_MAX_THREADS];
	uint32_t len;
};

static void run_sp(void *arg, int thread, uint64_t n)
{
	struct ring_cell *c = arg;

	while (n--)
		ring_sp_write(c->ring[thread], 256, bench_payload, c->len);
}

static void run_mp(void *arg, int thread, uint64_t n)
{
	struct ring_cell *c = arg;

	while (n--)
		ring_mp_write(c->ring[thread], 256, bench_payload, c->len);
}

static void plain_row(const char *key, const char *label,
		      void (*run)(void *, int, uint64_t))
{
	struct bench_op op = { .run = run };
	struct bench_result r;
	int t;

	for (t = 1; t <= BENCH_MAX_THREADS; t++) {
		bench_watchdog(key, label, -1, t);
		bench_measure(&op, t, &r);
		bench_row(key, label, -1, t, &r);
	}
}

/* @shared: one ring for all threads (multi-producer), else one each. */
static void ring_row(const char *key, const char *label,
		     void (*run)(void *, int, uint64_t), int shared)
{
	struct ring *rings[BENCH_MAX_THREADS] = { NULL };
	struct ring_cell c;
	struct bench_op op = { .run = run, .arg = &c };
	struct bench_result r;
	int p, t, i;

	for (i = 0; i < BENCH_MAX_THREADS; i++) {
		rings[i] = ring_new(BENCH_STREAM_SIZE);
		if (!rings[i]) {
			bench_row_na(key, label, 1, BENCH_MAX_THREADS, "n/a (mmap failed)");
			goto out;
		}
	}
	for (p = 0; p < 3; p++)
		for (t = 1; t <= BENCH_MAX_THREADS; t++) {
			for (i = 0; i < BENCH_MAX_THREADS; i++)
				c.ring[i] = rings[shared ? 0 : i];
			c.len = (uint32_t)bench_payloads[p];
			bench_watchdog(key, label, bench_payloads[p], t);
			bench_measure(&op, t, &r);
			bench_row(key, label, bench_payloads[p], t, &r);
		}
out:
	for (i = 0; i < BENCH_MAX_THREADS; i++)
		ring_free(rings[i]);
}

void floors_rows(void)
{
	plain_row("alu", "arithmetic only (scaling reference)", run_alu);
	plain_row("clock", "clock_gettime(CLOCK_MONOTONIC)", run_clock);
	plain_row("getppid", "getppid()", run_getppid);
	ring_row("ring_sp", "ring write, single producer", run_sp, 0);
	ring_row("ring_mp", "ring write, multi-producer", run_mp, 1);
}
