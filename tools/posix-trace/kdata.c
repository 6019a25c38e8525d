// SPDX-License-Identifier: LGPL-2.1-or-later
/* The data of kernel events for posix-trace report: see kdata.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np() */
#endif
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>
#include "kdata.h"
#include "syscalls.h"
#include "sysflags.h"
#include "textfmt.h"

/* The fixed part: the first min(@len, @size) bytes of @data, zeros after;
 * the bytes that follow it, *@rest of them. */
static const unsigned char *fixed(void *dst, size_t size, const unsigned char *data,
				  size_t len, size_t *rest)
{
	size_t n = len < size ? len : size;

	memset(dst, 0, size);
	if (n)
		memcpy(dst, data, n);
	*rest = len - n;
	return data + n;
}

/* A string the fixed part says is @claimed bytes long: what of it the
 * data holds. */
static void string(struct kd_event *k, const unsigned char *p, size_t rest,
		   uint32_t claimed)
{
	k->str = (const char *)p;
	k->str_len = claimed < rest ? claimed : rest;
	k->str_short = claimed > rest;
}

bool kd_decode(trace_event_id_t id, const unsigned char *data, size_t len,
	       struct kd_event *k)
{
	const unsigned char *p;
	size_t rest;

	memset(k, 0, sizeof(*k));
	k->id = id;
	switch (id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		p = fixed(&k->u.entry, sizeof(k->u.entry), data, len, &rest);
		if (k->u.entry.flags & POSIX_TRACE_SYSCALL_PATH)
			string(k, p, rest, k->u.entry.path_len);
		return true;
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		p = fixed(&k->u.exit, sizeof(k->u.exit), data, len, &rest);
		if (k->u.exit.flags & POSIX_TRACE_SYSCALL_PATH)
			string(k, p, rest, k->u.exit.path_len);
		return true;
	case POSIX_TRACE_SYSCALL_NP:
		p = fixed(&k->u.call, sizeof(k->u.call), data, len, &rest);
		if (k->u.call.flags & POSIX_TRACE_SYSCALL_PATH)
			string(k, p, rest, k->u.call.path_len);
		return true;
	case POSIX_TRACE_SIGNAL_GENERATE_NP:
		fixed(&k->u.gen, sizeof(k->u.gen), data, len, &rest);
		return true;
	case POSIX_TRACE_SIGNAL_DELIVER_NP:
		fixed(&k->u.deliver, sizeof(k->u.deliver), data, len, &rest);
		return true;
	case POSIX_TRACE_SCHED_OUT_NP:
		fixed(&k->u.out, sizeof(k->u.out), data, len, &rest);
		return true;
	case POSIX_TRACE_SCHED_IN_NP:
		fixed(&k->u.in, sizeof(k->u.in), data, len, &rest);
		return true;
	case POSIX_TRACE_SCHED_WAKEUP_NP:
		fixed(&k->u.wakeup, sizeof(k->u.wakeup), data, len, &rest);
		return true;
	case POSIX_TRACE_PROCESS_FORK_NP:
		fixed(&k->u.fork, sizeof(k->u.fork), data, len, &rest);
		return true;
	case POSIX_TRACE_PROCESS_EXEC_NP:
		p = fixed(&k->u.exec, sizeof(k->u.exec), data, len, &rest);
		string(k, p, rest, k->u.exec.name_len);
		return true;
	case POSIX_TRACE_PROCESS_EXIT_NP:
		fixed(&k->u.pexit, sizeof(k->u.pexit), data, len, &rest);
		return true;
	case POSIX_TRACE_FAULT_MAJOR_NP:
	case POSIX_TRACE_FAULT_MINOR_NP:
		fixed(&k->u.fault, sizeof(k->u.fault), data, len, &rest);
		return true;
	}
	return false;
}

