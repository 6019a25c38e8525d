// SPDX-License-Identifier: GPL-2.0
/*
 * ptbench - the posix-trace benchmark binary; bench/measure runs it, once
 * on the host and once in the VM, and bench/table turns its raw lines into
 * the table.
 *
 * usage: ptbench --env host|vm [--rows core|lttng|read] [--reps N] [--target-ms MS]
 *                [--tracefs DIR | --no-marker REASON]
 *                [--lttng-provider SO | --no-lttng REASON]
 *
 * "core" is every row but LTTng's, which run in a second process so that
 * liblttng-ust's threads and its session daemon are not around for the
 * others; "read" is only the read-side rows (getnext against the ring
 * drain), for working on the reader.  Output: "I\tname\tvalue" and
 * "R\tkey\tlabel\tpayload\tthreads\tns-or-reason\tN\tmin\tmax" lines.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(void)
{
	fprintf(stderr, "usage: ptbench --env host|vm [--rows core|lttng|read] [--reps N]"
		" [--target-ms MS] [--tracefs DIR | --no-marker REASON]"
		" [--lttng-provider SO | --no-lttng REASON]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *env = NULL, *rows = "core", *tracefs = NULL, *no_marker = NULL;
	const char *provider = NULL, *no_lttng = NULL;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *opt = argv[i], *val = argv[i + 1];

		if (!strcmp(opt, "--env"))
			env = val;
		else if (!strcmp(opt, "--rows"))
			rows = val;
		else if (!strcmp(opt, "--reps"))
			bench_cfg.reps = atoi(val);
		else if (!strcmp(opt, "--target-ms"))
			bench_cfg.target_s = atof(val) / 1000;
		else if (!strcmp(opt, "--tracefs"))
			tracefs = val;
		else if (!strcmp(opt, "--no-marker"))
			no_marker = val;
		else if (!strcmp(opt, "--lttng-provider"))
			provider = val;
		else if (!strcmp(opt, "--no-lttng"))
			no_lttng = val;
		else
			usage();
	}
	if (i != argc || !env || (strcmp(env, "host") && strcmp(env, "vm")) ||
	    bench_cfg.reps < 1 || bench_cfg.target_s <= 0)
		usage();
	bench_cfg.env = strcmp(env, "vm") ? BENCH_HOST : BENCH_VM;
	bench_init();
	printf("I\tcpus\t%d%s\n", bench_cfg.ncpus,
	       bench_cfg.pinned ? " (threads pinned)" : " (not pinned)");
	printf("I\treps\t%d x %.0f ms\n", bench_cfg.reps, bench_cfg.target_s * 1000);

	if (!strcmp(rows, "lttng")) {
		if (!provider && !no_lttng)
			no_lttng = "n/a (no provider given)";
		lttng_rows(provider, no_lttng);
		return 0;
	}
	if (!strcmp(rows, "read")) {
		pt_read_rows();
		return 0;
	}
	if (strcmp(rows, "core"))
		usage();
	if (!tracefs && !no_marker)
		no_marker = "n/a (no tracefs given)";
	floors_rows();
	pt_rows();
	marker_rows(tracefs, no_marker);
	pt_read_rows();
	return 0;
}
