// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test of tools/posix-trace/kdata.c (run by tests/tools/cli.sh, with
 * ASan and UBSan where they build): the data of every kernel event type,
 * of every length from none to past its fixed part, in a buffer of
 * exactly that length (a log's data sits in a larger block, where a
 * sanitizer sees no overrun), all bytes 0xff so that every flag is set
 * and every string claims more than the data holds.  Decoding and both
 * outputs must stay inside the data; the fixed part must be the bytes
 * the data has, zeros after.  Every type the header names is decoded, as
 * text and as a JSON object; an exit also with the entry of its call.
 * Every system call of the table is shown with extreme arguments, every
 * kind of argument (sysflags.h) with extreme values, within SF_LEN.  On
 * x86-64, the names of flags and constants are checked against the
 * values of the host's own headers (the tool's tables are the kernel's
 * x86-64 values, written out).  Prints what is wrong, exits 1.
 */
#define _GNU_SOURCE	/* O_TMPFILE, F_OFD_GETLK, CLONE_*, AT_* */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/posix_trace.h>
#include "kdata.h"
#include "syscalls.h"
#include "sysflags.h"

#define MAX_LEN	(sizeof(struct posix_trace_syscall) + 16)	/* the largest */

static int fail;

/* The fixed part of @k: @n bytes of 0xff then zeros, up to @size. */
static void check_fixed(const struct kd_event *k, size_t size, size_t len)
{
	const unsigned char *p = (const unsigned char *)&k->u;
	size_t i, n = len < size ? len : size;

	for (i = 0; i < size; i++) {
		if (p[i] != (i < n ? 0xff : 0)) {
			printf("id %u, %zu bytes: byte %zu of the fixed part is %#x\n",
			       k->id, len, i, p[i]);
			fail = 1;
			return;
		}
	}
}

static size_t fixed_size(trace_event_id_t id)
{
	switch (id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		return sizeof(struct posix_trace_syscall_entry);
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		return sizeof(struct posix_trace_syscall_exit);
	case POSIX_TRACE_SYSCALL_NP:
		return sizeof(struct posix_trace_syscall);
	case POSIX_TRACE_SIGNAL_GENERATE_NP:
		return sizeof(struct posix_trace_signal_generate);
	case POSIX_TRACE_SIGNAL_DELIVER_NP:
		return sizeof(struct posix_trace_signal_deliver);
	case POSIX_TRACE_SCHED_OUT_NP:
		return sizeof(struct posix_trace_sched_out);
	case POSIX_TRACE_SCHED_IN_NP:
		return sizeof(struct posix_trace_sched_in);
	case POSIX_TRACE_SCHED_WAKEUP_NP:
		return sizeof(struct posix_trace_sched_wakeup);
	case POSIX_TRACE_PROCESS_FORK_NP:
		return sizeof(struct posix_trace_process_fork);
	case POSIX_TRACE_PROCESS_EXEC_NP:
		return sizeof(struct posix_trace_process_exec);
	case POSIX_TRACE_PROCESS_EXIT_NP:
		return sizeof(struct posix_trace_process_exit);
	case POSIX_TRACE_FAULT_MAJOR_NP:
	case POSIX_TRACE_FAULT_MINOR_NP:
		return sizeof(struct posix_trace_fault);
	}
	return 0;
}

/* Both outputs of @k: some text, and a JSON object with its "event";
 * @entry: the entry of an exit's call, or NULL. */
static void check_outputs(const struct kd_event *k, const struct kd_event *entry,
			  size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f) {
		perror("open_memstream");
		exit(1);
	}
	kd_text(f, k, entry);
	fflush(f);
	if (!n) {
		printf("id %u, %zu bytes: no text\n", k->id, len);
		fail = 1;
	}
	fputc('|', f);
	kd_json(f, k);
	fclose(f);
	if (!strstr(buf, "|{\"event\":\"") || buf[strlen(buf) - 1] != '}') {
		printf("id %u, %zu bytes: JSON %s\n", k->id, len, strchr(buf, '|') + 1);
		fail = 1;
	}
	free(buf);
}

