// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user limits: streams, stream memory and registered event names,
 * counted per real uid of the process that made them.
 *
 * The key is the kuid alone, not (user namespace, uid): a kuid already
 * names one user across namespaces, and keying by namespace too would let
 * any user escape the caps with unshare(CLONE_NEWUSER).  struct
 * user_struct has no room for module counters, hence this small table.
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include "base.h"

static DEFINE_HASHTABLE(pt_users, 6);
static DEFINE_SPINLOCK(pt_users_lock);	/* the table; puts run in softirq too */

static unsigned long pt_user_limit(enum pt_res res)
{
	switch (res) {
	case PT_RES_STREAMS:
		return READ_ONCE(pt_max_streams_per_user);
	case PT_RES_MEMORY:
		return READ_ONCE(pt_max_user_memory);
	case PT_RES_KEV_STREAMS:
		return READ_ONCE(pt_max_kev_streams_per_user);
	default:
		return READ_ONCE(pt_max_names_per_user);
	}
}

static struct pt_user *pt_user_find_locked(kuid_t uid)
{
	struct pt_user *u;

	lockdep_assert_held(&pt_users_lock);
	hash_for_each_possible(pt_users, u, hnode, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid)) {
			refcount_inc(&u->ref);
			return u;
		}
	}
	return NULL;
}

/* The entry of the calling task's real uid, with a reference, or NULL. */
struct pt_user *pt_user_current(void)
{
	kuid_t uid = current_uid();
	struct pt_user *u, *new;
	unsigned long flags;

	spin_lock_irqsave(&pt_users_lock, flags);
	u = pt_user_find_locked(uid);
	spin_unlock_irqrestore(&pt_users_lock, flags);
	if (u)
		return u;
	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	refcount_set(&new->ref, 1);
	new->uid = uid;
	spin_lock_irqsave(&pt_users_lock, flags);
	u = pt_user_find_locked(uid);
	if (!u) {
		hash_add(pt_users, &new->hnode, __kuid_val(uid));
		pt_stat_inc(PT_STAT_USERS);
		u = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&pt_users_lock, flags);
	kfree(new);
	return u;
}

/*
 * Any context (name mappings are freed from RCU callbacks).  The count
 * drops under the lock, so a lookup never finds an entry at zero.
 */
void pt_user_put(struct pt_user *u)
{
	unsigned long flags;
	bool last;

	if (!u)
		return;
	spin_lock_irqsave(&pt_users_lock, flags);
	last = refcount_dec_and_test(&u->ref);
	if (last)
		hash_del(&u->hnode);
	spin_unlock_irqrestore(&pt_users_lock, flags);
	if (!last)
		return;
	WARN_ON_ONCE(atomic_long_read(&u->used[PT_RES_STREAMS]) ||
		     atomic_long_read(&u->used[PT_RES_MEMORY]) ||
		     atomic_long_read(&u->used[PT_RES_NAMES]) ||
		     atomic_long_read(&u->used[PT_RES_KEV_STREAMS]));
	kfree(u);
	pt_stat_dec(PT_STAT_USERS);
}

/* Take @n of @res from @u's allowance: false if that would exceed it. */
bool pt_user_charge(struct pt_user *u, enum pt_res res, unsigned long n)
{
	unsigned long limit = pt_user_limit(res);

	if (atomic_long_add_return(n, &u->used[res]) <= limit && n <= limit)
		return true;
	atomic_long_sub(n, &u->used[res]);
	return false;
}

void pt_user_uncharge(struct pt_user *u, enum pt_res res, unsigned long n)
{
	atomic_long_sub(n, &u->used[res]);
}

/*
 * Memory comes back when a stream is freed, an RCU grace period and a
 * work item after its last reference (stream.c), so a caller that shut a
 * stream down and creates another at once would find it still charged.
 * A charge that fails waits for the user's own streams on their way to
 * being freed (@releasing), killably and PT_RELEASE_WAIT at most; never
 * for other users' (a busy machine frees streams all the time) and never
 * with flush_workqueue(pt_wq), which would wait uninterruptibly behind
 * every user's work.
 */
#define PT_RELEASE_WAIT	(10 * HZ)
static DECLARE_WAIT_QUEUE_HEAD(pt_released_wq);

/* A stream of @u was released (any context). */
void pt_release_begin(struct pt_user *u)
{
	atomic_inc(&u->releasing);
}

/* ...and is freed, its memory given back (process context). */
void pt_release_end(struct pt_user *u)
{
	atomic_dec(&u->releasing);
	wake_up_all(&pt_released_wq);
}

/*
 * Wait until @charge(@u, @n) succeeds, or none of @u's streams is on its
 * way to being freed; true if it succeeded.  Attach frees (call_rcu)
 * drop stream references, so a stream shut down just now is released
 * after a grace period: wait for those first.  Process context, no lock.
 */
static bool pt_wait_released(bool (*charge)(struct pt_user *, unsigned long),
			     struct pt_user *u, unsigned long n)
{
	bool done = false;

	might_sleep();
	rcu_barrier();
	wait_event_killable_timeout(pt_released_wq,
				    (done = charge(u, n)) ||
				    !atomic_read(&u->releasing),
				    PT_RELEASE_WAIT);
	return done || charge(u, n);
}

static bool pt_user_charge_mem(struct pt_user *u, unsigned long bytes)
{
	return pt_user_charge(u, PT_RES_MEMORY, bytes);
}

/*
 * Memory for a new stream, after releases on their way if need be; never
 * waits for a request larger than the whole allowance.
 */
bool pt_user_charge_memory(struct pt_user *u, unsigned long bytes)
{
	if (pt_user_charge_mem(u, bytes))
		return true;
	return bytes <= pt_user_limit(PT_RES_MEMORY) &&
	       pt_wait_released(pt_user_charge_mem, u, bytes);
}
