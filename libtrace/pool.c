// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process's writer lanes (writer.c writes into them): mapped on
 * demand, kept in a process-wide pool and lent to one thread at a time; a
 * lane whose stream went away is unmapped once no thread holds it.
 *
 * Everything here is async-signal-safe, as the record path that calls it:
 * no lock, no malloc.  A thread gives its lanes back at exit through a
 * pthread_key_t destructor, registered only where pthread_setspecific()
 * cannot allocate (pt_wkey_safe); elsewhere a thread that needs a lane
 * takes one back from a thread that exited (pt_wlane_reclaim()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "dev.h"
#include "internal.h"
#include "wlane.h"

#define PT_PAGE		4096

struct pt_wlane pt_pool[PT_POOL_MAX];
static pthread_key_t pt_wkey;
static int pt_wkey_safe;	/* pthread_setspecific(pt_wkey) never allocates */
atomic_int pt_orphans;
int pt_fake;
uint64_t pt_fake_capacity;

/* A new lane for stream @trid from the kernel, mapped read-write. */
static int pt_wlane_open(struct pt_wlane *w, uint32_t trid)
{
	struct posix_trace_writer wr = { .size = sizeof(wr), .trid = trid };
	int saved = errno;
	void *p;

	if (pt_fake) {
		wr.capacity = pt_fake_capacity;
		wr.data_offset = PT_PAGE;
		wr.data_size = (wr.capacity + PT_PAGE - 1) & ~(uint64_t)(PT_PAGE - 1);
		wr.mmap_size = wr.data_offset + wr.data_size;
		p = mmap(NULL, wr.mmap_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		/* Not inherited by fork(), as the module's (VM_DONTCOPY). */
		if (p != MAP_FAILED)
			madvise(p, wr.mmap_size, MADV_DONTFORK);
	} else {
		int ret, tries = 0;

		/* The kernel's lock wait is interruptible; a signal must not
		 * leave the thread without a lane until the page changes. */
		do
			ret = pt_ioctl(POSIX_TRACE_IOC_WRITER_OPEN, &wr);
		while (ret == EINTR && ++tries < 16);
		if (ret)
			return -1;
		if (wr.data_offset < sizeof(*w->ctl) || wr.data_size < wr.capacity ||
		    wr.capacity < PT_RECORD_HDR_SIZE ||
		    wr.data_offset + wr.data_size > wr.mmap_size)
			return -1;
		p = mmap(NULL, wr.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 pt_dev_fd(), (off_t)wr.mmap_offset);
	}
	errno = saved;
	if (p == MAP_FAILED)
		return -1;
	w->trid = trid;
	w->index = wr.index;
	w->map = p;
	w->map_len = wr.mmap_size;
	w->ctl = p;
	w->ring = (uint8_t *)p + wr.data_offset;
	w->size = wr.data_size;
	w->cap = wr.capacity;
	w->head = w->oldest = w->seq = w->off = w->oldest_off = 0;
	return 0;
}

static struct pt_wlane *pt_wlane_claim(uint32_t trid, uint32_t tid, int only_read)
{
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		struct pt_wlane *w = &pt_pool[i];
		int expected = PT_W_FREE;

		if (w->trid != trid || atomic_load(&w->state) != PT_W_FREE ||
		    (only_read && PT_LOAD(&w->ctl->tail) != w->head))
			continue;
		if (atomic_compare_exchange_strong(&w->state, &expected, PT_W_CLAIMED)) {
			atomic_store(&w->owner, tid);
			return w;
		}
	}
	return NULL;
}

static struct pt_wlane *pt_wlane_new(uint32_t trid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		int expected = PT_W_EMPTY;

		if (!atomic_compare_exchange_strong(&pt_pool[i].state, &expected,
						    PT_W_BUSY))
			continue;
		if (pt_wlane_open(&pt_pool[i], trid)) {
			atomic_store(&pt_pool[i].state, PT_W_EMPTY);
			return NULL;
		}
		atomic_store(&pt_pool[i].owner, tid);
		atomic_store(&pt_pool[i].state, PT_W_CLAIMED);
		return &pt_pool[i];
	}
	return NULL;
}

/* Has thread @tid of this process exited?  (A tid reused since by another
 * thread of ours keeps its lanes lost until that one exits.) */
static int pt_thread_gone(uint32_t tid)
{
	int saved = errno, gone;

	gone = syscall(SYS_tgkill, (long)getpid(), (long)tid, 0L) && errno == ESRCH;
	errno = saved;
	return gone;
}

/*
 * A lane of stream @trid held by a thread that exited without giving it
 * back (no destructor could be registered for it), now held by @tid; or
 * NULL.  Async-signal-safe, as all of this: a tgkill() per lane held.
 */
static struct pt_wlane *pt_wlane_reclaim(uint32_t trid, uint32_t tid)
{
	unsigned int owner;
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		struct pt_wlane *w = &pt_pool[i];

		owner = atomic_load(&w->owner);
		if (w->trid != trid || atomic_load(&w->state) != PT_W_CLAIMED ||
		    !owner || owner == tid || !pt_thread_gone(owner))
			continue;
		if (atomic_compare_exchange_strong(&w->owner, &owner, tid))
			return w;
	}
	return NULL;
}

