/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pending queue (pending.c): events the reader synthesized (ERROR,
 * OVERFLOW, RESUME) or copied aside to go out before the next record,
 * PT_PENDING_MAX at most, in h->pending and their data in h->data.
 */
#ifndef PT_PENDING_H
#define PT_PENDING_H

#include <string.h>
#include "out.h"
#include "rlane.h"

/* What pt_take() did with the lane's next record. */
enum { PT_EMPTY, PT_QUEUED, PT_DIRECT, PT_SKIPPED };

/* A zeroed slot at the end of the queue, its data at data_off.  Inline:
 * pt_take() queues a record with it. */
static inline struct pt_pending *pt_push(struct pt_handle *h)
{
	unsigned int slot = (h->pending_head + h->npending++) % PT_PENDING_MAX;
	struct pt_pending *p = &h->pending[slot];

	memset(&p->rec, 0, sizeof(p->rec));
	p->data_off = (uint32_t)(slot * (h->data_cap / PT_PENDING_MAX));
	return p;
}

/* @pid: a writer lane's for what it caused, 0 for a kernel lane's. */
void pt_push_marker(struct pt_handle *h, uint32_t id, uint64_t ts, uint32_t pid);
void pt_push_error(struct pt_handle *h, int err, uint32_t pid);
/* OVERFLOW and RESUME of writer lane @l before @rec (RULE-17). */
void pt_push_loss(struct pt_handle *h, struct pt_rlane *l,
		  const struct posix_trace_record *rec);
/* The oldest queued event to @out. */
void pt_deliver(struct pt_handle *h, const struct pt_out *out);

#endif /* PT_PENDING_H */
