/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writer lanes as the traced process holds them: the pool of lanes mapped
 * (pool.c) and each thread's hold on them, shared by the record path
 * (writer.c) and the host benchmark's hooks (bench_fake.c).
 */
#ifndef PT_WLANE_H
#define PT_WLANE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/posix_trace.h>

#define PT_POOL_MAX	256	/* lanes one process keeps mapped */

/* PT_W_ORPHAN: a fork() child's stand-in for a lane of its parent's
 * (pt_writer_atfork_child()), unmapped at its next sync. */
enum { PT_W_EMPTY, PT_W_BUSY, PT_W_FREE, PT_W_CLAIMED, PT_W_ORPHAN };

struct pt_wlane {
	atomic_int state;
	atomic_uint owner;	/* tid of the thread holding it (CLAIMED) */
	uint32_t trid;
	uint32_t index;
	struct posix_trace_writer_ctl *ctl;
	uint8_t *ring;
	uint64_t size;		/* ring bytes */
	uint64_t cap;		/* record bytes the lane may hold */
	void *map;
	size_t map_len;
	/* Owned by the thread holding the lane; never read back from ctl.
	 * @off and @oldest_off are @head and @oldest modulo @size, kept
	 * up to date because a 64-bit division costs more than a record. */
	uint64_t head, oldest, seq, off, oldest_off;
	uint64_t kicked;	/* the flush mark we last asked a flush for */
} __attribute__((aligned(64)));	/* two writers never share a line */

struct pt_wthread {
	uint64_t gen;
	int synced;
	int busy;
	int key_set;
	int forked;		/* fork() in a handler that interrupted us */
	uint32_t tid;
	uint64_t self;		/* pthread_self() */
	struct pt_wlane *lane[POSIX_TRACE_PROC_STREAMS];
};

/* pool.c */
extern struct pt_wlane pt_pool[PT_POOL_MAX];
extern atomic_int pt_orphans;	/* PT_W_ORPHAN lanes to unmap */
extern int pt_fake;		/* host benchmark: lanes are anonymous memory */
extern uint64_t pt_fake_capacity;	/* and hold this many bytes of records */

#define PT_LOAD(p)	__atomic_load_n((p), __ATOMIC_RELAXED)
#define PT_LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PT_STORE(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define PT_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* pool.c: the page changed hands (or this thread is new): hold a lane for
 * each stream in it and give back the others. */
void pt_wthread_sync(struct pt_wthread *t, const struct posix_trace_proc_page *pg);

#endif /* PT_WLANE_H */
