// SPDX-License-Identifier: GPL-2.0
/*
 * LTTng-UST rows: the bench:event tracepoint, enabled in a flight-recorder
 * (snapshot) session that bench/measure set up before starting ptbench.
 *
 * The tracepoint is defined here with dynamic linkage: ptbench does not
 * link liblttng-ust; it dlopen()s the probe provider, whose liblttng-ust
 * registers with the session daemon and gets the session's enablers
 * before dlopen() returns (LTTNG_UST_REGISTER_TIMEOUT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "bench_tp.h"

#include "bench.h"

/* Enabling can trail registration a little; under TCG, a lot. */
#define ENABLE_WAIT_MS 30000

struct lttng_cell {
	unsigned int len;
};

static void run_lttng(void *arg, int thread, uint64_t n)
{
	struct lttng_cell *c = arg;

	(void)thread;
	while (n--)
		lttng_ust_tracepoint(bench, event, bench_payload, c->len);
}

static int wait_enabled(void)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < ENABLE_WAIT_MS; i++) {
		if (lttng_ust_tracepoint_enabled(bench, event))
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

void lttng_rows(const char *provider, const char *na)
{
	static const char key[] = "lttng";
	static const char label[] = "LTTng-UST tracepoint, flight recorder";
	struct lttng_cell c;
	struct bench_op op = { .run = run_lttng, .arg = &c };
	struct bench_result r;
	char why[BENCH_WHY];
	int p, t;

	if (!na && !dlopen(provider, RTLD_NOW | RTLD_GLOBAL)) {
		snprintf(why, sizeof(why), "n/a (dlopen: %s)", dlerror());
		na = why;
	}
	if (!na && !wait_enabled())
		na = "n/a (bench:event never enabled by the session)";
	if (na) {
		bench_row_na(key, label, 1, BENCH_MAX_THREADS, na);
		return;
	}
	for (p = 0; p < 3; p++)
		for (t = 1; t <= BENCH_MAX_THREADS; t++) {
			c.len = (unsigned int)bench_payloads[p];
			bench_watchdog(key, label, bench_payloads[p], t);
			bench_measure(&op, t, &r);
			bench_row(key, label, bench_payloads[p], t, &r);
		}
}