/*
 * Lend a lane of stream @trid to thread @tid, or NULL: the thread then
 * records through the kernel.  A lane whose records the reader has not
 * consumed yet is reused last, so the events of a thread that exited are
 * not overwritten by the next thread while lanes are to be had.
 */
static struct pt_wlane *pt_wlane_get(uint32_t trid, uint32_t tid)
{
	struct pt_wlane *w = pt_wlane_claim(trid, tid, 1);

	/* Without destructors, the lanes of threads that exited are never
	 * free: take one of those before opening another. */
	if (!w && !pt_wkey_safe)
		w = pt_wlane_reclaim(trid, tid);
	if (!w)
		w = pt_wlane_new(trid, tid);
	if (!w)
		w = pt_wlane_claim(trid, tid, 0);
	if (!w && pt_wkey_safe)
		w = pt_wlane_reclaim(trid, tid);
	return w;
}

static int pt_trid_in_page(const struct posix_trace_proc_page *pg, uint32_t trid)
{
	unsigned int k;

	for (k = 0; k < POSIX_TRACE_PROC_STREAMS; k++) {
		if (PT_LOAD(&pg->slots[k].trid) == trid)
			return 1;
	}
	return 0;
}

/* Lane @w, free or held by a thread that exited, for the caller alone
 * (PT_W_BUSY)?  A held one is first taken from its dead owner. */
static int pt_wlane_take_idle(struct pt_wlane *w)
{
	int expected = PT_W_FREE;
	unsigned int owner;

	if (atomic_compare_exchange_strong(&w->state, &expected, PT_W_BUSY))
		return 1;
	owner = atomic_load(&w->owner);
	if (expected != PT_W_CLAIMED || !owner || !pt_thread_gone(owner) ||
	    !atomic_compare_exchange_strong(&w->owner, &owner, 0))
		return 0;
	atomic_store(&w->state, PT_W_BUSY);
	return 1;
}

/* Unmap the idle lanes of streams that no longer trace the process, and
 * the stand-ins of a fork() child (pt_writer_atfork_child()). */
static void pt_pool_reap(const struct posix_trace_proc_page *pg)
{
	int orphans = atomic_exchange(&pt_orphans, 0);
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		struct pt_wlane *w = &pt_pool[i];
		int expected = PT_W_ORPHAN;

		if ((orphans && atomic_compare_exchange_strong(&w->state, &expected,
							       PT_W_BUSY)) ||
		    (PT_LOAD(&w->trid) && !pt_trid_in_page(pg, w->trid) &&
		     pt_wlane_take_idle(w))) {
			munmap(w->map, w->map_len);
			w->trid = 0;
			atomic_store(&w->state, PT_W_EMPTY);
		}
	}
}

static void pt_wthread_release(struct pt_wthread *t)
{
	unsigned int k;

	for (k = 0; k < POSIX_TRACE_PROC_STREAMS; k++) {
		if (t->lane[k]) {
			atomic_store(&t->lane[k]->owner, 0);
			atomic_store(&t->lane[k]->state, PT_W_FREE);
		}
		t->lane[k] = NULL;
	}
}

static void pt_wthread_exit(void *arg)
{
	pt_wthread_release(arg);
}

/* The page changed hands (or this thread is new): hold a lane for each
 * stream in it and give back the others. */
void pt_wthread_sync(struct pt_wthread *t, const struct posix_trace_proc_page *pg)
{
	uint64_t gen = PT_LOAD_ACQ(&pg->generation);
	unsigned int k;

	if (!t->tid)
		t->tid = (uint32_t)syscall(SYS_gettid);
	t->self = (uint64_t)pthread_self();
	for (k = 0; k < POSIX_TRACE_PROC_STREAMS; k++) {
		uint32_t trid = PT_LOAD(&pg->slots[k].trid);
		struct pt_wlane *w = t->lane[k];

		if (w && w->trid != trid) {
			atomic_store(&w->owner, 0);
			atomic_store(&w->state, PT_W_FREE);
			t->lane[k] = NULL;
		}
		if (trid && !t->lane[k])
			t->lane[k] = pt_wlane_get(trid, t->tid);
	}
	pt_pool_reap(pg);
	/* This may run in a signal handler: only where it cannot allocate. */
	if (!t->key_set && pt_wkey_safe) {
		t->key_set = 1;
		pthread_setspecific(pt_wkey, t);
	}
	t->gen = gen;
	t->synced = 1;
}

/*
 * pthread_setspecific() may allocate (calloc) the first time a thread sets
 * a key past the first PTHREAD_KEY_2NDLEVEL_SIZE (32) in glibc, whose
 * first block lives in the thread descriptor; musl keeps every key there.
 */
static int pt_key_never_allocates(pthread_key_t k)
{
#ifdef __GLIBC__
	return k < 32;
#else
	(void)k;
	return 1;
#endif
}

__attribute__((constructor)) static void pt_pool_init(void)
{
	pt_wkey_safe = !pthread_key_create(&pt_wkey, pt_wthread_exit) &&
		       pt_key_never_allocates(pt_wkey);
}