/* An entry of every byte 0xff, its path claiming more than it holds:
 * what an exit of every length is shown with (the same call). */
static unsigned char entry_data[sizeof(struct posix_trace_syscall_entry) + 4];
static struct kd_event entry_ff;

/* Every length of every type, in a buffer of exactly that length. */
static void every_type(FILE *out)
{
	static const char *const names[] = POSIX_TRACE_KERNEL_NAMES;
	struct kd_event k;
	trace_event_id_t id;
	unsigned char *data;
	size_t len, size;

	memset(entry_data, 0xff, sizeof(entry_data));
	kd_decode(POSIX_TRACE_SYSCALL_ENTRY_NP, entry_data, sizeof(entry_data), &entry_ff);
	for (id = POSIX_TRACE_ID_KERNEL_FIRST - 1; id <= POSIX_TRACE_ID_KERNEL_LAST + 1; id++) {
		size = fixed_size(id);
		if (id >= POSIX_TRACE_ID_KERNEL_FIRST &&
		    id - POSIX_TRACE_ID_KERNEL_FIRST < sizeof(names) / sizeof(names[0]) &&
		    !names[id - POSIX_TRACE_ID_KERNEL_FIRST] != !size) {
			printf("id %u: %s by the header, %s here\n", id,
			       size ? "not named" : "named", size ? "decoded" : "not decoded");
			fail = 1;
		}
		for (len = 0; len <= MAX_LEN; len++) {
			data = malloc(len ? len : 1);
			if (!data) {
				perror("malloc");
				exit(1);
			}
			memset(data, 0xff, len);
			if (kd_decode(id, data, len, &k) != !!size) {
				printf("id %u: kernel event %s\n", id, size ? "not decoded" : "decoded");
				fail = 1;
			} else if (size) {
				check_fixed(&k, size, len);
				kd_text(out, &k, NULL);
				kd_json(out, &k);
				check_outputs(&k, NULL, len);
				check_outputs(&k, &entry_ff, len);
			}
			free(data);
		}
	}
}

/* Every call of the table, and numbers past it, x86-64 and 32-bit, with
 * arguments that set every flag, none, or look like ints: an entry alone
 * and an exit with it, as text and JSON, path or not. */
static void every_call(void)
{
	static const uint64_t vals[] = { 0, ~0ull, 0xffffffffull, 0x7fffffffull,
					 0x80000000ull, 0xffffff9cull, 0x42 };
	struct posix_trace_syscall_entry e = { 0 };
	struct posix_trace_syscall_exit x = { .ret = (uint64_t)-2 };
	struct posix_trace_syscall c = { .ret = (uint64_t)-2, .elapsed = 5 };
	struct kd_event ke, kx, kc, kce, kcx;
	unsigned int nr, v, i;

	for (nr = 0; nr < 600; nr++) {
		for (v = 0; v < 2 * sizeof(vals) / sizeof(vals[0]); v++) {
			e.nr = x.nr = nr;
			e.flags = (v & 1 ? POSIX_TRACE_SYSCALL_COMPAT : 0) |
				  (v & 2 ? POSIX_TRACE_SYSCALL_PATH : 0);
			x.flags = e.flags & POSIX_TRACE_SYSCALL_COMPAT;
			e.path_arg = v % 7;
			for (i = 0; i < 6; i++)
				e.args[i] = vals[(v / 2 + i) % (sizeof(vals) / sizeof(vals[0]))];
			kd_decode(POSIX_TRACE_SYSCALL_ENTRY_NP, (const unsigned char *)&e,
				  sizeof(e), &ke);
			kd_decode(POSIX_TRACE_SYSCALL_EXIT_NP, (const unsigned char *)&x,
				  sizeof(x), &kx);
			check_outputs(&ke, NULL, sizeof(e));
			check_outputs(&kx, &ke, sizeof(x));
			/* the same call in one record, then pending with its exit */
			c.nr = nr;
			c.flags = e.flags;
			c.path_arg = e.path_arg;
			memcpy(c.args, e.args, sizeof(c.args));
			kd_decode(POSIX_TRACE_SYSCALL_NP, (const unsigned char *)&c,
				  sizeof(c), &kc);
			check_outputs(&kc, NULL, sizeof(c));
			c.flags |= POSIX_TRACE_SYSCALL_PENDING;
			kd_decode(POSIX_TRACE_SYSCALL_NP, (const unsigned char *)&c,
				  sizeof(c), &kc);
			check_outputs(&kc, NULL, sizeof(c));
			kd_call_split(&kc, &kce, &kcx);
			check_outputs(&kx, &kce, sizeof(x));
		}
	}
}

