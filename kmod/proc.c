// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread-group state: the name mapping, the list of streams tracing
 * the group and the read-only page its posix_trace_event() looks at.
 */
#include <linux/gfp.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "pt.h"

static DEFINE_HASHTABLE(pt_proc_hash, 8);
static DEFINE_SPINLOCK(pt_proc_hash_lock);

static void pt_proc_exit_work(struct work_struct *work);
static void pt_proc_exec_work(struct work_struct *work);

struct pt_proc *pt_proc_find(struct pid *tgid)
{
	struct pt_proc *proc;

	rcu_read_lock();
	hash_for_each_possible_rcu(pt_proc_hash, proc, hnode, (unsigned long)tgid) {
		if (proc->tgid == tgid && kref_get_unless_zero(&proc->ref)) {
			rcu_read_unlock();
			return proc;
		}
	}
	rcu_read_unlock();
	return NULL;
}

/* @parent_map: the mapping of the process that forked this one, or NULL. */
static struct pt_proc *pt_proc_alloc(struct pid *tgid, struct pt_map *parent_map,
				     gfp_t gfp)
{
	struct pt_proc *proc = kzalloc(sizeof(*proc), gfp);

	if (!proc)
		return NULL;
	proc->page = (void *)get_zeroed_page(gfp);
	if (!proc->page)
		goto err_page;
	proc->map = parent_map ? pt_map_fork(parent_map, gfp) : pt_map_new(gfp);
	if (!proc->map)
		goto err_map;
	proc->page->size = sizeof(*proc->page);
	kref_init(&proc->ref);
	INIT_LIST_HEAD(&proc->streams);
	INIT_WORK(&proc->exit_work, pt_proc_exit_work);
	INIT_WORK(&proc->exec_work, pt_proc_exec_work);
	proc->tgid = get_pid(tgid);
	return proc;

err_map:
	free_page((unsigned long)proc->page);
err_page:
	kfree(proc);
	return NULL;
}

static void pt_proc_free_rcu(struct rcu_head *rcu)
{
	struct pt_proc *proc = container_of(rcu, struct pt_proc, rcu);

	pt_map_put(proc->map);
	put_pid(proc->tgid);
	free_page((unsigned long)proc->page);
	kfree(proc);
}

static void pt_proc_release(struct kref *ref)
{
	struct pt_proc *proc = container_of(ref, struct pt_proc, ref);

	call_rcu(&proc->rcu, pt_proc_free_rcu);
}

void pt_proc_put(struct pt_proc *proc)
{
	if (proc)
		kref_put(&proc->ref, pt_proc_release);
}

/*
 * Insert @proc unless its group is known already; returns the entry in the
 * table with a reference, consuming the caller's reference to @proc.
 */
static struct pt_proc *pt_proc_insert(struct pt_proc *proc)
{
	struct pt_proc *old;
	unsigned long flags;

	spin_lock_irqsave(&pt_proc_hash_lock, flags);
	hash_for_each_possible(pt_proc_hash, old, hnode, (unsigned long)proc->tgid) {
		if (old->tgid == proc->tgid && kref_get_unless_zero(&old->ref)) {
			spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
			pt_proc_put(proc);
			return old;
		}
	}
	kref_get(&proc->ref);	/* the hash table's reference */
	hash_add_rcu(pt_proc_hash, &proc->hnode, (unsigned long)proc->tgid);
	spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
	return proc;
}

struct pt_proc *pt_proc_get_or_create(struct pid *tgid)
{
	struct pt_proc *proc = pt_proc_find(tgid);

	if (proc)
		return proc;
	proc = pt_proc_alloc(tgid, NULL, GFP_KERNEL_ACCOUNT);
	return proc ? pt_proc_insert(proc) : NULL;
}

/*
 * fork() of a known process (sched_process_fork probe, atomic context):
 * the child gets a copy of the parent's mapping, so ids it inherited in
 * its memory keep their meaning (spec 5.17).  If the allocation fails the
 * child starts with an empty mapping when it first needs one.
 */
void pt_proc_fork(struct pid *parent, struct pid *child)
{
	struct pt_proc *pproc = pt_proc_find(parent);
	struct pt_proc *cproc;

	if (!pproc)
		return;
	cproc = pt_proc_alloc(child, pproc->map,
			      GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);
	if (cproc)
		pt_proc_put(pt_proc_insert(cproc));
	pt_proc_put(pproc);
}

static bool pt_proc_unhash(struct pt_proc *proc)
{
	unsigned long flags;
	bool hashed;

	spin_lock_irqsave(&pt_proc_hash_lock, flags);
	hashed = !hlist_unhashed(&proc->hnode);
	if (hashed)
		hash_del_rcu(&proc->hnode);
	spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
	return hashed;
}

/*
 * A stream was about to trace a group that exited meanwhile: its exit work
 * may have run already, so drop the entry ourselves unless it is in use.
 */
void pt_proc_forget_if_unused(struct pt_proc *proc)
{
	lockdep_assert_held(&pt_ctl_lock);
	if (list_empty(&proc->streams) && pt_proc_unhash(proc))
		pt_proc_put(proc);
}

/* Count the streams that want this group's events; posix_trace_event()
 * makes a system call only when the count is non-zero.
 */
void pt_proc_update_active(struct pt_proc *proc)
{
	struct pt_attach *a;
	u32 active = 0;

	lockdep_assert_held(&pt_ctl_lock);
	list_for_each_entry(a, &proc->streams, proc_node) {
		int state = atomic_read(&a->stream->state);

		if (state == PT_RUNNING || state == PT_AUTOSTOPPED)
			active++;
	}
	WRITE_ONCE(proc->page->active, active);
	WRITE_ONCE(proc->page->generation, proc->page->generation + 1);
}

/* The group is gone: shut down the streams it controls (spec 4.10), stop
 * tracing it, forget it.
 */
static void pt_proc_exit_work(struct work_struct *work)
{
	struct pt_proc *proc = container_of(work, struct pt_proc, exit_work);

	pt_shutdown_owned_by(proc->tgid);
	pt_detach_proc(proc);
	if (pt_proc_unhash(proc))
		pt_proc_put(proc);
	pt_proc_put(proc);	/* the work item's reference */
}

/* A controller that execs loses its streams (MODEL-45); a traced process
 * keeps being traced and keeps its mapping (spec 5.17).
 */
static void pt_proc_exec_work(struct work_struct *work)
{
	struct pt_proc *proc = container_of(work, struct pt_proc, exec_work);

	pt_shutdown_owned_by(proc->tgid);
	pt_proc_put(proc);
}

/* Called from the exit and exec tracepoints: atomic context. */
void pt_proc_queue(struct pid *tgid, bool exiting)
{
	struct pt_proc *proc = pt_proc_find(tgid);
	struct work_struct *work;

	if (!proc)
		return;
	work = exiting ? &proc->exit_work : &proc->exec_work;
	if (!queue_work(pt_wq, work))
		pt_proc_put(proc);
}

/* Module unload: no stream and no open file is left, so nothing but the
 * hash table refers to the remaining entries.
 */
void pt_proc_cleanup_all(void)
{
	struct hlist_node *tmp;
	struct pt_proc *proc;
	unsigned int bkt;

	spin_lock_irq(&pt_proc_hash_lock);
	hash_for_each_safe(pt_proc_hash, bkt, tmp, proc, hnode) {
		hash_del_rcu(&proc->hnode);
		pt_proc_put(proc);
	}
	spin_unlock_irq(&pt_proc_hash_lock);
}
