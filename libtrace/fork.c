// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Noticing that this process is a child of the one whose library state it
 * holds.  fork() runs the pthread_atfork() handlers, but a child made by
 * the clone system call itself (syscall(SYS_clone, SIGCHLD, ...), clone()
 * without CLONE_VM) runs none: it would write into its parent's writer
 * lanes, which it does not have (VM_DONTCOPY), and take its parent's
 * trids for its own (RULE-72, RULE-80).  (Its status page is its own:
 * the module wipes that mapping on fork and each process faults in its
 * own page, so the inline test of posix_trace_event() is right.)
 *
 * So the library keeps one private anonymous page marked MADV_WIPEONFORK:
 * every child, however it was made, finds the mark in it zeroed.  The
 * paths that use per-process state check the mark with one load: the
 * event slow path (taken only when the status page says "wanted"), every
 * trid lookup and eventid_open.  The first of them in a child resets what
 * the atfork handlers would have.  Without MADV_WIPEONFORK (Linux < 4.14)
 * only fork() children are handled.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fork.h"

atomic_int *pt_fork_mark;		/* in the MADV_WIPEONFORK page */
static __thread int pt_resetting;	/* this thread runs the reset */
pid_t pt_pid;
/* Set by constructors, before any thread or fork(): read without a lock. */
static void (*pt_fork_resets[PT_FORK_NR])(void);

pid_t pt_self(void)
{
	return pt_pid;
}

void pt_fork_on_child(unsigned int slot, void (*reset)(void))
{
	pt_fork_resets[slot] = reset;
}

/* What the atfork handlers did before the layers registered them: the
 * handle table first (handle.c), then the status page and the writer
 * lanes (event.c). */
static void pt_fork_reset(void)
{
	unsigned int i;

	pt_pid = getpid();
	for (i = 0; i < PT_FORK_NR; i++) {
		if (pt_fork_resets[i])
			pt_fork_resets[i]();
	}
}

/* fork(): the handlers run here, before anything else in the child. */
static void pt_atfork_child(void)
{
	pt_fork_reset();
	if (pt_fork_mark)
		atomic_store_explicit(pt_fork_mark, PT_MARK_SET, memory_order_release);
}

int pt_fork_check_slow(void)
{
	int expected = PT_MARK_WIPED;

	if (pt_resetting)
		return 0;	/* a signal handler interrupted the reset */
	if (atomic_compare_exchange_strong(pt_fork_mark, &expected, PT_MARK_RESETTING)) {
		pt_resetting = 1;
		pt_fork_reset();
		pt_resetting = 0;
		atomic_store_explicit(pt_fork_mark, PT_MARK_SET, memory_order_release);
		return 1;
	}
	/* Another thread of the child resets; its parent's state is unusable. */
	while (atomic_load_explicit(pt_fork_mark, memory_order_acquire) != PT_MARK_SET)
		sched_yield();
	return 1;
}

__attribute__((constructor)) static void pt_fork_init(void)
{
	pt_pid = getpid();
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED && !madvise(p, (size_t)sysconf(_SC_PAGESIZE),
					MADV_WIPEONFORK)) {
		pt_fork_mark = p;
		atomic_store(pt_fork_mark, PT_MARK_SET);
	} else if (p != MAP_FAILED) {
		munmap(p, (size_t)sysconf(_SC_PAGESIZE));
	}
	pthread_atfork(NULL, NULL, pt_atfork_child);
}