bool kd_call_split(const struct kd_event *k, struct kd_event *entry,
		   struct kd_event *exit)
{
	const struct posix_trace_syscall *c = &k->u.call;
	uint32_t flags = c->flags & ~POSIX_TRACE_SYSCALL_PENDING;

	*entry = *k;
	memset(&entry->u, 0, sizeof(entry->u));
	entry->id = POSIX_TRACE_SYSCALL_ENTRY_NP;
	entry->u.entry.nr = c->nr;
	entry->u.entry.flags = flags;
	memcpy(entry->u.entry.args, c->args, sizeof(c->args));
	entry->u.entry.path_arg = c->path_arg;
	entry->u.entry.path_len = c->path_len;
	if (c->flags & POSIX_TRACE_SYSCALL_PENDING)
		return false;
	*exit = *k;
	memset(&exit->u, 0, sizeof(exit->u));
	exit->id = POSIX_TRACE_SYSCALL_EXIT_NP;
	exit->u.exit.nr = c->nr;
	exit->u.exit.flags = flags;
	exit->u.exit.ret = c->ret;
	exit->u.exit.path_arg = c->path_arg;
	exit->u.exit.path_len = c->path_len;
	return true;
}

const char *kd_syscall_name(uint32_t nr, uint32_t flags)
{
	return syscall_name(nr, flags & POSIX_TRACE_SYSCALL_COMPAT);
}

/* "ENOENT" for -2; NULL for a value that is no -errno, or unknown. */
const char *kd_errno_name(uint64_t ret)
{
	int64_t v = (int64_t)ret;

	if (v >= 0 || v < -4095)
		return NULL;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
	return strerrorname_np((int)-v);
#else
	return NULL;
#endif
}

#define SIGCHLD_NR	17

/* The name of si_code @code of signal @signo, the kernel's values; NULL
 * if it has none.  A positive code means something for its signal only:
 * named for SIGCHLD, the one whose codes a tracer reads most. */
static const char *code_name(uint32_t signo, int32_t code)
{
	static const char *const si[] = {	/* index: -code */
		"SI_USER", "SI_QUEUE", "SI_TIMER", "SI_MESGQ", "SI_ASYNCIO",
		"SI_SIGIO", "SI_TKILL",
	};
	static const char *const cld[] = {
		[1] = "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED", "CLD_TRAPPED",
		"CLD_STOPPED", "CLD_CONTINUED",
	};

	if (code == 0x80)
		return "SI_KERNEL";
	if (code <= 0 && code > -(int32_t)(sizeof(si) / sizeof(si[0])))
		return si[-code];
	if (signo == SIGCHLD_NR && code > 0 && code < (int32_t)(sizeof(cld) / sizeof(cld[0])))
		return cld[code];
	return NULL;
}

/* posix_trace_signal_generate.result and _deliver.action, by value. */
static const char *const results[] = {
	[POSIX_TRACE_SIGNAL_DELIVERED] = "delivered",
	[POSIX_TRACE_SIGNAL_IGNORED] = "ignored",
	[POSIX_TRACE_SIGNAL_ALREADY_PENDING] = "already_pending",
	[POSIX_TRACE_SIGNAL_OVERFLOW_FAIL] = "overflow_fail",
	[POSIX_TRACE_SIGNAL_LOSE_INFO] = "lose_info",
};
static const char *const actions[] = {
	[POSIX_TRACE_SIGNAL_HANDLER] = "handler",
	[POSIX_TRACE_SIGNAL_IGNORE] = "ignore",
	[POSIX_TRACE_SIGNAL_DEFAULT] = "default",
};
/* posix_trace_sched_out.reason, by value. */
static const char *const reasons[] = {
	[POSIX_TRACE_SCHED_PREEMPTED] = "preempted",
	[POSIX_TRACE_SCHED_SLEEPING] = "sleeping",
	[POSIX_TRACE_SCHED_BLOCKED] = "blocked",
	[POSIX_TRACE_SCHED_STOPPED] = "stopped",
	[POSIX_TRACE_SCHED_EXITING] = "exiting",
};
#define ENUM_NAME(names, v) ((v) < sizeof(names) / sizeof(names[0]) ? names[v] : NULL)

