// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert --chrome FILE.json: the Trace Event Format that
 * Perfetto UI and chrome://tracing load.
 *
 *   {"traceEvents":[ ... ],"displayTimeUnit":"ns","otherData":{ ... }}
 *
 * One instant event ("ph":"i", "s":"t") per POSIX event, one event per
 * line, plus "M" events naming each process ("pid N") and thread.
 *
 * "ts" is in microseconds relative to the first event of the log, printed
 * as an exact decimal with 3 digits after the point (ns precision):
 * absolute times since the Epoch in ns do not fit a JSON double exactly
 * (2^53 ns is 104 days).  otherData.ts_origin_ns is that first event's
 * CLOCK_REALTIME ns, as a string for the same reason.
 *
 * "tid": pthread_t values are pointers, too wide for a double, so each
 * distinct (pid, pthread_t) gets a small number, 1, 2, ... in order of
 * first appearance, unique in the whole trace; args.thread keeps the
 * pthread_t in hex, and the thread's "M" event names it.
 *
 * Strings (names, args.data_text) are written by json_str() (jsonstr.h),
 * as report --format json writes them: any bytes come out as valid JSON,
 * control and bidirectional characters as \uXXXX (no terminal obeys
 * them: "-" writes to stdout), bytes that are not valid UTF-8 as U+FFFD;
 * args.data_hex keeps the data's exact bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert_out.h"
#include "exporter.h"
#include "jsonstr.h"
#include "table.h"

struct chrome_writer {
	char *path;			/* to remove on failure; NULL: not a regular file */
	struct cv_out out;
	bool any;			/* an event written: separate the next */
	bool have_base;
	uint64_t base;
	uint64_t events;
	struct table pids;		/* the processes named so far */
	struct table thr;		/* (pid, thread): tid - 1 */
};

static void out_put(void *o, const void *p, size_t n)
{
	cv_out_write(o, p, n);
}

/* The JSON string of report --format json too (jsonstr.h). */
static void json_bytes(struct cv_out *o, const void *p, size_t n)
{
	json_str(out_put, o, p, n);
}

static void json_cstr(struct cv_out *o, const char *s)
{
	json_bytes(o, s, strlen(s));
}

static void separator(struct chrome_writer *w)
{
	cv_out_puts(&w->out, w->any ? ",\n" : "\n");
	w->any = true;
}

/* The process's "M" event the first time a pid shows; 0 or ENOMEM. */
static int see_pid(struct chrome_writer *w, int32_t pid)
{
	bool added;
	size_t n;

	if (table_add(&w->pids, (uint32_t)pid, 0, &n, &added))
		return ENOMEM;
	if (!added)
		return 0;
	separator(w);
	cv_out_printf(&w->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
		      "\"tid\":0,\"args\":{\"name\":\"pid %d\"}}", pid, pid);
	return 0;
}

/* The small tid of (pid, thread), 1, 2, ... in order of first appearance,
 * naming it the first time; 0 if no memory. */
static uint32_t see_thread(struct chrome_writer *w, int32_t pid, uint64_t thread)
{
	bool added;
	uint32_t tid;
	size_t n;

	if (table_add(&w->thr, (uint32_t)pid, thread, &n, &added))
		return 0;
	tid = (uint32_t)n + 1;		/* n < TABLE_MAX */
	if (!added)
		return tid;
	separator(w);
	cv_out_printf(&w->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
		      "\"tid\":%u,\"args\":{\"name\":\"thread 0x%llx\"}}",
		      pid, tid, (unsigned long long)thread);
	return tid;
}

static int chrome_open(void **wp, const char *path, struct logview *lv)
{
	struct chrome_writer *w = calloc(1, sizeof(*w));
	struct stat st;
	int fd, ret;

	(void)lv;
	*wp = NULL;
	if (!w)
		return ENOMEM;
	if (strcmp(path, "-")) {
		w->path = strdup(path);
		if (!w->path) {
			free(w);
			return ENOMEM;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	} else {
		fd = dup(STDOUT_FILENO);
	}
	/* Never remove what is not a file we wrote (/dev/stdout, a pipe). */
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		free(w->path);
		w->path = NULL;
	}
	ret = fd < 0 ? errno : cv_out_init(&w->out, fd);
	if (ret) {
		free(w->path);
		free(w);
		return ret;
	}
	cv_out_puts(&w->out, "{\"traceEvents\":[");
	*wp = w;
	return 0;
}

