// SPDX-License-Identifier: LGPL-2.1-or-later
/* Time in system calls and off CPU, for posix-trace report: see sctime.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sctime.h"

/* What is known of one thread, between its records. */
struct sct_thread {
	unsigned int gen;		/* older than sct.gen: forget the rest */
	bool in_call;			/* an entry, no exit yet */
	bool entry_shown;		/* ... which the report shows */
	bool untimed;			/* ... before events were lost */
	bool off;			/* a sched_out, no sched_in yet */
	uint32_t nr, compat;		/* the entry's */
	struct timespec entry;
	uint64_t blocked_ns;		/* off CPU since the entry */
	struct timespec out;		/* the sched_out's */
	uint32_t reason;
};

/* One line of the table: a system call of one ABI. */
struct sct_stat {
	uint32_t nr, compat;
	unsigned long long calls, errors, timed;	/* timed: with a duration */
	uint64_t total_ns, max_ns, blocked_ns;		/* of the timed ones */
};

#define NS_PER_SEC	UINT64_C(1000000000)

void sct_init(struct sct *s, bool summary)
{
	*s = (struct sct){ .threads = TABLE_INIT, .calls = TABLE_INIT, .summary = summary };
}

/* @to - @from in *@ns: false if negative or beyond 64 bits (a log's
 * timestamps may be anything). */
static bool elapsed(const struct timespec *from, const struct timespec *to, uint64_t *ns)
{
	uint64_t sec;
	long nsec;

	if (to->tv_sec < from->tv_sec ||
	    (to->tv_sec == from->tv_sec && to->tv_nsec < from->tv_nsec))
		return false;
	/* to >= from: the difference is exact modulo 2^64. */
	sec = (uint64_t)to->tv_sec - (uint64_t)from->tv_sec;
	nsec = to->tv_nsec - from->tv_nsec;
	if (nsec < 0) {
		nsec += (long)NS_PER_SEC;
		sec--;
	}
	if (sec > (UINT64_MAX - (uint64_t)nsec) / NS_PER_SEC)
		return false;
	*ns = sec * NS_PER_SEC + (uint64_t)nsec;
	return true;
}

/* Sums saturate: a crafted log must not make a total wrap to a small one. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The value of key (@a, @b) of @t, @size bytes of zeros when new. */
static int value_of(struct table *t, uint64_t a, uint64_t b, size_t size, void **val)
{
	struct table_entry *e;
	bool added;
	size_t n;
	int ret;

	ret = table_add(t, a, b, &n, &added);
	if (ret)
		return ret;
	e = &t->ent[n];
	if (!e->val)
		e->val = calloc(1, size);
	*val = e->val;
	return e->val ? 0 : ENOMEM;
}

static int stat_of(struct sct *s, uint32_t nr, uint32_t compat, struct sct_stat **st)
{
	int ret = value_of(&s->calls, compat, nr, sizeof(**st), (void **)st);

	if (!ret) {
		(*st)->nr = nr;
		(*st)->compat = compat;
	}
	return ret;
}

/* The open call of @t ends without an exit record (exit(), execve(), a
 * record lost): a call, without time. */
static int close_call(struct sct *s, struct sct_thread *t)
{
	struct sct_stat *st;
	int ret;

	if (!t->in_call)
		return 0;
	t->in_call = false;
	if (!s->summary || !t->entry_shown)
		return 0;
	ret = stat_of(s, t->nr, t->compat, &st);
	if (!ret)
		st->calls++;
	return ret;
}

/*
 * The state of the thread of @ev.  Across lost events nothing is timed:
 * an open call stays open, to be counted once, with an exit of its
 * number most likely its own, but without a duration.
 */
static int thread_of(struct sct *s, const struct lv_event *ev, struct sct_thread **tp)
{
	struct sct_thread *t;
	int ret;

	ret = value_of(&s->threads, (uint32_t)ev->pid, ev->thread, sizeof(*t), (void **)&t);
	if (ret)
		return ret;
	*tp = t;
	if (t->gen != s->gen) {
		t->gen = s->gen;
		t->untimed = true;
		t->off = false;
	}
	return 0;
}

static int sys_entry(struct sct *s, struct sct_thread *t, const struct lv_event *ev,
		     const struct posix_trace_syscall_entry *e, bool shown)
{
	/* A thread is in one call at a time: the one before never returned. */
	int ret = close_call(s, t);

	t->in_call = true;
	t->entry_shown = shown;
	t->untimed = false;
	t->nr = e->nr;
	t->compat = e->flags & POSIX_TRACE_SYSCALL_COMPAT;
	t->entry = ev->ts;
	t->blocked_ns = 0;
	return ret;
}

static void count_exit(struct sct_stat *st, const struct posix_trace_syscall_exit *x,
		       const struct sct_note *note, uint64_t blocked_ns)
{
	int64_t ret = (int64_t)x->ret;

	st->calls++;
	if (ret < 0 && ret >= -4095)
		st->errors++;
	if (!note->has_dur)
		return;
	st->timed++;
	st->total_ns = sat_add(st->total_ns, note->dur_ns);
	if (note->dur_ns > st->max_ns)
		st->max_ns = note->dur_ns;
	/* Never more blocked than the call lasted, whatever the log says. */
	st->blocked_ns = sat_add(st->blocked_ns,
				 blocked_ns < note->dur_ns ? blocked_ns : note->dur_ns);
}

