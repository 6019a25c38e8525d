/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A seccomp filter on the calling thread only, for the tests that prove a
 * path makes no system call.  Defined in st_seccomp.c.
 */
#ifndef ST_SECCOMP_H
#define ST_SECCOMP_H

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <linux/types.h>

/* Undefined on an architecture without one: the tests then skip. */
#if defined(__x86_64__)
#define ST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define ST_AUDIT_ARCH AUDIT_ARCH_I386
#endif

#define ST_SECCOMP_MAX	64

/*
 * System calls numbered in @nrs get @listed (a SECCOMP_RET_* action), the
 * others @other; a foreign architecture is killed, x32 numbers get @other
 * unless that is ALLOW, then they are killed.  0 or an errno.
 */
int st_seccomp_thread(const int *nrs, unsigned int nr, __u32 listed,
		      __u32 other);

#endif /* ST_SECCOMP_H */
