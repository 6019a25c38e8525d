/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Active-stream handles: the library's view of a stream it controls.
 */
#ifndef PT_HANDLE_H
#define PT_HANDLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "internal.h"

struct pt_cursor {
	uint64_t pos;		/* next record to read; published as tail */
	uint64_t next_seq;	/* seq expected at pos */
	int seq_known;		/* 0 after a corrupt record: take what comes */
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
	pthread_mutex_t lock;
	int dead;
	trace_attr_t attr;		/* effective attributes */
	uint64_t created_real;
	uint64_t created_mono;
	void *ro;
	size_t ro_size;
	void *cons;
	size_t cons_size;
	size_t cons_stride;
	unsigned int nr_lanes;
	struct pt_cursor *cur;
	unsigned int typelist_next;
	unsigned int npending, pending_head;
	struct pt_pending pending[PT_PENDING_MAX];
	uint8_t *data;			/* copied payloads */
	size_t data_cap;
};

/* pid of this process, refreshed in the child after fork(). */
pid_t pt_self(void);

/* Look up @trid for the calling process and take a reference. */
struct pt_handle *pt_handle_get(trace_id_t trid);
void pt_handle_put(struct pt_handle *h);
int pt_handle_add(struct pt_handle *h);
void pt_handle_remove(struct pt_handle *h);

/* Lane descriptor @i and consumer of @i. */
const struct posix_trace_lane *pt_lane(const struct pt_handle *h, unsigned int i);
struct posix_trace_consumer *pt_consumer(const struct pt_handle *h, unsigned int i);

/* read.c: resynchronise all cursors on the lanes' oldest records. */
void pt_cursors_reset(struct pt_handle *h);

#endif /* PT_HANDLE_H */
