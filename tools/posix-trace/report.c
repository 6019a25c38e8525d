// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace report LOG [--format text|json|csv] [--filter NAME,...] [--summary]
 *
 * One line per event, then a summary; with --summary, the summary only
 * and a table of the system calls (sctime.h).  The formats:
 *   text  TIME pid PID thread 0xTHREAD NAME LEN bytes[ (truncated...)]
 *         [: HEX |PRINTABLE|], then summary lines starting with "# "
 *   json  JSON Lines: one object per event ("type":"event"), then one
 *         summary object ("type":"summary")
 *   csv   RFC 4180 with a header row and CRLF line ends; no summary
 * TIME is CLOCK_REALTIME "seconds.nanoseconds"; hex and printable data
 * are the whole data (printable: bytes outside 0x20..0x7e as '.').
 * Kernel events (posix_trace_attr_setkernelclasses_np(3)) show their data
 * decoded (kdata.h): in text instead of hex and printable, in JSON as a
 * "kernel" object besides them; CSV shows every event alike.  A system
 * call's exit gains its duration and a sched_in the time off CPU before
 * it, when the log has the record they are measured from (sctime.h); in
 * text an exit shows the arguments of its entry, which sctime.c keeps.
 * Names are escaped in each format (textfmt.h, posix-trace(1)): a log may
 * be anyone's, and its names must not drive a terminal or a spreadsheet.
 * --filter keeps only the events of the named types; the summary counts
 * what is shown.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kdata.h"
#include "logview.h"
#include "opts.h"
#include "sctime.h"
#include "table.h"
#include "textfmt.h"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* Events per type id; ids outside the table count in the last slot. */
#define NR_IDS (__POSIX_TRACE_ID_NR + 1)

struct summary {
	unsigned long long events;
	unsigned long long per_id[NR_IDS];
	struct timespec first, last;
};

static void usage(FILE *f)
{
	fputs("usage: posix-trace report LOG [--format text|json|csv] [--filter NAME,...]\n"
	      "                          [--summary]\n"
	      "Print every event of the trace log LOG, one per line, then a summary.\n"
	      "\n"
	      "  --format text  (default) TIME pid PID thread THREAD NAME LEN bytes\n"
	      "                 [(truncated ...)]: HEX |PRINTABLE|, then summary lines\n"
	      "                 starting with \"# \" (events, first, last, span, count per\n"
	      "                 type, overrun and full status of stream and log)\n"
	      "  --format json  JSON Lines: one object per event with \"type\":\"event\",\n"
	      "                 then one object with \"type\":\"summary\"\n"
	      "  --format csv   RFC 4180, header row, CRLF line ends; no summary; a\n"
	      "                 ' before a cell that would begin with =, +, -, @ or '\n"
	      "  --filter NAME,...  show only the events of these types (the summary\n"
	      "                 counts the events shown)\n"
	      "  --summary      no events: the summary, then a table of the system\n"
	      "                 calls as strace -c prints it (% time, seconds, usecs/call,\n"
	      "                 calls, errors, max usecs, and with sched events on-cpu\n"
	      "                 and blocked seconds), most time first; text and json\n"
	      "  -h, --help\n"
	      "\n"
	      "TIME is CLOCK_REALTIME seconds.nanoseconds; data is shown whole, in hex\n"
	      "and as text with every byte outside 0x20..0x7e as '.'.  Control\n"
	      "characters and bytes that are not UTF-8 in names are escaped: \\xNN in\n"
	      "text and CSV, \\uXXXX in JSON.\n"
	      "Kernel events (record --kernel) show their data decoded: system calls\n"
	      "as strace shows them, flags and constants named (x86-64's values),\n"
	      "an exit with its entry's arguments and its return value, signals, CPU\n"
	      "switches and wakeups, page faults, fork, exec and exit; in text\n"
	      "instead of hex, in JSON as a \"kernel\" object besides it:\n"
	      "  openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3 <4.1 us>\n"
	      "  addr=0x7f10a2c3d000 ip=0x55d0c0de1234 (user)\n"
	      "A system call's exit ends with its duration, \" <4.1 us>\" (JSON\n"
	      "\"duration_ns\"), and a sched_in with the time off CPU before it,\n"
	      "\" off=3.0 ms (sleeping)\" (JSON \"off_ns\"), when the log has the entry\n"
	      "or the sched_out of the same thread.\n"
	      "Exit status: 0, 1 if LOG cannot be read, 2 for bad usage.\n", f);
}

