/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which process the library's state belongs to (fork.c).
 */
#ifndef PT_FORK_H
#define PT_FORK_H

#include <stdatomic.h>
#include <sys/types.h>

/* pid of this process, refreshed in the child after fork() however it
 * was made (pt_fork_check()). */
extern pid_t pt_pid;
pid_t pt_self(void);

/*
 * fork.c: a child made without running the atfork handlers (the clone
 * system call called directly) resets the library's per-process state on
 * its first pass here.  Returns 0 only within that reset, when a signal
 * handler interrupted it: the caller must then use no per-process state.
 */
enum { PT_MARK_WIPED, PT_MARK_RESETTING, PT_MARK_SET };
extern atomic_int *pt_fork_mark;
int pt_fork_check_slow(void);

static inline int pt_fork_check(void)
{
	atomic_int *mark = pt_fork_mark;

	if (__builtin_expect(mark && atomic_load_explicit(mark, memory_order_acquire) !=
			     PT_MARK_SET, 0))
		return pt_fork_check_slow();
	return 1;
}

/*
 * The layers above with per-process state register how a child resets it,
 * from a constructor (before any fork()): fork.c calls each in the child,
 * in the order of the slots, after refreshing pt_pid.  fork.c sits below
 * them all, so it cannot call them by name.
 */
enum { PT_FORK_HANDLES, PT_FORK_STATUS, PT_FORK_NR };
void pt_fork_on_child(unsigned int slot, void (*reset)(void));

#endif /* PT_FORK_H */
