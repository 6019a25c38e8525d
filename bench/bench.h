/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptbench: what the benchmark's files share.  engine.c measures, the row
 * files (floors.c, pt_rows.c, pt_read.c, lttng.c, marker.c) describe what
 * to measure, main.c picks the rows.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>

#define BENCH_WHY		128	/* room for an "n/a (...)" reason */
#define BENCH_MAX_THREADS	2
#define BENCH_PAYLOAD_MAX	256	/* also the streams' max-data-size */
/* Stream and ring size: 4 MiB, as the issue asks, and a power of two so
 * that the floor rings can mask positions. */
#define BENCH_STREAM_SIZE	((uint64_t)4 << 20)

enum bench_env { BENCH_HOST, BENCH_VM };

/*
 * One cell of the table: @run records @n events from writer @thread.  A
 * repetition is split into segments of at most @seg_max events per thread
 * (0: no limit) when the buffer must be emptied or filled in between:
 * @prepare runs before and @finish after each segment, on thread 0 while
 * the others wait, untimed.  Both return 0, or -1 with @why set to mark
 * the cell invalid.
 */
struct bench_op {
	void (*run)(void *arg, int thread, uint64_t n);
	int (*prepare)(void *arg, uint64_t n, int nthreads, char *why);
	int (*finish)(void *arg, uint64_t n, int nthreads, char *why);
	uint64_t seg_max;
	void *arg;
};

struct bench_result {
	double ns;		/* median ns per event; < 0: see why */
	double min, max;	/* over the repetitions */
	uint64_t n;		/* events per thread per repetition */
	char why[BENCH_WHY];
};

struct bench_config {
	enum bench_env env;
	int reps;		/* repetitions per cell (median of these) */
	double target_s;	/* timed seconds per repetition */
	int ncpus;		/* CPUs this process may run on */
	int pinned;		/* threads are pinned (ncpus >= 2) */
};

extern struct bench_config bench_cfg;
/* The event data of every row: the first 0, 16 or 256 bytes of this. */
extern const unsigned char bench_payload[BENCH_PAYLOAD_MAX];
extern const int bench_payloads[3];

/* engine.c */
void bench_init(void);
uint64_t bench_now(void);
void bench_measure(const struct bench_op *op, int nthreads, struct bench_result *r);
/* Prints one raw line "R key label payload threads value n min max";
 * payload < 0 prints "-".  A result with ns < 0 prints its why. */
void bench_row(const char *key, const char *label, int payload, int nthreads,
	       const struct bench_result *r);
/* Prints a row that could not be measured, for every payload/threads. */
void bench_row_na(const char *key, const char *label, int per_payload,
		  int max_threads, const char *why);
/* Arms a watchdog that prints @key's cells as "timeout" and exits if a
 * cell takes longer than the limit (a lost event would make
 * posix_trace_getnext_event() wait for ever). */
void bench_watchdog(const char *key, const char *label, int payload, int nthreads);

/* The rows. */
void floors_rows(void);
void pt_rows(void);
void pt_read_rows(void);
void marker_rows(const char *tracefs, const char *na);
void lttng_rows(const char *provider, const char *na);

#endif /* BENCH_H */
