// SPDX-License-Identifier: GPL-2.0
/*
 * Exit and exec of a known thread group, handled in the task itself
 * (spec 4.10, RULE-78, MODEL-45, 5.17).
 *
 * The sched_process_exit and sched_process_exec probes run with
 * preemption disabled, where pt_ctl_lock cannot be taken, so they queue a
 * task_work callback on the exiting or exec'ing task, which runs in that
 * task's own context:
 *   exit: do_exit() calls the probe before exit_task_work(), which runs
 *         the callback, and both before exit_notify().  The parent is told
 *         only once every thread of the group passed exit_notify(), so
 *         wait() cannot report the exit before the streams are shut down;
 *   exec: TWA_RESUME runs the callback on the way back to user space,
 *         before the new image's first instruction (or in exit_task_work()
 *         if the task is killed first).
 * Streams are read only by their owner, so a reader blocked in
 * POSIX_TRACE_IOC_WAIT is a thread of the same group; exit and exec kill
 * those threads first and SIGKILL ends the wait, so nothing here waits
 * for a reader.
 *
 * A pending callback holds a reference on its pt_proc and one on the
 * module, so rmmod cannot remove the callback's code while it is queued;
 * it drops the module reference last, and module exit waits until no
 * task can still be on its way out of such a callback (main.c).  If
 * either reference cannot be had, the work items of proc.c do the job
 * instead, asynchronously; the claim bits in pt_proc.flags keep the job
 * from being queued twice.
 */
#include <linux/auxvec.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "lifecycle.h"

int pt_tw_add(struct task_struct *task, struct callback_head *head,
	      task_work_func_t fn, enum task_work_notify_mode mode)
{
	int ret;

	/* Fails only while the module is going, when no stream exists. */
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	init_task_work(head, fn);
	ret = task_work_add(task, head, mode);
	if (ret)
		module_put(THIS_MODULE);
	return ret;
}

static void pt_exit_tw(struct callback_head *head)
{
	struct pt_proc *proc = container_of(head, struct pt_proc, exit_tw);

	pt_proc_exit_job(proc);
	pt_proc_put(proc);
	module_put(THIS_MODULE);	/* last: see pt_exit() */
}

/*
 * sched_process_exit of a thread that found the group dead.  Several
 * threads of one group can see that (each decremented signal->live before
 * any reached the probe); any one of them doing the job is enough, as
 * the parent hears of the exit only after all of them passed
 * exit_notify(), so the first claims it.
 */
void pt_lifecycle_exit(struct task_struct *task)
{
	struct pt_proc *proc = pt_proc_find(task_tgid(task));

	if (!proc)
		return;
	if (test_and_set_bit(PT_PROC_EXIT_TW, &proc->flags))
		goto out_put;
	if (!pt_tw_add(task, &proc->exit_tw, pt_exit_tw, TWA_NONE))
		return;		/* the callback has our reference */
	if (queue_work(pt_wq, &proc->exit_work))
		return;		/* so has the work */
out_put:
	pt_proc_put(proc);
}

/*
 * AT_EXECFN's value in the auxiliary vector the ELF loader saved in @mm:
 * pairs of unsigned long, or of 32-bit words when compat_binfmt_elf.c
 * loaded the image (its elf_addr_t is Elf32_Addr; ia32 and x32 images,
 * which set_personality_ia32() marked TIF_ADDR32 before the vector was
 * built).  0 if there is none.
 */
static unsigned long pt_auxv_execfn(const struct mm_struct *mm)
{
	unsigned int i;

#if defined(CONFIG_X86_64) && defined(CONFIG_COMPAT)
	if (test_thread_flag(TIF_ADDR32)) {
		const u32 *v = (const u32 *)mm->saved_auxv;

		for (i = 0; i + 1 < 2 * AT_VECTOR_SIZE && v[i] != AT_NULL; i += 2)
			if (v[i] == AT_EXECFN)
				return v[i + 1];
		return 0;
	}
#endif
	for (i = 0; i + 1 < AT_VECTOR_SIZE && mm->saved_auxv[i] != AT_NULL; i += 2)
		if (mm->saved_auxv[i] == AT_EXECFN)
			return mm->saved_auxv[i + 1];
	return 0;
}

/*
 * The name the last exec was given, as the kernel copied it to the new
 * image's stack for AT_EXECFN: the exec's own copy (bprm->filename) is
 * gone by the time a raised exec is settled.  Nothing of the new image
 * has run yet (a ptracer allowed to trace it may have written there
 * meanwhile, as it may anywhere in it).  0 bytes if the image format has
 * no AT_EXECFN.
 */
