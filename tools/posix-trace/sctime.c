// SPDX-License-Identifier: LGPL-2.1-or-later
/* Time in system calls and off CPU, for posix-trace report: see sctime.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sctime.h"

/* The system call a thread is in: its entry. */
struct sct_call {
	bool open;			/* an entry, no exit yet */
	bool shown;			/* ... which the report shows */
	bool untimed;			/* ... before events were lost */
	uint32_t nr, compat;		/* the entry's */
	struct timespec entry;
	uint64_t blocked_ns;		/* off CPU since the entry */
	struct kd_event k;		/* the entry, k.str in @path */
	char path[POSIX_TRACE_SYSCALL_PATH_MAX];
};

/* A copy of entry @k in @c; a path longer than the kernel copies (a
 * crafted log) is cut, and shows so. */
static void call_keep(struct sct_call *c, const struct kd_event *k)
{
	size_t n = k->str_len < sizeof(c->path) ? k->str_len : sizeof(c->path);

	c->k = *k;
	if (k->str)
		memcpy(c->path, k->str, n);
	c->k.str = c->path;
	c->k.str_len = n;
	c->k.str_short = k->str_short || n < k->str_len;
}

/* @from's call is now @to's (an exec another thread called). */
static void call_move(struct sct_call *to, struct sct_call *from)
{
	*to = *from;
	to->k.str = to->path;
	from->open = false;
}

struct sct_thread;

/* One process id: the life its threads belong to, its page faults. */
struct sct_proc {
	uint32_t pid;
	unsigned int life;		/* bumped when the process exits or execs */
	struct sct_thread *exec;	/* the last of its threads to enter an exec */
	unsigned long long major, minor;	/* faults of the records shown */
};

/* What is known of one thread, between its records. */
struct sct_thread {
	unsigned int gen;		/* older than sct.gen: forget the rest */
	unsigned int life;		/* older than proc->life: a thread gone */
	struct sct_proc *proc;
	struct sct_call call;
	bool off;			/* a sched_out, no sched_in yet */
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
	*s = (struct sct){ .threads = TABLE_INIT, .procs = TABLE_INIT, .calls = TABLE_INIT,
			   .summary = summary };
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

static int proc_of(struct sct *s, pid_t pid, struct sct_proc **p)
{
	int ret = value_of(&s->procs, (uint32_t)pid, 0, sizeof(**p), (void **)p);

	if (!ret)
		(*p)->pid = (uint32_t)pid;
	return ret;
}

/* The open call of @t ends without an exit record (exit(), execve(), a
 * record lost, its thread gone): a call, without time. */
static int close_call(struct sct *s, struct sct_thread *t)
{
	struct sct_stat *st;
	int ret;

	if (!t->call.open)
		return 0;
	t->call.open = false;
	if (!s->summary || !t->call.shown)
		return 0;
	ret = stat_of(s, t->call.nr, t->call.compat, &st);
	if (!ret)
		st->calls++;
	return ret;
}

/* @t, the thread of a record, is a new one if its process exited or
 * exec'd since its last record: the old one's call never returned. */
static int renew(struct sct *s, struct sct_thread *t)
{
	if (t->life == t->proc->life)
		return 0;
	t->life = t->proc->life;
	t->off = false;
	return close_call(s, t);
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

	ret = value_of(&s->threads, (uint32_t)ev->pid, (uint32_t)ev->tid, sizeof(*t),
		       (void **)&t);
	if (!ret && !t->proc) {
		ret = proc_of(s, ev->pid, &t->proc);
		if (!ret)
			t->life = t->proc->life;
	}
	if (ret)
		return ret;
	*tp = t;
	if (t->gen != s->gen) {
		t->gen = s->gen;
		t->call.untimed = true;
		t->off = false;
	}
	return renew(s, t);
}

/* execve and execveat: x86-64's numbers (a log's, kdata.h), i386's for a
 * 32-bit call. */
static bool is_exec(uint32_t nr, uint32_t compat)
{
	return compat ? nr == 11 || nr == 358 : nr == 59 || nr == 322;
}

static int sys_entry(struct sct *s, struct sct_thread *t, const struct lv_event *ev,
		     const struct kd_event *k, bool shown)
{
	const struct posix_trace_syscall_entry *e = &k->u.entry;
	/* A thread is in one call at a time: the one before never returned. */
	int ret = close_call(s, t);

	t->call.open = true;
	t->call.shown = shown;
	t->call.untimed = false;
	t->call.nr = e->nr;
	t->call.compat = e->flags & POSIX_TRACE_SYSCALL_COMPAT;
	t->call.entry = ev->ts;
	t->call.blocked_ns = 0;
	call_keep(&t->call, k);
	if (is_exec(t->call.nr, t->call.compat))
		t->proc->exec = t;
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

	if (t->call.open && t->call.nr == x->nr && t->call.compat == compat) {
		note->has_dur = !t->call.untimed &&
				elapsed(&t->call.entry, &ev->ts, &note->dur_ns);
		note->entry = t->call.untimed ? NULL : &t->call.k;
		shown = shown || t->call.shown;
		t->call.open = false;
	} else {
		/* Another call's entry (a lost exit), or none (a lost entry,
		 * the log's start, a child returning from fork). */
		ret = close_call(s, t);
	}
	if (ret || !s->summary || !shown)
		return ret;
	ret = stat_of(s, x->nr, compat, &st);
	if (!ret)
		count_exit(st, x, note, t->call.blocked_ns);
	return ret;
}

/* @ts - @ns, no earlier than 0 (a crafted log's age may be anything). */
static struct timespec ts_minus(const struct timespec *ts, uint64_t ns)
{
	uint64_t sec = ns / NS_PER_SEC;
	struct timespec r = *ts;
	long nsec = (long)(ns % NS_PER_SEC);