static const char *trunc_name(int t)
{
	switch (t) {
	case POSIX_TRACE_NOT_TRUNCATED: return "none";
	case POSIX_TRACE_TRUNCATED_RECORD: return "record";
	case POSIX_TRACE_TRUNCATED_READ: return "read";
	}
	return "?";
}

/* What sctime.c measured for the event: " <4.1 us>" after an exit,
 * " off=3.0 ms (sleeping)" after a sched_in. */
static void note_text(const struct sct_note *note)
{
	const char *reason;
	char d[TF_DUR_LEN];

	if (note->has_dur)
		printf(" <%s>", tf_dur(d, note->dur_ns));
	if (!note->has_off)
		return;
	printf(" off=%s", tf_dur(d, note->off_ns));
	reason = kd_sched_reason(note->off_reason);
	if (reason)
		printf(" (%s)", reason);
	else
		printf(" (reason=%" PRIu32 ")", note->off_reason);
}

/* @k: the event's kernel data decoded, NULL for another event; @entry:
 * for an exit, the entry of its call, or NULL. */
static void event_text(const struct lv_event *ev, const struct kd_event *k,
		       const struct kd_event *entry, const struct sct_note *note)
{
	char ts[TF_TS_LEN];

	printf("%s pid %-7d thread %#-14" PRIx64 " ", tf_ts(ts, &ev->ts),
	       (int)ev->pid, ev->thread);
	tf_text(stdout, ev->name);
	printf(" %zu bytes", ev->len);
	if (ev->truncation != POSIX_TRACE_NOT_TRUNCATED)
		printf(" (truncated at %s)", trunc_name(ev->truncation));
	if (k) {
		fputs(": ", stdout);
		kd_text(stdout, k, entry);
		note_text(note);
	} else if (ev->len) {
		fputs(": ", stdout);
		tf_hex(stdout, ev->data, ev->len, " ");
		fputs(" |", stdout);
		tf_printable(stdout, ev->data, ev->len);
		putchar('|');
	}
	putchar('\n');
}

/* The printable form of the data, for JSON and CSV (n + 1 bytes). */
static char *printable(char *dst, const struct lv_event *ev)
{
	size_t i;

	for (i = 0; i < ev->len; i++)
		dst[i] = ev->data[i] >= 0x20 && ev->data[i] < 0x7f ?
			 (char)ev->data[i] : '.';
	dst[i] = '\0';
	return dst;
}

static void event_json(const struct lv_event *ev, const struct kd_event *k,
		       const struct sct_note *note, char *txt)
{
	char ts[TF_TS_LEN];

	printf("{\"type\":\"event\",\"seq\":%" PRIu64 ",\"time\":\"%s\","
	       "\"sec\":%lld,\"nsec\":%ld,\"pid\":%d,\"thread\":\"%#" PRIx64 "\","
	       "\"id\":%u,\"name\":",
	       ev->seq, tf_ts(ts, &ev->ts), (long long)ev->ts.tv_sec,
	       (long)ev->ts.tv_nsec, (int)ev->pid, ev->thread, ev->id);
	tf_json(stdout, ev->name, strlen(ev->name));
	printf(",\"len\":%zu,\"truncated\":\"%s\",\"hex\":\"", ev->len,
	       trunc_name(ev->truncation));
	tf_hex(stdout, ev->data, ev->len, "");
	fputs("\",\"text\":", stdout);
	tf_json(stdout, printable(txt, ev), ev->len);
	if (k) {
		fputs(",\"kernel\":", stdout);
		kd_json(stdout, k);
	}
	/* Beside "kernel", which is the record's data alone. */
	if (note->has_dur)
		printf(",\"duration_ns\":%" PRIu64, note->dur_ns);
	if (note->has_off)
		printf(",\"off_ns\":%" PRIu64, note->off_ns);
	fputs("}\n", stdout);
}

