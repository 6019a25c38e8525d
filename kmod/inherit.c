// SPDX-License-Identifier: GPL-2.0
/*
 * The Trace Inherit option (spec 4.9, RULE-60, 5.17): a child forked by a
 * process traced into POSIX_TRACE_INHERITED streams is traced into them too,
 * from its first instruction, and shares its parent's name mapping so that
 * ids stay one-to-one within each stream.
 *
 * The sched_process_fork probe runs before the child is first scheduled but
 * in atomic context, where pt_ctl_lock cannot be taken.  So it only
 *   1. takes a reference on each stream to join (struct pt_inherit),
 *   2. fills the child's page from the parent's, so the child's library
 *      already sees those streams and takes its slow path, and
 *   3. queues pt_proc_fork_work(), which attaches the child under
 *      pt_ctl_lock.
 * Every path by which the child's events reach a stream (the EVENT and
 * WRITER_OPEN ioctls) first calls pt_proc_settle(), which waits for that
 * work: no event of the child is lost, however early it records.  A child
 * that forks before its own work ran passes the pending list on.
 */
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "lifecycle.h"

/*
 * struct pt_inherit - streams a new child is to join.
 * Lifetime: created by the fork probe, consumed and freed (after an RCU
 * grace period, as the probe of a grandchild may be reading it) by the
 * fork work, which drops the stream references it holds.
 */
struct pt_inherit {
	struct rcu_head rcu;
	unsigned int nr;
	struct pt_stream *streams[];
};

/* A stream the child joins records kernel events (fork.c). */
bool pt_inherit_records_kernel(const struct pt_inherit *inh)
{
	unsigned int i;

	for (i = 0; i < inh->nr; i++) {
		if (inh->streams[i]->kclasses)
			return true;
	}
	return false;
}

static bool pt_inherit_has(const struct pt_inherit *inh, const struct pt_stream *s)
{
	unsigned int i;

	for (i = 0; i < inh->nr; i++) {
		if (inh->streams[i] == s)
			return true;
	}
	return false;
}

static void pt_inherit_add(struct pt_inherit *inh, unsigned int max,
			   struct pt_stream *s)
{
	if (inh->nr < max && s->inherit == POSIX_TRACE_INHERIT_INHERITED &&
	    atomic_read(&s->state) != PT_DEAD && !pt_inherit_has(inh, s) &&
	    kref_get_unless_zero(&s->ref))
		inh->streams[inh->nr++] = s;
}

/* Under rcu_read_lock(): the INHERITED streams of @parent, attached or
 * still pending.  Pending first: the fork work attaches, then clears the
 * pointer, so a NULL pointer means the attaches are seen.
 */
static unsigned int pt_inherit_collect(struct pt_proc *parent,
				       struct pt_inherit *inh, unsigned int max)
{
	struct pt_inherit *pending = rcu_dereference(parent->inherit);
	struct pt_attach *a;
	unsigned int i, n = 0;

	/* The list below after the pointer: pairs with the smp_wmb() in
	 * pt_proc_fork_work().
	 */
	smp_rmb();

	if (pending) {
		for (i = 0; i < pending->nr; i++) {
			if (inh)
				pt_inherit_add(inh, max, pending->streams[i]);
			n++;
		}
	}
	list_for_each_entry_rcu(a, &parent->streams, proc_node) {
		if (inh)
			pt_inherit_add(inh, max, a->stream);
		n++;
	}
	return n;
}

void pt_inherit_free(struct pt_inherit *inh)
{
	unsigned int i;

	for (i = 0; i < inh->nr; i++)
		pt_stream_put(inh->streams[i]);
	kfree_rcu(inh, rcu);
}

/* Room for every stream there can be (forkkit.c keeps such spares). */
struct pt_inherit *pt_inherit_alloc(gfp_t gfp)
{
	struct pt_inherit *inh;

	return kzalloc(struct_size(inh, streams, pt_max_streams), gfp);
}

/*
 * Atomic context.  Returns the streams @parent's child must join, or NULL
 * if none.  They go into @spare (from pt_inherit_alloc()) if given, which
 * is then returned, or unused if NULL is.  Without a spare (not on
 * PREEMPT_RT: forkkit.c) the memory is allocated here; if that fails the
 * child is not traced, as when the allocation of its pt_proc fails.
 */
struct pt_inherit *pt_inherit_snapshot(struct pt_proc *parent,
				       struct pt_inherit *spare)
{
	struct pt_inherit *inh;
	unsigned int max;

