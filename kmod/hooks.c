// SPDX-License-Identifier: GPL-2.0
/*
 * Process lifecycle hooks: probes on the scheduler tracepoints, found by
 * name and attached for the module's lifetime (tracepoints.c).  Probes
 * run with preemption disabled, so they only look the group up and queue
 * work: task_work callbacks for exit and exec (lifecycle.c), a work item
 * for fork (proc.c, inherit.c).
 *
 * Probe prototypes must match the running kernel's tracepoints:
 *   sched_process_fork(struct task_struct *parent,
 *                      struct task_struct *child)              2.6 .. 6.x
 *   sched_process_exit(struct task_struct *p)                  4.x .. 6.x
 *   sched_process_exec(struct task_struct *p, pid_t old_pid,
 *                      struct linux_binprm *bprm)              3.4 .. 6.x
 */
#include <linux/binfmts.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include "lifecycle.h"

static void pt_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	if (!thread_group_leader(child))
		return;		/* a new thread, not a new process */
	pt_fork_child(task_tgid(parent), child);
}

static void pt_probe_exit(void *data, struct task_struct *p)
{
	/* Only the last thread of the group: signal->live is already 0. */
	if (atomic_read(&p->signal->live))
		return;
	pt_lifecycle_exit(p);
}

static void pt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	pt_lifecycle_exec(p, pt_exec_raised(p, bprm), old_pid == p->pid);
}

static struct pt_tp_hook pt_hooks[] = {
	{ .name = "sched_process_fork", .probe = pt_probe_fork },
	{ .name = "sched_process_exit", .probe = pt_probe_exit },
	{ .name = "sched_process_exec", .probe = pt_probe_exec },
};

int pt_hooks_init(void)
{
	int ret;

	pt_tp_find(pt_hooks, ARRAY_SIZE(pt_hooks));
	ret = pt_tp_register(pt_hooks, ARRAY_SIZE(pt_hooks), 0);
	if (ret)
		tracepoint_synchronize_unregister();
	return ret;
}

void pt_hooks_exit(void)
{
	pt_tp_unregister(pt_hooks, ARRAY_SIZE(pt_hooks), 0);
	tracepoint_synchronize_unregister();
}
