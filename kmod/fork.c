// SPDX-License-Identifier: GPL-2.0
/*
 * A traced process forked: the child's proc, from a kit allocated ahead
 * (forkkit.c) so that the fork probe allocates nothing, and the streams
 * it inherits (inherit.c) snapshotted for the work that attaches them.
 */
#include <linux/module.h>
#include <linux/sched/signal.h>
#include "lifecycle.h"

/* pt_proc_alloc() from a fork kit, in the fork probe: no allocation. */
static struct pt_proc *pt_proc_from_kit(struct pt_kit *kit, struct pid *tgid,
					struct pt_map *parent_map, bool share)
{
	struct pt_proc *proc = kit->proc;
	struct pt_map *map = parent_map;

	kit->proc = NULL;
	if (share) {
		kref_get(&map->ref);
	} else {
		map = kit->map;
		kit->map = NULL;
		pt_map_init_fork(map, parent_map);
	}
	pt_proc_setup(proc, tgid, map);
	return proc;
}

/*
 * The child joins its streams before its first instruction in user space
 * when one of them records kernel events: else its first system calls
 * would run before the fork work attached it, and be missed.
 */
static void pt_settle_tw(struct callback_head *head)
{
	struct pt_proc *proc = container_of(head, struct pt_proc, settle_tw);

	pt_proc_settle(proc);
	pt_proc_put(proc);
	module_put(THIS_MODULE);	/* last: see pt_exit() */
}

static void pt_fork_settle_early(struct task_struct *child, struct pt_proc *cproc)
{
	kref_get(&cproc->ref);	/* the callback's */
	if (pt_tw_add(child, &cproc->settle_tw, pt_settle_tw, TWA_RESUME))
		pt_proc_put(cproc);
}

/*
 * fork() of a known process (sched_process_fork probe, preemption
 * disabled): what the child needs comes from a fork kit (forkkit.c), so
 * nothing is allocated here on PREEMPT_RT.
 * A child that inherits streams (inherit.c) shares the parent's mapping,
 * so ids stay one-to-one within those streams (RULE-60); any other child
 * gets a copy, so ids it inherited in its memory keep their meaning (spec
 * 5.17).  If an allocation fails the child is not traced and starts with
 * an empty mapping when it first needs one.
 */
void pt_fork_child(struct pid *parent, struct task_struct *child_task)
{
	struct pid *child = task_tgid(child_task);
	struct pt_proc *pproc = pt_proc_find(parent);
	bool kernel = false;
	struct pt_inherit *inh;
	struct pt_proc *cproc;
	struct pt_kit *kit;

	if (!pproc)
		return;
	kit = pt_kit_take();
	if (kit) {
		inh = pt_inherit_snapshot(pproc, kit->inh);
		if (inh)
			kit->inh = NULL;
		cproc = pt_proc_from_kit(kit, child, pproc->map, inh);
		pt_kit_used(kit);
	} else {
		pt_kit_missed();
		if (IS_ENABLED(CONFIG_PREEMPT_RT))
			goto out;	/* no allocation here: not traced */
		inh = pt_inherit_snapshot(pproc, NULL);
		cproc = pt_proc_alloc(child, pproc->map, inh,
				      GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);
		if (!cproc) {
			if (inh)
				pt_inherit_free(inh);
			goto out;
		}
	}
	if (inh) {
		kernel = pt_inherit_records_kernel(inh);
		pt_inherit_fill_page(cproc, pproc, inh);
		pt_inherit_set(cproc, inh);
	}
	cproc = pt_proc_insert(cproc);
	/* A controller named the child between attach_pid() and this probe:
	 * its entry stays, ours was dropped, and with it the only owner of
	 * @inh's stream references.  The child is then not traced by
	 * inheritance.
	 */
	if (inh && rcu_access_pointer(cproc->inherit) != inh) {
		pt_inherit_free(inh);
		inh = NULL;
	}
	if (inh) {
		kref_get(&cproc->ref);	/* the work item's */
		if (!queue_work(pt_wq, &cproc->fork_work))
			pt_proc_put(cproc);
		if (kernel)	/* not @inh: the work may have freed it */
			pt_fork_settle_early(child_task, cproc);
	}
	pt_proc_put(cproc);
out:
	pt_proc_put(pproc);
}