static int sys_exit(struct sct *s, struct sct_thread *t, const struct lv_event *ev,
		    const struct posix_trace_syscall_exit *x, bool shown,
		    struct sct_note *note)
{
	uint32_t compat = x->flags & POSIX_TRACE_SYSCALL_COMPAT;
	struct sct_stat *st;
	int ret = 0;

	if (t->in_call && t->nr == x->nr && t->compat == compat) {
		note->has_dur = !t->untimed && elapsed(&t->entry, &ev->ts, &note->dur_ns);
		shown = shown || t->entry_shown;
		t->in_call = false;
	} else {
		/* Another call's entry (a lost exit), or none (a lost entry,
		 * the log's start, a child returning from fork). */
		ret = close_call(s, t);
	}
	if (ret || !s->summary || !shown)
		return ret;
	ret = stat_of(s, x->nr, compat, &st);
	if (!ret)
		count_exit(st, x, note, t->blocked_ns);
	return ret;
}

static void sched_out(struct sct_thread *t, const struct lv_event *ev,
		      const struct posix_trace_sched_out *o)
{
	/* An exiting thread's last switch: no sched_in ever follows. */
	t->off = o->reason != POSIX_TRACE_SCHED_EXITING;
	t->out = ev->ts;
	t->reason = o->reason;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void sched_in(struct sct_thread *t, const struct lv_event *ev, struct sct_note *note)
{
	const struct timespec *from;
	uint64_t ns;

	if (!t->off)
		return;
	t->off = false;
	note->has_off = elapsed(&t->out, &ev->ts, &note->off_ns);
	note->off_reason = t->reason;
	if (!note->has_off || !t->in_call)
		return;
	/* The call's part of the time off CPU: what follows its entry. */
	from = before(&t->out, &t->entry) ? &t->entry : &t->out;
	if (elapsed(from, &ev->ts, &ns))
		t->blocked_ns = sat_add(t->blocked_ns, ns);
}

/* Whether the records of @id have a part in the timing. */
static bool timed_id(trace_event_id_t id)
{
	return id == POSIX_TRACE_SYSCALL_ENTRY_NP || id == POSIX_TRACE_SYSCALL_EXIT_NP ||
	       id == POSIX_TRACE_SCHED_OUT_NP || id == POSIX_TRACE_SCHED_IN_NP ||
	       id == POSIX_TRACE_PROCESS_EXIT_NP;
}

int sct_event(struct sct *s, const struct lv_event *ev, const struct kd_event *k,
	      bool shown, struct sct_note *note)
{
	struct sct_thread *t;
	int ret;

	memset(note, 0, sizeof(*note));
	/* Events may be missing before these: pair nothing across them. */
	if (ev->id == POSIX_TRACE_OVERFLOW || ev->id == POSIX_TRACE_START) {
		s->gen++;
		return 0;
	}
	if (!k || !timed_id(k->id))
		return 0;
	ret = thread_of(s, ev, &t);
	if (ret)
		return ret;
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		return sys_entry(s, t, ev, &k->u.entry, shown);
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		return sys_exit(s, t, ev, &k->u.exit, shown, note);
	case POSIX_TRACE_SCHED_OUT_NP:
		sched_out(t, ev, &k->u.out);
		break;
	case POSIX_TRACE_SCHED_IN_NP:
		sched_in(t, ev, note);
		break;
	default:	/* the process exited: its last call never returns */
		t->off = false;
		return close_call(s, t);
	}
	return 0;
}

int sct_end(struct sct *s)
{
	size_t i;
	int ret;

	for (i = 0; i < s->threads.count; i++) {
		if (!s->threads.ent[i].val)
			continue;
		ret = close_call(s, s->threads.ent[i].val);
		if (ret)
			return ret;
	}
	return 0;
}

