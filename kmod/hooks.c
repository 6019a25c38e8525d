// SPDX-License-Identifier: GPL-2.0
/*
 * Process lifecycle hooks: probes on the scheduler tracepoints, found with
 * for_each_kernel_tracepoint() and attached with tracepoint_probe_register()
 * as lttng-modules does.  Probes run with preemption disabled, so they
 * only look the group up and queue work: task_work callbacks for exit and
 * exec (lifecycle.c), a work item for fork (proc.c, inherit.c).
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
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include "lifecycle.h"

struct pt_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

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
	/* commit_creds() made a set-id image non-dumpable already. */
	pt_lifecycle_exec(p, bprm->secureexec ||
			  get_dumpable(p->mm) != SUID_DUMP_USER);
}

static struct pt_hook pt_hooks[] = {
	{ .name = "sched_process_fork", .probe = pt_probe_fork },
	{ .name = "sched_process_exit", .probe = pt_probe_exit },
	{ .name = "sched_process_exec", .probe = pt_probe_exec },
};

static void pt_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_hooks); i++) {
		if (!strcmp(tp->name, pt_hooks[i].name))
			pt_hooks[i].tp = tp;
	}
}

int pt_hooks_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(pt_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(pt_hooks); i++) {
		if (!pt_hooks[i].tp) {
			pr_err("posix_trace: tracepoint %s not found\n",
			       pt_hooks[i].name);
			ret = -ENOENT;
			goto err_register;
		}
		ret = tracepoint_probe_register(pt_hooks[i].tp,
						pt_hooks[i].probe, NULL);
		if (ret)
			goto err_register;
	}
	return 0;

err_register:
	while (i--)
		tracepoint_probe_unregister(pt_hooks[i].tp, pt_hooks[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void pt_hooks_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_hooks); i++)
		tracepoint_probe_unregister(pt_hooks[i].tp, pt_hooks[i].probe, NULL);
	tracepoint_synchronize_unregister();
}
