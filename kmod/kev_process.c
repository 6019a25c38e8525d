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

struct pt_fork_rec {
	struct posix_trace_process_fork f;
	struct task_struct *child;
};

/* The child's ids differ per stream (its pid namespace). */
static void pt_fork_fill(struct pt_stream *s, void *arg)
{
	struct pt_fork_rec *r = arg;

	pt_task_ids(r->child, s->pidns, &r->f.child_pid, &r->f.child_tid);
}

/* In the parent. */
void pt_kev_fork(void *data, struct task_struct *parent,
		 struct task_struct *child)
{
	struct pt_fork_rec r = {
		.f.flags = thread_group_leader(child) ? 0 : POSIX_TRACE_FORK_THREAD,
		.child = child,
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_PROCESS_FORK,
		.from_task = true,
		.data = &r.f,
		.data_len = sizeof(r.f),
	};
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc();
	if (proc)
		pt_kev_emit_fill(proc, POSIX_TRACE_KCLASS_PROCESS, &ev,
				 pt_fork_fill, &r);
	rcu_read_unlock();
}

struct pt_exec_rec {
	struct posix_trace_process_exec x;
	char name[POSIX_TRACE_SYSCALL_PATH_MAX];
	struct pid *old;	/* the caller's if it was the leader, else NULL */
	struct pt_event ev;
};

/* @r is about @name (@len bytes). */
static void pt_exec_rec_init(struct pt_exec_rec *r, const char *name,
			     u32 len, struct pid *old)
{
	len = min_t(u32, len, sizeof(r->name));
	memcpy(r->name, name, len);
	r->x.name_len = len;
	r->old = old;
	r->ev = (struct pt_event) {
		.id = POSIX_TRACE_ID_PROCESS_EXEC,
		.from_task = true,
		.data = &r->x,
		.data_len = sizeof(r->x) + len,
	};
	BUILD_BUG_ON(offsetof(struct pt_exec_rec, name) != sizeof(r->x));
}

static void pt_exec_fill(struct pt_stream *s, void *arg)
{
	struct pt_exec_rec *r = arg;

	r->x.old_tid = r->old ? pid_nr_ns(r->old, s->pidns) : 0;
}

/* struct pt_class_ops.exec_kept: the record of a raised exec, for a
 * stream that kept the right to trace the new image.
 */
void pt_kev_exec_kept(struct pt_stream *s, const char *name, u32 len,
		      bool by_leader)
{
	struct pt_exec_rec r;

	if (!(s->kclasses & POSIX_TRACE_KCLASS_PROCESS))
		return;
	pt_exec_rec_init(&r, name, len, by_leader ? task_pid(current) : NULL);
	pt_exec_fill(s, &r);
	pt_record(s, &r.ev);
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
	struct pt_exec_rec r;
	struct pt_proc *proc;

	if (pt_exec_raised(p, bprm))
		return;
	rcu_read_lock();
	proc = pt_kev_proc();
	if (!proc)
		goto out;
	/* A thread other than the leader exec'd: its old id is gone. */
	pt_exec_rec_init(&r, bprm->filename,
			 strnlen(bprm->filename, sizeof(r.name)),
			 old_pid == current->pid ? task_pid(current) : NULL);
	pt_kev_emit_fill(proc, POSIX_TRACE_KCLASS_PROCESS, &r.ev,
			 pt_exec_fill, &r);
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