static const char *const truncation_names[] = { "no", "record", "read" };

static int chrome_event(void *arg, const struct lv_event *ev)
{
	static const char hex[] = "0123456789abcdef";
	struct chrome_writer *w = arg;
	struct cv_out *o = &w->out;
	uint64_t ns = cv_ns(&ev->ts), d;
	bool neg;
	uint32_t tid;
	size_t i;

	if (!w->have_base) {
		w->base = ns;
		w->have_base = true;
	}
	if (see_pid(w, ev->pid))
		return ENOMEM;
	tid = see_thread(w, ev->pid, ev->thread);
	if (!tid)
		return ENOMEM;
	/* A log is in time order, but a damaged one may go back in time. */
	neg = ns < w->base;
	d = neg ? w->base - ns : ns - w->base;
	separator(w);
	cv_out_puts(o, "{\"name\":");
	json_cstr(o, ev->name);
	cv_out_printf(o, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%s%llu.%03u,"
		      "\"pid\":%d,\"tid\":%u,\"args\":{\"id\":%u,\"thread\":\"0x%llx\","
		      "\"address\":\"0x%llx\",\"truncated\":\"%s\",\"data_hex\":\"",
		      ev->id < POSIX_TRACE_UNNAMED_USEREVENT ? "posix_trace" : "user",
		      neg ? "-" : "", (unsigned long long)(d / 1000), (unsigned int)(d % 1000),
		      ev->pid, tid, (unsigned int)ev->id, (unsigned long long)ev->thread,
		      (unsigned long long)ev->address,
		      ev->truncation >= 0 && ev->truncation <= 2 ?
		      truncation_names[ev->truncation] : "?");
	for (i = 0; i < ev->len; i++) {
		cv_out_putc(o, hex[ev->data[i] >> 4]);
		cv_out_putc(o, hex[ev->data[i] & 15]);
	}
	cv_out_puts(o, "\",\"data_text\":");
	json_bytes(o, ev->data, ev->len);
	cv_out_puts(o, "}}");
	w->events++;
	return o->err;
}

static void free_writer(struct chrome_writer *w)
{
	table_free(&w->thr);
	table_free(&w->pids);
	free(w->path);
	free(w);
}

static int chrome_finish(void *arg, struct logview *lv)
{
	struct chrome_writer *w = arg;
	const struct posix_trace_status_info *st = &lv->status;
	char name[TRACE_NAME_MAX] = "";
	struct timespec ct = { 0, 0 };
	struct cv_out *o = &w->out;
	int ret;

	posix_trace_attr_getname(&lv->attr, name);
	posix_trace_attr_getcreatetime(&lv->attr, &ct);
	cv_out_puts(o, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{");
	cv_out_puts(o, "\"source\":\"posix-trace convert\",\"trace_name\":");
	json_cstr(o, name);
	cv_out_printf(o, ",\"creation_time_ns\":\"%llu\",\"ts_origin\":\"first event\","
		      "\"ts_origin_ns\":\"%llu\",\"events\":%llu,\"processes\":%llu,"
		      "\"threads\":%llu,\"stream_overrun_status\":%d,"
		      "\"log_overrun_status\":%d}}\n",
		      (unsigned long long)cv_ns(&ct),
		      (unsigned long long)(w->have_base ? w->base : cv_ns(&ct)),
		      (unsigned long long)w->events, (unsigned long long)w->pids.count,
		      (unsigned long long)w->thr.count, st->posix_stream_overrun_status,
		      st->posix_log_overrun_status);
	ret = cv_out_close(o);
	if (ret) {
		if (w->path)
			unlink(w->path);
		free_writer(w);
		return ret;
	}
	free_writer(w);
	return 0;
}

static void chrome_abort(void *arg)
{
	struct chrome_writer *w = arg;

	cv_out_close(&w->out);
	if (w->path)
		unlink(w->path);
	free_writer(w);
}

const struct exporter chrome_exporter = {
	.open = chrome_open,
	.event = chrome_event,
	.finish = chrome_finish,
	.abort = chrome_abort,
};
