// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace stat LOG: the attributes of the stream that wrote LOG, the
 * status it ended with, and the event types it names, as "key: value"
 * lines (sizes in bytes, times CLOCK_REALTIME seconds.nanoseconds).
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include "cli.h"
#include "logview.h"
#include "opts.h"
#include "textfmt.h"

static void usage(FILE *f)
{
	fputs("usage: posix-trace stat LOG\n"
	      "Print the attributes of the stream that wrote the trace log LOG (name,\n"
	      "generation version, create time, clock resolution, stream, max-data and\n"
	      "log sizes, policies, inheritance), its status flags, and the event types\n"
	      "it names, one \"key: value\" per line.\n"
	      "\n"
	      "  -h, --help\n"
	      "\n"
	      "Exit status: 0, 1 if LOG cannot be read, 2 for bad usage.\n", f);
}

static const char *yes_no(int v)
{
	return v ? "yes" : "no";
}

static void print_type(trace_event_id_t id, const char *name, void *arg)
{
	(void)arg;
	printf("  %u ", id);
	tf_text(stdout, name);
	putchar('\n');
}

/* Every getter of a trace_attr_t the log's stream had. */
static int print_attr(const trace_attr_t *a)
{
	char name[TRACE_NAME_MAX], ver[TRACE_NAME_MAX], ts[TF_TS_LEN], date[64];
	size_t stream, maxdata, logsize, sysev, userev;
	struct timespec create, res;
	unsigned int kclasses;
	int sp, lp, inh, ret;
	struct tm tm;

	ret = posix_trace_attr_getname(a, name);
	if (!ret)
		ret = posix_trace_attr_getgenversion(a, ver);
	if (!ret)
		ret = posix_trace_attr_getcreatetime(a, &create);
	if (!ret)
		ret = posix_trace_attr_getclockres(a, &res);
	if (!ret)
		ret = posix_trace_attr_getstreamsize(a, &stream);
	if (!ret)
		ret = posix_trace_attr_getmaxdatasize(a, &maxdata);
	if (!ret)
		ret = posix_trace_attr_getlogsize(a, &logsize);
	if (!ret)
		ret = posix_trace_attr_getmaxsystemeventsize(a, &sysev);
	if (!ret)
		ret = posix_trace_attr_getmaxusereventsize(a, maxdata, &userev);
	if (!ret)
		ret = posix_trace_attr_getstreamfullpolicy(a, &sp);
	if (!ret)
		ret = posix_trace_attr_getlogfullpolicy(a, &lp);
	if (!ret)
		ret = posix_trace_attr_getinherited(a, &inh);
	if (!ret)
		ret = posix_trace_attr_getkernelclasses_np(a, &kclasses);
	if (ret)
		return ret;

	fputs("name: ", stdout);
	tf_text(stdout, name);
	fputs("\ngeneration version: ", stdout);
	tf_text(stdout, ver);
	if (!gmtime_r(&create.tv_sec, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm))
		strcpy(date, "?");
	printf("\ncreate time: %s (%s.%09ld UTC)\n", tf_ts(ts, &create), date,
	       create.tv_nsec);
	printf("clock resolution: %s s\n", tf_ts(ts, &res));
	printf("stream size: %zu\n", stream);
	printf("max data size: %zu\n", maxdata);
	printf("log size: %zu\n", logsize);
	printf("max system event size: %zu\n", sysev);
	printf("max user event size: %zu\n", userev);
	printf("stream full policy: %s\n", opt_policy_name(sp));
	printf("log full policy: %s\n", opt_policy_name(lp));
	printf("inheritance: %s\n", inh == POSIX_TRACE_INHERITED ?
	       "inherited" : "close-for-child");
	printf("kernel events: %s\n", opt_kclasses_name(kclasses));
	return 0;
}

static void print_status(const struct posix_trace_status_info *st)
{
	printf("stream status: %s\n",
	       st->posix_stream_status == POSIX_TRACE_RUNNING ? "running" :
	       st->posix_stream_status == POSIX_TRACE_SUSPENDED ? "suspended" : "?");
	printf("stream full: %s\n",
	       yes_no(st->posix_stream_full_status == POSIX_TRACE_FULL));
	printf("stream overrun: %s\n",
	       yes_no(st->posix_stream_overrun_status == POSIX_TRACE_OVERRUN));
	printf("flushing: %s\n",
	       yes_no(st->posix_stream_flush_status == POSIX_TRACE_FLUSHING));
	if (st->posix_stream_flush_error)
		printf("flush error: %d (%s)\n", st->posix_stream_flush_error,
		       strerror(st->posix_stream_flush_error));
	else
		puts("flush error: 0");
	printf("log full: %s\n",
	       yes_no(st->posix_log_full_status == POSIX_TRACE_FULL));
	printf("log overrun: %s\n",
	       yes_no(st->posix_log_overrun_status == POSIX_TRACE_OVERRUN));
}

int cmd_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct logview lv;
	const char *path;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return PT_EXIT_OK;
		}
		usage(stderr);
		return PT_EXIT_USAGE;
	}
	if (argc - optind != 1) {
		pt_err("stat: %s", argc == optind ? "no LOG given" : "one LOG only");
		usage(stderr);
		return PT_EXIT_USAGE;
	}
	path = argv[optind];
	ret = lv_open(&lv, path);
	if (ret) {
		lv_complain("stat", path, ret);
		return PT_EXIT_FAIL;
	}
	ret = print_attr(&lv.attr);
	if (!ret) {
		print_status(&lv.status);
		lv_print_losses(&lv, "");
		puts("event types:");
		ret = lv_event_types(&lv, print_type, NULL);
	}
	lv_close(&lv);
	if (ret) {
		lv_complain("stat", path, ret);
		return PT_EXIT_FAIL;
	}
	if (fflush(stdout) || ferror(stdout)) {
		pt_err("stat: writing: %s", strerror(errno));
		return PT_EXIT_FAIL;
	}
	return PT_EXIT_OK;
}
