// SPDX-License-Identifier: GPL-2.0
/*
 * The measuring engine: pinned writer threads, calibration, repetitions,
 * median, and the raw output lines.
 *
 * A repetition times N events per thread.  Each thread reads
 * CLOCK_MONOTONIC around its own loop; the repetition's time is the first
 * start to the last end, so with two threads ns/event is the aggregate
 * (total time / total events), never a per-thread average.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bench_config bench_cfg = { .reps = 5, .target_s = 0.2 };
const int bench_payloads[3] = { 0, 16, 256 };
const unsigned char bench_payload[BENCH_PAYLOAD_MAX] = {
	/* Printable, so that trace_marker and LTTng text views stay sane. */
#define B8(c) c, c + 1, c + 2, c + 3, c + 4, c + 5, c + 6, c + 7
#define B32(c) B8(c), B8(c + 8), B8(c + 16), B8(c + 24)
	B32('A'), B32('A'), B32('A'), B32('A'), B32('A'), B32('A'), B32('A'), B32('A'),
};

static int cpus[CPU_SETSIZE];
/* A cell whose repetitions take longer than this is reported as hung. */
#define CELL_TIMEOUT_S 90

uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pin(int thread)
{
	cpu_set_t set;

	if (!bench_cfg.pinned)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpus[thread % bench_cfg.ncpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void bench_init(void)
{
	cpu_set_t set;
	int i;

	/* Line-buffered: the watchdog writes with write(2), and a VM run
	 * that dies should still have printed the finished rows. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				cpus[bench_cfg.ncpus++] = i;
	if (bench_cfg.ncpus == 0)
		bench_cfg.ncpus = 1;
	bench_cfg.pinned = bench_cfg.ncpus >= 2;
	pin(0);
}

/* ---- threads ---------------------------------------------------------- */

/* Spinning barrier: a futex wake-up would add tens of microseconds (far
 * more under TCG) between the threads' starts. */
struct barrier {
	atomic_uint count;
	atomic_uint gen;
	unsigned int n;
};

static void barrier_wait(struct barrier *b)
{
	unsigned int gen = atomic_load(&b->gen), spins = 0;

	if (atomic_fetch_add(&b->count, 1) + 1 == b->n) {
		atomic_store(&b->count, 0);
		atomic_fetch_add(&b->gen, 1);
		return;
	}
	while (atomic_load(&b->gen) == gen)
		if (++spins % 1024 == 0)
			sched_yield();	/* more threads than CPUs */
}

struct cell {
	const struct bench_op *op;
	int nthreads;
	struct barrier bar;
	uint64_t n;		/* events per thread in this segment */
	atomic_int quit;
	uint64_t start[BENCH_MAX_THREADS], end[BENCH_MAX_THREADS];
};

struct worker {
	struct cell *c;
	int thread;
};

static void timed_run(struct cell *c, int t)
{
	c->start[t] = bench_now();
	c->op->run(c->op->arg, t, c->n);
	c->end[t] = bench_now();
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	struct cell *c = w->c;

	pin(w->thread);
	for (;;) {
		barrier_wait(&c->bar);
		if (atomic_load(&c->quit))
			return NULL;
		timed_run(c, w->thread);
		barrier_wait(&c->bar);
	}
}

/* One segment of @n events per thread; returns its wall time in ns. */
static uint64_t segment(struct cell *c, uint64_t n)
{
	uint64_t first, last;
	int t;

	c->n = n;
	if (c->nthreads > 1)
		barrier_wait(&c->bar);
	timed_run(c, 0);
	if (c->nthreads > 1)
		barrier_wait(&c->bar);
	first = c->start[0];
	last = c->end[0];
	for (t = 1; t < c->nthreads; t++) {
		if (c->start[t] < first)
			first = c->start[t];
		if (c->end[t] > last)
			last = c->end[t];
	}
	return last - first;
}

/* One repetition of @n events per thread; its timed ns, or 0 (invalid). */
static uint64_t repetition(struct cell *c, uint64_t n, char *why)
{
	const struct bench_op *op = c->op;
	uint64_t total = 0, k;

	while (n) {
		k = op->seg_max && n > op->seg_max ? op->seg_max : n;
		if (op->prepare && op->prepare(op->arg, k, c->nthreads, why))
			return 0;
		total += segment(c, k);
		if (op->finish && op->finish(op->arg, k, c->nthreads, why))
			return 0;
		n -= k;
	}
	return total ? total : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A warm-up repetition (thread start and migration, page faults, caches),
 * then N is grown until a repetition takes 1/16 of the target and scaled
 * to the target.  A one-off stall during calibration makes N too small; a
 * repetition that then takes under a quarter of the target rescales N and
 * starts the repetitions over (a few times at most).
 */
static void run_cell(struct cell *c, struct bench_result *r)
{
	double target_ns = bench_cfg.target_s * 1e9, ns[64];
	uint64_t n = 16, t;
	int i, rescaled = 0, reps = bench_cfg.reps < 64 ? bench_cfg.reps : 64;

	if (!repetition(c, n, r->why))
		return;
	for (;;) {
		t = repetition(c, n, r->why);
		if (!t)
			return;
		if (t >= target_ns / 16 || n >= (1ull << 34))
			break;
		n *= 4;
	}
	n = (uint64_t)((double)n * target_ns / (double)t) + 1;
	for (i = 0; i < reps; i++) {
		t = repetition(c, n, r->why);
		if (!t)
			return;
		if (t < target_ns / 4 && rescaled < 3) {
			n = (uint64_t)((double)n * target_ns / (double)t) + 1;
			rescaled++;
			i = -1;
			continue;
		}
		ns[i] = (double)t / ((double)n * c->nthreads);
	}
	qsort(ns, reps, sizeof(ns[0]), cmp_double);
	r->ns = reps % 2 ? ns[reps / 2] : (ns[reps / 2 - 1] + ns[reps / 2]) / 2;
	r->min = ns[0];
	r->max = ns[reps - 1];
	r->n = n;
}

void bench_measure(const struct bench_op *op, int nthreads, struct bench_result *r)
{
	struct cell c = { .op = op, .nthreads = nthreads, .bar.n = nthreads };
	struct worker w[BENCH_MAX_THREADS];
	pthread_t tid[BENCH_MAX_THREADS];
	int t, started = 1;

	memset(r, 0, sizeof(*r));
	r->ns = -1;
	for (t = 1; t < nthreads; t++) {
		w[t] = (struct worker){ .c = &c, .thread = t };
		if (pthread_create(&tid[t], NULL, worker_main, &w[t])) {
			snprintf(r->why, sizeof(r->why), "n/a (pthread_create failed)");
			break;
		}
		started++;
	}
	/* The barrier counts the threads that exist. */
	c.bar.n = started;
	c.nthreads = started;
	if (started == nthreads)
		run_cell(&c, r);
	if (r->ns < 0 && !r->why[0])
		snprintf(r->why, sizeof(r->why), "invalid");
	atomic_store(&c.quit, 1);
	if (started > 1)
		barrier_wait(&c.bar);
	for (t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	alarm(0);
}

/* ---- output ------------------------------------------------------------ */

static char timeout_line[512];
static int timeout_len;

static void on_alarm(int sig)
{
	(void)sig;
	if (write(STDOUT_FILENO, timeout_line, timeout_len) < 0)
		_exit(3);
	_exit(3);
}

void bench_watchdog(const char *key, const char *label, int payload, int nthreads)
{
	char p[16] = "-";

	if (payload >= 0)
		snprintf(p, sizeof(p), "%d", payload);
	timeout_len = snprintf(timeout_line, sizeof(timeout_line),
			       "R\t%s\t%s\t%s\t%d\tinvalid (timed out after %d s)\t0\t0\t0\n",
			       key, label, p, nthreads, CELL_TIMEOUT_S);
	if (timeout_len >= (int)sizeof(timeout_line))
		timeout_len = sizeof(timeout_line) - 1;
	signal(SIGALRM, on_alarm);
	alarm(CELL_TIMEOUT_S);
}

void bench_row(const char *key, const char *label, int payload, int nthreads,
	       const struct bench_result *r)
{
	char p[16] = "-";

	if (payload >= 0)
		snprintf(p, sizeof(p), "%d", payload);
	if (r->ns >= 0)
		printf("R\t%s\t%s\t%s\t%d\t%.1f\t%llu\t%.1f\t%.1f\n", key, label, p,
		       nthreads, r->ns, (unsigned long long)r->n, r->min, r->max);
	else
		printf("R\t%s\t%s\t%s\t%d\t%s\t0\t0\t0\n", key, label, p, nthreads, r->why);
	/* Progress for whoever watches the run. */
	if (r->ns >= 0)
		fprintf(stderr, "ptbench: %-14s %4s B %dT  %.1f ns\n", key, p,
			nthreads, r->ns);
	else
		fprintf(stderr, "ptbench: %-14s %4s B %dT  %s\n", key, p,
			nthreads, r->why);
}

void bench_row_na(const char *key, const char *label, int per_payload,
		  int max_threads, const char *why)
{
	struct bench_result r = { .ns = -1 };
	int p, t;

	snprintf(r.why, sizeof(r.why), "%s", why);
	for (p = 0; p < (per_payload ? 3 : 1); p++)
		for (t = 1; t <= max_threads; t++)
			bench_row(key, label, per_payload ? bench_payloads[p] : -1, t, &r);
}