/* The most time first; then the most calls; then by number. */
static int by_time(const void *a, const void *b)
{
	const struct sct_stat *x = *(const struct sct_stat *const *)a;
	const struct sct_stat *y = *(const struct sct_stat *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->compat != y->compat)
		return x->compat < y->compat ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* The lines of the table in *@v, sorted, *@n of them, and their sum in
 * *@sum: 0, or ENOMEM. */
static int sorted(struct sct *s, struct sct_stat ***v, size_t *n, struct sct_stat *sum)
{
	struct sct_stat *st;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	*n = 0;
	*v = calloc(s->calls.count + 1, sizeof(**v));
	if (!*v)
		return ENOMEM;
	for (i = 0; i < s->calls.count; i++) {
		st = s->calls.ent[i].val;
		if (!st)
			continue;
		(*v)[(*n)++] = st;
		sum->calls += st->calls;
		sum->errors += st->errors;
		sum->timed += st->timed;
		sum->total_ns = sat_add(sum->total_ns, st->total_ns);
		sum->blocked_ns = sat_add(sum->blocked_ns, st->blocked_ns);
		if (st->max_ns > sum->max_ns)
			sum->max_ns = st->max_ns;
	}
	qsort(*v, *n, sizeof(**v), by_time);
	return 0;
}

/* "openat", "nr=999" without a name, "nr=5 (32-bit)" into @buf. */
#define NAME_LEN 32
static const char *call_name(char *buf, const struct sct_stat *st)
{
	const char *name = kd_syscall_name(st->nr, st->compat);

	if (name)
		return name;
	snprintf(buf, NAME_LEN, "nr=%" PRIu32 "%s", st->nr, st->compat ? " (32-bit)" : "");
	return buf;
}

/* "0.003010": seconds to the microsecond, as strace -c. */
#define SECS_LEN 32
static const char *seconds(char *buf, uint64_t ns)
{
	snprintf(buf, SECS_LEN, "%" PRIu64 ".%06" PRIu64, ns / NS_PER_SEC,
		 ns % NS_PER_SEC / 1000);
	return buf;
}

static uint64_t usecs_per_call(const struct sct_stat *st)
{
	return st->timed ? st->total_ns / st->timed / 1000 : 0;
}

static void text_row(FILE *f, const struct sct_stat *st, uint64_t all_ns, bool sched,
		     const char *name)
{
	char a[SECS_LEN], b[SECS_LEN];

	/* errors as strace -c prints them: blank for none. */
	fprintf(f, "# %6.2f %11s %11" PRIu64 " %9llu %9.llu %11" PRIu64,
		all_ns ? 100.0 * (double)st->total_ns / (double)all_ns : 0.0,
		seconds(a, st->total_ns), usecs_per_call(st), st->calls, st->errors,
		st->max_ns / 1000);
	if (sched)
		fprintf(f, " %11s %11s", seconds(a, st->total_ns - st->blocked_ns),
			seconds(b, st->blocked_ns));
	fprintf(f, " %s\n", name);
}

static void text_rule(FILE *f, bool sched)
{
	fprintf(f, "# ------ ----------- ----------- --------- --------- -----------%s"
		" ----------------\n", sched ? " ----------- -----------" : "");
}

static void text_head(FILE *f, bool sched)
{
	fprintf(f, "# %6s %11s %11s %9s %9s %11s", "% time", "seconds", "usecs/call",
		"calls", "errors", "max usecs");
	if (sched)
		fprintf(f, " %11s %11s", "on-cpu", "blocked");
	fputs(" syscall\n", f);
	text_rule(f, sched);
}

int sct_text(FILE *f, struct sct *s, bool sched)
{
	struct sct_stat **v, sum;
	char name[NAME_LEN];
	size_t n, i;

	if (sorted(s, &v, &n, &sum))
		return ENOMEM;
	if (!n) {
		fputs("# system calls: none\n", f);
		free(v);
		return 0;
	}
	text_head(f, sched);
	for (i = 0; i < n; i++)
		text_row(f, v[i], sum.total_ns, sched, call_name(name, v[i]));
	text_rule(f, sched);
	text_row(f, &sum, sum.total_ns, sched, "total");
	fprintf(f, "# timed calls: %llu of %llu (the others lack their entry or exit record)\n",
		sum.timed, sum.calls);
	if (!sched)
		fputs("# on-cpu, blocked: not known, the log has no sched events "
		      "(record --kernel sched)\n", f);
	free(v);
	return 0;
}

static void json_row(FILE *f, const struct sct_stat *st, bool sched)
{
	const char *name = kd_syscall_name(st->nr, st->compat);

	fprintf(f, "{\"nr\":%" PRIu32 ",\"syscall\":", st->nr);
	if (name)
		fprintf(f, "\"%s\"", name);	/* the table's: plain ASCII */
	else
		fputs("null", f);
	fprintf(f, ",\"compat\":%s,\"calls\":%llu,\"errors\":%llu,\"timed\":%llu,"
		"\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64, st->compat ? "true" : "false",
		st->calls, st->errors, st->timed, st->total_ns, st->max_ns);
	if (sched)
		fprintf(f, ",\"on_cpu_ns\":%" PRIu64 ",\"blocked_ns\":%" PRIu64 "}",
			st->total_ns - st->blocked_ns, st->blocked_ns);
	else
		fputs(",\"on_cpu_ns\":null,\"blocked_ns\":null}", f);
}

int sct_json(FILE *f, struct sct *s, bool sched)
{
	struct sct_stat **v, sum;
	size_t n, i;

	if (sorted(s, &v, &n, &sum))
		return ENOMEM;
	fputs(",\"syscalls\":[", f);
	for (i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		json_row(f, v[i], sched);
	}
	putc(']', f);
	free(v);
	return 0;
}

static void free_values(struct table *t)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		free(t->ent[i].val);
	table_free(t);
}

void sct_free(struct sct *s)
{
	free_values(&s->threads);
	free_values(&s->calls);
}