static const char csv_header[] =
	"seq,time,pid,thread,id,name,len,truncated,hex,text\r\n";

static void event_csv(const struct lv_event *ev, char *txt)
{
	char ts[TF_TS_LEN];

	printf("%" PRIu64 ",%s,%d,%#" PRIx64 ",%u,", ev->seq, tf_ts(ts, &ev->ts),
	       (int)ev->pid, ev->thread, ev->id);
	tf_csv(stdout, ev->name, strlen(ev->name));
	printf(",%zu,%s,", ev->len, trunc_name(ev->truncation));
	tf_hex(stdout, ev->data, ev->len, "");
	putchar(',');
	tf_csv(stdout, printable(txt, ev), ev->len);
	fputs("\r\n", stdout);
}

static void count(struct summary *s, const struct lv_event *ev)
{
	if (!s->events)
		s->first = ev->ts;
	s->last = ev->ts;
	s->events++;
	s->per_id[ev->id < NR_IDS - 1 ? ev->id : NR_IDS - 1]++;
}

/* last - first, as a sign and a magnitude: a log's timestamps may be
 * anything, and 2^64 ns do not fit a signed 64-bit count of ns. */
struct span {
	bool neg;
	uint64_t sec;
	long nsec;
};

static struct span span_of(const struct summary *s)
{
	const struct timespec *a = &s->first, *b = &s->last, *t;
	struct span r;

	r.neg = b->tv_sec < a->tv_sec ||
		(b->tv_sec == a->tv_sec && b->tv_nsec < a->tv_nsec);
	if (r.neg) {
		t = a;
		a = b;
		b = t;
	}
	/* b >= a: the difference is below 2^64 s, exact modulo 2^64. */
	r.sec = (uint64_t)b->tv_sec - (uint64_t)a->tv_sec;
	r.nsec = b->tv_nsec - a->tv_nsec;
	if (r.nsec < 0) {
		r.nsec += 1000000000L;
		r.sec--;
	}
	return r;
}

/* The span in ns as an exact JSON integer, however large. */
static void span_json(const struct span *sp)
{
	if (sp->sec)
		printf("%s%" PRIu64 "%09ld", sp->neg ? "-" : "", sp->sec, sp->nsec);
	else
		printf("%s%ld", sp->neg ? "-" : "", sp->nsec);
}

static const char *id_name(struct logview *lv, unsigned int id, char *buf)
{
	if (id >= NR_IDS - 1 || posix_trace_eventid_get_name(lv->trid, id, buf))
		strcpy(buf, "?");
	return buf;
}

static const char *yes_no(int v)
{
	return v ? "yes" : "no";
}

static void summary_text(struct logview *lv, const struct summary *s)
{
	const struct posix_trace_status_info *st = &lv->status;
	char name[TRACE_EVENT_NAME_MAX + 1], ts[TF_TS_LEN];
	struct span span = span_of(s);
	unsigned int id;

	printf("# events: %llu\n", s->events);
	if (s->events) {
		printf("# first: %s\n", tf_ts(ts, &s->first));
		printf("# last: %s\n", tf_ts(ts, &s->last));
		printf("# span: %s%" PRIu64 ".%09ld s\n", span.neg ? "-" : "", span.sec,
		       span.nsec);
	}
	for (id = 0; id < NR_IDS; id++) {
		if (!s->per_id[id])
			continue;
		fputs("# type ", stdout);
		tf_text(stdout, id_name(lv, id, name));
		printf(": %llu\n", s->per_id[id]);
	}
	printf("# stream: overrun %s, full %s\n",
	       yes_no(st->posix_stream_overrun_status == POSIX_TRACE_OVERRUN),
	       yes_no(st->posix_stream_full_status == POSIX_TRACE_FULL));
	printf("# log: overrun %s, full %s\n",
	       yes_no(st->posix_log_overrun_status == POSIX_TRACE_OVERRUN),
	       yes_no(st->posix_log_full_status == POSIX_TRACE_FULL));
	lv_print_losses(lv, "# ");
}

