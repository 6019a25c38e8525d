// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread-group state: the name mapping, the list of streams tracing
 * the group and the read-only page its posix_trace_event() looks at.
 */
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "stream.h"

/* Every process the module knows: a user sets their number (children). */
static DEFINE_HASHTABLE(pt_proc_hash, 12);

/*
 * Kernel-event probes look up the process of every task that reaches
 * them: with class SCHED, every context switch of the system.  A count
 * per bucket of the processes attached to a stream that records kernel
 * events answers "not traced" for most tasks without walking a chain of
 * pt_proc_hash (pt_proc_find_kev_rcu()).  Changed under pt_ctl_lock at
 * attach and detach; a probe racing with either may miss a record.
 */
#define PT_KEV_FILTER_BITS	12
static atomic_t pt_kev_filter[1 << PT_KEV_FILTER_BITS];

void pt_proc_kev_mark(struct pt_proc *proc, int delta)
{
	lockdep_assert_held(&pt_ctl_lock);
	atomic_add(delta, &pt_kev_filter[hash_ptr(proc->tgid, PT_KEV_FILTER_BITS)]);
}

/* Whether a stream may trace the process @tgid for kernel events: false
 * for most untraced processes, with no lock and no RCU section.
 */
bool pt_proc_kev_maybe(struct pid *tgid)
{
	return tgid && atomic_read(&pt_kev_filter[hash_ptr(tgid, PT_KEV_FILTER_BITS)]);
}

/* pt_proc_find_rcu() for a probe: NULL at once for most untraced tasks. */
struct pt_proc *pt_proc_find_kev_rcu(struct pid *tgid)
{
	if (!pt_proc_kev_maybe(tgid))
		return NULL;
	return pt_proc_find_rcu(tgid);
}

/* Raw: the fork probe inserts with preemption disabled (PREEMPT_RT). */
static DEFINE_RAW_SPINLOCK(pt_proc_hash_lock);

static void pt_proc_exit_work(struct work_struct *work);
/* The lifecycle's (inherit.c): pt_proc_init(). */
static work_func_t pt_proc_fork_fn;
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

/*
 * The same without a reference, for probes: valid until the caller's RCU
 * read-side section ends (a pt_proc is freed after a grace period).
 */
struct pt_proc *pt_proc_find_rcu(struct pid *tgid)
{
	struct pt_proc *proc;

	hash_for_each_possible_rcu(pt_proc_hash, proc, hnode, (unsigned long)tgid) {
		if (proc->tgid == tgid)
			return proc;
	}
	return NULL;
}

/* The memory of a pt_proc, not set up yet (forkkit.c keeps such spares). */
struct pt_proc *pt_proc_shell(gfp_t gfp)
{
	struct pt_proc *proc = kzalloc(sizeof(*proc), gfp);

	if (!proc)
		return NULL;
	proc->page = (void *)get_zeroed_page(gfp);
	if (!proc->page) {
		kfree(proc);
		return NULL;
	}
	raw_spin_lock_init(&proc->slot_lock);
	return proc;
}

void pt_proc_shell_free(struct pt_proc *proc)
{
	free_page((unsigned long)proc->page);
	kfree(proc);
}

/* The self_exec_id of the group of @tgid (its threads share it), or 0. */
u64 pt_proc_exec_id(struct pid *tgid)
{
	struct task_struct *t;
	u64 id = 0;

	rcu_read_lock();
	t = pid_task(tgid, PIDTYPE_TGID);
	if (t)
		id = READ_ONCE(t->self_exec_id);
	rcu_read_unlock();
	return id;
}

/* Make the shell @proc the entry of @tgid, owning a reference to @map. */
void pt_proc_setup(struct pt_proc *proc, struct pid *tgid, struct pt_map *map)
{
	proc->map = map;
	proc->page->size = sizeof(*proc->page);
	proc->page->nr_ids = proc->map->count;
	kref_init(&proc->ref);
	INIT_LIST_HEAD(&proc->streams);
	INIT_WORK(&proc->exit_work, pt_proc_exit_work);
	INIT_WORK(&proc->exec_work, pt_proc_exec_work);
	INIT_WORK(&proc->fork_work, pt_proc_fork_fn);
	proc->tgid = get_pid(tgid);
	proc->exec_id = pt_proc_exec_id(tgid);
	pt_stat_inc(PT_STAT_PROCS);
}

/* @parent_map: the mapping of the process that forked this one, or NULL;
 * @share: use it (the child is traced by inheritance), else copy it.
 */
