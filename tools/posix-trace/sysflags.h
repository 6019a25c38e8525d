/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of the constants and flags system calls take, for the
 * arguments posix-trace report shows: AT_FDCWD, O_RDONLY|O_CLOEXEC,
 * PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, F_SETFL, SEEK_END,
 * CLONE_VM|...|SIGCHLD, signal names.  The values are the kernel's for
 * x86-64 (its uapi headers), not the host's <fcntl.h>: a log may come
 * from another machine.  Bits without a name end the list in hexadecimal
 * (O_RDONLY|0x40000000), a constant without one is its number.
 */
#ifndef PT_SYSFLAGS_H
#define PT_SYSFLAGS_H

#include <stdbool.h>
#include <stdint.h>

/* What an argument register holds, and so how it reads. */
enum sf_kind {
	SF_HEX,		/* a number, in hexadecimal ("0" for 0) */
	SF_PTR,		/* an address: "NULL" or hexadecimal */
	SF_INT,		/* an int: the low 32 bits, signed */
	SF_LONG,	/* a signed 64-bit number */
	SF_ULONG,	/* an unsigned 64-bit number (a size) */
	SF_FD,		/* a file descriptor, as SF_INT */
	SF_DIRFD,	/* AT_FDCWD, or a file descriptor */
	SF_PATH,	/* a path: the record's string when it has it, else the address */
	SF_MODE,	/* file mode bits, in octal */
	SF_OMODE,	/* open()'s mode: SF_MODE after flags with O_CREAT or O_TMPFILE */
	SF_OFLAGS,	/* open() flags: the access mode first, O_RDONLY|O_CLOEXEC */
	SF_OSTATUS,	/* O_* flags without an access mode (pipe2, dup3, F_SETFL) */
	SF_ACCESS,	/* access() mode: F_OK, R_OK|W_OK|X_OK */
	SF_PROT,	/* PROT_READ|PROT_WRITE, PROT_NONE */
	SF_MMAP,	/* mmap() flags: MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED */
	SF_FCNTL,	/* fcntl() command: F_GETFL... */
	SF_FCNTLARG,	/* fcntl()'s third argument: as the command says */
	SF_FDFLAG,	/* FD_CLOEXEC */
	SF_WHENCE,	/* lseek(): SEEK_SET... */
	SF_CLONE,	/* clone() flags, the exit signal last: CLONE_VM|SIGCHLD */
	SF_SIGNAL,	/* a signal number: SIGTERM */
	SF_SIGHOW,	/* rt_sigprocmask(): SIG_BLOCK... */
	SF_AT,		/* AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH... */
	SF_UNLINKAT,	/* unlinkat(): AT_REMOVEDIR */
	SF_ACCESSAT,	/* faccessat2(): AT_EACCESS... */
	SF_NONE,	/* not shown: the call ignores the argument */
};

/*
 * The kind of an argument described as @kind whose previous argument is
 * @prev: open()'s mode is used only with O_CREAT or O_TMPFILE, the third
 * argument of fcntl() is what its command makes it (none for F_GETFL);
 * SF_NONE when the call does not use it.  Any other kind is itself.
 */
enum sf_kind sf_resolve(enum sf_kind kind, uint64_t prev);

/*
 * @v as an argument of @kind in @buf (SF_LEN bytes, always terminated):
 * true when that is a name (constants, flags, a mode in octal), false
 * when it is a number as any other (an fd, a size, an address, an
 * unknown constant, flags 0 without a name).  SF_PATH writes the address;
 * SF_NONE and the dependent kinds (SF_OMODE, SF_FCNTLARG, to resolve
 * first) write hexadecimal.
 */
#define SF_LEN 512
bool sf_format(char *buf, enum sf_kind kind, uint64_t v);

/* "SIGUSR1" for 10, "SIGRTMIN+3" for 35 (the kernel's numbers: SIGRTMIN
 * is 32, not glibc's 34), in @buf; NULL for a number that is no signal. */
#define SF_SIG_LEN sizeof("SIGRTMIN+32")
const char *sf_signal_name(char buf[SF_SIG_LEN], uint32_t sig);

#endif
