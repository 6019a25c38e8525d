// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert --chrome FILE.json: the Trace Event Format that
 * Perfetto UI and chrome://tracing load.
 *
 *   {"traceEvents":[ ... ],"displayTimeUnit":"ns","otherData":{ ... }}
 *
 * One instant event ("ph":"i", "s":"t") per user or system event, one
 * event per line, plus "M" events naming each process ("pid N") and
 * thread.  The kernel events (ids 16..27) are chrome_kev.c's: system
 * calls and time off CPU as slices ("B"/"E") of their thread's track,
 * the others as instants with their data decoded.
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
 * pthread_t in hex, and the thread's "M" event names it.  A kernel
 * event has no pthread_t: its track is its thread's, "tid" the kernel's
 * thread id (posix_trace_event_tid_np()), named "kernel events"; one
 * without a tid is on a track of its process, "kernel events (all
 * threads)".  The user events of a thread stay on their own track, as
 * before (their numbers are not tids: a tid equal to one of them shares
 * its track).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "chrome.h"
#include "exporter.h"
#include "jsonstr.h"

static void out_put(void *o, const void *p, size_t n)
{
	cv_out_write(o, p, n);
}

/* The JSON string of report --format json too (jsonstr.h). */
void chrome_json(struct cv_out *o, const void *p, size_t n)
{
	json_str(out_put, o, p, n);
}

static void json_cstr(struct cv_out *o, const char *s)
{
	chrome_json(o, s, strlen(s));
}

static void separator(struct chrome_writer *w)
{
	cv_out_puts(&w->out, w->any ? ",\n" : "\n");
	w->any = true;
}

void chrome_head(struct chrome_writer *w, const char *name, const char *cat, char ph,
		 uint64_t ns, int32_t pid, uint32_t tid)
{
	struct cv_out *o = &w->out;
	/* A log is in time order, but a damaged one may go back in time. */
	bool neg = ns < w->base;
	uint64_t d = neg ? w->base - ns : ns - w->base;

	separator(w);
	cv_out_puts(o, "{\"name\":");
	json_cstr(o, name);
	cv_out_printf(o, ",\"cat\":\"%s\",\"ph\":\"%c\"%s,\"ts\":%s%llu.%03u,"
		      "\"pid\":%d,\"tid\":%u", cat, ph, ph == 'i' ? ",\"s\":\"t\"" : "",
		      neg ? "-" : "", (unsigned long long)(d / 1000), (unsigned int)(d % 1000),
		      pid, tid);
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

/* The "M" event naming track (@pid, @tid) @name, the first time only: a
 * kernel tid may equal the small number of a pthread of the same process,
 * and a track has one name.  0 or ENOMEM. */
static int name_track(struct chrome_writer *w, int32_t pid, uint32_t tid, const char *name)
{
	bool added;
	size_t n;

	if (table_add(&w->named, (uint32_t)pid, tid, &n, &added))
		return ENOMEM;
	if (!added)
		return 0;
	separator(w);
	cv_out_printf(&w->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%d,"
		      "\"tid\":%u,\"args\":{\"name\":\"%s\"}}", pid, tid, name);
	return 0;
}

/* The small tid of (pid, thread), 1, 2, ... in order of first appearance,
 * naming it the first time, and in *@state where its value is; 0 if no
 * memory.  Kernel events without a tid (posix_trace_event_tid_np() gave
 * none) come here with thread 0: one track of the process for all its
 * threads, named so when they are the first there. */
static uint32_t see_thread(struct chrome_writer *w, const struct lv_event *ev, bool kernel,
			   void ***state)
{
	char name[32];
	bool added;
	uint32_t tid;
	size_t n;

	if (table_add(&w->thr, (uint32_t)ev->pid, ev->thread, &n, &added))
		return 0;
	tid = (uint32_t)n + 1;		/* n < TABLE_MAX */
	*state = &w->thr.ent[n].val;
	if (!added)
		return tid;
	if (kernel)
		snprintf(name, sizeof(name), "kernel events (all threads)");
	else
		snprintf(name, sizeof(name), "thread 0x%llx", (unsigned long long)ev->thread);
	return name_track(w, ev->pid, tid, name) ? 0 : tid;
}

/* The track of a kernel event that has a tid: that tid, named the first
 * time, and in *@state where its value is; 0 if no memory. */
static uint32_t see_kthread(struct chrome_writer *w, const struct lv_event *ev, void ***state)
{
	uint32_t tid = (uint32_t)ev->tid;
	bool added;
	size_t n;

	if (table_add(&w->kthr, (uint32_t)ev->pid, tid, &n, &added))
		return 0;
	*state = &w->kthr.ent[n].val;
	if (added && name_track(w, ev->pid, tid, "kernel events"))
		return 0;
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
	w->scratch = open_memstream(&w->scratch_buf, &w->scratch_size);
	if (!w->scratch) {
		cv_out_close(&w->out);
		if (w->path)
			unlink(w->path);
		free(w->path);
		free(w);
		return ENOMEM;
	}
	cv_out_puts(&w->out, "{\"traceEvents\":[");
	*wp = w;
	return 0;
}

static const char *const truncation_names[] = { "no", "record", "read" };

/* A user or system event: an instant with its data (hex and text). */
static void user_event(struct chrome_writer *w, const struct lv_event *ev, uint32_t tid)
{
	static const char hex[] = "0123456789abcdef";
	struct cv_out *o = &w->out;
	size_t i;

	chrome_head(w, ev->name, ev->id < POSIX_TRACE_UNNAMED_USEREVENT ? "posix_trace" : "user",
		    'i', cv_ns(&ev->ts), ev->pid, tid);
	cv_out_printf(o, ",\"args\":{\"id\":%u,\"thread\":\"0x%llx\","
		      "\"address\":\"0x%llx\",\"truncated\":\"%s\",\"data_hex\":\"",
		      (unsigned int)ev->id, (unsigned long long)ev->thread,
		      (unsigned long long)ev->address,
		      ev->truncation >= 0 && ev->truncation <= 2 ?
		      truncation_names[ev->truncation] : "?");
	for (i = 0; i < ev->len; i++) {
		cv_out_putc(o, hex[ev->data[i] >> 4]);
		cv_out_putc(o, hex[ev->data[i] & 15]);
	}
	cv_out_puts(o, "\",\"data_text\":");
	chrome_json(o, ev->data, ev->len);
	cv_out_puts(o, "}}");
}

static int chrome_event(void *arg, const struct lv_event *ev)
{
	struct chrome_writer *w = arg;
	uint64_t ns = cv_ns(&ev->ts);
	bool kernel = chrome_kev_is(ev);
	void **state;
	uint32_t tid;
	int ret = 0;

	if (!w->have_base) {
		w->base = ns;
		w->have_base = true;
	}
	if (ns > w->end)
		w->end = ns;
	if (see_pid(w, ev->pid))
		return ENOMEM;
	if (kernel && ev->tid)
		tid = see_kthread(w, ev, &state);
	else
		tid = see_thread(w, ev, kernel, &state);
	if (!tid)
		return ENOMEM;
	if (kernel)
		ret = chrome_kev_event(w, ev, tid, state);
	else
		user_event(w, ev, tid);
	w->events++;
	return ret ? ret : w->out.err;
}

static void free_writer(struct chrome_writer *w)
{
	chrome_kev_free(w);
	if (w->scratch)
		fclose(w->scratch);
	free(w->scratch_buf);
	table_free(&w->named);
	table_free(&w->kthr);
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

	chrome_kev_end(w);
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
		      (unsigned long long)(w->thr.count + w->kthr.count),
		      st->posix_stream_overrun_status,
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
