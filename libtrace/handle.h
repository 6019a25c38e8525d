/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Active-stream handles: the library's view of a stream it controls.
 */
#ifndef PT_HANDLE_H
#define PT_HANDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "gate.h"
#include "fork.h"
#include "internal.h"
#include "lock.h"

struct pt_cursor {
	uint64_t pos;		/* next record to read; published as tail */
	uint64_t next_seq;	/* seq expected at pos */
	int seq_known;		/* 0 after a corrupt record: take what comes */
	/* The record at @pos as last seen, so that a drain reads each header
	 * once and an empty lane costs one load (read.c, pt_pick()): its
	 * timestamp (0: not known) and its ring offset, @pos % size. */
	uint64_t peek_ts;
	uint64_t peek_off;
	uint64_t last_ts;	/* timestamp of the last record consumed */
	/* Writer lanes: a loss to report before the lane's next record
	 * delivered (read.c, pt_push_loss()), and its OVERFLOW time (0:
	 * that record's). */
	int loss_pending;
	uint64_t loss_ts;
};

/*
 * A lane as the reader sees it.  Kernel lanes live in the read-only region
 * and are written by the kernel alone.  Writer lanes are written by a
 * traced process: only @ring, @size and @pid (from the kernel's descriptor)
 * are trusted; every position and record read through the pointers is
 * validated before use (read.c).
 */
struct pt_rlane {
	const uint8_t *ring;
	uint64_t size;
	const __u64 *head, *oldest, *lost_seq, *lost_ts;
	const __u64 *inflight;	/* writer lanes: ctl->inflight_ts */
	uint64_t inflight_stale;	/* a stamp found stuck: no clock read again */
	uint64_t clock_head;	/* head when POSIX_TRACE_INFLIGHT_CLOCK was */
	uint64_t clock_since;	/* first seen there, reader's clock (0: not) */
	/* The record this lane last held back (lane index, position), how
	 * long its earlier writes held it, the write holding it now (the
	 * lane's head) from its first to its last sighting, and until when
	 * the lane may hold nothing (read.c, pt_held_too_long()). */
	unsigned int held_lane;
	uint64_t held_pos, held_ns, held_head, held_first, held_last;
	uint64_t hold_off_until;
	__u64 *tail;
	uint32_t pid;		/* writer lanes: the writing process */
	int user;		/* a writer lane */
	int broken;		/* errno to report once: the lane is unusable */
	uint64_t reported;	/* reader's clock at the lane's last ERROR */
	__u64 broken_tail;
	void *map;		/* writer lanes: our mapping of it */
	size_t map_len;
	struct pt_cursor cur;
};

/* A synthesized or copied event waiting to be returned. */
struct pt_pending {
	struct posix_trace_record rec;
	uint32_t data_off;	/* into pt_handle.data */
};

#define PT_PENDING_MAX	4

/*
 * Lifetime: reference counted.  The handle table holds one reference from
 * create to shutdown; each API call holds one while it runs.  The mappings
 * are removed at shutdown under @lock, and every use of them happens under
 * @lock after checking @dead, so a call racing with shutdown sees EINVAL.
 */
struct pt_handle {
	trace_id_t trid;
	pid_t owner;
	atomic_int refs;
	struct pt_lock lock;
	int dead;
	int withlog;			/* create_withlog: nothing to read */
	trace_attr_t attr;		/* effective attributes */
	uint64_t created_real;
	uint64_t created_mono;
	void *ro;
	size_t ro_size;
	void *cons;
	size_t cons_size;
	size_t cons_stride;
	unsigned int nr_lanes;		/* kernel lanes, first in @lanes */
	unsigned int nr_rlanes;		/* kernel lanes + writer lanes mapped */
	unsigned int max_rlanes;
	unsigned int nr_writers_seen;	/* the header's count, last loaded */
	uint64_t safe_ts;		/* read.c, pt_inflight(): older records are all visible */
	uint64_t lane_cap;		/* bytes of user records a lane holds */
	uint64_t max_rec;		/* bytes of the largest user record */
	struct pt_gate gate;		/* what writer lanes may deliver */
	struct pt_rlane *lanes;
	/* Unmaps the writer lanes of @lanes: set with them by the layer
	 * that maps them (read.c, pt_rlanes_init()), which this one sits
	 * below; pt_handle_release_buffers() calls it. */
	void (*unmap_lanes)(struct pt_handle *h);
	unsigned int typelist_next;
	unsigned int npending, pending_head;
	struct pt_pending pending[PT_PENDING_MAX];
	uint8_t *data;			/* copied payloads */
	size_t data_cap;
};

/* Look up @trid for the calling process and take a reference. */
struct pt_handle *pt_handle_get(trace_id_t trid);
/* The same, for the getnext family: the reference is the calling thread's
 * cache of its last handle, dropped when the thread looks up another trid
 * or exits; valid until then, so there is nothing to put unless *@put
 * says so (the cache could not be used).  The hit is inline. */
extern __thread struct pt_handle *pt_cached __attribute__((tls_model("initial-exec")));
struct pt_handle *pt_handle_cache(trace_id_t trid, int *put);

static inline struct pt_handle *pt_handle_cached(trace_id_t trid, int *put)
{
	struct pt_handle *h = pt_cached;

	/* pt_fork_check() first: until it resets, a child made by a raw
	 * clone() still has its parent's pid in pt_pid. */
	if (h && pt_fork_check() && h->trid == trid && h->owner == pt_pid) {
		*put = 0;
		return h;
	}
	return pt_handle_cache(trid, put);
}
void pt_handle_put(struct pt_handle *h);
int pt_handle_add(struct pt_handle *h);
void pt_handle_remove(struct pt_handle *h);

/* Lane descriptor @i and consumer of @i. */
const struct posix_trace_lane *pt_lane(const struct pt_handle *h, unsigned int i);
struct posix_trace_consumer *pt_consumer(const struct pt_handle *h, unsigned int i);

/* read.c: set up the kernel lanes (0 or an errno); resynchronise all
 * cursors on the lanes' oldest records; unmap the writer lanes. */
int pt_rlanes_init(struct pt_handle *h);
void pt_cursors_reset(struct pt_handle *h);
/* read.c: after posix_trace_clear(), done by @when: the cursors are reset
 * and the gate forgets what the cleared control events said. */
void pt_rlanes_cleared(struct pt_handle *h, uint64_t when);
void pt_rlanes_unmap(struct pt_handle *h);
/* read.c: writer lane @i of the header, mapped at @p (MAP_FAILED if it
 * could not be); pt_rlanes_discover() maps them, host tests attach their
 * own. */
void pt_rlane_attach_writer(struct pt_handle *h, unsigned int i, void *p);
/* At shutdown, under @h->lock: unmap and free what only reading needs, so
 * that a handle still referenced (a thread's cache) holds no more than the
 * structure itself. */
void pt_handle_release_buffers(struct pt_handle *h);

#endif /* PT_HANDLE_H */