	if (spare) {
		spare->nr = 0;
		rcu_read_lock();
		pt_inherit_collect(parent, spare, pt_max_streams);
		rcu_read_unlock();
		return spare->nr ? spare : NULL;
	}
	rcu_read_lock();
	max = pt_inherit_collect(parent, NULL, 0);
	rcu_read_unlock();
	if (!max)
		return NULL;
	inh = kzalloc(struct_size(inh, streams, max),
		      GFP_ATOMIC | __GFP_ACCOUNT | __GFP_NOWARN);
	if (!inh)
		return NULL;
	rcu_read_lock();
	pt_inherit_collect(parent, inh, max);
	rcu_read_unlock();
	if (!inh->nr) {
		kfree(inh);
		return NULL;
	}
	return inh;
}

/*
 * Show @child's library the streams it joins before it can record: the
 * parent's slots of those streams, their wanted bits, and "look in the
 * kernel" for those the parent has no slot for.  pt_proc_update_page()
 * rewrites all of it once the child is attached.
 */
void pt_inherit_fill_page(struct pt_proc *child, struct pt_proc *parent,
			  const struct pt_inherit *inh)
{
	const struct posix_trace_proc_page *src = parent->page;
	struct posix_trace_proc_page *dst = child->page;
	unsigned int k, i, j, found = 0, nr = 0;

	for (k = 0; k < POSIX_TRACE_PROC_STREAMS; k++) {
		const struct posix_trace_proc_stream *slot = &src->slots[k];
		u32 trid = READ_ONCE(slot->trid);

		for (i = 0; i < inh->nr; i++) {
			if (!trid || inh->streams[i]->trid != trid)
				continue;
			memcpy(&dst->slots[k], slot, sizeof(*slot));
			found++;
			nr = k + 1;
			if (READ_ONCE(dst->slots[k].state) == POSIX_TRACE_SLOT_OFF)
				break;
			for (j = 0; j < ARRAY_SIZE(dst->wanted); j++)
				dst->wanted[j] |= ~dst->slots[k].filter[j];
			break;
		}
	}
	if (found < inh->nr) {
		dst->unslotted = inh->nr - found;
		memset(dst->wanted, 0xff, sizeof(dst->wanted));
	}
	dst->nr_slots = nr;
	dst->generation = 1;
	dst->active = inh->nr;
}

void pt_inherit_set(struct pt_proc *child, struct pt_inherit *inh)
{
	/* Published with the proc itself (hash insertion). */
	rcu_assign_pointer(child->inherit, inh);
}

/* A fork bomb stops at max_procs_per_stream; the stream says so. */
static void pt_inherit_refused(struct pt_stream *s)
{
	int err = EAGAIN;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_ERROR,
		.data = &err,
		.data_len = sizeof(err),
		.control = true,
	};

	pt_record(s, &ev);
}

void pt_proc_fork_work(struct work_struct *work)
{
	struct pt_proc *proc = container_of(work, struct pt_proc, fork_work);
	struct pt_inherit *inh;
	unsigned int i;

	mutex_lock(&pt_ctl_lock);
	inh = rcu_dereference_protected(proc->inherit, lockdep_is_held(&pt_ctl_lock));
	for (i = 0; inh && i < inh->nr && pt_group_alive(proc->tgid); i++) {
		struct pt_stream *s = inh->streams[i];

		if (atomic_read(&s->state) == PT_DEAD)
			continue;
		if (s->nr_targets >= pt_max_procs_per_stream ||
		    pt_attach(s, proc))
			pt_inherit_refused(s);
	}
	/* The attaches before the pointer: pairs with the smp_rmb() in
	 * pt_inherit_collect().
	 */
	smp_wmb();
	RCU_INIT_POINTER(proc->inherit, NULL);
	pt_proc_update_page(proc);
	mutex_unlock(&pt_ctl_lock);
	if (inh)
		pt_inherit_free(inh);
	pt_proc_put(proc);	/* the work item's reference */
}

/* Process context, no lock held: the calling process's inherited streams
 * are attached when this returns.
 */
void pt_proc_settle(struct pt_proc *proc)
{
	if (rcu_access_pointer(proc->inherit))
		flush_work(&proc->fork_work);
}

void pt_settle_current(void)
{
	struct pt_proc *proc = pt_proc_find(task_tgid(current));

	if (proc) {
		pt_proc_settle(proc);
		pt_proc_put(proc);
	}
}
