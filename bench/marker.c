// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's user-space marker: one write() of the payload to
 * <tracefs>/trace_marker per event, the kernel's own "record from user
 * space" path (a system call plus a copy into the per-CPU ring buffer).
 * bench/measure mounts tracefs when it can, or says why not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

struct marker_cell {
	int fd;
	size_t len;
};

static void run_marker(void *arg, int thread, uint64_t n)
{
	struct marker_cell *c = arg;

	(void)thread;
	while (n--)
		if (write(c->fd, bench_payload, c->len) < 0)
			break;
}

void marker_rows(const char *tracefs, const char *na)
{
	static const char key[] = "marker";
	static const char label[] = "write() to ftrace trace_marker";
	struct marker_cell c;
	struct bench_op op = { .run = run_marker, .arg = &c };
	struct bench_result r;
	char path[4096], why[BENCH_WHY];
	int p, t;

	if (na) {
		bench_row_na(key, label, 1, BENCH_MAX_THREADS, na);
		return;
	}
	snprintf(path, sizeof(path), "%s/trace_marker", tracefs);
	c.fd = open(path, O_WRONLY | O_CLOEXEC);
	/* A write that fails (tracing off, markers disabled) would time an
	 * error path: say why instead. */
	errno = EIO;	/* for a short write */
	if (c.fd < 0 || write(c.fd, bench_payload, 16) != 16) {
		snprintf(why, sizeof(why), "n/a (trace_marker: %s)", strerror(errno));
		bench_row_na(key, label, 1, BENCH_MAX_THREADS, why);
		if (c.fd >= 0)
			close(c.fd);
		return;
	}
	for (p = 0; p < 3; p++)
		for (t = 1; t <= BENCH_MAX_THREADS; t++) {
			c.len = (size_t)bench_payloads[p];
			bench_watchdog(key, label, bench_payloads[p], t);
			bench_measure(&op, t, &r);
			bench_row(key, label, bench_payloads[p], t, &r);
		}
	close(c.fd);
}