const char *kd_sched_reason(uint32_t reason)
{
	return ENUM_NAME(reasons, reason);
}

/* The description of call @nr of a record with @flags: NULL for a 32-bit
 * call (the table is x86-64's) or a number without a name. */
static const struct syscall_desc *call_desc(uint32_t nr, uint32_t flags)
{
	return syscall_desc(nr, flags & POSIX_TRACE_SYSCALL_COMPAT);
}

/* The path a call line shows, at argument @arg. */
struct call_path {
	const char *s;			/* NULL: none */
	size_t len;
	uint32_t arg;
	bool cut;			/* cut short: the kernel's copy or the data */
	bool fault;			/* not copied (not in memory): the address */
};

/* The path of record @k (an entry or an exit) with @flags and @arg. */
static struct call_path path_of(const struct kd_event *k, uint32_t flags, uint32_t arg)
{
	struct call_path p = { NULL, 0, arg, false, flags & POSIX_TRACE_SYSCALL_PATH_FAULT };

	if (flags & POSIX_TRACE_SYSCALL_PATH) {
		p.s = k->str;
		p.len = k->str_len;
		p.cut = (flags & POSIX_TRACE_SYSCALL_PATH_TRUNC) || k->str_short;
	}
	return p;
}

/* "openat", "syscall_999" without a name; a 32-bit call (i386's
 * numbers) "[32-bit] open", "syscall32_999" without a name. */
static void text_call_name(FILE *f, uint32_t nr, uint32_t flags,
			   const struct syscall_desc *d)
{
	bool i386 = flags & POSIX_TRACE_SYSCALL_COMPAT;

	if (d)
		fprintf(f, "%s%s", i386 ? "[32-bit] " : "", d->name);
	else
		fprintf(f, "syscall%s_%" PRIu32, i386 ? "32" : "", nr);
}

/* "/etc/passwd" quoted, and "..." after it when it was cut short. */
static void text_quoted_path(FILE *f, const struct call_path *p)
{
	tf_quoted(f, p->s, p->len);
	if (p->cut)
		fputs("...", f);
}

/* The kind of argument @i of a call described by @d (NULL: not). */
static enum sf_kind arg_kind(const struct syscall_desc *d, unsigned int i)
{
	return d && d->nargs >= 0 ? (enum sf_kind)d->arg[i] : SF_HEX;
}

/* One argument: the path, "?" when the arguments are not known, else as
 * its kind reads. */
static void text_arg(FILE *f, enum sf_kind kind, unsigned int i, const __u64 *args,
		     const struct call_path *p)
{
	char buf[SF_LEN];

	if (p->s && i == p->arg) {
		text_quoted_path(f, p);
	} else if (!args) {
		putc('?', f);
	} else {
		sf_format(buf, p->fault && i == p->arg ? SF_PTR : kind, args[i]);
		fputs(buf, f);
	}
}

/*
 * "openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC)": the
 * arguments a described call takes, the six registers of another;
 * @args NULL when they are not known (an exit without its entry): "?".
 */
static void text_call(FILE *f, uint32_t nr, uint32_t flags, const __u64 *args,
		      const struct call_path *p)
{
	const struct syscall_desc *d = call_desc(nr, flags);
	unsigned int i, n = d && d->nargs >= 0 ? (unsigned int)d->nargs : 6;
	const char *sep = "";
	enum sf_kind kind;

	/* A record knows its path's place better than the description. */
	if (p->s && p->arg < 6 && p->arg >= n)
		n = p->arg + 1;
	text_call_name(f, nr, flags, d);
	putc('(', f);
	for (i = 0; i < n; i++) {
		kind = arg_kind(d, i);
		if (args && i)
			kind = sf_resolve(kind, args[i - 1]);
		if (kind == SF_NONE)
			continue;
		fputs(sep, f);
		sep = ", ";
		text_arg(f, kind, i, args, p);
	}
	putc(')', f);
	/* A path whose index is past the registers (a crafted record). */
	if (p->s && p->arg >= n) {
		fputs(" path=", f);
		text_quoted_path(f, p);
	}
}