/* Every kind with values that set every bit, none, one: the text fits
 * SF_LEN, and a kind's resolution is a kind. */
static void every_kind(void)
{
	static const uint64_t vals[] = { 0, ~0ull, 0xffffffffull, 0x40, 0x80000000ull,
					 0x540000ull | (30ull << 26), 0x11 };
	char buf[SF_LEN];
	unsigned int kind, i;

	for (kind = SF_HEX; kind <= SF_NONE; kind++) {
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			sf_format(buf, (enum sf_kind)kind, vals[i]);
			if (!buf[0] || strlen(buf) >= SF_LEN) {
				printf("kind %u, value %#llx: \"%s\"\n", kind,
				       (unsigned long long)vals[i], buf);
				fail = 1;
			}
			if (sf_resolve((enum sf_kind)kind, vals[i]) > SF_NONE) {
				printf("kind %u resolves to no kind\n", kind);
				fail = 1;
			}
		}
	}
}

/* A name the tool gives a value of the host's headers. */
struct host_value {
	enum sf_kind kind;
	uint64_t v;
	const char *want;
};

#define HV(kind, v, want) { kind, (uint64_t)(v), want }

/* On x86-64 the host's <fcntl.h>, <sys/mman.h>, <sched.h>, <signal.h>
 * and <unistd.h> have the kernel's values (but O_LARGEFILE, which glibc
 * makes 0 there): each name of the tables against them. */
