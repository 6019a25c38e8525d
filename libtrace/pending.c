// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pending queue (pending.h): what must go out before a lane's next
 * record, or what was copied aside because something had to go first.
 */
#include <string.h>
#include "pending.h"

/* @pid: a writer lane's for what it caused, 0 for a kernel lane's. */
void pt_push_marker(struct pt_handle *h, uint32_t id, uint64_t ts, uint32_t pid)
{
	struct pt_pending *p = pt_push(h);

	p->rec.event_id = id;
	p->rec.timestamp = ts;
	p->rec.pid = pid;
	p->rec.flags = POSIX_TRACE_REC_AUTO;
}

void pt_push_error(struct pt_handle *h, int err, uint32_t pid)
{
	struct pt_pending *p = pt_push(h);

	p->rec.event_id = POSIX_TRACE_ERROR;
	p->rec.pid = pid;
	p->rec.data_len = sizeof(err);
	memcpy(h->data + p->data_off, &err, sizeof(err));
}

/*
 * OVERFLOW and RESUME of writer lane @l (RULE-17), before @rec, its first
 * record delivered since the loss: with the lane's pid, and an OVERFLOW
 * time between the lane's last record read and @rec, whatever the lane
 * says (0: @rec's).
 */
void pt_push_loss(struct pt_handle *h, struct pt_rlane *l,
			 const struct posix_trace_record *rec)
{
	uint64_t ts = l->cur.loss_ts, after = l->cur.last_ts;

	if (after > rec->timestamp)
		after = rec->timestamp;
	if (!ts || ts > rec->timestamp)
		ts = rec->timestamp;
	if (ts < after)
		ts = after;
	pt_push_marker(h, POSIX_TRACE_OVERFLOW, ts, l->pid);
	pt_push_marker(h, POSIX_TRACE_RESUME, rec->timestamp, l->pid);
	l->cur.loss_pending = 0;
}

void pt_deliver(struct pt_handle *h, const struct pt_out *out)
{
	struct pt_pending *p = &h->pending[h->pending_head];
	size_t n = p->rec.data_len;

	pt_fill_info(h, &p->rec, out->ev);
	if (n > out->num_bytes) {
		n = out->num_bytes;
		out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	}
	if (n)
		memcpy(out->data, h->data + p->data_off, n);
	*out->data_len = n;
	h->pending_head = (h->pending_head + 1) % PT_PENDING_MAX;
	h->npending--;
}