static void text_entry(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_syscall_entry *e = &k->u.entry;
	struct call_path p = path_of(k, e->flags, e->path_arg);

	text_call(f, e->nr, e->flags, e->args, &p);
}

/* " = 3", " = -2 (ENOENT)", " = 0x7f1234567000" (an address). */
static void text_ret(FILE *f, uint64_t ret)
{
	int64_t v = (int64_t)ret;
	const char *e = kd_errno_name(ret);

	if (v >= -4095 && v <= UINT32_MAX)
		fprintf(f, " = %" PRId64, v);
	else
		fprintf(f, " = %#" PRIx64, ret);
	if (e)
		fprintf(f, " (%s)", e);
}

/* The call as its entry @entry (NULL if not known) passed it, the path
 * the exit copied, or else the entry's, then what it returned. */
static void text_exit(FILE *f, const struct kd_event *k, const struct kd_event *entry)
{
	const struct posix_trace_syscall_exit *x = &k->u.exit;
	struct call_path p = path_of(k, x->flags, x->path_arg);
	const __u64 *args = NULL;

	if (entry && entry->id == POSIX_TRACE_SYSCALL_ENTRY_NP &&
	    entry->u.entry.nr == x->nr &&
	    !((entry->u.entry.flags ^ x->flags) & POSIX_TRACE_SYSCALL_COMPAT)) {
		args = entry->u.entry.args;
		if (!p.s)
			p = path_of(entry, entry->u.entry.flags, entry->u.entry.path_arg);
	}
	text_call(f, x->nr, x->flags, args, &p);
	text_ret(f, x->ret);
}

/* A call in one record: as its exit with its own entry; a pending one
 * as its entry, unfinished. */
static void text_one_call(FILE *f, const struct kd_event *k)
{
	struct kd_event entry, exit;

	if (!kd_call_split(k, &entry, &exit)) {
		text_entry(f, &entry);
		fputs(" <unfinished ...>", f);
		return;
	}
	text_exit(f, &exit, &entry);
}

