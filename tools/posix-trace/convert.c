// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert LOG [--ctf DIR] [--chrome FILE.json]: exports a
 * trace log for the viewers people already use, reading it once for both
 * formats (ctf.c, chrome.c; their kernel events: ctf_kev.c, chrome_kev.c).
 *
 * DIR must not exist (it is created) or be an empty directory: a CTF
 * reader takes every file of the directory as part of the trace, so
 * writing into a directory that holds anything else would make a broken
 * trace.  FILE.json is truncated if it exists ("-": standard output).
 * On a failure the exit code is PT_EXIT_FAIL and an export that could not
 * be completed is removed (with both, one finished before the other failed
 * stays: it is whole).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "exporter.h"

/* Opened and fed in this order, finished in the reverse one: so with both,
 * the JSON is finished first and stays if the CTF trace then fails. */
enum { EX_CTF, EX_CHROME, EX_NR };

static const struct exporter *const exporters[EX_NR] = {
	[EX_CTF] = &ctf_exporter,
	[EX_CHROME] = &chrome_exporter,
};

/* getopt values of --ctf and --chrome: past every character. */
#define OPT_EXPORT	256

static void usage(FILE *f)
{
	fputs("usage: posix-trace convert LOG [--ctf DIR] [--chrome FILE.json]\n"
	      "Export the trace log LOG (at least one of):\n"
	      "  --ctf DIR            CTF 1.8 trace for babeltrace2 and Trace Compass;\n"
	      "                       DIR must not exist or be empty\n"
	      "  --chrome FILE.json   Trace Event Format for Perfetto UI and chrome://tracing\n"
	      "                       (\"-\": standard output)\n"
	      "  -h, --help           this help\n"
	      "Kernel events (record --kernel): --chrome draws each thread's system calls\n"
	      "and off-CPU time as slices, the others as instants; --ctf gives each kernel\n"
	      "event type its fields by name.\n"
	      "Exit status: 0 done, 1 failed (unreadable log, write error), 2 usage error.\n", f);
}

struct convert {
	struct logview lv;
	const char *dest[EX_NR];	/* NULL: not asked for */
	void *w[EX_NR];			/* open, not yet finished */
};

static void abort_all(struct convert *c)
{
	int i;

	for (i = 0; i < EX_NR; i++) {
		if (c->w[i])
			exporters[i]->abort(c->w[i]);
		c->w[i] = NULL;
	}
}

static int open_all(struct convert *c)
{
	int i, ret;

	for (i = 0; i < EX_NR; i++) {
		if (!c->dest[i])
			continue;
		ret = exporters[i]->open(&c->w[i], c->dest[i], &c->lv);
		if (ret) {
			pt_err("%s: %s", c->dest[i], ret == ENOTEMPTY ?
			       "exists and is not an empty directory" : strerror(ret));
			abort_all(c);
			return ret;
		}
	}
	return 0;
}

/* Reads every event into every export; 0 or an errno (*what says where). */
static int convert_events(struct convert *c, const char **what)
{
	struct progress prog;
	struct lv_event ev;
	uint64_t n = 0;
	int i, ret;

	progress_start(&prog, "converting (events)", 0);
	while ((ret = lv_next(&c->lv, &ev)) > 0) {
		for (i = 0; i < EX_NR; i++) {
			if (c->w[i] && (ret = exporters[i]->event(c->w[i], &ev))) {
				*what = c->dest[i];
				goto out;
			}
		}
		if (!(++n & 1023))
			progress_update(&prog, n);
	}
out:
	progress_end(&prog);
	return ret < 0 ? -ret : ret;
}

/* The exports finished so far stay when a later one fails: they are whole. */
static int finish_all(struct convert *c)
{
	void *w;
	int i, ret;

	for (i = EX_NR - 1; i >= 0; i--) {
		w = c->w[i];
		c->w[i] = NULL;
		if (w && (ret = exporters[i]->finish(w, &c->lv))) {
			pt_err("%s: %s", c->dest[i], strerror(ret));
			abort_all(c);
			return ret;
		}
	}
	return 0;
}

static int run(struct convert *c, const char *log)
{
	const char *what = log;
	int ret;

	ret = lv_open(&c->lv, log);	/* room for system events too */
	if (ret) {
		pt_err("%s: %s", log, ret == EINVAL ? "not a trace log" : strerror(ret));
		return PT_EXIT_FAIL;
	}
	ret = open_all(c);
	if (ret)
		goto out;
	ret = convert_events(c, &what);
	if (ret) {
		pt_err("%s: %s", what, strerror(ret));
		abort_all(c);
		goto out;
	}
	ret = finish_all(c);
out:
	lv_close(&c->lv);
	return ret ? PT_EXIT_FAIL : PT_EXIT_OK;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctf", required_argument, NULL, OPT_EXPORT + EX_CTF },
		{ "chrome", required_argument, NULL, OPT_EXPORT + EX_CHROME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct convert c;
	int opt;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_EXPORT + EX_CTF:
		case OPT_EXPORT + EX_CHROME:
			c.dest[opt - OPT_EXPORT] = optarg;
			break;
		case 'h':
			usage(stdout);
			return PT_EXIT_OK;
		default:
			usage(stderr);
			return PT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || (!c.dest[EX_CTF] && !c.dest[EX_CHROME])) {
		pt_err(optind == argc - 1 ? "convert: --ctf or --chrome is needed" :
		       "convert: one LOG is needed");
		usage(stderr);
		return PT_EXIT_USAGE;
	}
	return run(&c, argv[optind]);
}
