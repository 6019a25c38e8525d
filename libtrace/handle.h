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

/* A lane as the reader sees it: rlane.h. */
struct pt_rlane;

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
	/* inflight.c, pt_inflight(): older records are all visible */
	uint64_t safe_ts;
	uint64_t lane_cap;		/* bytes of user records a lane holds */
	uint64_t max_rec;		/* bytes of the largest user record */
	struct pt_gate gate;		/* what writer lanes may deliver */
	struct pt_rlane *lanes;
	/* Unmaps the writer lanes of @lanes: set with them by the layer
	 * that maps them (rlane.c, pt_rlanes_init()), which this one sits
	 * below; pt_handle_release_buffers() calls it. */
	void (*unmap_lanes)(struct pt_handle *h);
	unsigned int typelist_next;
	/* PT_LAST_EVENT | the tid of the event the last getnext returned
	 * (out.h, pt_fill_info()); 0: none since create or clear. */
	uint64_t last_tid;
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

/* At shutdown, under @h->lock: unmap and free what only reading needs, so
 * that a handle still referenced (a thread's cache) holds no more than the
 * structure itself. */
void pt_handle_release_buffers(struct pt_handle *h);

#endif /* PT_HANDLE_H */
