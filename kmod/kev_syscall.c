// SPDX-License-Identifier: GPL-2.0
/*
 * Class SYSCALL (<linux/posix_trace_kernel.h>).  A call that returns
 * without leaving its CPU, most calls, is one record written when it
 * returns (struct posix_trace_syscall): its entry (number, the six
 * argument registers, the time) is kept on the CPU until then (struct
 * pt_sys_slot), which costs a third of an entry record.  A call that
 * leaves the CPU first has its entry written then, by the switch probe,
 * marked pending, and an exit record when it returns.  exit(),
 * exit_group(), execve() and execveat(), and 32-bit calls, keep an entry
 * record written at entry and an exit record.  Paths are copied without
 * faulting, at the exit, when the call has read them: at entry a path
 * the thread never touched is not resident, and a probe may not fault it
 * in.
 *
 * Probe prototypes (include/trace/events/syscalls.h,
 * include/trace/events/sched.h), 5.18 .. 6.x:
 *   sys_enter(struct pt_regs *regs, long id)
 *   sys_exit(struct pt_regs *regs, long ret)
 *   sched_switch(bool preempt, struct task_struct *prev,
 *                struct task_struct *next, unsigned int prev_state)
 * All three run with preemption disabled, sched_switch under the
 * runqueue's lock with interrupts off (its record defers its notes).
 */
#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/percpu.h>
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

/* Calls that do not return as others do: their entry is recorded at once. */
static bool pt_sys_keeps_entry_record(long nr)
{
#ifdef CONFIG_X86_64
	return nr == __NR_exit || nr == __NR_exit_group || pt_sys_is_exec(nr);
#else
	return true;
#endif
}

/*
 * The entry of the call the thread on this CPU is in, kept until the
 * call returns (pt_kev_sys_exit()) or the thread leaves the CPU
 * (pt_kev_sys_switch()), whichever comes first.  Only the probes of
 * this CPU use it, with preemption disabled, for the thread running
 * there: no lock.  @task is compared with current, never dereferenced,
 * and is cleared when that thread leaves the CPU, so a slot never names
 * a thread that ran elsewhere since, or exited; the switch probe is
 * registered before the entry probe and unregistered after it (kev.c).
 * What the class's probes leave behind when the class goes off is
 * outdated by @gen: each time the class comes on, pt_sys_gen moves on,
 * and a slot of another generation is empty.
 */
struct pt_sys_slot {
	struct task_struct *task;
	unsigned long gen;
	u64 entry_ts;
	long nr;
	unsigned long args[6];
};

static DEFINE_PER_CPU(struct pt_sys_slot, pt_sys_slot);
static unsigned long pt_sys_gen;

/* The class comes on (kev.c, under its lock, before the probes are). */
void pt_kev_sys_on(void)
{
	WRITE_ONCE(pt_sys_gen, pt_sys_gen + 1);
}

void pt_kev_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct pt_sys_slot *slot;

	/* Every call of every task comes here while the class is on. */
	if (!pt_proc_kev_maybe(task_tgid(current)))
		return;
	slot = this_cpu_ptr(&pt_sys_slot);
	if (unlikely(in_compat_syscall() || pt_sys_keeps_entry_record(id))) {
		slot->task = NULL;
		pt_sys_enter_record(regs, id);
		return;
	}
	slot->task = current;
	slot->gen = READ_ONCE(pt_sys_gen);
	slot->nr = id;
	syscall_get_arguments(current, regs, slot->args);
	slot->entry_ts = ktime_get_ns();
}

/* The part of a call's record the slot gives: all but the result. */
static void pt_sys_call_fill(struct posix_trace_syscall *c,
			     const struct pt_sys_slot *slot)
{
	unsigned int i;

	c->nr = (u32)slot->nr;
	c->flags = 0;
	c->elapsed = 0;		/* pt_record() sets it, from the slot's entry_ts */
	c->ret = 0;
	for (i = 0; i < ARRAY_SIZE(slot->args); i++)
		c->args[i] = slot->args[i];
	c->path_arg = 0;
	c->path_len = 0;
}

