// SPDX-License-Identifier: LGPL-2.1-or-later
/* The data of kernel events for posix-trace report: see kdata.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np(), sigabbrev_np() */
#endif
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include "kdata.h"
#include "syscalls.h"
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
	}
	return false;
}

/* The name of system call @nr of an event with @flags; NULL for a 32-bit
 * call (the table is x86-64's) or a number without a name. */
static const char *sc_name(uint32_t nr, uint32_t flags)
{
	return flags & POSIX_TRACE_SYSCALL_COMPAT ? NULL : syscall_name(nr);
}

/* "ENOENT" for -2; NULL for a value that is no -errno, or unknown. */
static const char *errno_name(uint64_t ret)
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

/* "KILL" for SIGKILL; NULL if unknown. */
static const char *signal_name(int sig)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
	return sigabbrev_np(sig);
#else
	(void)sig;
	return NULL;
#endif
}

static void text_nr(FILE *f, uint32_t nr, uint32_t flags)
{
	const char *name = sc_name(nr, flags);

	fprintf(f, "nr=%" PRIu32, nr);
	if (flags & POSIX_TRACE_SYSCALL_COMPAT)
		fputs(" (32-bit)", f);
	else if (name)
		fprintf(f, " (%s)", name);
}

/* The path of an entry or exit with @flags, if it has one. */
static void text_path(FILE *f, const struct kd_event *k, uint32_t flags)
{
	if (flags & POSIX_TRACE_SYSCALL_PATH) {
		fputs(" path=", f);
		tf_quoted(f, k->str, k->str_len);
		if ((flags & POSIX_TRACE_SYSCALL_PATH_TRUNC) || k->str_short)
			fputs(" (truncated)", f);
	} else if (flags & POSIX_TRACE_SYSCALL_PATH_FAULT) {
		fputs(" path=(not in memory)", f);
	}
}

static void text_entry(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_syscall_entry *e = &k->u.entry;
	unsigned int i;

	text_nr(f, e->nr, e->flags);
	fputs(" args=", f);
	for (i = 0; i < 6; i++)
		fprintf(f, "%s%#" PRIx64, i ? "," : "", (uint64_t)e->args[i]);
	text_path(f, k, e->flags);
}

static void text_ret(FILE *f, uint64_t ret)
{
	int64_t v = (int64_t)ret;
	const char *e = errno_name(ret);

	if (v >= -4095 && v <= UINT32_MAX)
		fprintf(f, "ret=%" PRId64, v);
	else
		fprintf(f, "ret=%#" PRIx64, ret);
	if (e)
		fprintf(f, " (%s)", e);
}

static void text_status(FILE *f, uint32_t status)
{
	int st = (int)status;
	const char *sig;

	fprintf(f, "status=%#" PRIx32, status);
	if (WIFEXITED(st)) {
		fprintf(f, " (exited %d)", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		sig = signal_name(WTERMSIG(st));
		if (sig)
			fprintf(f, " (killed by SIG%s", sig);
		else
			fprintf(f, " (killed by signal %d", WTERMSIG(st));
		fputs(WCOREDUMP(st) ? ", core dumped)" : ")", f);
	}
}

void kd_text(FILE *f, const struct kd_event *k)
{
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		text_entry(f, k);
		break;
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		text_nr(f, k->u.exit.nr, k->u.exit.flags);
		putc(' ', f);
		text_ret(f, k->u.exit.ret);
		text_path(f, k, k->u.exit.flags);
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
	const char *name = sc_name(nr, flags);

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

static void json_entry(FILE *f, const struct kd_event *k)
{
	const struct posix_trace_syscall_entry *e = &k->u.entry;
	unsigned int i;

	json_nr(f, "syscall_entry", e->nr, e->flags);
	fputs(",\"args\":[", f);
	for (i = 0; i < 6; i++)
		fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", (uint64_t)e->args[i]);
	putc(']', f);
	json_path(f, k, e->flags, e->path_arg);
}

static void json_exit(FILE *f, const struct kd_event *k)
{
	const char *e = errno_name(k->u.exit.ret);

	json_nr(f, "syscall_exit", k->u.exit.nr, k->u.exit.flags);
	fprintf(f, ",\"ret\":%" PRId64, (int64_t)k->u.exit.ret);
	json_strkey(f, "errno", e, e ? strlen(e) : 0);
	json_path(f, k, k->u.exit.flags, k->u.exit.path_arg);
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

void kd_json(FILE *f, const struct kd_event *k)
{
	switch (k->id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		json_entry(f, k);
		break;
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		json_exit(f, k);
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
	default:
		fputs("null", f);
	}
}