static const char *json_bool(int v)
{
	return v ? "true" : "false";
}

/* @tm: with --summary, the table of the system calls; else NULL. */
static int summary_json(struct logview *lv, const struct summary *s, struct sct *tm,
			bool sched)
{
	const struct posix_trace_status_info *st = &lv->status;
	char name[TRACE_EVENT_NAME_MAX + 1], ts[TF_TS_LEN];
	struct span span;
	const char *sep = "";
	unsigned int id;

	printf("{\"type\":\"summary\",\"events\":%llu", s->events);
	if (s->events) {
		printf(",\"first\":\"%s\"", tf_ts(ts, &s->first));
		printf(",\"last\":\"%s\",\"span_ns\":", tf_ts(ts, &s->last));
		span = span_of(s);
		span_json(&span);
	}
	fputs(",\"per_type\":[", stdout);
	for (id = 0; id < NR_IDS; id++) {
		if (!s->per_id[id])
			continue;
		printf("%s{\"id\":%u,\"name\":", sep, id);
		id_name(lv, id, name);
		tf_json(stdout, name, strlen(name));
		printf(",\"count\":%llu}", s->per_id[id]);
		sep = ",";
	}
	putchar(']');
	if (tm && sct_json(stdout, tm, sched))
		return ENOMEM;
	printf(",\"stream_overrun\":%s,\"stream_full\":%s,"
	       "\"log_overrun\":%s,\"log_full\":%s}\n",
	       json_bool(st->posix_stream_overrun_status == POSIX_TRACE_OVERRUN),
	       json_bool(st->posix_stream_full_status == POSIX_TRACE_FULL),
	       json_bool(st->posix_log_overrun_status == POSIX_TRACE_OVERRUN),
	       json_bool(st->posix_log_full_status == POSIX_TRACE_FULL));
	return 0;
}

/* Whether the log recorded the sched class: then a call's time splits
 * into on CPU and blocked. */
static bool has_sched(const struct logview *lv)
{
	unsigned int classes = 0;

	return !posix_trace_attr_getkernelclasses_np(&lv->attr, &classes) &&
	       (classes & POSIX_TRACE_KERNEL_SCHED_NP);
}

/* The summary at the end, and with --summary the table of the calls:
 * 0, or ENOMEM. */
static int summarize(struct logview *lv, const struct summary *s, enum format fmt,
		     struct sct *tm)
{
	int ret = sct_end(tm);

	if (ret)
		return ret;
	if (fmt == FMT_TEXT) {
		summary_text(lv, s);
		if (tm->summary)
			ret = sct_text(stdout, tm, has_sched(lv));
	} else if (fmt == FMT_JSON) {
		ret = summary_json(lv, s, tm->summary ? tm : NULL, has_sched(lv));
	}
	return ret;
}

/* Bytes a record takes in the log: an estimate of how far we are. */
static unsigned long long record_bytes(const struct lv_event *ev)
{
	return 56 + ((ev->len + 7) & ~(size_t)7);
}

static void event_out(enum format fmt, const struct lv_event *ev,
		      const struct kd_event *k, const struct kd_event *entry,
		      const struct sct_note *note, char *txt)
{
	if (fmt == FMT_TEXT)
		event_text(ev, k, entry, note);
	else if (fmt == FMT_JSON)
		event_json(ev, k, note, txt);
	else
		event_csv(ev, txt);
}

/* Every event of the log: timed (all of them, whatever is shown: a
 * duration does not depend on the filter), counted and printed (those
 * shown).  0, or -errno. */
static int events(struct logview *lv, enum format fmt, const struct namelist *show,
		  struct summary *s, struct sct *tm, char *txt)
{
	const struct kd_event *k;
	unsigned long long bytes = 0;
	struct sct_note note;
	struct progress pr;
	struct kd_event kd;
	struct lv_event ev;
	bool shown;
	int r;