struct pt_sys_call_data {
	struct posix_trace_syscall c;
	char path[POSIX_TRACE_SYSCALL_PATH_MAX];
};

/*
 * The one record of a call that returned (@ret) without leaving the CPU.
 * @slot was emptied by the caller; what it held is still there (only
 * this CPU's probes touch it, and none runs here meanwhile).
 */
static noinline void pt_sys_call_record(const struct pt_sys_slot *slot, long ret)
{
	struct pt_sys_call_data d __uninitialized;	/* as pt_sys_enter_record() */
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SYSCALL,
		.from_task = true,
		.data = &d,
		.since = slot->entry_ts,
		.since_off = offsetof(struct posix_trace_syscall, elapsed),
	};
	struct pt_proc *proc;
	int path;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	pt_sys_call_fill(&d.c, slot);
	d.c.ret = (u64)ret;
	path = pt_sys_path_arg(slot->nr);
	if (path >= 0) {
		d.c.path_arg = path;
		d.c.path_len = pt_sys_copy_path(d.path, slot->args[path],
						&d.c.flags);
	}
	ev.data_len = sizeof(d.c) + d.c.path_len;
	pt_kev_emit(proc, POSIX_TRACE_KCLASS_SYSCALL, &ev);
out:
	rcu_read_unlock();
}

/*
 * The pending record of a call that leaves the CPU, from the switch
 * probe: under the runqueue's lock, so its notes wait (defer_notes), it
 * copies no path (the exit record will), and its frame is small (the
 * scheduler may be deep in a call chain).
 */
static noinline void pt_sys_pending_record(const struct pt_sys_slot *slot)
{
	struct posix_trace_syscall c;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SYSCALL,
		.from_task = true,
		.defer_notes = true,
		.data = &c,
		.data_len = sizeof(c),
		.since = slot->entry_ts,
		.since_off = offsetof(struct posix_trace_syscall, elapsed),
	};
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (proc) {
		pt_sys_call_fill(&c, slot);
		c.flags = POSIX_TRACE_SYSCALL_PENDING;
		pt_kev_emit(proc, POSIX_TRACE_KCLASS_SYSCALL, &ev);
	}
	rcu_read_unlock();
}

/*
 * @prev leaves its CPU (sched_switch: it is still current): if it is in
 * a call whose entry is kept here, the call is visible from now on, as a
 * pending record stamped now.  Records are stamped when written, so no
 * lane ever gets a record older than one a reader may have taken from
 * another lane; the entry's own time is in the record's data.
 */
void pt_kev_sys_switch(void *data, bool preempt, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state)
{
	struct pt_sys_slot *slot;

	if (likely(this_cpu_read(pt_sys_slot.task) != prev))
		return;
	slot = this_cpu_ptr(&pt_sys_slot);
	slot->task = NULL;
	if (slot->gen == READ_ONCE(pt_sys_gen))
		pt_sys_pending_record(slot);
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
	struct pt_sys_slot *slot;

	/*
	 * A thread whose process stopped being traced during the call
	 * leaves its entry kept: emptied here all the same, so that a slot
	 * holds an entry only while its thread is in that call.
	 */
	if (!pt_proc_kev_maybe(task_tgid(current))) {
		if (unlikely(this_cpu_read(pt_sys_slot.task) == current))
			this_cpu_write(pt_sys_slot.task, NULL);
		return;
	}
	slot = this_cpu_ptr(&pt_sys_slot);
	if (likely(slot->task == current && slot->gen == READ_ONCE(pt_sys_gen))) {
		slot->task = NULL;
		pt_sys_call_record(slot, ret);
	} else {
		/* it left the CPU, or its entry was before the class came on */
		pt_sys_exit_record(regs, ret);
	}
}
