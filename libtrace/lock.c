// SPDX-License-Identifier: LGPL-2.1-or-later
/* The contended halves of the handle lock (lock.h). */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "lock.h"

/* Mark the lock waited for (2) and sleep until it is free; whoever takes
 * it from here on leaves it at 2, so its unlock wakes the next waiter. */
void pt_lock_wait(struct pt_lock *l, int seen)
{
	int saved = errno;

	if (seen != 2)
		seen = __atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE);
	while (seen) {
		syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		seen = __atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE);
	}
	errno = saved;
}

void pt_lock_wake(struct pt_lock *l)
{
	int saved = errno;

	syscall(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	errno = saved;
}
