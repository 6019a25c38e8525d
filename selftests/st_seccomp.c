// SPDX-License-Identifier: GPL-2.0
/*
 * st_seccomp.c - the selftests' per-thread seccomp filter (declared in
 * st_seccomp.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "st_seccomp.h"

int st_seccomp_thread(const int *nrs, unsigned int nr, __u32 listed,
		      __u32 other)
{
	struct sock_filter f[8 + 2 * ST_SECCOMP_MAX];
	struct sock_fprog prog;
	unsigned int i, n = 0;

	if (nr > ST_SECCOMP_MAX)
		return EINVAL;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			ST_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32 system call numbers. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
			0x40000000, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			other == SECCOMP_RET_ALLOW ? SECCOMP_RET_KILL_PROCESS : other);
#endif
	for (i = 0; i < nr; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				nrs[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, listed);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, other);
	prog.len = n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return errno;
	return 0;
}

