// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert --chrome: the kernel events of a log
 * (<linux/posix_trace_kernel.h>) drawn as Perfetto and chrome://tracing
 * draw a thread's activity, each on the track of its thread (below):
 *
 *   - a system call is a slice, "B" at its entry, "E" at its exit, named
 *     after the call ("openat"; "syscall 5 (32-bit)", "syscall 999" when
 *     the table has no name); the B's args are the entry decoded as
 *     posix-trace report --format json decodes it (nr, args, path...), the
 *     E's the return value ("ret", "errno") and the path the exit copied
 *     ("exit_path"), which Perfetto adds to the slice's;
 *   - time off CPU is a slice too, from a sched_out to the next sched_in,
 *     named "off-CPU: " and the reason (sleeping, preempted, blocked,
 *     stopped): the Trace Event Format has no thread state of its own, and
 *     a slice of the thread's track shows the state where it happened, a
 *     child of the system call the thread blocked in, or alone for a
 *     thread preempted in user mode; its E's args have the CPU it came
 *     back on ("cpu_in");
 *   - everything else is an instant of the thread ("ph":"i", "s":"t"),
 *     its args the record decoded: signals, wake-ups, faults, fork, exec,
 *     exit, and the halves that miss their other half (an exit without
 *     its entry, "no_entry"; a sched_in without its sched_out).
 *
 * Slices of a track nest, as the format requires (a B/E pair must not
 * straddle another): a track keeps the slices it has open, at most a call
 * and a time off CPU, and an event that ends one first ends what was
 * opened after it.  What ends without its closing record gets an E with
 * "unfinished":true and "why": a call without an exit when the thread
 * enters the next one, when it exits (sched_out "exiting"), when its
 * process execs or exits (every thread of the process: the others are
 * gone), or at the end of the log, where everything still open ends at
 * the log's last timestamp.  A track's B and E times never go
 * back (a damaged log's may: they are then written at the latest one).
 *
 * A track is a thread: the record's kernel tid (chrome.c), so the calls
 * of two threads never meet.  A record without a tid (0) goes to a track
 * of its process, "kernel events (all threads)", where the slices of two
 * threads calling at once cannot both be drawn and are cut as one
 * thread's would be.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np() */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/posix_trace.h>
#include "chrome.h"
#include "exporter.h"
#include "kdata.h"

enum { SL_CALL, SL_OFF };

/* An open slice: a system call (its number and flags) or a time off CPU
 * (the sched_out's reason). */
struct slice {
	unsigned char kind;
	uint32_t nr, flags, reason;
};

/* One of each kind at most: opening one ends the one of its kind first. */
#define DEPTH	2

struct track {
	struct slice open[DEPTH];
	unsigned int depth;
	uint64_t last;			/* the time of its latest B or E */
	int32_t pid;
	uint32_t tid;
	struct track *next;		/* another track of the process */
};

/* One kernel event being written. */
struct ctx {
	struct chrome_writer *w;
	struct track *t;
	const struct lv_event *ev;	/* NULL at the end of the log */
	uint64_t ns;
	int32_t pid;
	uint32_t tid;
};

#define KIDX(id)	((id) - POSIX_TRACE_ID_KERNEL_FIRST)

/* The instants' names and every kernel event's category, by id. */
static const struct {
	const char *name, *cat;
} kinds[] = {
	[KIDX(POSIX_TRACE_ID_SYSCALL_ENTRY)] = { "syscall_entry", "syscall" },
	[KIDX(POSIX_TRACE_ID_SYSCALL_EXIT)] = { "syscall_exit", "syscall" },
	[KIDX(POSIX_TRACE_ID_SIGNAL_GENERATE)] = { "signal_generate", "signal" },
	[KIDX(POSIX_TRACE_ID_SIGNAL_DELIVER)] = { "signal_deliver", "signal" },
	[KIDX(POSIX_TRACE_ID_SCHED_OUT)] = { "sched_out", "sched" },
	[KIDX(POSIX_TRACE_ID_SCHED_IN)] = { "sched_in", "sched" },
	[KIDX(POSIX_TRACE_ID_SCHED_WAKEUP)] = { "sched_wakeup", "sched" },
	[KIDX(POSIX_TRACE_ID_FAULT_MAJOR)] = { "fault_major", "fault" },
	[KIDX(POSIX_TRACE_ID_PROCESS_FORK)] = { "process_fork", "process" },
	[KIDX(POSIX_TRACE_ID_PROCESS_EXEC)] = { "process_exec", "process" },
	[KIDX(POSIX_TRACE_ID_PROCESS_EXIT)] = { "process_exit", "process" },
	[KIDX(POSIX_TRACE_ID_FAULT_MINOR)] = { "fault_minor", "fault" },
	[KIDX(POSIX_TRACE_ID_SYSCALL)] = { "syscall", "syscall" },
};

bool chrome_kev_is(const struct lv_event *ev)
{
	return ev->id >= POSIX_TRACE_ID_KERNEL_FIRST && ev->id <= POSIX_TRACE_ID_KERNEL_LAST;
}

#define NAME_LEN	48

/* "openat", "syscall 5 (32-bit)", "off-CPU: sleeping", "off-CPU: reason 7". */
static const char *slice_name(char buf[NAME_LEN], const struct slice *s)
{
	const char *name;

	if (s->kind == SL_OFF) {
		name = kd_sched_reason(s->reason);
		if (name)
			snprintf(buf, NAME_LEN, "off-CPU: %s", name);
		else
			snprintf(buf, NAME_LEN, "off-CPU: reason %" PRIu32, s->reason);
		return buf;
	}
	name = kd_syscall_name(s->nr, s->flags);
	if (name && !(s->flags & POSIX_TRACE_SYSCALL_COMPAT))
		return name;
	if (name)
		snprintf(buf, NAME_LEN, "%s (32-bit)", name);
	else
		snprintf(buf, NAME_LEN, "syscall %" PRIu32 "%s", s->nr,
			 s->flags & POSIX_TRACE_SYSCALL_COMPAT ? " (32-bit)" : "");
	return buf;
}

/* The time of a B or E of the track: never before the one before it. */
static uint64_t track_time(struct track *t, uint64_t ns)
{
	if (ns < t->last)
		ns = t->last;
	t->last = ns;
	return ns;
}

/* Opens @s on the track: its B, without args (the caller adds them). */
static void begin(struct ctx *c, const struct slice *s)
{
	char buf[NAME_LEN];

	chrome_head(c->w, slice_name(buf, s), s->kind == SL_CALL ? "syscall" : "sched", 'B',
		    track_time(c->t, c->ns), c->pid, c->tid);
	c->t->open[c->t->depth++] = *s;
}

/* Ends the innermost open slice: its E, without args. */
static void end_top(struct ctx *c)
{
	const struct slice *s = &c->t->open[--c->t->depth];
	char buf[NAME_LEN];

	chrome_head(c->w, slice_name(buf, s), s->kind == SL_CALL ? "syscall" : "sched", 'E',
		    track_time(c->t, c->ns), c->pid, c->tid);
}

/* Ends the slices opened after the first @keep, without their closing
 * records, because of @why. */
static void cut(struct ctx *c, unsigned int keep, const char *why)
{
	while (c->t->depth > keep) {
		end_top(c);
		cv_out_printf(&c->w->out, ",\"args\":{\"unfinished\":true,\"why\":\"%s\"}}", why);
	}
}

/* Where the open slice of @kind is; -1 if none. */
static int find(const struct track *t, unsigned char kind)
{
	unsigned int i;

	for (i = 0; i < t->depth; i++)
		if (t->open[i].kind == kind)
			return (int)i;
	return -1;
}

/* An instant of the thread, without args. */
static void instant(struct ctx *c, const char *name)
{
	chrome_head(c->w, name, kinds[KIDX(c->ev->id)].cat, 'i', c->ns, c->pid, c->tid);
}

/*
 * ,"args":{"id":N[,@extra],...} and the event's closing brace, "..."
 * being the members of kd_json()'s object (report --format json's
 * decoding).  0 or ENOMEM.
 */
static int decoded_args(struct ctx *c, const struct kd_event *k, const char *extra)
{
	struct chrome_writer *w = c->w;
	struct cv_out *o = &w->out;
	long n;

	rewind(w->scratch);
	kd_json(w->scratch, k);
	if (fflush(w->scratch) || ferror(w->scratch) || (n = ftell(w->scratch)) < 0) {
		clearerr(w->scratch);
		return ENOMEM;
	}
	cv_out_printf(o, ",\"args\":{\"id\":%u", (unsigned int)c->ev->id);
	if (extra)
		cv_out_printf(o, ",%s", extra);
	/* Its members spliced in: one object of args, not two levels. */
	if (n > 2 && w->scratch_buf[0] == '{' && w->scratch_buf[n - 1] == '}') {
		cv_out_putc(o, ',');
		cv_out_write(o, w->scratch_buf + 1, (size_t)n - 1);
	} else {
		cv_out_putc(o, '}');
	}
	cv_out_putc(o, '}');
	return 0;
}

/* A return value: a JSON number when a double holds it exactly, else
 * its 64 bits in hex (an address, say). */
static void ret_json(struct cv_out *o, uint64_t ret)
{
	int64_t v = (int64_t)ret;

	if (v >= -4095 && v < (INT64_C(1) << 53))
		cv_out_printf(o, "\"ret\":%" PRId64, v);
	else
		cv_out_printf(o, "\"ret\":\"0x%" PRIx64 "\"", ret);
}

/* The args of a call's E: what the exit adds to the entry's. */
static void exit_args(struct ctx *c, const struct kd_event *k)
{
	const struct posix_trace_syscall_exit *x = &k->u.exit;
	struct cv_out *o = &c->w->out;
	const char *e = kd_errno_name(x->ret);

	cv_out_puts(o, ",\"args\":{");
	ret_json(o, x->ret);
	if (e)
		cv_out_printf(o, ",\"errno\":\"%s\"", e);
	if (x->flags & POSIX_TRACE_SYSCALL_PATH) {
		cv_out_puts(o, ",\"exit_path\":");
		chrome_json(o, k->str, k->str_len);
		if ((x->flags & POSIX_TRACE_SYSCALL_PATH_TRUNC) || k->str_short)
			cv_out_puts(o, ",\"exit_path_truncated\":true");
	}
	cv_out_puts(o, "}}");
}

/* An entry: the thread runs, so whatever it had open has ended (a call
 * without an exit record: exit(), a successful execve(), a lost one). */
static int on_call_entry(struct ctx *c, const struct kd_event *k)
{
	struct slice s = { .kind = SL_CALL, .nr = k->u.entry.nr, .flags = k->u.entry.flags };

	cut(c, 0, "next system call");
	begin(c, &s);
	return decoded_args(c, k, NULL);
}

static bool same_call(const struct slice *s, const struct posix_trace_syscall_exit *x)
{
	return s->nr == x->nr &&
	       !((s->flags ^ x->flags) & POSIX_TRACE_SYSCALL_COMPAT);
}

/* An exit ends its call; one whose entry is not open is an instant. */
static int on_call_exit(struct ctx *c, const struct kd_event *k)
{
	int at = find(c->t, SL_CALL);
	char buf[NAME_LEN];
	struct slice s;

	if (at >= 0 && same_call(&c->t->open[at], &k->u.exit)) {
		cut(c, (unsigned int)at + 1, "system call exit");
		end_top(c);
		exit_args(c, k);
		return 0;
	}
	if (at >= 0)
		cut(c, 0, "exit of another system call");
	s = (struct slice){ .kind = SL_CALL, .nr = k->u.exit.nr, .flags = k->u.exit.flags };
	instant(c, slice_name(buf, &s));
	return decoded_args(c, k, "\"no_entry\":true");
}

/*
 * A call in one record: its entry @elapsed ns before, then its exit now unless
 * it is pending (it left the CPU; its exit record comes when it returns).
 */
static int on_call(struct ctx *c, const struct kd_event *k)
{
	struct kd_event entry, exit;
	uint64_t now = c->ns;
	bool done = kd_call_split(k, &entry, &exit);
	int ret;

	/* Never before 0 (a crafted log); track_time() keeps it after what
	 * the track showed already. */
	c->ns = k->u.call.elapsed < now ? now - k->u.call.elapsed : 0;
	ret = on_call_entry(c, &entry);
	c->ns = now;
	if (ret || !done)
		return ret;
	return on_call_exit(c, &exit);
}

/* A sched_out opens a time off CPU, inside the call the thread is in;
 * "exiting" is the thread's end instead: everything it had open ends. */
static int on_sched_out(struct ctx *c, const struct kd_event *k)
{
	struct slice s = { .kind = SL_OFF, .reason = k->u.out.reason };
	int at = find(c->t, SL_OFF);

	if (s.reason == POSIX_TRACE_SCHED_EXITING) {
		cut(c, 0, "thread exit");
		instant(c, "sched_out: exiting");
		return decoded_args(c, k, NULL);
	}
	if (at >= 0)
		cut(c, (unsigned int)at, "sched_out without sched_in");
	begin(c, &s);
	return decoded_args(c, k, NULL);
}

static int on_sched_in(struct ctx *c, const struct kd_event *k)
{
	int at = find(c->t, SL_OFF);

	if (at < 0) {
		instant(c, kinds[KIDX(c->ev->id)].name);
		return decoded_args(c, k, "\"no_sched_out\":true");
	}
	cut(c, (unsigned int)at + 1, "sched_in");
	end_top(c);
	cv_out_printf(&c->w->out, ",\"args\":{\"cpu_in\":%" PRIu32 "}}", k->u.in.cpu);
	return 0;
}

/* The first track of process @pid, where its others are linked; NULL
 * if it has none (or no memory: it then has none). */
static struct track **process_tracks(struct chrome_writer *w, int32_t pid)
{
	bool added;
	size_t n;

	if (table_add(&w->pids, (uint32_t)pid, 0, &n, &added))
		return NULL;
	return (struct track **)&w->pids.ent[n].val;
}

/*
 * The other threads of the process are gone (an exec killed them, or the
 * process exited): what they had open ends here.  The exec's own thread
 * keeps its execve() open for its exit record, unless it was not the
 * leader (its call is on the track of its old tid, or old_tid is 0).
 */
static void end_process(struct ctx *c, const struct kd_event *k, const char *why)
{
	struct track **head = process_tracks(c->w, c->pid), *t;
	struct ctx o = *c;
	bool keep = c->ev->id == POSIX_TRACE_ID_PROCESS_EXEC &&
		    k->u.exec.old_tid == c->tid;

	for (t = head ? *head : NULL; t; t = t->next) {
		if (t == c->t && keep)
			continue;
		o.t = t;
		o.pid = t->pid;
		o.tid = t->tid;
		cut(&o, 0, why);
	}
}

/* A record that is only a point in time: an instant, decoded. */
static int on_point(struct ctx *c, const struct kd_event *k)
{
	if (c->ev->id == POSIX_TRACE_ID_PROCESS_EXIT)
		end_process(c, k, "process exit");
	else if (c->ev->id == POSIX_TRACE_ID_PROCESS_EXEC)
		end_process(c, k, "exec");
	instant(c, kinds[KIDX(c->ev->id)].name);
	return decoded_args(c, k, NULL);
}

static int dispatch(struct ctx *c)
{
	const struct lv_event *ev = c->ev;
	struct kd_event k;

	if (!kd_decode(ev->id, ev->data, ev->len, &k)) {
		/* A type kdata.c does not decode yet: its id says what it is. */
		instant(c, kinds[KIDX(ev->id)].name);
		cv_out_printf(&c->w->out, ",\"args\":{\"id\":%u}}", (unsigned int)ev->id);
		return 0;
	}
	switch (ev->id) {
	case POSIX_TRACE_ID_SYSCALL_ENTRY:
		return on_call_entry(c, &k);
	case POSIX_TRACE_ID_SYSCALL_EXIT:
		return on_call_exit(c, &k);
	case POSIX_TRACE_ID_SYSCALL:
		return on_call(c, &k);
	case POSIX_TRACE_ID_SCHED_OUT:
		return on_sched_out(c, &k);
	case POSIX_TRACE_ID_SCHED_IN:
		return on_sched_in(c, &k);
	default:
		return on_point(c, &k);
	}
}

/* The state of track (@pid, @tid), linked to its process's. */
static struct track *new_track(struct chrome_writer *w, int32_t pid, uint32_t tid)
{
	struct track **head = process_tracks(w, pid), *t;

	if (!head)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->next = *head;
	*head = t;
	return t;
}

int chrome_kev_event(struct chrome_writer *w, const struct lv_event *ev, uint32_t tid,
		     void **state)
{
	struct ctx c = { .w = w, .t = *state, .ev = ev, .ns = cv_ns(&ev->ts),
			 .pid = ev->pid, .tid = tid };

	if (!c.t) {
		c.t = new_track(w, ev->pid, tid);
		if (!c.t)
			return ENOMEM;
		*state = c.t;
	}
	return dispatch(&c);
}

/* Ends what the tracks of @t still have open. */
static void end_tracks(struct chrome_writer *w, struct table *t)
{
	struct ctx c = { .w = w, .ns = w->end };
	size_t i;

	for (i = 0; i < t->count; i++) {
		c.t = t->ent[i].val;
		if (!c.t)
			continue;
		c.pid = c.t->pid;
		c.tid = c.t->tid;
		cut(&c, 0, "end of log");
	}
}

void chrome_kev_end(struct chrome_writer *w)
{
	end_tracks(w, &w->thr);
	end_tracks(w, &w->kthr);
}

static void free_tracks(struct table *t)
{
	size_t i;

	for (i = 0; i < t->count; i++) {
		free(t->ent[i].val);
		t->ent[i].val = NULL;
	}
}

void chrome_kev_free(struct chrome_writer *w)
{
	free_tracks(&w->thr);
	free_tracks(&w->kthr);
}