	if (ts->tv_sec < 0 || sec > (uint64_t)ts->tv_sec)
		return (struct timespec){ 0, 0 };
	r.tv_sec -= (time_t)sec;
	r.tv_nsec -= nsec;
	if (r.tv_nsec < 0) {
		if (!r.tv_sec)
			return (struct timespec){ 0, 0 };
		r.tv_sec--;
		r.tv_nsec += (long)NS_PER_SEC;
	}
	return r;
}

/*
 * A call in one record: its entry @elapsed ns before the record, then
 * its exit at the record's time, unless it is pending (it left the CPU:
 * its exit record comes later).
 */
static int sys_call(struct sct *s, struct sct_thread *t, const struct lv_event *ev,
		    const struct kd_event *k, bool shown, struct sct_note *note)
{
	struct lv_event entry_ev = *ev;
	struct kd_event entry, exit;
	bool done = kd_call_split(k, &entry, &exit);
	int ret;

	entry_ev.ts = ts_minus(&ev->ts, k->u.call.elapsed);
	ret = sys_entry(s, t, &entry_ev, &entry, shown);
	if (ret || !done)
		return ret;
	return sys_exit(s, t, ev, &exit.u.exit, shown, note);
}

/* The process of @t exited (its last thread records that): every call of
 * its threads ends unanswered, the others' when their ids come again
 * (renew()) or at the end. */
static int proc_exit(struct sct *s, struct sct_thread *t)
{
	t->off = false;
	t->proc->exec = NULL;
	t->proc->life++;
	t->life = t->proc->life;
	return close_call(s, t);
}

/*
 * An exec, recorded by @t, the leader: every other thread is gone.  When
 * another thread called it (@old_tid 0), that thread now has the
 * leader's id, its call too (the last exec entered, its exit to come
 * here); the leader it replaced never returns from its own call.
 */
static int proc_exec(struct sct *s, struct sct_thread *t,
		     const struct posix_trace_process_exec *x)
{
	struct sct_thread *from = t->proc->exec;
	int ret = 0;

	if (!x->old_tid) {
		ret = close_call(s, t);
		if (from && from != t && from->life == t->life && from->call.open) {
			call_move(&t->call, &from->call);
			t->call.untimed |= from->gen != s->gen;
		}
	}
	t->off = false;
	t->proc->exec = NULL;
	t->proc->life++;
	t->life = t->proc->life;
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
	if (!note->has_off || !t->call.open)
		return;
	/* The call's part of the time off CPU: what follows its entry. */
	from = before(&t->out, &t->call.entry) ? &t->call.entry : &t->out;
	if (elapsed(from, &ev->ts, &ns))
		t->call.blocked_ns = sat_add(t->call.blocked_ns, ns);
}

/* Whether the records of @id have a part in the timing. */
static bool timed_id(trace_event_id_t id)
{
	return id == POSIX_TRACE_SYSCALL_ENTRY_NP || id == POSIX_TRACE_SYSCALL_EXIT_NP ||
	       id == POSIX_TRACE_SYSCALL_NP ||
	       id == POSIX_TRACE_SCHED_OUT_NP || id == POSIX_TRACE_SCHED_IN_NP ||
	       id == POSIX_TRACE_PROCESS_EXEC_NP || id == POSIX_TRACE_PROCESS_EXIT_NP;
}

/* A page fault of a record shown: counted for its process.  By id: its
 * data (the address) is not needed. */
static int count_fault(struct sct *s, const struct lv_event *ev, bool shown)
{
	struct sct_proc *p;
	int ret;

	if (!s->summary || !shown)
		return 0;
	ret = proc_of(s, ev->pid, &p);
	if (ret)
		return ret;
	if (ev->id == POSIX_TRACE_FAULT_MAJOR_NP)
		p->major++;
	else
		p->minor++;
	return 0;
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
	if (ev->id == POSIX_TRACE_FAULT_MAJOR_NP || ev->id == POSIX_TRACE_FAULT_MINOR_NP)
		return count_fault(s, ev, shown);
	if (!k || !timed_id(k->id))
		return 0;
	ret = thread_of(s, ev, &t);
	if (ret)
		return ret;
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		return sys_entry(s, t, ev, k, shown);
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		return sys_exit(s, t, ev, &k->u.exit, shown, note);
	case POSIX_TRACE_SYSCALL_NP:
		return sys_call(s, t, ev, k, shown, note);
	case POSIX_TRACE_SCHED_OUT_NP:
		sched_out(t, ev, &k->u.out);
		break;
	case POSIX_TRACE_SCHED_IN_NP:
		sched_in(t, ev, note);
		break;
	case POSIX_TRACE_PROCESS_EXEC_NP:
		return proc_exec(s, t, &k->u.exec);
	default:
		return proc_exit(s, t);
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

/* "openat", "nr=999" without a name, "open (32-bit)" or "nr=999 (32-bit)"
 * for a 32-bit call, into @buf. */
#define NAME_LEN 48
static const char *call_name(char *buf, const struct sct_stat *st)
{
	const char *name = kd_syscall_name(st->nr, st->compat);

	if (name && !st->compat)
		return name;
	if (name)
		snprintf(buf, NAME_LEN, "%s (32-bit)", name);
	else
		snprintf(buf, NAME_LEN, "nr=%" PRIu32 "%s", st->nr,
			 st->compat ? " (32-bit)" : "");
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

static void calls_text(FILE *f, struct sct_stat **v, size_t n, const struct sct_stat *sum,
		       bool sched)
{
	char name[NAME_LEN];
	size_t i;

	if (!n) {
		fputs("# system calls: none\n", f);
		return;
	}
	text_head(f, sched);
	for (i = 0; i < n; i++)
		text_row(f, v[i], sum->total_ns, sched, call_name(name, v[i]));
	text_rule(f, sched);
	text_row(f, sum, sum->total_ns, sched, "total");
	fprintf(f, "# timed calls: %llu of %llu (the others lack their entry or exit record)\n",
		sum->timed, sum->calls);
	if (!sched)
		fputs("# on-cpu, blocked: not known, the log has no sched events "
		      "(record --kernel sched)\n", f);
}

/* The most faults first; then by pid. */
static int by_faults(const void *a, const void *b)
{
	const struct sct_proc *x = *(const struct sct_proc *const *)a;
	const struct sct_proc *y = *(const struct sct_proc *const *)b;
	unsigned long long fx = x->major + x->minor, fy = y->major + y->minor;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The processes with page faults in *@v, sorted, *@n of them, and their
 * sum in *@sum: 0, or ENOMEM. */
static int faulted(struct sct *s, struct sct_proc ***v, size_t *n, struct sct_proc *sum)
{
	struct sct_proc *p;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	*n = 0;
	*v = calloc(s->procs.count + 1, sizeof(**v));
	if (!*v)
		return ENOMEM;
	for (i = 0; i < s->procs.count; i++) {
		p = s->procs.ent[i].val;
		if (!p || !(p->major + p->minor))
			continue;
		(*v)[(*n)++] = p;
		sum->major += p->major;
		sum->minor += p->minor;
	}
	qsort(*v, *n, sizeof(**v), by_faults);
	return 0;
}

static void faults_line(FILE *f, const char *what, const struct sct_proc *p)
{
	char a[LV_GROUPED_LEN], b[LV_GROUPED_LEN];

	fprintf(f, "# %s: %s major, %s minor\n", what, lv_grouped(a, p->major),
		lv_grouped(b, p->minor));
}

static void faults_text(FILE *f, struct sct_proc **v, size_t n, const struct sct_proc *sum)
{
	char what[32];
	size_t i;

	if (!n)
		return;
	faults_line(f, "page faults", sum);
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "  pid %" PRIu32, v[i]->pid);
		faults_line(f, what, v[i]);
	}
}

int sct_text(FILE *f, struct sct *s, bool sched)
{
	struct sct_stat **v, sum;
	struct sct_proc **pv, psum;
	size_t n, pn;

	if (sorted(s, &v, &n, &sum))
		return ENOMEM;
	if (faulted(s, &pv, &pn, &psum)) {
		free(v);
		return ENOMEM;
	}
	calls_text(f, v, n, &sum, sched);
	faults_text(f, pv, pn, &psum);
	free(pv);
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
	struct sct_proc **pv, psum;
	size_t n, pn, i;

	if (sorted(s, &v, &n, &sum))
		return ENOMEM;
	if (faulted(s, &pv, &pn, &psum)) {
		free(v);
		return ENOMEM;
	}
	fputs(",\"syscalls\":[", f);
	for (i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		json_row(f, v[i], sched);
	}
	fputs("],\"page_faults\":[", f);
	for (i = 0; i < pn; i++)
		fprintf(f, "%s{\"pid\":%" PRIu32 ",\"major\":%llu,\"minor\":%llu}", i ? "," : "",
			pv[i]->pid, pv[i]->major, pv[i]->minor);
	putc(']', f);
	free(pv);
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
	free_values(&s->procs);
	free_values(&s->calls);
}
