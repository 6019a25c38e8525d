// SPDX-License-Identifier: LGPL-2.1-or-later
/* The typed fields of the kernel events in CTF: see ctf_kev.h. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/posix_trace.h>
#include <linux/posix_trace_kernel.h>
#include "ctf_kev.h"

/* The CTF integer types (typealiases of ctf_meta.c) a field can have. */
enum kf_type { KF_U32, KF_S32, KF_X32, KF_U64, KF_S64, KF_X64 };

static const struct {
	const char *tsdl;
	unsigned int size;
} types[] = {
	[KF_U32] = { "uint32_t", 4 },
	[KF_S32] = { "int32_t", 4 },
	[KF_X32] = { "uint32_hex_t", 4 },
	[KF_U64] = { "uint64_t", 8 },
	[KF_S64] = { "int64_t", 8 },
	[KF_X64] = { "uint64_hex_t", 8 },
};

/* The labels of an enumerated __u32, ended by a NULL name. */
struct kf_enum {
	const char *name;
	uint32_t value;
};

static const struct kf_enum reasons[] = {
	{ "PREEMPTED", POSIX_TRACE_SCHED_PREEMPTED },
	{ "SLEEPING", POSIX_TRACE_SCHED_SLEEPING },
	{ "BLOCKED", POSIX_TRACE_SCHED_BLOCKED },
	{ "STOPPED", POSIX_TRACE_SCHED_STOPPED },
	{ "EXITING", POSIX_TRACE_SCHED_EXITING },
	{ NULL, 0 },
};

static const struct kf_enum results[] = {
	{ "DELIVERED", POSIX_TRACE_SIGNAL_DELIVERED },
	{ "IGNORED", POSIX_TRACE_SIGNAL_IGNORED },
	{ "ALREADY_PENDING", POSIX_TRACE_SIGNAL_ALREADY_PENDING },
	{ "OVERFLOW_FAIL", POSIX_TRACE_SIGNAL_OVERFLOW_FAIL },
	{ "LOSE_INFO", POSIX_TRACE_SIGNAL_LOSE_INFO },
	{ NULL, 0 },
};

static const struct kf_enum actions[] = {
	{ "HANDLER", POSIX_TRACE_SIGNAL_HANDLER },
	{ "IGNORE", POSIX_TRACE_SIGNAL_IGNORE },
	{ "DEFAULT", POSIX_TRACE_SIGNAL_DEFAULT },
	{ NULL, 0 },
};

/* One field of a uapi structure: @count elements of @type at @off, an
 * enumeration of __u32 when @en is set. */
struct kf_field {
	const char *name;
	unsigned char type;
	unsigned char count;
	unsigned short off;
	const struct kf_enum *en;
};

#define KF_FIELDS	8	/* the most a structure has, reserved ones left out */
#define KF_FIXED_MAX	96	/* the largest structure */

struct ctf_kev {
	size_t size;				/* of the uapi structure */
	struct kf_field f[KF_FIELDS];		/* up to the first without a name */
	/* The text after the structure: its name (NULL: none), the __u32
	 * that claims its length, and the flag without which there is
	 * none (0: always there). */
	const char *text;
	unsigned short text_len_off, flags_off;
	uint32_t text_flag;
};

#define F(s, m, t)	{ #m, t, 1, offsetof(struct s, m), NULL }
#define FE(s, m, e)	{ #m, KF_U32, 1, offsetof(struct s, m), e }
#define FA(s, m, t)	{ #m, t, sizeof(((struct s *)0)->m) / sizeof(((struct s *)0)->m[0]), \
			  offsetof(struct s, m), NULL }
#define SIZE(s)		sizeof(struct s)

static const struct ctf_kev entry = {
	SIZE(posix_trace_syscall_entry), {
		F(posix_trace_syscall_entry, nr, KF_U32),
		F(posix_trace_syscall_entry, flags, KF_X32),
		FA(posix_trace_syscall_entry, args, KF_X64),
		F(posix_trace_syscall_entry, path_arg, KF_U32),
		F(posix_trace_syscall_entry, path_len, KF_U32),
	}, "path", offsetof(struct posix_trace_syscall_entry, path_len),
	offsetof(struct posix_trace_syscall_entry, flags), POSIX_TRACE_SYSCALL_PATH,
};

static const struct ctf_kev sys_exit = {
	SIZE(posix_trace_syscall_exit), {
		F(posix_trace_syscall_exit, nr, KF_U32),
		F(posix_trace_syscall_exit, flags, KF_X32),
		F(posix_trace_syscall_exit, ret, KF_S64),
		F(posix_trace_syscall_exit, path_arg, KF_U32),
		F(posix_trace_syscall_exit, path_len, KF_U32),
	}, "path", offsetof(struct posix_trace_syscall_exit, path_len),
	offsetof(struct posix_trace_syscall_exit, flags), POSIX_TRACE_SYSCALL_PATH,
};

