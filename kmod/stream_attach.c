// SPDX-License-Identifier: GPL-2.0
/*
 * "Stream traces process" (struct pt_attach): attaching, detaching, and
 * what each side publishes of the other (the process's page slots).
 */
#include <linux/rculist.h>
#include <linux/slab.h>
#include "stream.h"

int pt_attach(struct pt_stream *s, struct pt_proc *proc)
{
	struct pt_attach *a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);

	lockdep_assert_held(&pt_ctl_lock);
	if (!a)
		return -ENOMEM;
	pt_stat_inc(PT_STAT_ATTACHES);
	a->slot = -1;	/* pt_proc_update_page() hands out the slots */
	kref_get(&s->ref);
	kref_get(&proc->ref);
	a->stream = s;
	a->proc = proc;
	list_add_tail_rcu(&a->stream_node, &s->targets);
	list_add_tail_rcu(&a->proc_node, &proc->streams);
	s->nr_targets++;
	if (s->kclasses)
		pt_proc_kev_mark(proc, 1);
	pt_proc_update_page(proc);
	return 0;
}

static void pt_attach_free_rcu(struct rcu_head *rcu)
{
	struct pt_attach *a = container_of(rcu, struct pt_attach, rcu);

	pt_proc_put(a->proc);
	pt_stream_put(a->stream);	/* may free the stream: last */
	kfree(a);
	pt_stat_dec(PT_STAT_ATTACHES);
}

void pt_detach(struct pt_attach *a)
{
	unsigned long flags;
	int slot;

	lockdep_assert_held(&pt_ctl_lock);
	list_del_rcu(&a->stream_node);
	list_del_rcu(&a->proc_node);
	a->stream->nr_targets--;
	if (a->stream->kclasses)
		pt_proc_kev_mark(a->proc, -1);
	raw_spin_lock_irqsave(&a->proc->slot_lock, flags);
	slot = a->slot;
	WRITE_ONCE(a->slot, -1);
	raw_spin_unlock_irqrestore(&a->proc->slot_lock, flags);
	if (slot >= 0)
		pt_proc_slot_put(a->proc, slot);
	pt_proc_update_page(a->proc);
	call_rcu(&a->rcu, pt_attach_free_rcu);
}

void pt_update_targets(struct pt_stream *s)
{
	struct pt_attach *a;

	lockdep_assert_held(&pt_ctl_lock);
	/* before any writer can learn it */
	if (s->log_ops)
		s->log_ops->state_changed(s);
	list_for_each_entry(a, &s->targets, stream_node)
		pt_proc_update_page(a->proc);
}

/*
 * The state changed without pt_ctl_lock (auto-stop): any context.  An
 * attach seen here may be leaving; its slot is written only while it still
 * has it (@slot_lock, struct pt_proc), and the attach and its process stay
 * allocated until after an RCU grace period.
 */
void pt_stream_refresh_slots(struct pt_stream *s)
{
	unsigned long flags;
	struct pt_attach *a;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &s->targets, stream_node) {
		raw_spin_lock_irqsave(&a->proc->slot_lock, flags);
		if (a->slot >= 0)
			pt_slot_sync_state(a);
		raw_spin_unlock_irqrestore(&a->proc->slot_lock, flags);
	}
	rcu_read_unlock();
}

void pt_detach_proc(struct pt_proc *proc)
{
	struct pt_attach *a, *tmp;

	mutex_lock(&pt_ctl_lock);
	list_for_each_entry_safe(a, tmp, &proc->streams, proc_node)
		pt_detach(a);
	mutex_unlock(&pt_ctl_lock);
}
