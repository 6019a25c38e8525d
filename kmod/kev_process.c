// SPDX-License-Identifier: GPL-2.0
/*
 * Class PROCESS: fork or clone (the child), exec (the file name) and exit
 * (the wait status) of a traced process (<linux/posix_trace_kernel.h>).
 * These probes sit beside the lifecycle's on the same tracepoints
 * (hooks.c) and only record; they are registered while a stream asks.
 *
 * Probe prototypes: see hooks.c.
 */
#include <linux/binfmts.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "kev.h"

/* In the parent: the child's ids differ per stream (its pid namespace). */
void pt_kev_fork(void *data, struct task_struct *parent,
		 struct task_struct *child)
{
	struct posix_trace_process_fork f = {
		.flags = thread_group_leader(child) ? 0 : POSIX_TRACE_FORK_THREAD,
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_PROCESS_FORK,
		.from_task = true,
		.data = &f,
		.data_len = sizeof(f),
	};
	struct pt_attach *a;
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		struct pt_stream *s = a->stream;

		if (!(s->kclasses & POSIX_TRACE_KCLASS_PROCESS))
			continue;
		f.child_pid = task_tgid_nr_ns(child, s->pidns);
		f.child_tid = task_pid_nr_ns(child, s->pidns);
		pt_record(s, &ev);
	}
out:
	rcu_read_unlock();
}

struct pt_exec_data {
	struct posix_trace_process_exec x;
	char name[POSIX_TRACE_SYSCALL_PATH_MAX];
};

/* The exec record of current for @s: @old, the pid the caller had if it
 * was the leader (else NULL).
 */
static void pt_kev_exec_record(struct pt_stream *s, const char *name,
			       u32 len, struct pid *old)
{
	struct pt_exec_data d;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_PROCESS_EXEC,
		.from_task = true,
		.data = &d,
	};

	if (!(s->kclasses & POSIX_TRACE_KCLASS_PROCESS))
		return;
	len = min_t(u32, len, sizeof(d.name));
	memcpy(d.name, name, len);
	d.x.name_len = len;
	d.x.old_tid = old ? pid_nr_ns(old, s->pidns) : 0;
	ev.data_len = sizeof(d.x) + len;
	pt_record(s, &ev);
}

/* struct pt_class_ops.exec_kept: the record of a raised exec, for a
 * stream that kept the right to trace the new image.
 */
void pt_kev_exec_kept(struct pt_stream *s, const char *name, u32 len,
		      bool by_leader)
{
	pt_kev_exec_record(s, name, len, by_leader ? task_pid(current) : NULL);
}

/*
 * The new image is in place.  An exec that raised privileges is not
 * recorded here: which controllers keep the right to trace is decided
 * by the lifecycle's task work, after this probe (lifecycle.c), which
 * has pt_kev_exec_kept() record it for them; until then pt_kev_proc()
 * finds nothing (PT_PROC_EXEC_RAISED, set by the lifecycle's probe on
 * this same tracepoint, maybe after this one, so the test is repeated
 * here).
 */
void pt_kev_exec(void *data, struct task_struct *p, pid_t old_pid,
		 struct linux_binprm *bprm)
{
	struct pt_attach *a;
	struct pt_proc *proc;
	struct pid *old;
	size_t len;

	if (pt_exec_raised(p, bprm))
		return;
	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	len = strnlen(bprm->filename, POSIX_TRACE_SYSCALL_PATH_MAX);
	/* A thread other than the leader exec'd: its old id is gone. */
	old = old_pid == current->pid ? task_pid(current) : NULL;
	list_for_each_entry_rcu(a, &proc->streams, proc_node)
		pt_kev_exec_record(a->stream, bprm->filename, len, old);
out:
	rcu_read_unlock();
}

/* The last thread of the group exits (as the lifecycle's probe, hooks.c). */
void pt_kev_exit_probe(void *data, struct task_struct *p)
{
	struct posix_trace_process_exit x = { 0 };
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_PROCESS_EXIT,
		.from_task = true,
		.data = &x,
		.data_len = sizeof(x),
	};
	struct pt_proc *proc;

	if (atomic_read(&p->signal->live))
		return;
	rcu_read_lock();
	proc = pt_kev_proc();
	/* Several threads can find the group dead (lifecycle.c): once. */
	if (proc && !test_and_set_bit(PT_PROC_EXIT_RECORDED, &proc->flags)) {
		x.status = p->signal->flags & SIGNAL_GROUP_EXIT ?
			   p->signal->group_exit_code : p->exit_code;
		pt_kev_emit(proc, POSIX_TRACE_KCLASS_PROCESS, &ev);
	}
	rcu_read_unlock();
}