static void text_status(FILE *f, uint32_t status)
{
	int st = (int)status;
	char buf[SF_SIG_LEN];
	const char *sig;

	fprintf(f, "status=%#" PRIx32, status);
	if (WIFEXITED(st)) {
		fprintf(f, " (exited %d)", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		sig = sf_signal_name(buf, (uint32_t)WTERMSIG(st));
		if (sig)
			fprintf(f, " (killed by %s", sig);
		else
			fprintf(f, " (killed by signal %d", WTERMSIG(st));
		fputs(WCOREDUMP(st) ? ", core dumped)" : ")", f);
	}
}

/* What generate and deliver records share: "sig=10 (SIGUSR1) code=0
 * (SI_USER) from=1234". */
static void text_signal(FILE *f, uint32_t signo, uint32_t code, uint32_t sender)
{
	char buf[SF_SIG_LEN];
	const char *sig = sf_signal_name(buf, signo);
	const char *c = code_name(signo, (int32_t)code);

	fprintf(f, "sig=%" PRIu32, signo);
	if (sig)
		fprintf(f, " (%s)", sig);
	fprintf(f, " code=%" PRId32, (int32_t)code);
	if (c)
		fprintf(f, " (%s)", c);
	fprintf(f, " from=%" PRIu32, sender);
}

/* " KEY=name", or " KEY=N" for a value without a name. */
static void text_enum(FILE *f, const char *key, const char *name, uint32_t v)
{
	if (name)
		fprintf(f, " %s=%s", key, name);
	else
		fprintf(f, " %s=%" PRIu32, key, v);
}

static void text_generate(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_signal_generate *g = &k->u.gen;

	text_signal(f, g->signo, g->code, g->sender_pid);
	text_enum(f, "result", ENUM_NAME(results, g->result), g->result);
	if (g->flags & POSIX_TRACE_SIGNAL_GROUP)
		fputs(" group", f);
}

static void text_deliver(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_signal_deliver *d = &k->u.deliver;

	text_signal(f, d->signo, d->code, d->sender_pid);
	text_enum(f, "action", ENUM_NAME(actions, d->action), d->action);
	/* Only a handler has an address; 0 otherwise says nothing. */
	if (d->action == POSIX_TRACE_SIGNAL_HANDLER)
		fprintf(f, " handler=%#" PRIx64, (uint64_t)d->handler);
	fprintf(f, " sa_flags=%#" PRIx32, d->sa_flags);
}

/* "reason=sleeping cpu=1", "reason=7 cpu=1" for a reason without a name. */
static void text_sched_out(FILE *f, const struct kd_event *k)
{
	const char *reason = kd_sched_reason(k->u.out.reason);

	if (reason)
		fprintf(f, "reason=%s", reason);
	else
		fprintf(f, "reason=%" PRIu32, k->u.out.reason);
	fprintf(f, " cpu=%" PRIu32, k->u.out.cpu);
}

/* Who woke the thread: "by=1234/1235" (pid/tid), "by=irq" from an
 * interrupt, "by=other" for a process the stream does not trace (not
 * named), "by=kernel" for no thread the stream sees (pid 0). */
static void text_wakeup(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_sched_wakeup *w = &k->u.wakeup;

	if (w->flags & POSIX_TRACE_SCHED_WAKER_IRQ)
		fputs("by=irq", f);
	else if (w->flags & POSIX_TRACE_SCHED_WAKER_OTHER)
		fputs("by=other", f);
	else if (!w->waker_pid)
		fputs("by=kernel", f);
	else
		fprintf(f, "by=%" PRIu32 "/%" PRIu32, w->waker_pid, w->waker_tid);
}

/* "addr=0x7f10a2c3d000 ip=0x55d0c0de1234 (user)", or "addr=0x7f10a2c3d000
 * (in syscall)" for a fault the kernel took on the thread's memory: the
 * instruction is the kernel's then, and the record has no address of it. */
static void text_fault(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_fault *x = &k->u.fault;

	fprintf(f, "addr=%#" PRIx64, (uint64_t)x->address);
	if (x->flags & POSIX_TRACE_FAULT_USER)
		fprintf(f, " ip=%#" PRIx64 " (user)", (uint64_t)x->ip);
	else
		fputs(" (in syscall)", f);
}

void kd_text(FILE *f, const struct kd_event *k, const struct kd_event *entry)
{
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		text_entry(f, k);
		break;
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		text_exit(f, k, entry);
		break;
	case POSIX_TRACE_SYSCALL_NP:
		text_one_call(f, k);
		break;
	case POSIX_TRACE_SIGNAL_GENERATE_NP:
		text_generate(f, k);
		break;
	case POSIX_TRACE_SIGNAL_DELIVER_NP:
		text_deliver(f, k);
		break;
	case POSIX_TRACE_SCHED_OUT_NP:
		text_sched_out(f, k);
		break;
	case POSIX_TRACE_SCHED_IN_NP:
		fprintf(f, "cpu=%" PRIu32, k->u.in.cpu);
		break;
	case POSIX_TRACE_SCHED_WAKEUP_NP:
		text_wakeup(f, k);
		break;
	case POSIX_TRACE_PROCESS_FORK_NP:
		fprintf(f, "child=%" PRIu32, k->u.fork.child_pid);
		if (k->u.fork.flags & POSIX_TRACE_FORK_THREAD)
			fprintf(f, " tid=%" PRIu32 " (thread)", k->u.fork.child_tid);
		else if (k->u.fork.child_tid != k->u.fork.child_pid)
			fprintf(f, " tid=%" PRIu32, k->u.fork.child_tid);
		break;
	case POSIX_TRACE_PROCESS_EXEC_NP:
		fputs("file=", f);
		tf_quoted(f, k->str, k->str_len);
		if (k->str_short)
			fputs(" (truncated)", f);
		fprintf(f, " old_tid=%" PRIu32, k->u.exec.old_tid);
		break;
	case POSIX_TRACE_PROCESS_EXIT_NP:
		text_status(f, k->u.pexit.status);
		break;
	case POSIX_TRACE_FAULT_MAJOR_NP:
	case POSIX_TRACE_FAULT_MINOR_NP:
		text_fault(f, k);
		break;
	}
}