struct pt_proc *pt_proc_alloc(struct pid *tgid, struct pt_map *parent_map,
			      bool share, gfp_t gfp)
{
	struct pt_proc *proc = pt_proc_shell(gfp);
	struct pt_map *map;

	if (!proc)
		return NULL;
	if (share)
		kref_get(&parent_map->ref);
	map = share ? parent_map :
	      parent_map ? pt_map_fork(parent_map, gfp) : pt_map_new(gfp);
	if (!map) {
		pt_proc_shell_free(proc);
		return NULL;
	}
	pt_proc_setup(proc, tgid, map);
	return proc;
}

static void pt_proc_free_rcu(struct rcu_head *rcu)
{
	struct pt_proc *proc = container_of(rcu, struct pt_proc, rcu);

	pt_map_put(proc->map);
	put_pid(proc->tgid);
	free_page((unsigned long)proc->page);
	kfree(proc);
	pt_stat_dec(PT_STAT_PROCS);
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
struct pt_proc *pt_proc_insert(struct pt_proc *proc)
{
	struct pt_proc *old;
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_proc_hash_lock, flags);
	hash_for_each_possible(pt_proc_hash, old, hnode, (unsigned long)proc->tgid) {
		if (old->tgid == proc->tgid && kref_get_unless_zero(&old->ref)) {
			raw_spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
			pt_proc_put(proc);
			return old;
		}
	}
	kref_get(&proc->ref);	/* the hash table's reference */
	hash_add_rcu(pt_proc_hash, &proc->hnode, (unsigned long)proc->tgid);
	raw_spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
	return proc;
}

struct pt_proc *pt_proc_get_or_create(struct pid *tgid)
{
	struct pt_proc *proc = pt_proc_find(tgid);

	if (proc)
		return proc;
	proc = pt_proc_alloc(tgid, NULL, false, GFP_KERNEL_ACCOUNT);
	return proc ? pt_proc_insert(proc) : NULL;
}