static u32 pt_exec_name(char *buf, u32 size)
{
	unsigned long addr;
	long n;

	/* Killed before its return to user space: run from do_exit(),
	 * after the memory was released.
	 */
	if (!current->mm)
		return 0;
	addr = pt_auxv_execfn(current->mm);
	if (!addr)
		return 0;
	n = strncpy_from_user(buf, (const char __user *)addr, size);
	return n < 0 ? 0 : n;	/* n == size: no NUL within, truncated */
}

/*
 * A raised exec was settled (pt_exec_detach_raised()): the streams that
 * kept the right to trace the new image and record kernel events get the
 * exec record their probe could not make (struct pt_class_ops).
 */
static void pt_exec_tell_kept(struct pt_proc *proc)
{
	bool by_leader = test_bit(PT_PROC_EXEC_LEADER, &proc->flags);
	struct pt_attach *a;
	char *name;
	u32 len = 0;

	name = kmalloc(POSIX_TRACE_SYSCALL_PATH_MAX, GFP_KERNEL);
	if (name)
		len = pt_exec_name(name, POSIX_TRACE_SYSCALL_PATH_MAX);
	mutex_lock(&pt_ctl_lock);
	list_for_each_entry(a, &proc->streams, proc_node) {
		if (a->stream->class_ops)
			a->stream->class_ops->exec_kept(a->stream, name ?: "",
							len, by_leader);
	}
	mutex_unlock(&pt_ctl_lock);
	kfree(name);
}

/*
 * After exec, before the new image runs: shut down the streams the group
 * owned, stop being traced by controllers that could no longer trace it,
 * and start afresh with names if nothing traces it any more.
 */
static void pt_exec_tw(struct callback_head *head)
{
	struct pt_proc *proc = container_of(head, struct pt_proc, exec_tw);
	bool raised;

	clear_bit(PT_PROC_EXEC_TW, &proc->flags);
	pt_shutdown_owned_by(proc->tgid);
	pt_proc_settle(proc);	/* streams inherited at fork join first */
	raised = test_bit(PT_PROC_EXEC_RAISED, &proc->flags);
	if (raised) {
		pt_exec_detach_raised(proc);
		/* A probe that found a stream before its detach is done. */
		synchronize_rcu();
		pt_exec_tell_kept(proc);
	}
	/* Records of the new image from now on, by the process and by
	 * others (kev.c): the controllers left may trace it.
	 */
	WRITE_ONCE(proc->exec_id, READ_ONCE(current->self_exec_id));
	if (raised)
		clear_bit(PT_PROC_EXEC_RAISED, &proc->flags);
	pt_exec_fresh_map(proc, raised);
	pt_proc_put(proc);
	module_put(THIS_MODULE);	/* last: see pt_exit() */
}

/*
 * sched_process_exec: current has its new image and credentials.
 * @raised: the exec raised privileges (bprm->secureexec: setuid, setgid,
 * file capabilities, an LSM transition) or left the process non-dumpable.
 * @by_leader: the group's leader called exec (not another thread).
 */
void pt_lifecycle_exec(struct task_struct *task, bool raised, bool by_leader)
{
	struct pt_proc *proc = pt_proc_find(task_tgid(task));

	if (!proc)
		return;
	if (raised) {
		assign_bit(PT_PROC_EXEC_LEADER, &proc->flags, by_leader);
		set_bit(PT_PROC_EXEC_RAISED, &proc->flags);
	}
	/* A callback still queued (no return to user space since) will see
	 * the new state when it runs.
	 */
	if (test_and_set_bit(PT_PROC_EXEC_TW, &proc->flags))
		goto out_put;
	if (!pt_tw_add(task, &proc->exec_tw, pt_exec_tw, TWA_RESUME))
		return;		/* the callback has our reference */
	clear_bit(PT_PROC_EXEC_TW, &proc->flags);
	if (queue_work(pt_wq, &proc->exec_work))
		return;
out_put:
	pt_proc_put(proc);
}

/* The implementation-defined system event of design.md section 9. */
static void pt_record_detached(struct pt_stream *s)
{
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_DETACHED,
		.flags = POSIX_TRACE_REC_AUTO,
		.control = true,	/* never filtered, may use the reserve */
		.from_task = true,	/* pid and tid of the detached process */
	};
	int state = atomic_read(&s->state);

	if (state == PT_RUNNING || state == PT_AUTOSTOPPED)
		pt_record(s, &ev);
}