/* "KEY":"string" or "KEY":null, after a comma. */
static void json_strkey(FILE *f, const char *key, const char *s, size_t n)
{
	fprintf(f, ",\"%s\":", key);
	if (s)
		tf_json(f, s, n);
	else
		fputs("null", f);
}

static const char *json_bool(bool v)
{
	return v ? "true" : "false";
}

static void json_nr(FILE *f, const char *event, uint32_t nr, uint32_t flags)
{
	const char *name = kd_syscall_name(nr, flags);

	fprintf(f, "{\"event\":\"%s\",\"nr\":%" PRIu32, event, nr);
	json_strkey(f, "syscall", name, name ? strlen(name) : 0);
	fprintf(f, ",\"compat\":%s", json_bool(flags & POSIX_TRACE_SYSCALL_COMPAT));
}

/* The path keys of an entry or exit with @flags, and the closing brace. */
static void json_path(FILE *f, const struct kd_event *k, uint32_t flags,
		      uint32_t path_arg)
{
	bool path = flags & POSIX_TRACE_SYSCALL_PATH;

	fprintf(f, ",\"path_arg\":%" PRIu32, path_arg);
	json_strkey(f, "path", path ? k->str : NULL, k->str_len);
	fprintf(f, ",\"path_truncated\":%s,\"path_fault\":%s}",
		json_bool(path && ((flags & POSIX_TRACE_SYSCALL_PATH_TRUNC) || k->str_short)),
		json_bool(flags & POSIX_TRACE_SYSCALL_PATH_FAULT));
}

/*
 * ],"args_decoded":[...]: beside each register, what text shows for it
 * when that is a name ("AT_FDCWD", "O_RDONLY|O_CLOEXEC", a mode "0644"),
 * else null (a number, an address, the path, which is "path", whatever
 * the description says of its register, an argument the call does not
 * take or ignores, a call not described).
 */
static void json_decoded(FILE *f, const struct posix_trace_syscall_entry *e)
{
	const uint32_t path = POSIX_TRACE_SYSCALL_PATH | POSIX_TRACE_SYSCALL_PATH_FAULT;
	const struct syscall_desc *d = call_desc(e->nr, e->flags);
	const __u64 *args = e->args;
	unsigned int i, n = d && d->nargs >= 0 ? (unsigned int)d->nargs : 0;
	enum sf_kind kind;
	char buf[SF_LEN];

	fputs("],\"args_decoded\":[", f);
	for (i = 0; i < 6; i++) {
		kind = i < n ? arg_kind(d, i) : SF_NONE;
		if (i)
			kind = sf_resolve(kind, args[i - 1]);
		if ((e->flags & path) && i == e->path_arg)
			kind = SF_PATH;
		if (i)
			putc(',', f);
		if (kind != SF_NONE && kind != SF_PATH && sf_format(buf, kind, args[i]))
			tf_json(f, buf, strlen(buf));
		else
			fputs("null", f);
	}
	putc(']', f);
}