static bool pt_proc_unhash(struct pt_proc *proc)
{
	unsigned long flags;
	bool hashed;

	raw_spin_lock_irqsave(&pt_proc_hash_lock, flags);
	hashed = !hlist_unhashed(&proc->hnode);
	if (hashed)
		hash_del_rcu(&proc->hnode);
	raw_spin_unlock_irqrestore(&pt_proc_hash_lock, flags);
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

static u32 pt_slot_state(int state)
{
	switch (state) {
	case PT_RUNNING:
		return POSIX_TRACE_SLOT_RECORD;
	case PT_AUTOSTOPPED:
		return POSIX_TRACE_SLOT_KERNEL;
	default:
		return POSIX_TRACE_SLOT_OFF;
	}
}

/*
 * Mirror the state of @a's stream into its slot.  An auto-stop writes the
 * slot without pt_ctl_lock, so re-read the state after the store: of two
 * racing calls the later store is always the current state.
 */
void pt_slot_sync_state(struct pt_attach *a)
{
	struct posix_trace_proc_stream *slot = &a->proc->page->slots[a->slot];
	int state;

	do {
		state = atomic_read(&a->stream->state);
		WRITE_ONCE(slot->state, pt_slot_state(state));
		smp_mb();	/* the slot before the re-read */
	} while (atomic_read(&a->stream->state) != state);
}

/* Publish the number of ids the group's mapping defines; never lowers it,
 * as two threads opening names may report their counts in either order.
 */
void pt_proc_publish_ids(struct pt_proc *proc)
{
	/* Pairs with the release of the count in pt_map_open(). */
	u32 count = smp_load_acquire(&proc->map->count);
	u32 old = READ_ONCE(proc->page->nr_ids);

	while (old < count) {
		u32 prev = cmpxchg(&proc->page->nr_ids, old, count);

		if (prev == old)
			break;
		old = prev;
	}
}

int pt_proc_slot_get(struct pt_proc *proc)
{
	int slot;

	lockdep_assert_held(&pt_ctl_lock);
	slot = find_first_zero_bit(&proc->slots_used, POSIX_TRACE_PROC_STREAMS);
	if (slot >= POSIX_TRACE_PROC_STREAMS)
		return -EAGAIN;
	__set_bit(slot, &proc->slots_used);
	return slot;
}

void pt_proc_slot_put(struct pt_proc *proc, int slot)
{
	lockdep_assert_held(&pt_ctl_lock);
	__clear_bit(slot, &proc->slots_used);
}

static void pt_slot_fill(struct pt_attach *a, struct posix_trace_proc_stream *slot)
{
	u64 filter[ARRAY_SIZE(slot->filter)];
	struct pt_stream *s = a->stream;
	unsigned int i;

	WRITE_ONCE(slot->policy, s->policy);
	WRITE_ONCE(slot->max_data, s->max_data);
	bitmap_to_arr64(filter, s->filter, POSIX_TRACE_ID_NR);
	for (i = 0; i < ARRAY_SIZE(filter); i++)
		WRITE_ONCE(slot->filter[i], filter[i]);
	pt_slot_sync_state(a);
}

/*
 * Rewrite the group's page from the streams tracing it: what its
 * posix_trace_event() needs to record without a system call.  The
 * generation changes whenever a slot changes hands, so the library knows
 * to drop the lanes it keeps for the old stream.
 */
void pt_proc_update_page(struct pt_proc *proc)
{
	struct posix_trace_proc_page *pg = proc->page;
	u32 active = 0, nr = 0, unslotted = 0;
	u64 wanted[ARRAY_SIZE(pg->wanted)] = { 0 };
	bool moved = false;
	struct pt_attach *a;
	int i;

	lockdep_assert_held(&pt_ctl_lock);
	for (i = 0; i < POSIX_TRACE_PROC_STREAMS; i++) {
		if (!test_bit(i, &proc->slots_used) && pg->slots[i].trid) {
			WRITE_ONCE(pg->slots[i].state, POSIX_TRACE_SLOT_OFF);
			WRITE_ONCE(pg->slots[i].trid, 0);
			moved = true;
		}
	}
	list_for_each_entry(a, &proc->streams, proc_node) {
		struct posix_trace_proc_stream *slot;

		if (a->slot < 0)
			WRITE_ONCE(a->slot, pt_proc_slot_get(proc));
		if (a->slot < 0) {
			int state = atomic_read(&a->stream->state);

			if (state == PT_RUNNING || state == PT_AUTOSTOPPED)
				unslotted++;
			continue;
		}
		slot = &pg->slots[a->slot];
		if (slot->trid != a->stream->trid) {
			WRITE_ONCE(slot->state, POSIX_TRACE_SLOT_OFF);
			WRITE_ONCE(slot->trid, a->stream->trid);
			moved = true;
		}
		pt_slot_fill(a, slot);
		nr = max_t(u32, nr, a->slot + 1);
		if (READ_ONCE(slot->state) == POSIX_TRACE_SLOT_OFF)
			continue;
		active++;
		for (i = 0; i < ARRAY_SIZE(wanted); i++)
			wanted[i] |= ~slot->filter[i];
	}
	for (i = 0; i < ARRAY_SIZE(wanted); i++)
		WRITE_ONCE(pg->wanted[i], unslotted ? ~0ULL : wanted[i]);
	pt_proc_publish_ids(proc);
	WRITE_ONCE(pg->nr_slots, nr);
	WRITE_ONCE(pg->unslotted, unslotted);
	WRITE_ONCE(pg->active, active + unslotted);
	if (moved)
		WRITE_ONCE(pg->generation, pg->generation + 1);
}

/*
 * The group is gone: shut down the streams it controls (spec 4.10), stop
 * tracing it, forget it.  Normally run by the exit task_work callback in
 * the last thread (lifecycle.c), else by the exit work; safe to repeat.
 */
void pt_proc_exit_job(struct pt_proc *proc)
{
	pt_shutdown_owned_by(proc->tgid);
	pt_detach_proc(proc);
	if (pt_proc_unhash(proc))
		pt_proc_put(proc);
}

static void pt_proc_exit_work(struct work_struct *work)
{
	struct pt_proc *proc = container_of(work, struct pt_proc, exit_work);

	pt_proc_exit_job(proc);
	pt_proc_put(proc);	/* the work item's reference */
}

/* Fallback of the exec task_work (lifecycle.c): a controller that execs
 * loses its streams (MODEL-45); a traced process keeps being traced.  Not
 * in the task, so the mapping is kept and no privilege is looked at.
 */
static void pt_proc_exec_work(struct work_struct *work)
{
	struct pt_proc *proc = container_of(work, struct pt_proc, exec_work);

	pt_shutdown_owned_by(proc->tgid);
	/* others' records of it again (kev.c), unless the exec raised */
	WRITE_ONCE(proc->exec_id, pt_proc_exec_id(proc->tgid));
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

	raw_spin_lock_irq(&pt_proc_hash_lock);
	hash_for_each_safe(pt_proc_hash, bkt, tmp, proc, hnode) {
		hash_del_rcu(&proc->hnode);
		pt_proc_put(proc);
	}
	raw_spin_unlock_irq(&pt_proc_hash_lock);
}

/* Before any proc exists (module load): what a proc's fork work runs. */
void pt_proc_init(work_func_t fork_work)
{
	pt_proc_fork_fn = fork_work;
}
