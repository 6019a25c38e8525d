// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Copy-out of a lane's next record, the reader side of the ring protocol
 * (writer side: kmod/record.c, writer.c):
 *   head = load-acquire(lane->head)         pairs with the writer's release
 *   copy the record at pos
 *   acquire fence; oldest = load(lane->oldest)
 *   oldest > pos: the writer may have reused the bytes: retry from oldest.
 * Consumed positions are published with a release store to the consumer's
 * tail, which the kernel clamps.  A lost stretch is reported before the
 * record after it (RULE-17).
 */
#include <string.h>
#include "take.h"

/* A writer moving its oldest record faster than we can copy one is either
 * lapping a tiny lane or hostile: after this many tries the lane's unread
 * records count as lost. */
#define PT_COPY_TRIES	8

/* A lane's next record as pt_copy_next() copied it. */
struct pt_copy {
	struct posix_trace_record rec;
	uint64_t head, pos;
	int valid;	/* the header can be believed */
	int pass;	/* and the gate lets it through (pt_gate_pass()) */
	int direct;	/* its data went to the caller */
	uint8_t *data;
	size_t n;	/* bytes of data copied */
	/* A kernel lane's START or FILTER: the filter(s) it carries. */
	struct posix_trace_event_set sets[2];
};

enum { PT_COPY_OK, PT_COPY_EMPTY, PT_COPY_BAD, PT_COPY_TORN };

/*
 * Copy lane @l's next record into @r: its data straight to @out when it
 * can go there (nothing queued, nothing lost, the gate lets it through),
 * else where it is queued, after what may go before it (an ERROR, an
 * OVERFLOW and a RESUME).  PT_COPY_TORN: the writer reused the bytes
 * while we copied.
 */
static int pt_copy_next(struct pt_handle *h, struct pt_rlane *l,
			const struct pt_out *out, struct pt_copy *r)
{
	size_t slot_cap = h->data_cap / PT_PENDING_MAX;
	const struct posix_trace_record *rec = &r->rec;
	uint64_t oldest;

	if (pt_rlane_span(l, &r->head, &r->pos))
		return PT_COPY_BAD;
	if ((int64_t)(r->head - r->pos) <= 0)
		return PT_COPY_EMPTY;
	if (r->head - r->pos > l->size)
		return PT_COPY_BAD;
	pt_ring_copy(l, r->pos, &r->rec, sizeof(r->rec));
	r->valid = pt_rec_valid(l, rec, r->head - r->pos,
				l->user ? h->attr.__max_data_size : slot_cap);
	r->pass = r->valid &&
		  (!l->user || pt_gate_pass(&h->gate, rec->timestamp, rec->event_id));
	r->direct = r->pass && r->pos == l->cur.pos && !l->cur.loss_pending &&
		    !h->npending;
	r->data = h->data + (h->pending_head + PT_PENDING_MAX - 1) % PT_PENDING_MAX *
		  slot_cap;
	r->n = rec->data_len;
	if (r->direct) {
		r->data = out->data;
		r->n = r->n < out->num_bytes ? r->n : out->num_bytes;
	}
	if (r->pass && r->n)
		pt_ring_copy(l, r->pos + PT_RECORD_HDR_SIZE, r->data, r->n);
	if (r->valid && !l->user && pt_gate_is_control(rec->event_id))
		pt_ring_copy(l, r->pos + PT_RECORD_HDR_SIZE, r->sets,
			     rec->data_len < sizeof(r->sets) ? rec->data_len :
							       sizeof(r->sets));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	oldest = PT_LOAD(l->oldest);
	if ((int64_t)(oldest - r->pos) > 0 && (int64_t)(oldest - r->head) <= 0)
		return PT_COPY_TORN;
	return PT_COPY_OK;
}

/*
 * Lane @l's next record, @rec at @pos, is past the cursor: the records in
 * between were lost.  A kernel lane's loss is reported now, and may have
 * hidden control events (pt_gate_gap()); a writer lane's is only a claim
 * (pt_rlane_claims_loss()).  Returns whether anything was queued.
 */