/* ,"args":[...],"args_decoded":[...] of the entry @e. */
static void json_args(FILE *f, const struct posix_trace_syscall_entry *e)
{
	unsigned int i;

	fputs(",\"args\":[", f);
	for (i = 0; i < 6; i++)
		fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", (uint64_t)e->args[i]);
	json_decoded(f, e);
}

static void json_entry(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_syscall_entry *e = &k->u.entry;

	json_nr(f, "syscall_entry", e->nr, e->flags);
	json_args(f, e);
	json_path(f, k, e->flags, e->path_arg);
}

/* The entry's keys, then what the call adds; the path is the call's. */
static void json_call(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_syscall *c = &k->u.call;
	bool pending = c->flags & POSIX_TRACE_SYSCALL_PENDING;
	const char *e = pending ? NULL : kd_errno_name(c->ret);
	struct kd_event entry, exit;

	kd_call_split(k, &entry, &exit);
	json_nr(f, "syscall", c->nr, c->flags);
	json_args(f, &entry.u.entry);
	fprintf(f, ",\"elapsed_ns\":%" PRIu64 ",\"pending\":%s", (uint64_t)c->elapsed,
		json_bool(pending));
	if (pending)
		fputs(",\"ret\":null", f);
	else
		fprintf(f, ",\"ret\":%" PRId64, (int64_t)c->ret);
	json_strkey(f, "errno", e, e ? strlen(e) : 0);
	json_path(f, k, c->flags, c->path_arg);
}

static void json_exit(FILE *f, const struct kd_event *k)
{
	const char *e = kd_errno_name(k->u.exit.ret);

	json_nr(f, "syscall_exit", k->u.exit.nr, k->u.exit.flags);
	fprintf(f, ",\"ret\":%" PRId64, (int64_t)k->u.exit.ret);
	json_strkey(f, "errno", e, e ? strlen(e) : 0);
	json_path(f, k, k->u.exit.flags, k->u.exit.path_arg);
}

/* "KEY":N,"NKEY":"name" (or null): the number is all a value that has
 * no name yet keeps. */
static void json_enum(FILE *f, const char *key, int64_t v, const char *nkey,
		      const char *name)
{
	fprintf(f, ",\"%s\":%" PRId64, key, v);
	json_strkey(f, nkey, name, name ? strlen(name) : 0);
}

/* The opening of a generate or deliver object, the keys they share. */
static void json_signal(FILE *f, const char *event, uint32_t signo, uint32_t code,
			uint32_t sender)
{
	char buf[SF_SIG_LEN];

	fprintf(f, "{\"event\":\"%s\"", event);
	json_enum(f, "signo", signo, "signal_name", sf_signal_name(buf, signo));
	json_enum(f, "code", (int32_t)code, "code_name", code_name(signo, (int32_t)code));
	fprintf(f, ",\"sender_pid\":%" PRIu32, sender);
}

static void json_generate(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_signal_generate *g = &k->u.gen;

	json_signal(f, "signal_generate", g->signo, g->code, g->sender_pid);
	json_enum(f, "result", g->result, "result_name", ENUM_NAME(results, g->result));
	fprintf(f, ",\"group\":%s}", json_bool(g->flags & POSIX_TRACE_SIGNAL_GROUP));
}

static void json_deliver(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_signal_deliver *d = &k->u.deliver;

	json_signal(f, "signal_deliver", d->signo, d->code, d->sender_pid);
	json_enum(f, "action", d->action, "action_name", ENUM_NAME(actions, d->action));
	/* A string as the arguments: an address may not fit a double. */
	fprintf(f, ",\"handler\":\"0x%" PRIx64 "\",\"sa_flags\":%" PRIu32 "}",
		(uint64_t)d->handler, d->sa_flags);
}

