// SPDX-License-Identifier: GPL-2.0
/*
 * Fork kits: the memory the fork probe needs for a child (a pt_proc with
 * its page, a mapping, a list of streams to inherit), allocated ahead in
 * process context.  The probe runs with preemption disabled, where
 * PREEMPT_RT forbids allocating (its allocators take sleeping locks).
 *
 * The probe takes a kit from the pool, uses what the child needs, and
 * queues the kit on the forking thread as task_work: before that thread
 * returns to user space, so before it can fork again, the kit is refilled
 * in its context (and charged to its memory cgroup) and goes back to the
 * pool.  A thread therefore holds at most one kit at a time, and the pool
 * runs dry only when more than PT_KITS threads fork at the same instant.
 * Then (counted in pt_kit_misses) the child is not traced on PREEMPT_RT;
 * elsewhere the probe allocates with GFP_ATOMIC.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include "lifecycle.h"

#define PT_KITS		32

static LIST_HEAD(pt_kits);
static unsigned int pt_nr_kits;			/* on pt_kits */
static DEFINE_RAW_SPINLOCK(pt_kits_lock);	/* taken by the probe */
static atomic_t pt_kit_misses = ATOMIC_INIT(0);

/* A kit whose task_work could not be queued: refilled from a work item. */
static LIST_HEAD(pt_kits_empty);
static void pt_kits_refill_work(struct work_struct *work);
static DECLARE_WORK(pt_kits_work, pt_kits_refill_work);

static bool pt_kit_fill(struct pt_kit *kit)
{
	if (!kit->proc)
		kit->proc = pt_proc_shell(GFP_KERNEL_ACCOUNT);
	if (!kit->map)
		kit->map = pt_map_alloc(GFP_KERNEL_ACCOUNT);
	if (!kit->inh)
		kit->inh = pt_inherit_alloc(GFP_KERNEL_ACCOUNT);
	return kit->proc && kit->map && kit->inh;
}

/* Unused pieces are not counted anywhere: plain frees. */
static void pt_kit_free(struct pt_kit *kit)
{
	if (kit->proc)
		pt_proc_shell_free(kit->proc);
	kfree(kit->map);
	kfree(kit->inh);
	kfree(kit);
}

static void pt_kit_put(struct pt_kit *kit, struct list_head *list)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_kits_lock, flags);
	list_add(&kit->node, list);
	pt_nr_kits += list == &pt_kits;
	raw_spin_unlock_irqrestore(&pt_kits_lock, flags);
}

/* Refill, back to the pool; a kit that cannot be refilled now waits for
 * the next refill work (the pool is one kit short meanwhile).
 */
static void pt_kit_restock(struct pt_kit *kit)
{
	if (pt_kit_fill(kit)) {
		pt_kit_put(kit, &pt_kits);
		return;
	}
	pt_kit_put(kit, &pt_kits_empty);
}

struct pt_kit *pt_kit_take(void)
{
	struct pt_kit *kit;
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_kits_lock, flags);
	kit = list_first_entry_or_null(&pt_kits, struct pt_kit, node);
	if (kit) {
		list_del(&kit->node);
		pt_nr_kits--;
	}
	raw_spin_unlock_irqrestore(&pt_kits_lock, flags);
	return kit;
}

static void pt_kit_refill_tw(struct callback_head *cb)
{
	pt_kit_restock(container_of(cb, struct pt_kit, refill));
	/* Last; module exit waits for the return (main.c). */
	module_put(THIS_MODULE);
}

static void pt_kits_refill_work(struct work_struct *work)
{
	struct pt_kit *kit, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	raw_spin_lock_irqsave(&pt_kits_lock, flags);
	list_splice_init(&pt_kits_empty, &list);
	raw_spin_unlock_irqrestore(&pt_kits_lock, flags);
	list_for_each_entry_safe(kit, tmp, &list, node) {
		list_del(&kit->node);
		pt_kit_restock(kit);
	}
}

/*
 * The probe is done with @kit (atomic context).  A module that is going
 * queues no callback: the refill work does the job, and module exit,
 * which comes after the probes are gone, cancels it and frees the kit.
 */
void pt_kit_used(struct pt_kit *kit)
{
	/* Put by pt_kit_refill_tw(). */
	if (try_module_get(THIS_MODULE)) {
		init_task_work(&kit->refill, pt_kit_refill_tw);
		if (!task_work_add(current, &kit->refill, TWA_RESUME))
			return;
		module_put(THIS_MODULE);
	}
	pt_kit_put(kit, &pt_kits_empty);
	queue_work(pt_wq, &pt_kits_work);
}

void pt_kit_missed(void)
{
	atomic_inc(&pt_kit_misses);
}

void pt_kits_read(u32 *kits, u32 *misses)
{
	*kits = READ_ONCE(pt_nr_kits);
	*misses = atomic_read(&pt_kit_misses);
}

int pt_kits_init(void)
{
	struct pt_kit *kit;
	int i;

	for (i = 0; i < PT_KITS; i++) {
		kit = kzalloc(sizeof(*kit), GFP_KERNEL);
		if (!kit || !pt_kit_fill(kit)) {
			if (kit)
				pt_kit_free(kit);
			pt_kits_exit();
			return -ENOMEM;
		}
		pt_kit_put(kit, &pt_kits);
	}
	return 0;
}

/* Module exit or failed init: no probe runs and no kit is lent out (each
 * lent kit's callback holds a module reference; pt_kit_used() queues none
 * once the module is going).
 */
void pt_kits_exit(void)
{
	struct pt_kit *kit, *tmp;

	cancel_work_sync(&pt_kits_work);
	list_splice_init(&pt_kits_empty, &pt_kits);
	list_for_each_entry_safe(kit, tmp, &pt_kits, node) {
		list_del(&kit->node);
		pt_kit_free(kit);
	}
	pt_nr_kits = 0;
	if (atomic_read(&pt_kit_misses))
		pr_info("posix_trace: %d forked children went untraced (no fork kit)\n",
			atomic_read(&pt_kit_misses));
}
