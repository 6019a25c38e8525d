// SPDX-License-Identifier: GPL-2.0
/*
 * Class SYSCALL: an entry record when a traced thread enters a system call
 * (number, the six argument registers, and for calls that name a file
 * the path, copied without faulting) and an exit record with the return
 * register and the path again (<linux/posix_trace_kernel.h>): at entry a
 * path the thread never touched is not resident, and a probe may not
 * fault it in; at exit the call has read it.
 *
 * Probe prototypes (include/trace/events/syscalls.h), 3.x .. 6.x:
 *   sys_enter(struct pt_regs *regs, long id)
 *   sys_exit(struct pt_regs *regs, long ret)
 */
#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "kev.h"

/*
 * Which argument of a native x86-64 call is a path, or -1.  The open,
 * exec and stat families and the calls that create, remove or look up a
 * name: what a reader of the report wants to see by name.
 */
static int pt_sys_path_arg(long nr)
{
#ifdef CONFIG_X86_64
	switch (nr) {
	case __NR_open: case __NR_stat: case __NR_lstat: case __NR_access:
	case __NR_execve: case __NR_truncate: case __NR_chdir:
	case __NR_rename: case __NR_mkdir: case __NR_rmdir: case __NR_creat:
	case __NR_link: case __NR_unlink: case __NR_symlink:
	case __NR_readlink: case __NR_chmod: case __NR_chown:
	case __NR_lchown: case __NR_mknod: case __NR_statfs: case __NR_chroot:
		return 0;
	case __NR_openat: case __NR_mkdirat: case __NR_mknodat:
	case __NR_fchownat: case __NR_newfstatat: case __NR_unlinkat:
	case __NR_renameat: case __NR_linkat: case __NR_readlinkat:
	case __NR_fchmodat: case __NR_faccessat: case __NR_utimensat:
	case __NR_execveat: case __NR_statx: case __NR_openat2:
	case __NR_faccessat2: case __NR_renameat2:
		return 1;
	case __NR_symlinkat:
		return 2;
	}
#endif
	return -1;
}

/*
 * Copy the NUL-terminated string at @src into @dst (at most
 * POSIX_TRACE_SYSCALL_PATH_MAX bytes, no NUL stored) without faulting:
 * probes run with preemption disabled.  One copy per page touched, two
 * at most.  Sets PATH, PATH_TRUNC or PATH_FAULT in @flags.
 */
static u32 pt_sys_copy_path(char *dst, unsigned long src, u32 *flags)
{
	u32 len = 0;

	while (len < POSIX_TRACE_SYSCALL_PATH_MAX) {
		size_t chunk = min_t(size_t, POSIX_TRACE_SYSCALL_PATH_MAX - len,
				     PAGE_SIZE - offset_in_page(src + len));
		char *nul;

		if (copy_from_user_nofault(dst + len,
					   (const void __user *)(src + len), chunk)) {
			/* not resident: what was copied, if anything */
			*flags |= len ? POSIX_TRACE_SYSCALL_PATH |
				 POSIX_TRACE_SYSCALL_PATH_TRUNC :
				 POSIX_TRACE_SYSCALL_PATH_FAULT;
			return len;
		}
		nul = memchr(dst + len, 0, chunk);
		if (nul) {
			*flags |= POSIX_TRACE_SYSCALL_PATH;
			return nul - dst;
		}
		len += chunk;
	}
	*flags |= POSIX_TRACE_SYSCALL_PATH | POSIX_TRACE_SYSCALL_PATH_TRUNC;
	return len;
}

struct pt_sys_entry_data {
	struct posix_trace_syscall_entry e;
	char path[POSIX_TRACE_SYSCALL_PATH_MAX];
};

/*
 * The data are built on the stack, which the kernel clears for every call
 * (CONFIG_INIT_STACK_ALL_ZERO): 320 bytes here, most of them a path that
 * few calls have.  Only what is written is recorded (data_len), so the
 * clearing is skipped.  The record is made out of line: the probe itself
 * (pt_kev_sys_enter()), which every call of every task reaches while the
 * class is on, only checks the process, without this frame (its stack
 * canary, the event's initialisation).
 */
static noinline void pt_sys_enter_record(struct pt_regs *regs, long id)
{
	struct pt_sys_entry_data d __uninitialized;
	unsigned long args[6] __uninitialized;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SYSCALL_ENTRY,
		.from_task = true,
		.data = &d,
	};
	struct pt_proc *proc;
	unsigned int i;
	int path;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	memset(&d.e, 0, sizeof(d.e));
	d.e.nr = (u32)id;
	syscall_get_arguments(current, regs, args);
	for (i = 0; i < ARRAY_SIZE(args); i++)
		d.e.args[i] = args[i];
	path = -1;
	if (in_compat_syscall())
		d.e.flags |= POSIX_TRACE_SYSCALL_COMPAT;
	else
		path = pt_sys_path_arg(id);
	if (path >= 0) {
		d.e.path_arg = path;
		d.e.path_len = pt_sys_copy_path(d.path, args[path], &d.e.flags);
	}
	ev.data_len = sizeof(d.e) + d.e.path_len;
	pt_kev_emit(proc, POSIX_TRACE_KCLASS_SYSCALL, &ev);
out:
	rcu_read_unlock();
}

struct pt_sys_exit_data {
	struct posix_trace_syscall_exit x;
	char path[POSIX_TRACE_SYSCALL_PATH_MAX];
};

/* After a successful exec the registers are the new image's. */
static bool pt_sys_is_exec(long nr)
{
#ifdef CONFIG_X86_64
	return nr == __NR_execve || nr == __NR_execveat;
#else
	return false;
#endif
}

void pt_kev_sys_enter(void *data, struct pt_regs *regs, long id)
{
	/* Every call of every task comes here while the class is on. */
	if (pt_proc_kev_maybe(task_tgid(current)))
		pt_sys_enter_record(regs, id);
}

/* As pt_sys_enter_record(). */
static noinline void pt_sys_exit_record(struct pt_regs *regs, long ret)
{
	struct pt_sys_exit_data d __uninitialized;	/* as at entry */
	unsigned long args[6] __uninitialized;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SYSCALL_EXIT,
		.from_task = true,
		.data = &d,
	};
	struct pt_proc *proc;
	int path = -1;
	long nr;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	nr = syscall_get_nr(current, regs);
	/*
	 * An exec that failed after its point of no return: the image (and
	 * perhaps set-ID credentials) are the new ones, but the exec probe
	 * never ran, so nothing marked the process; it dies with a fatal
	 * signal.  Record nothing of it, the path least of all (it would be
	 * read in the new image's memory).
	 */
	if (pt_sys_is_exec(nr) && fatal_signal_pending(current))
		goto out;
	memset(&d.x, 0, sizeof(d.x));
	d.x.nr = (u32)nr;
	d.x.ret = (u64)ret;
	if (in_compat_syscall())
		d.x.flags = POSIX_TRACE_SYSCALL_COMPAT;
	else if (!(ret == 0 && pt_sys_is_exec(nr)))
		path = pt_sys_path_arg(nr);
	if (path >= 0) {
		syscall_get_arguments(current, regs, args);
		d.x.path_arg = path;
		d.x.path_len = pt_sys_copy_path(d.path, args[path], &d.x.flags);
	}
	ev.data_len = sizeof(d.x) + d.x.path_len;
	pt_kev_emit(proc, POSIX_TRACE_KCLASS_SYSCALL, &ev);
out:
	rcu_read_unlock();
}

void pt_kev_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	if (pt_proc_kev_maybe(task_tgid(current)))
		pt_sys_exit_record(regs, ret);
}
