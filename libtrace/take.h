/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Taking a lane's next record (take.c): copied out of the ring, checked,
 * and sent straight to the caller or queued behind what must go first.
 * pt_take_fast(), the common case, is inline: the merge (merge.c) calls
 * it once per event.
 */
#ifndef PT_TAKE_H
#define PT_TAKE_H

#include <string.h>
#include "gate.h"
#include "out.h"
#include "pending.h"
#include "rlane.h"
#include "trust.h"

/* Consume the next record of lane @l: PT_EMPTY, PT_QUEUED, PT_DIRECT or
 * PT_SKIPPED (pending.h). */
int pt_take(struct pt_handle *h, struct pt_rlane *l, const struct pt_out *out);
/* Lane @l holds nothing from @pos on, past the cursor: PT_EMPTY or
 * PT_QUEUED. */
int pt_take_none(struct pt_handle *h, struct pt_rlane *l, uint64_t pos);

/* The cursor of lane @l moves past @rec, at @pos. */
static inline void pt_consume(struct pt_rlane *l, uint64_t pos, const struct posix_trace_record *rec)
{
	l->cur.pos = pos + rec->size;
	l->cur.next_seq = rec->seq + 1;
	l->cur.seq_known = 1;
	l->cur.last_ts = rec->timestamp;
}

/*
 * pt_take() for the common case, with no copy but into @out: the record at
 * the cursor (its offset and timestamp known from pt_pick()), nothing
 * pending, nothing lost, header and data contiguous in the ring, not a
 * control event, and from a writer lane only what the gate lets through.
 * Returns 0, having consumed nothing, for anything else (pt_take() then
 * decides it); 1 when the record went to @out.
 */
static inline int pt_take_fast(struct pt_handle *h, struct pt_rlane *l, const struct pt_out *out)
{
	struct pt_cursor *c = &l->cur;
	uint64_t off = c->peek_off, pos = c->pos;
	uint64_t head = PT_LOAD_ACQ(l->head);
	struct posix_trace_record rec;
	size_t n;

	if (h->npending || l->broken || c->loss_pending || head - pos > l->size ||
	    head % 8 || off > l->size - PT_RECORD_HDR_SIZE)
		return 0;
	memcpy(&rec, l->ring + off, sizeof(rec));
	if (!pt_rec_valid(l, &rec, head - pos, l->user ? h->attr.__max_data_size :
			  h->data_cap / PT_PENDING_MAX) ||
	    rec.size > l->size - off)
		return 0;
	if (l->user ? !pt_gate_pass(&h->gate, rec.timestamp, rec.event_id) :
		      pt_gate_is_control(rec.event_id))
		return 0;
	n = rec.data_len < out->num_bytes ? rec.data_len : out->num_bytes;
	memcpy(out->data, l->ring + off + PT_RECORD_HDR_SIZE, n);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((int64_t)(PT_LOAD(l->oldest) - pos) > 0)
		return 0;	/* overwritten while we copied */
	if (l->user)
		rec.pid = l->pid;
	pt_fill_info(h, &rec, out->ev);
	if (n < rec.data_len)
		out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	*out->data_len = n;
	pt_consume(l, pos, &rec);
	c->peek_ts = 0;
	if (c->pos != head) {
		off += rec.size;
		c->peek_off = off == l->size ? 0 : off;
		c->peek_ts = pt_ts_at(l, c->peek_off);
	}
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return 1;
}

#endif /* PT_TAKE_H */