static void json_sched_out(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_sched_out *o = &k->u.out;

	fputs("{\"event\":\"sched_out\"", f);
	json_enum(f, "reason", o->reason, "reason_name", kd_sched_reason(o->reason));
	fprintf(f, ",\"cpu\":%" PRIu32 "}", o->cpu);
}

static void json_wakeup(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_sched_wakeup *w = &k->u.wakeup;

	fprintf(f, "{\"event\":\"sched_wakeup\",\"waker_pid\":%" PRIu32
		",\"waker_tid\":%" PRIu32 ",\"irq\":%s,\"other\":%s}", w->waker_pid,
		w->waker_tid, json_bool(w->flags & POSIX_TRACE_SCHED_WAKER_IRQ),
		json_bool(w->flags & POSIX_TRACE_SCHED_WAKER_OTHER));
}

static void json_status(FILE *f, uint32_t status)
{
	int st = (int)status;

	fprintf(f, "{\"event\":\"process_exit\",\"status\":%" PRIu32, status);
	if (WIFEXITED(st))
		fprintf(f, ",\"exit_code\":%d,\"signal\":null", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(f, ",\"exit_code\":null,\"signal\":%d", WTERMSIG(st));
	else
		fputs(",\"exit_code\":null,\"signal\":null", f);
	fprintf(f, ",\"core_dump\":%s}", json_bool(WIFSIGNALED(st) && WCOREDUMP(st)));
}

/* Addresses as strings, as the arguments: they may not fit a double. */
static void json_fault(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_fault *x = &k->u.fault;

	fprintf(f, "{\"event\":\"%s\",\"address\":\"0x%" PRIx64 "\",\"ip\":\"0x%" PRIx64
		"\",\"user\":%s}",
		k->id == POSIX_TRACE_FAULT_MAJOR_NP ? "fault_major" : "fault_minor",
		(uint64_t)x->address, (uint64_t)x->ip,
		json_bool(x->flags & POSIX_TRACE_FAULT_USER));
}

void kd_json(FILE *f, const struct kd_event *k)
{
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		json_entry(f, k);
		break;
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		json_exit(f, k);
		break;
	case POSIX_TRACE_SYSCALL_NP:
		json_call(f, k);
		break;
	case POSIX_TRACE_SIGNAL_GENERATE_NP:
		json_generate(f, k);
		break;
	case POSIX_TRACE_SIGNAL_DELIVER_NP:
		json_deliver(f, k);
		break;
	case POSIX_TRACE_SCHED_OUT_NP:
		json_sched_out(f, k);
		break;
	case POSIX_TRACE_SCHED_IN_NP:
		fprintf(f, "{\"event\":\"sched_in\",\"cpu\":%" PRIu32 "}", k->u.in.cpu);
		break;
	case POSIX_TRACE_SCHED_WAKEUP_NP:
		json_wakeup(f, k);
		break;
	case POSIX_TRACE_PROCESS_FORK_NP:
		fprintf(f, "{\"event\":\"process_fork\",\"child_pid\":%" PRIu32
			",\"child_tid\":%" PRIu32 ",\"thread\":%s}", k->u.fork.child_pid,
			k->u.fork.child_tid,
			json_bool(k->u.fork.flags & POSIX_TRACE_FORK_THREAD));
		break;
	case POSIX_TRACE_PROCESS_EXEC_NP:
		fprintf(f, "{\"event\":\"process_exec\",\"old_tid\":%" PRIu32, k->u.exec.old_tid);
		json_strkey(f, "file", k->str, k->str_len);
		fprintf(f, ",\"file_truncated\":%s}", json_bool(k->str_short));
		break;
	case POSIX_TRACE_PROCESS_EXIT_NP:
		json_status(f, k->u.pexit.status);
		break;
	case POSIX_TRACE_FAULT_MAJOR_NP:
	case POSIX_TRACE_FAULT_MINOR_NP:
		json_fault(f, k);
		break;
	default:
		fputs("null", f);
	}
}