	progress_start(&pr, "report", lv->file_size);
	while ((r = lv_next(lv, &ev)) > 0) {
		bytes += record_bytes(&ev);
		progress_update(&pr, bytes < pr.total ? bytes : pr.total);
		k = kd_decode(ev.id, ev.data, ev.len, &kd) ? &kd : NULL;
		shown = !show->n || namelist_has(show, ev.name);
		if (sct_event(tm, &ev, k, shown, &note)) {
			r = -ENOMEM;
			break;
		}
		if (!shown)
			continue;
		count(s, &ev);
		if (!tm->summary)
			event_out(fmt, &ev, k, note.entry, &note, txt);
	}
	progress_end(&pr);
	return r;
}

/* @summary: --summary, no events but the table of the system calls. */
static int report(struct logview *lv, const char *path, enum format fmt,
		  const struct namelist *show, bool summary)
{
	struct summary *s = calloc(1, sizeof(*s));
	char *txt = malloc(lv->max_data + 1);	/* <= LV_DATA_MAX + 1 */
	int ret = PT_EXIT_OK, r;
	struct sct tm;

	sct_init(&tm, summary);
	if (!s || !txt) {
		pt_err("report: out of memory");
		ret = PT_EXIT_FAIL;
		goto out;
	}
	if (fmt == FMT_CSV)
		fputs(csv_header, stdout);
	r = events(lv, fmt, show, s, &tm, txt);
	if (!r)
		r = -summarize(lv, s, fmt, &tm);
	if (r < 0) {
		lv_complain("report", path, -r);
		ret = PT_EXIT_FAIL;
	}
out:
	sct_free(&tm);
	free(txt);
	free(s);
	return ret;
}

struct known {
	const struct namelist *names;
	bool *seen;
};

static void mark_known(trace_event_id_t id, const char *name, void *arg)
{
	struct known *k = arg;
	size_t i;

	(void)id;
	for (i = 0; i < k->names->n; i++) {
		if (!strcmp(k->names->v[i], name))
			k->seen[i] = true;
	}
}

/* A name no type of the log has is most likely a typo: say so. */
static void warn_unknown(struct logview *lv, const char *path,
			 const struct namelist *show)
{
	struct known k = { show, calloc(show->n + 1, sizeof(bool)) };
	size_t i;

	if (!k.seen || lv_event_types(lv, mark_known, &k)) {
		free(k.seen);
		return;
	}
	for (i = 0; i < show->n; i++) {
		if (!k.seen[i])
			pt_err("report: warning: %s has no event type '%s'", path,
			       show->v[i]);
	}
	free(k.seen);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "filter", required_argument, NULL, 'F' },
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct namelist show = { 0 };
	enum format fmt = FMT_TEXT;
	bool summary = false;
	struct logview lv;
	const char *path;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "text")) {
				fmt = FMT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				fmt = FMT_JSON;
			} else if (!strcmp(optarg, "csv")) {
				fmt = FMT_CSV;
			} else {
				pt_err("report: unknown format '%s' (text, json or csv)",
				       optarg);
				goto usage;
			}
			break;
		case 'F':
			if (namelist_parse(&show, optarg)) {
				pt_err("report: out of memory");
				namelist_free(&show);
				return PT_EXIT_FAIL;
			}
			break;
		case 's':
			summary = true;
			break;
		case 'h':
			namelist_free(&show);
			usage(stdout);
			return PT_EXIT_OK;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1) {
		pt_err("report: %s", argc == optind ? "no LOG given" : "one LOG only");
		goto usage;
	}
	if (summary && fmt == FMT_CSV) {
		pt_err("report: --summary: CSV has no summary (text or json)");
		goto usage;
	}
	path = argv[optind];
	ret = lv_open(&lv, path);
	if (ret) {
		lv_complain("report", path, ret);
		namelist_free(&show);
		return PT_EXIT_FAIL;
	}
	if (show.n)
		warn_unknown(&lv, path, &show);
	ret = report(&lv, path, fmt, &show, summary);
	lv_close(&lv);
	namelist_free(&show);
	if (fflush(stdout) || ferror(stdout)) {
		pt_err("report: writing the report: %s", strerror(errno));
		ret = PT_EXIT_FAIL;
	}
	return ret;

usage:
	namelist_free(&show);
	usage(stderr);
	return PT_EXIT_USAGE;
}
