/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The handle lock: a futex mutex with three states (0 free, 1 held, 2 held
 * and maybe waited for; U. Drepper, "Futexes Are Tricky", mutex 2) whose
 * uncontended lock and unlock are inline, one atomic each and no call.
 * getnext takes it once per event, and under QEMU TCG, where the reader is
 * measured, the two calls into libpthread cost more than the rest of a
 * read.  Not a cancellation point and not robust: nothing blocks while
 * holding it but the ioctls of the control functions.
 */
#ifndef PT_LOCK_H
#define PT_LOCK_H

struct pt_lock {
	int v;		/* zero-initialised: free */
};

void pt_lock_wait(struct pt_lock *l, int seen);
void pt_lock_wake(struct pt_lock *l);

static inline void pt_lock(struct pt_lock *l)
{
	int seen = 0;

	if (!__atomic_compare_exchange_n(&l->v, &seen, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		pt_lock_wait(l, seen);
}

static inline void pt_unlock(struct pt_lock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		pt_lock_wake(l);
}

#endif /* PT_LOCK_H */
