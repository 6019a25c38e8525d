// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert LOG [--ctf DIR] [--chrome FILE.json]: exports a
 * trace log for the viewers people already use, reading it once for both
 * formats (ctf.c, chrome.c).
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
#include "convert.h"

static void usage(FILE *f)
{
	fputs("usage: posix-trace convert LOG [--ctf DIR] [--chrome FILE.json]\n"
	      "Export the trace log LOG (at least one of):\n"
	      "  --ctf DIR            CTF 1.8 trace for babeltrace2 and Trace Compass;\n"
	      "                       DIR must not exist or be empty\n"
	      "  --chrome FILE.json   Trace Event Format for Perfetto UI and chrome://tracing\n"
	      "                       (\"-\": standard output)\n"
	      "  -h, --help           this help\n"
	      "Exit status: 0 done, 1 failed (unreadable log, write error), 2 usage error.\n", f);
}

struct convert {
	struct logview lv;
	struct ctf_writer *ctf;
	struct chrome_writer *chrome;
	const char *ctf_dir, *chrome_path;
};

/* Reads every event into both writers; 0 or an errno (*what says where). */
static int convert_events(struct convert *c, const char **what)
{
	struct progress prog;
	struct lv_event ev;
	uint64_t n = 0;
	int ret;

	progress_start(&prog, "converting (events)", 0);
	while ((ret = lv_next(&c->lv, &ev)) > 0) {
		if (c->ctf && (ret = ctf_event(c->ctf, &ev))) {
			*what = c->ctf_dir;
			break;
		}
		if (c->chrome && (ret = chrome_event(c->chrome, &ev))) {
			*what = c->chrome_path;
			break;
		}
		if (!(++n & 1023))
			progress_update(&prog, n);
	}
	progress_end(&prog);
	return ret < 0 ? -ret : ret;
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
	if (c->ctf_dir && (ret = ctf_open(&c->ctf, c->ctf_dir, &c->lv))) {
		pt_err("%s: %s", c->ctf_dir, ret == ENOTEMPTY ?
		       "exists and is not an empty directory" : strerror(ret));
		goto err_log;
	}
	if (c->chrome_path && (ret = chrome_open(&c->chrome, c->chrome_path, &c->lv))) {
		pt_err("%s: %s", c->chrome_path, strerror(ret));
		goto err_ctf;
	}
	ret = convert_events(c, &what);
	if (ret) {
		pt_err("%s: %s", what, strerror(ret));
		goto err_chrome;
	}
	if (c->chrome) {
		ret = chrome_finish(c->chrome, &c->lv);
		c->chrome = NULL;
		if (ret) {
			pt_err("%s: %s", c->chrome_path, strerror(ret));
			goto err_ctf;
		}
	}
	if (c->ctf) {
		ret = ctf_finish(c->ctf, &c->lv);
		if (ret) {
			pt_err("%s: %s", c->ctf_dir, strerror(ret));
			/* The JSON is complete: only the CTF trace is missing. */
			goto err_log;
		}
	}
	lv_close(&c->lv);
	return PT_EXIT_OK;

err_chrome:
	if (c->chrome)
		chrome_abort(c->chrome);
err_ctf:
	if (c->ctf)
		ctf_abort(c->ctf);
err_log:
	lv_close(&c->lv);
	return PT_EXIT_FAIL;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctf", required_argument, NULL, 'c' },
		{ "chrome", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct convert c;
	int opt;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			c.ctf_dir = optarg;
			break;
		case 'j':
			c.chrome_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return PT_EXIT_OK;
		default:
			usage(stderr);
			return PT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || (!c.ctf_dir && !c.chrome_path)) {
		pt_err(optind == argc - 1 ? "convert: --ctf or --chrome is needed" :
		       "convert: one LOG is needed");
		usage(stderr);
		return PT_EXIT_USAGE;
	}
	return run(&c, argv[optind]);
}