/*
 * The new image must not run sharing its names with a controller that can
 * no longer trace it, and keeping them apart takes memory.  An allocation
 * this small fails only for a task that is being killed already (the OOM
 * killer chose it, or its memory cgroup has no room left): make sure it
 * dies before its first instruction.
 */
static void pt_exec_abort(void)
{
	force_sig(SIGKILL);
}

/*
 * @s was detached from the process by its raised exec and traces nothing
 * else, but still uses the process's mapping: names the new image
 * registers would be in it, and its controller could register names for
 * the image.  It gets a copy of the mapping as it is now (which names
 * every id it may have recorded), charged like its buffers; the shared
 * one stays referenced until the stream is freed, as lockless readers
 * may have loaded it (ioctl.c checks what it read against the swap).  A
 * stream without targets never gains one, so this happens once at most.
 */
static int pt_stream_unshare_map(struct pt_stream *s)
{
	struct mem_cgroup *old;
	struct pt_map *copy;

	lockdep_assert_held(&pt_ctl_lock);
	if (WARN_ON_ONCE(s->map_shared))
		return -EBUSY;
	old = set_active_memcg(s->memcg);
	copy = pt_map_fork(s->map, GFP_KERNEL_ACCOUNT);
	set_active_memcg(old);
	if (!copy)
		return -ENOMEM;
	s->map_shared = s->map;
	WRITE_ONCE(s->map, copy);
	return 0;
}

/*
 * The exec raised current's privileges: streams whose controller could no
 * longer trace it (pt_owner_may_trace_current()) stop tracing it now,
 * before the new image records anything, and say so.  Its page loses their
 * slots; lanes it mapped went away with the old mm, the event and
 * writer-open ioctls find only the streams still attached, and writer.c
 * refuses it the mmap and notify of lanes it opened before.  A stream
 * left without targets stops sharing the process's names; one that still
 * traces other processes shares their names, which are the process's too
 * (RULE-60: they share one mapping, see design.md).
 */
void pt_exec_detach_raised(struct pt_proc *proc)
{
	struct pt_attach *a, *tmp;
	bool shared = false;
	struct pt_stream *s;

	mutex_lock(&pt_ctl_lock);
	list_for_each_entry_safe(a, tmp, &proc->streams, proc_node) {
		/* Attached, so not shut down: the trid table holds it while
		 * we hold pt_ctl_lock, after the detach too.
		 */
		s = a->stream;
		if (pt_owner_may_trace_current(s->owner))
			continue;
		pt_record_detached(s);
		pt_detach(a);
		if (!s->nr_targets && s->map == proc->map &&
		    pt_stream_unshare_map(s))
			shared = true;
	}
	mutex_unlock(&pt_ctl_lock);
	if (shared)
		pt_exec_abort();
}

/*
 * An untraced process gets a fresh, empty mapping at exec (spec 5.17); a
 * traced one keeps its mapping so ids stay one-to-one within the streams.
 * After an exec that raised privileges (@raised) even an empty mapping is
 * replaced: a stream that was detached, or a process forked with it, may
 * still use it.
 * Runs in the group's only thread, so nothing of the group uses @map
 * meanwhile; other groups read a process's map only under pt_ctl_lock
 * (stream create), and streams hold their own reference.
 */
void pt_exec_fresh_map(struct pt_proc *proc, bool raised)
{
	struct pt_map *old = NULL, *map;
	bool failed = false;

	mutex_lock(&pt_ctl_lock);
	if (!list_empty(&proc->streams) || rcu_access_pointer(proc->inherit))
		goto out_unlock;
	/* Nothing to forget: only the unnamed id, none inherited. */
	if (!raised && READ_ONCE(proc->map->count) <= 1)
		goto out_unlock;
	map = pt_map_new(GFP_KERNEL_ACCOUNT);
	if (!map) {
		/* Else the old names are kept: still correct ids. */
		failed = raised;
		goto out_unlock;
	}
	old = proc->map;
	proc->map = map;
	WRITE_ONCE(proc->page->nr_ids, map->count);
out_unlock:
	mutex_unlock(&pt_ctl_lock);
	if (old)
		pt_map_put(old);
	if (failed)
		pt_exec_abort();
}