static const struct ctf_kev call = {
	SIZE(posix_trace_syscall), {
		F(posix_trace_syscall, nr, KF_U32),
		F(posix_trace_syscall, flags, KF_X32),
		F(posix_trace_syscall, elapsed, KF_U64),
		F(posix_trace_syscall, ret, KF_S64),
		FA(posix_trace_syscall, args, KF_X64),
		F(posix_trace_syscall, path_arg, KF_U32),
		F(posix_trace_syscall, path_len, KF_U32),
	}, "path", offsetof(struct posix_trace_syscall, path_len),
	offsetof(struct posix_trace_syscall, flags), POSIX_TRACE_SYSCALL_PATH,
};

static const struct ctf_kev generate = {
	SIZE(posix_trace_signal_generate), {
		F(posix_trace_signal_generate, signo, KF_U32),
		F(posix_trace_signal_generate, code, KF_S32),
		F(posix_trace_signal_generate, sender_pid, KF_U32),
		FE(posix_trace_signal_generate, result, results),
		F(posix_trace_signal_generate, flags, KF_X32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev deliver = {
	SIZE(posix_trace_signal_deliver), {
		F(posix_trace_signal_deliver, signo, KF_U32),
		F(posix_trace_signal_deliver, code, KF_S32),
		F(posix_trace_signal_deliver, sender_pid, KF_U32),
		FE(posix_trace_signal_deliver, action, actions),
		F(posix_trace_signal_deliver, handler, KF_X64),
		F(posix_trace_signal_deliver, sa_flags, KF_X32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev sched_out = {
	SIZE(posix_trace_sched_out), {
		FE(posix_trace_sched_out, reason, reasons),
		F(posix_trace_sched_out, cpu, KF_U32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev sched_in = {
	SIZE(posix_trace_sched_in), {
		F(posix_trace_sched_in, cpu, KF_U32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev wakeup = {
	SIZE(posix_trace_sched_wakeup), {
		F(posix_trace_sched_wakeup, waker_pid, KF_U32),
		F(posix_trace_sched_wakeup, waker_tid, KF_U32),
		F(posix_trace_sched_wakeup, flags, KF_X32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev fault = {
	SIZE(posix_trace_fault), {
		F(posix_trace_fault, address, KF_X64),
		F(posix_trace_fault, ip, KF_X64),
		F(posix_trace_fault, flags, KF_X32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev fork_ = {
	SIZE(posix_trace_process_fork), {
		F(posix_trace_process_fork, child_pid, KF_U32),
		F(posix_trace_process_fork, child_tid, KF_U32),
		F(posix_trace_process_fork, flags, KF_X32),
	}, NULL, 0, 0, 0,
};

static const struct ctf_kev exec = {
	SIZE(posix_trace_process_exec), {
		F(posix_trace_process_exec, old_tid, KF_U32),
		F(posix_trace_process_exec, name_len, KF_U32),
	}, "file", offsetof(struct posix_trace_process_exec, name_len), 0, 0,
};

/* The wait status in hex, as posix-trace report shows it (0x100: exit 1). */
static const struct ctf_kev pexit = {
	SIZE(posix_trace_process_exit), {
		F(posix_trace_process_exit, status, KF_X32),
	}, NULL, 0, 0, 0,
};

_Static_assert(sizeof(struct posix_trace_syscall_entry) <= KF_FIXED_MAX &&
	       sizeof(struct posix_trace_syscall_exit) <= KF_FIXED_MAX &&
	       sizeof(struct posix_trace_syscall) <= KF_FIXED_MAX &&
	       sizeof(struct posix_trace_signal_generate) <= KF_FIXED_MAX &&
	       sizeof(struct posix_trace_signal_deliver) <= KF_FIXED_MAX &&
	       sizeof(struct posix_trace_fault) <= KF_FIXED_MAX,
	       "a kernel event structure larger than KF_FIXED_MAX");

#define KID(id)	((id) - POSIX_TRACE_ID_KERNEL_FIRST)

static const struct ctf_kev *const layouts[] = {
	[KID(POSIX_TRACE_ID_SYSCALL_ENTRY)] = &entry,
	[KID(POSIX_TRACE_ID_SYSCALL_EXIT)] = &sys_exit,
	[KID(POSIX_TRACE_ID_SIGNAL_GENERATE)] = &generate,
	[KID(POSIX_TRACE_ID_SIGNAL_DELIVER)] = &deliver,
	[KID(POSIX_TRACE_ID_SCHED_OUT)] = &sched_out,
	[KID(POSIX_TRACE_ID_SCHED_IN)] = &sched_in,
	[KID(POSIX_TRACE_ID_SCHED_WAKEUP)] = &wakeup,
	[KID(POSIX_TRACE_ID_FAULT_MAJOR)] = &fault,
	[KID(POSIX_TRACE_ID_PROCESS_FORK)] = &fork_,
	[KID(POSIX_TRACE_ID_PROCESS_EXEC)] = &exec,
	[KID(POSIX_TRACE_ID_PROCESS_EXIT)] = &pexit,
	[KID(POSIX_TRACE_ID_FAULT_MINOR)] = &fault,
	[KID(POSIX_TRACE_ID_SYSCALL)] = &call,
};

const struct ctf_kev *ctf_kev_find(uint32_t id)
{
	if (id < POSIX_TRACE_ID_KERNEL_FIRST || id > POSIX_TRACE_ID_KERNEL_LAST)
		return NULL;
	return layouts[KID(id)];
}

static void meta_enum(struct cv_out *o, const struct kf_enum *en)
{
	const char *sep = "";

	cv_out_puts(o, "enum : uint32_t {");
	for (; en->name; en++, sep = ",")
		cv_out_printf(o, "%s %s = %u", sep, en->name, (unsigned int)en->value);
	cv_out_puts(o, " }");
}

void ctf_kev_meta(struct cv_out *o, const struct ctf_kev *k)
{
	const struct kf_field *f;

	for (f = k->f; f < k->f + KF_FIELDS && f->name; f++) {
		cv_out_puts(o, "\t\t");
		if (f->en)
			meta_enum(o, f->en);
		else
			cv_out_puts(o, types[f->type].tsdl);
		cv_out_printf(o, " %s", f->name);
		if (f->count > 1)
			cv_out_printf(o, "[%u]", (unsigned int)f->count);
		cv_out_puts(o, ";\n");
	}
	if (k->text)
		cv_out_printf(o, "\t\tuint32_t _%s_length;\n\t\tutf8_t %s[_%s_length];\n",
			      k->text, k->text, k->text);
}

/* The structure as a reader takes it: the first min(@len, size) bytes of
 * @data, zeros after (<linux/posix_trace_kernel.h>). */
static void fixed_part(unsigned char fixed[KF_FIXED_MAX], const struct ctf_kev *k,
		       const unsigned char *data, size_t len)
{
	memset(fixed, 0, KF_FIXED_MAX);
	memcpy(fixed, data, len < k->size ? len : k->size);
}

/* A __u32 of the structure, in the byte order it was recorded in (the
 * host's, as kdata.c reads it). */
static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The bytes of the text the data holds: what the length field claims,
 * no more than follows the structure; none without the text's flag. */
static size_t text_len(const struct ctf_kev *k, const unsigned char *fixed, size_t len)
{
	size_t rest = len > k->size ? len - k->size : 0;
	uint32_t claimed;

	if (!k->text || (k->text_flag && !(get32(fixed + k->flags_off) & k->text_flag)))
		return 0;
	claimed = get32(fixed + k->text_len_off);
	return claimed < rest ? claimed : rest;
}

static size_t fields_size(const struct ctf_kev *k)
{
	const struct kf_field *f;
	size_t n = 0;

	for (f = k->f; f < k->f + KF_FIELDS && f->name; f++)
		n += (size_t)types[f->type].size * f->count;
	return n;
}

size_t ctf_kev_size(const struct ctf_kev *k, const unsigned char *data, size_t len)
{
	unsigned char fixed[KF_FIXED_MAX];

	fixed_part(fixed, k, data, len);
	return fields_size(k) + (k->text ? 4 + text_len(k, fixed, len) : 0);
}

/* One field's elements at @p; the bytes written. */
static size_t put_field(unsigned char *p, const struct kf_field *f, const unsigned char *fixed)
{
	unsigned int size = types[f->type].size, i;

	for (i = 0; i < f->count; i++) {
		if (size == 8)
			ctf_put64(p + i * 8, get64(fixed + f->off + i * 8));
		else
			ctf_put32(p + i * 4, get32(fixed + f->off + i * 4));
	}
	return (size_t)size * f->count;
}

void ctf_kev_put(unsigned char *p, const struct ctf_kev *k, const unsigned char *data,
		 size_t len)
{
	unsigned char fixed[KF_FIXED_MAX];
	const struct kf_field *f;
	size_t n;

	fixed_part(fixed, k, data, len);
	for (f = k->f; f < k->f + KF_FIELDS && f->name; f++)
		p += put_field(p, f, fixed);
	if (!k->text)
		return;
	n = text_len(k, fixed, len);
	ctf_put32(p, (uint32_t)n);	/* n <= len <= LV_DATA_MAX */
	if (n)
		memcpy(p + 4, data + k->size, n);
}