static void host_values(void)
{
#ifdef __x86_64__
	static const struct host_value hv[] = {
		HV(SF_OFLAGS, O_RDONLY | O_CLOEXEC, "O_RDONLY|O_CLOEXEC"),
		HV(SF_OFLAGS, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND,
		   "O_WRONLY|O_CREAT|O_EXCL|O_NOCTTY|O_TRUNC|O_APPEND"),
		HV(SF_OFLAGS, O_RDWR | O_NONBLOCK | O_SYNC | O_ASYNC | O_DIRECT,
		   "O_RDWR|O_NONBLOCK|O_SYNC|O_ASYNC|O_DIRECT"),
		HV(SF_OFLAGS, O_DSYNC, "O_RDONLY|O_DSYNC"),
		HV(SF_OFLAGS, O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE"),
		HV(SF_OFLAGS, O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_PATH,
		   "O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_NOATIME|O_PATH"),
		HV(SF_OFLAGS, O_RDONLY | 0x40000000, "O_RDONLY|0x40000000"),
		HV(SF_OFLAGS, O_ACCMODE, "0x3"),
		HV(SF_OSTATUS, O_CLOEXEC | O_NONBLOCK, "O_NONBLOCK|O_CLOEXEC"),
		HV(SF_OSTATUS, 0, "0"),
		HV(SF_ACCESS, F_OK, "F_OK"),
		HV(SF_ACCESS, R_OK | W_OK | X_OK, "R_OK|W_OK|X_OK"),
		HV(SF_ACCESS, W_OK | 0x10, "W_OK|0x10"),
		HV(SF_PROT, PROT_NONE, "PROT_NONE"),
		HV(SF_PROT, PROT_READ | PROT_WRITE | PROT_EXEC, "PROT_READ|PROT_WRITE|PROT_EXEC"),
		HV(SF_PROT, PROT_READ | PROT_GROWSDOWN, "PROT_READ|PROT_GROWSDOWN"),
		HV(SF_PROT, PROT_GROWSUP, "PROT_GROWSUP"),
		HV(SF_MMAP, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		   "MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS"),
		HV(SF_MMAP, MAP_SHARED | MAP_32BIT | MAP_GROWSDOWN | MAP_DENYWRITE |
			    MAP_EXECUTABLE | MAP_LOCKED | MAP_NORESERVE,
		   "MAP_SHARED|MAP_32BIT|MAP_GROWSDOWN|MAP_DENYWRITE|MAP_EXECUTABLE|"
		   "MAP_LOCKED|MAP_NORESERVE"),
		HV(SF_MMAP, MAP_SHARED_VALIDATE | MAP_POPULATE | MAP_NONBLOCK | MAP_STACK |
			    MAP_SYNC | MAP_FIXED_NOREPLACE,
		   "MAP_SHARED_VALIDATE|MAP_POPULATE|MAP_NONBLOCK|MAP_STACK|MAP_SYNC|"
		   "MAP_FIXED_NOREPLACE"),
		HV(SF_MMAP, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT),
		   "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|MAP_HUGE_2MB"),
		HV(SF_MMAP, MAP_PRIVATE | MAP_HUGETLB | (30ull << MAP_HUGE_SHIFT),
		   "MAP_PRIVATE|MAP_HUGETLB|MAP_HUGE_1GB"),
		HV(SF_MMAP, MAP_ANONYMOUS, "MAP_ANONYMOUS"),
		HV(SF_FCNTL, F_DUPFD, "F_DUPFD"), HV(SF_FCNTL, F_GETFD, "F_GETFD"),
		HV(SF_FCNTL, F_SETFD, "F_SETFD"), HV(SF_FCNTL, F_GETFL, "F_GETFL"),
		HV(SF_FCNTL, F_SETFL, "F_SETFL"), HV(SF_FCNTL, F_GETLK, "F_GETLK"),
		HV(SF_FCNTL, F_SETLK, "F_SETLK"), HV(SF_FCNTL, F_SETLKW, "F_SETLKW"),
		HV(SF_FCNTL, F_SETOWN, "F_SETOWN"), HV(SF_FCNTL, F_GETOWN, "F_GETOWN"),
		HV(SF_FCNTL, F_SETSIG, "F_SETSIG"), HV(SF_FCNTL, F_GETSIG, "F_GETSIG"),
		HV(SF_FCNTL, F_SETOWN_EX, "F_SETOWN_EX"), HV(SF_FCNTL, F_GETOWN_EX, "F_GETOWN_EX"),
		HV(SF_FCNTL, F_OFD_GETLK, "F_OFD_GETLK"), HV(SF_FCNTL, F_OFD_SETLK, "F_OFD_SETLK"),
		HV(SF_FCNTL, F_OFD_SETLKW, "F_OFD_SETLKW"),
		HV(SF_FCNTL, F_SETLEASE, "F_SETLEASE"), HV(SF_FCNTL, F_GETLEASE, "F_GETLEASE"),
		HV(SF_FCNTL, F_NOTIFY, "F_NOTIFY"),
		HV(SF_FCNTL, F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC"),
		HV(SF_FCNTL, F_SETPIPE_SZ, "F_SETPIPE_SZ"),
		HV(SF_FCNTL, F_GETPIPE_SZ, "F_GETPIPE_SZ"),
		HV(SF_FCNTL, F_ADD_SEALS, "F_ADD_SEALS"), HV(SF_FCNTL, F_GET_SEALS, "F_GET_SEALS"),
		HV(SF_FCNTL, F_GET_RW_HINT, "F_GET_RW_HINT"),
		HV(SF_FCNTL, F_SET_RW_HINT, "F_SET_RW_HINT"),
		HV(SF_FCNTL, F_GET_FILE_RW_HINT, "F_GET_FILE_RW_HINT"),
		HV(SF_FCNTL, F_SET_FILE_RW_HINT, "F_SET_FILE_RW_HINT"),
		HV(SF_FCNTL, 999, "999"),
		HV(SF_FDFLAG, FD_CLOEXEC, "FD_CLOEXEC"),
		HV(SF_WHENCE, SEEK_SET, "SEEK_SET"), HV(SF_WHENCE, SEEK_CUR, "SEEK_CUR"),
		HV(SF_WHENCE, SEEK_END, "SEEK_END"), HV(SF_WHENCE, SEEK_DATA, "SEEK_DATA"),
		HV(SF_WHENCE, SEEK_HOLE, "SEEK_HOLE"), HV(SF_WHENCE, 7, "7"),
		HV(SF_SIGHOW, SIG_BLOCK, "SIG_BLOCK"), HV(SF_SIGHOW, SIG_UNBLOCK, "SIG_UNBLOCK"),
		HV(SF_SIGHOW, SIG_SETMASK, "SIG_SETMASK"),
		HV(SF_DIRFD, (uint32_t)AT_FDCWD, "AT_FDCWD"), HV(SF_DIRFD, AT_FDCWD, "AT_FDCWD"),
		HV(SF_DIRFD, 3, "3"), HV(SF_FD, 0xffffffff, "-1"),
		HV(SF_AT, AT_SYMLINK_NOFOLLOW | AT_SYMLINK_FOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH,
		   "AT_SYMLINK_NOFOLLOW|AT_SYMLINK_FOLLOW|AT_NO_AUTOMOUNT|AT_EMPTY_PATH"),
		HV(SF_AT, AT_STATX_FORCE_SYNC | AT_RECURSIVE, "AT_STATX_FORCE_SYNC|AT_RECURSIVE"),
		HV(SF_AT, AT_STATX_DONT_SYNC, "AT_STATX_DONT_SYNC"),
		HV(SF_UNLINKAT, AT_REMOVEDIR, "AT_REMOVEDIR"),
		HV(SF_ACCESSAT, AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH,
		   "AT_SYMLINK_NOFOLLOW|AT_EACCESS|AT_EMPTY_PATH"),
		HV(SF_CLONE, CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD,
		   "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD"),
		HV(SF_CLONE, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			     CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID,
		   "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
		   "CLONE_SETTLS|CLONE_PARENT_SETTID"),
		HV(SF_CLONE, CLONE_PIDFD | CLONE_PTRACE | CLONE_VFORK | CLONE_PARENT | CLONE_NEWNS |
			     CLONE_DETACHED | CLONE_UNTRACED,
		   "CLONE_PIDFD|CLONE_PTRACE|CLONE_VFORK|CLONE_PARENT|CLONE_NEWNS|"
		   "CLONE_DETACHED|CLONE_UNTRACED"),
		HV(SF_CLONE, CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
			     CLONE_NEWPID | CLONE_NEWNET | (uint32_t)CLONE_IO,
		   "CLONE_NEWCGROUP|CLONE_NEWUTS|CLONE_NEWIPC|CLONE_NEWUSER|CLONE_NEWPID|"
		   "CLONE_NEWNET|CLONE_IO"),
		HV(SF_SIGNAL, SIGHUP, "SIGHUP"), HV(SF_SIGNAL, SIGUSR1, "SIGUSR1"),
		HV(SF_SIGNAL, SIGTERM, "SIGTERM"), HV(SF_SIGNAL, SIGCHLD, "SIGCHLD"),
		HV(SF_SIGNAL, SIGSYS, "SIGSYS"), HV(SF_SIGNAL, 0, "0"),
		HV(SF_MODE, 0644, "0644"), HV(SF_MODE, 0, "0"),
	};
	char buf[SF_LEN];
	size_t i;

	for (i = 0; i < sizeof(hv) / sizeof(hv[0]); i++) {
		sf_format(buf, hv[i].kind, hv[i].v);
		if (strcmp(buf, hv[i].want)) {
			printf("kind %u, value %#llx: \"%s\", not \"%s\"\n", hv[i].kind,
			       (unsigned long long)hv[i].v, buf, hv[i].want);
			fail = 1;
		}
	}
#endif
}

int main(void)
{
	FILE *out = fopen("/dev/null", "w");

	if (!out)
		return perror("/dev/null"), 1;
	every_type(out);
	every_call();
	every_kind();
	host_values();
	fclose(out);
	return fail;
}