static int pt_take_lost(struct pt_handle *h, struct pt_rlane *l,
			const struct posix_trace_record *rec)
{
	struct pt_cursor *c = &l->cur;
	uint64_t lost_ts;

	if (l->user)
		return pt_rlane_claims_loss(h, l, rec);
	pt_gate_gap(&h->gate, c->last_ts, rec->timestamp);
	if (c->seq_known && rec->seq <= c->next_seq)
		return 0;
	lost_ts = c->seq_known && PT_LOAD_ACQ(l->lost_seq) == c->next_seq ?
		  PT_LOAD(l->lost_ts) : rec->timestamp;
	pt_push_marker(h, POSIX_TRACE_OVERFLOW, lost_ts, 0);
	pt_push_marker(h, POSIX_TRACE_RESUME, rec->timestamp, 0);
	return 1;
}

/* Lane @l holds nothing from @pos on, past the cursor: everything it held
 * was lost (pt_take_lost(), with no record after the loss). */
int pt_take_none(struct pt_handle *h, struct pt_rlane *l, uint64_t pos)
{
	struct pt_cursor *c = &l->cur;
	int queued = 0;

	if (pos == c->pos)
		return PT_EMPTY;
	if (l->user)
		queued = pt_rlane_claims_loss(h, l, NULL);
	else
		pt_gate_gap(&h->gate, c->last_ts, pt_mono_now());
	c->pos = pos;
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return queued ? PT_QUEUED : PT_EMPTY;
}

/*
 * Consume the next record of lane @l.  When nothing is queued and no
 * OVERFLOW/RESUME has to go first (RULE-17), it goes straight to @out
 * (PT_DIRECT); otherwise into the pending queue (PT_QUEUED).  PT_EMPTY
 * when the lane turned out empty, PT_SKIPPED when the record was consumed
 * but is not delivered (the gate refused it) and nothing was queued.
 */
int pt_take(struct pt_handle *h, struct pt_rlane *l, const struct pt_out *out)
{
	struct pt_cursor *c = &l->cur;
	unsigned int tries = 0;
	struct pt_pending *p;
	struct pt_copy r;
	int ret, queued;

	c->peek_ts = 0;		/* the cursor moves, whatever happens */
	if (l->broken) {
		pt_push_error(h, l->broken, l->pid);
		l->broken = 0;
		return PT_QUEUED;
	}
	do
		ret = pt_copy_next(h, l, out, &r);
	while (ret == PT_COPY_TORN && ++tries < PT_COPY_TRIES);
	if (ret == PT_COPY_EMPTY)
		return pt_take_none(h, l, r.pos);
	if (ret != PT_COPY_OK || !r.valid)
		return pt_rlane_corrupt(h, l, r.head);
	queued = r.pos != c->pos && pt_take_lost(h, l, &r.rec);
	if (!l->user && pt_gate_is_control(r.rec.event_id))
		pt_gate_control(&h->gate, r.rec.event_id, r.rec.timestamp, r.sets,
				r.rec.data_len);
	if (r.pass && l->user && c->loss_pending)
		pt_push_loss(h, l, &r.rec);
	pt_consume(l, r.pos, &r.rec);
	if (!r.pass) {
		h->gate.refused++;
		__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
		return queued ? PT_QUEUED : PT_SKIPPED;
	}
	if (l->user)
		r.rec.pid = l->pid;
	if (r.direct) {
		pt_fill_info(h, &r.rec, out->ev);
		if (r.n < r.rec.data_len)
			out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
		*out->data_len = r.n;
		__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
		return PT_DIRECT;
	}
	p = pt_push(h);
	p->rec = r.rec;
	if (p->data_off != (uint32_t)(r.data - h->data))
		memmove(h->data + p->data_off, r.data, r.rec.data_len);
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return PT_QUEUED;
}
