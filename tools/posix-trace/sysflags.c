// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names of system call constants and flags: see sysflags.h.  Each kind
 * is a table; the values are x86-64's, from the kernel's uapi headers
 * (asm-generic/fcntl.h, mman-common.h, linux/fcntl.h, linux/sched.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sysflags.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A name for a value (a constant), or for bits (flags: all of them set). */
struct sf_name {
	uint64_t v;
	const char *name;
};

/*
 * Flags: a field named first, whose values are not bits (the access mode
 * of open(), the type of mmap()), then the names of bits in the table's
 * order, a name of a value wider than a bit before the names of its bits
 * (O_SYNC before O_DSYNC), then whatever has no name, in hexadecimal.
 */
struct sf_flags {
	uint64_t field;			/* its mask; 0 for none */
	const struct sf_name *fvals;
	size_t nfvals;
	const struct sf_name *bits;
	size_t nbits;
	const char *zero;		/* the name of 0, if it has one */
};

static const struct sf_name accmode[] = {
	{ 00, "O_RDONLY" }, { 01, "O_WRONLY" }, { 02, "O_RDWR" },
};

static const struct sf_name obits[] = {
	{ 0100, "O_CREAT" }, { 0200, "O_EXCL" }, { 0400, "O_NOCTTY" },
	{ 01000, "O_TRUNC" }, { 02000, "O_APPEND" }, { 04000, "O_NONBLOCK" },
	{ 04010000, "O_SYNC" }, { 010000, "O_DSYNC" }, { 020000, "O_ASYNC" },
	{ 040000, "O_DIRECT" }, { 0100000, "O_LARGEFILE" },
	{ 020200000, "O_TMPFILE" }, { 0200000, "O_DIRECTORY" },
	{ 0400000, "O_NOFOLLOW" }, { 01000000, "O_NOATIME" },
	{ 02000000, "O_CLOEXEC" }, { 010000000, "O_PATH" },
};
#define O_CREAT_V	0100
#define O_TMPFILE_BIT	020000000	/* __O_TMPFILE: O_TMPFILE without O_DIRECTORY */

static const struct sf_flags oflags = { 03, accmode, N(accmode), obits, N(obits), NULL };
static const struct sf_flags ostatus = { 0, NULL, 0, obits, N(obits), NULL };

static const struct sf_name access_bits[] = { { 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" } };
static const struct sf_flags access_mode = { 0, NULL, 0, access_bits, N(access_bits), "F_OK" };

static const struct sf_name prot_bits[] = {
	{ 0x1, "PROT_READ" }, { 0x2, "PROT_WRITE" }, { 0x4, "PROT_EXEC" },
	{ 0x8, "PROT_SEM" }, { 0x01000000, "PROT_GROWSDOWN" },
	{ 0x02000000, "PROT_GROWSUP" },
};
static const struct sf_flags prot = { 0, NULL, 0, prot_bits, N(prot_bits), "PROT_NONE" };

static const struct sf_name map_types[] = {
	{ 0x01, "MAP_SHARED" }, { 0x02, "MAP_PRIVATE" }, { 0x03, "MAP_SHARED_VALIDATE" },
};
static const struct sf_name map_bits[] = {
	{ 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" }, { 0x800, "MAP_DENYWRITE" },
	{ 0x1000, "MAP_EXECUTABLE" }, { 0x2000, "MAP_LOCKED" },
	{ 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" },
	{ 0x40000, "MAP_HUGETLB" }, { 0x80000, "MAP_SYNC" },
	{ 0x100000, "MAP_FIXED_NOREPLACE" }, { 0x4000000, "MAP_UNINITIALIZED" },
};
static const struct sf_flags mmap_flags = { 0x0f, map_types, N(map_types), map_bits,
					    N(map_bits), NULL };
#define MAP_HUGETLB_V	0x40000
#define MAP_HUGE_SHIFT	26		/* log2 of the page size, with MAP_HUGETLB */
#define MAP_HUGE_MASK	0x3fu

/* The exit signal is clone()'s low byte (CSIGNAL), not a flag. */
static const struct sf_name clone_bits[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" },
	{ 0x400, "CLONE_FILES" }, { 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" },
	{ 0x2000, "CLONE_PTRACE" }, { 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" },
	{ 0x10000, "CLONE_THREAD" }, { 0x20000, "CLONE_NEWNS" },
	{ 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x400000, "CLONE_DETACHED" }, { 0x800000, "CLONE_UNTRACED" },
	{ 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" },
	{ 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" },
};
static const struct sf_flags clone_flags = { 0, NULL, 0, clone_bits, N(clone_bits), NULL };
/* clone()'s low byte: the exit signal (CLONE_NEWTIME, 0x80, is a flag of
 * clone3() and unshare() only). */
#define CSIGNAL_MASK	0xffu

static const struct sf_name fdflag_bits[] = { { 1, "FD_CLOEXEC" } };
static const struct sf_flags fdflag = { 0, NULL, 0, fdflag_bits, N(fdflag_bits), NULL };

/* AT_EACCESS and AT_REMOVEDIR share 0x200: each call has its table. */
static const struct sf_name at_bits[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" },
	{ 0x2000, "AT_STATX_FORCE_SYNC" }, { 0x4000, "AT_STATX_DONT_SYNC" },
	{ 0x8000, "AT_RECURSIVE" },
};
static const struct sf_flags at = { 0, NULL, 0, at_bits, N(at_bits), NULL };
static const struct sf_name unlinkat_bits[] = { { 0x200, "AT_REMOVEDIR" } };
static const struct sf_flags unlinkat = { 0, NULL, 0, unlinkat_bits, N(unlinkat_bits), NULL };
static const struct sf_name accessat_bits[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_EACCESS" }, { 0x1000, "AT_EMPTY_PATH" },
};
static const struct sf_flags accessat = { 0, NULL, 0, accessat_bits, N(accessat_bits), NULL };

static const struct sf_name whence[] = {
	{ 0, "SEEK_SET" }, { 1, "SEEK_CUR" }, { 2, "SEEK_END" }, { 3, "SEEK_DATA" },
	{ 4, "SEEK_HOLE" },
};

static const struct sf_name sighow[] = {
	{ 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" },
};

/* fcntl() commands, and what each makes of the third argument. */
static const struct {
	uint32_t cmd;
	const char *name;
	enum sf_kind arg;
} fcntls[] = {
	{ 0, "F_DUPFD", SF_FD }, { 1, "F_GETFD", SF_NONE }, { 2, "F_SETFD", SF_FDFLAG },
	{ 3, "F_GETFL", SF_NONE }, { 4, "F_SETFL", SF_OSTATUS }, { 5, "F_GETLK", SF_PTR },
	{ 6, "F_SETLK", SF_PTR }, { 7, "F_SETLKW", SF_PTR }, { 8, "F_SETOWN", SF_INT },
	{ 9, "F_GETOWN", SF_NONE }, { 10, "F_SETSIG", SF_SIGNAL }, { 11, "F_GETSIG", SF_NONE },
	{ 15, "F_SETOWN_EX", SF_PTR }, { 16, "F_GETOWN_EX", SF_PTR },
	{ 17, "F_GETOWNER_UIDS", SF_PTR }, { 36, "F_OFD_GETLK", SF_PTR },
	{ 37, "F_OFD_SETLK", SF_PTR }, { 38, "F_OFD_SETLKW", SF_PTR },
	{ 1024, "F_SETLEASE", SF_INT }, { 1025, "F_GETLEASE", SF_NONE },
	{ 1026, "F_NOTIFY", SF_HEX }, { 1030, "F_DUPFD_CLOEXEC", SF_FD },
	{ 1031, "F_SETPIPE_SZ", SF_INT }, { 1032, "F_GETPIPE_SZ", SF_NONE },
	{ 1033, "F_ADD_SEALS", SF_HEX }, { 1034, "F_GET_SEALS", SF_NONE },
	{ 1035, "F_GET_RW_HINT", SF_PTR }, { 1036, "F_SET_RW_HINT", SF_PTR },
	{ 1037, "F_GET_FILE_RW_HINT", SF_PTR }, { 1038, "F_SET_FILE_RW_HINT", SF_PTR },
};

#define AT_FDCWD_V	(-100)

/* The kernel's signal numbers: x86-64's, as the system calls'. */
#define SIG_RTMIN	32
#define SIG_MAX		64
static const char *const signals[SIG_RTMIN] = {
	[1] = "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

const char *sf_signal_name(char buf[SF_SIG_LEN], uint32_t sig)
{
	if (sig > 0 && sig < SIG_RTMIN)
		return signals[sig];
	if (sig == SIG_RTMIN)
		return "SIGRTMIN";
	if (sig > SIG_RTMIN && sig <= SIG_MAX) {
		snprintf(buf, SF_SIG_LEN, "SIGRTMIN+%u", (unsigned int)(sig - SIG_RTMIN));
		return buf;
	}
	return NULL;
}

/* A string that grows up to SF_LEN bytes, cut short there if ever. */
struct out {
	char *buf;
	size_t len;
};

static void add(struct out *o, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @s at the end of @o, as much of it as fits. */
static void put(struct out *o, const char *s)
{
	size_t n = strlen(s), room = SF_LEN - 1 - o->len;

	if (n > room)
		n = room;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* An item, after @sep if it is not the first. */
static void add(struct out *o, const char *sep, const char *fmt, ...)
{
	char item[SF_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	if (o->len)
		put(o, sep);
	put(o, item);
}

static const char *name_of(const struct sf_name *t, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].v == v)
			return t[i].name;
	}
	return NULL;
}

/*
 * @v as flags of @t into @o (empty), then @extra if not NULL: a name
 * that took bits out of @v before (the exit signal of clone(), the huge
 * page size of mmap()).  True when anything had a name.
 */
static bool flags(struct out *o, const struct sf_flags *t, uint64_t v, const char *extra)
{
	const char *field = t->field ? name_of(t->fvals, t->nfvals, v & t->field) : NULL;
	bool named = field || extra;
	size_t i;

	if (field) {
		add(o, "|", "%s", field);
		v &= ~t->field;
	}
	for (i = 0; i < t->nbits; i++) {
		if ((v & t->bits[i].v) == t->bits[i].v) {
			add(o, "|", "%s", t->bits[i].name);
			v &= ~t->bits[i].v;
			named = true;
		}
	}
	if (extra)
		add(o, "|", "%s", extra);
	if (v) {
		add(o, "|", "%#" PRIx64, v);
	} else if (!o->len) {
		/* No bit set: PROT_NONE, F_OK, or plain 0. */
		add(o, "", "%s", t->zero ? t->zero : "0");
		return t->zero;
	}
	return named;
}

/* mmap()'s page size of MAP_HUGETLB, which takes bits 26..31 then
 * (MAP_UNINITIALIZED's, without MAP_HUGETLB): "MAP_HUGE_2MB". */
static bool mmap_format(struct out *o, uint64_t v)
{
	uint64_t shift = (v >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
	char huge[32];

	if (!(v & MAP_HUGETLB_V) || !shift)
		return flags(o, &mmap_flags, v, NULL);
	if (shift >= 10 && shift < 20)
		snprintf(huge, sizeof(huge), "MAP_HUGE_%uKB", 1u << (shift - 10));
	else if (shift >= 20 && shift < 30)
		snprintf(huge, sizeof(huge), "MAP_HUGE_%uMB", 1u << (shift - 20));
	else if (shift >= 30 && shift < 40)
		snprintf(huge, sizeof(huge), "MAP_HUGE_%uGB", 1u << (shift - 30));
	else
		snprintf(huge, sizeof(huge), "%u<<MAP_HUGE_SHIFT", (unsigned int)shift);
	v &= ~((uint64_t)MAP_HUGE_MASK << MAP_HUGE_SHIFT);
	return flags(o, &mmap_flags, v, huge);
}

/* clone(): the flags, then the exit signal ("SIGCHLD", or its number). */
static bool clone_format(struct out *o, uint64_t v)
{
	uint32_t sig = (uint32_t)(v & CSIGNAL_MASK);
	char buf[SF_SIG_LEN], num[16];
	const char *name;

	if (!sig)
		return flags(o, &clone_flags, v, NULL);
	name = sf_signal_name(buf, sig);
	if (!name) {
		snprintf(num, sizeof(num), "%u", (unsigned int)sig);
		name = num;
	}
	return flags(o, &clone_flags, v & ~(uint64_t)CSIGNAL_MASK, name);
}

/* @name, or the number @v is when it has none: an int, or all of the
 * register in hexadecimal when more than an int is set there. */
static bool name_or_number(struct out *o, const char *name, uint64_t v)
{
	if (name)
		add(o, "", "%s", name);
	else if ((uint32_t)v == v || (int64_t)v == (int32_t)v)
		add(o, "", "%" PRId32, (int32_t)v);
	else
		add(o, "", "%#" PRIx64, v);
	return name;
}

/* A constant of @t. */
static bool constant(struct out *o, const struct sf_name *t, size_t n, uint64_t v)
{
	return name_or_number(o, (uint32_t)v == v ? name_of(t, n, v) : NULL, v);
}

static bool fcntl_cmd(struct out *o, uint64_t v)
{
	size_t i;

	for (i = 0; i < N(fcntls); i++) {
		if (fcntls[i].cmd == v)
			return name_or_number(o, fcntls[i].name, v);
	}
	return name_or_number(o, NULL, v);
}

enum sf_kind sf_resolve(enum sf_kind kind, uint64_t prev)
{
	size_t i;

	if (kind == SF_OMODE)
		return prev & (O_CREAT_V | O_TMPFILE_BIT) ? SF_MODE : SF_NONE;
	if (kind != SF_FCNTLARG)
		return kind;
	for (i = 0; i < N(fcntls); i++) {
		if (fcntls[i].cmd == prev)
			return fcntls[i].arg;
	}
	return SF_HEX;
}

/* The kinds that are numbers, as the number they are. */
static void number(struct out *o, enum sf_kind kind, uint64_t v)
{
	switch (kind) {
	case SF_INT:
	case SF_FD:
	case SF_DIRFD:
		/* An int argument: the kernel reads the low 32 bits. */
		add(o, "", "%" PRId32, (int32_t)v);
		break;
	case SF_LONG:
		add(o, "", "%" PRId64, (int64_t)v);
		break;
	case SF_ULONG:
		add(o, "", "%" PRIu64, v);
		break;
	case SF_PTR:
	case SF_PATH:
		if (!v) {
			add(o, "", "NULL");
			break;
		}
		/* fall through */
	default:
		add(o, "", "%#" PRIx64, v);
	}
}

static bool signal_arg(struct out *o, uint64_t v)
{
	char buf[SF_SIG_LEN];

	return name_or_number(o, (uint32_t)v == v ? sf_signal_name(buf, (uint32_t)v) : NULL, v);
}

static bool named(struct out *o, enum sf_kind kind, uint64_t v)
{
	switch (kind) {
	case SF_DIRFD:
		if ((int32_t)v != AT_FDCWD_V)
			break;
		add(o, "", "AT_FDCWD");
		return true;
	case SF_MODE:
		add(o, "", "%#" PRIo64, v);
		return true;
	case SF_OFLAGS: return flags(o, &oflags, v, NULL);
	case SF_OSTATUS: return flags(o, &ostatus, v, NULL);
	case SF_ACCESS: return flags(o, &access_mode, v, NULL);
	case SF_PROT: return flags(o, &prot, v, NULL);
	case SF_MMAP: return mmap_format(o, v);
	case SF_FCNTL: return fcntl_cmd(o, v);
	case SF_FDFLAG: return flags(o, &fdflag, v, NULL);
	case SF_WHENCE: return constant(o, whence, N(whence), v);
	case SF_CLONE: return clone_format(o, v);
	case SF_SIGNAL: return signal_arg(o, v);
	case SF_SIGHOW: return constant(o, sighow, N(sighow), v);
	case SF_AT: return flags(o, &at, v, NULL);
	case SF_UNLINKAT: return flags(o, &unlinkat, v, NULL);
	case SF_ACCESSAT: return flags(o, &accessat, v, NULL);
	default:
		break;
	}
	number(o, kind, v);
	return false;
}

bool sf_format(char *buf, enum sf_kind kind, uint64_t v)
{
	struct out o = { buf, 0 };

	buf[0] = '\0';
	return named(&o, kind, v);
}
