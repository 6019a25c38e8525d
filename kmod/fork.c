// SPDX-License-Identifier: GPL-2.0
/*
 * A traced process forked: the child's proc, from a kit allocated ahead
 * (forkkit.c) so that the fork probe allocates nothing, and the streams
 * it inherits (inherit.c) snapshotted for the work that attaches them.
 */
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
 * fork() of a known process (sched_process_fork probe, preemption
 * disabled): what the child needs comes from a fork kit (forkkit.c), so
 * nothing is allocated here on PREEMPT_RT.
 * A child that inherits streams (inherit.c) shares the parent's mapping,
 * so ids stay one-to-one within those streams (RULE-60); any other child
 * gets a copy, so ids it inherited in its memory keep their meaning (spec
 * 5.17).  If an allocation fails the child is not traced and starts with
 * an empty mapping when it first needs one.
 */
void pt_fork_child(struct pid *parent, struct pid *child)
{
	struct pt_proc *pproc = pt_proc_find(parent);
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
	}
	pt_proc_put(cproc);
out:
	pt_proc_put(pproc);
}
