// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Validation of what a lane says (trust.h): records and losses a writer
 * lane claims, and the ERROR events that it may cause.
 */
#include <errno.h>
#include "trust.h"

/*
 * Reports a writer lane can cause beyond its own records and its real
 * losses (an ERROR for a corrupt lane, or for a loss it cannot have had)
 * come at most once per PT_REPORT_NS per lane, the rest are counted.
 */
#define PT_REPORT_NS	1000000000u

/* May writer lane @l cause one more ERROR?  One per PT_REPORT_NS; the
 * others are counted. */
int pt_rlane_may_report(struct pt_handle *h, struct pt_rlane *l)
{
	uint64_t now = pt_mono_now();

	if (l->reported && now - l->reported < PT_REPORT_NS) {
		h->gate.withheld++;
		return 0;
	}
	l->reported = now;
	return 1;
}

/* Something in lane @l cannot be believed: say so with an ERROR event
 * (a writer lane: with its pid, at most once per PT_REPORT_NS) and go on
 * after everything it holds now (a writer lane: at the next 8-aligned
 * position).  Returns PT_QUEUED, or PT_SKIPPED with nothing to say. */
int pt_rlane_corrupt(struct pt_handle *h, struct pt_rlane *l, uint64_t head)
{
	struct pt_cursor *c = &l->cur;

	c->seq_known = 0;
	c->peek_ts = 0;
	if (!l->user)
		c->pos = head;
	else if (head > PT_POS_MAX)
		pt_rlane_ignore(l);
	else if (pt_pos_up(head) > c->pos)
		c->pos = pt_pos_up(head);
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	if (l->user && !pt_rlane_may_report(h, l))
		return PT_SKIPPED;
	pt_push_error(h, EIO, l->user ? l->pid : 0);
	return PT_QUEUED;
}

/*
 * Can writer lane @l really have lost records from the reader's position?
 * Only a LOOP writer evicts records the reader has not consumed, and only
 * to make room for one that does not fit: its head is then more than the
 * capacity less the largest record past the reader's position.  This head
 * is loaded after the oldest that claims the loss (pt_rlane_span()), which
 * the writer raises only after publishing the head it had then.
 */
static int pt_loss_plausible(const struct pt_handle *h, const struct pt_rlane *l)
{
	uint64_t head = PT_LOAD_ACQ(l->head), pos = l->cur.pos;

	return h->attr.__stream_policy == POSIX_TRACE_LOOP && head <= PT_POS_MAX &&
	       head > pos && head - pos + h->max_rec > h->lane_cap;
}

/*
 * Writer lane @l says the records from the cursor to its next one, @rec
 * (NULL: to its head), are gone.  A loss it can have had is reported
 * before its next record delivered (pt_push_loss()); one it cannot have
 * had means the lane is corrupt.  Returns whether an ERROR was queued.
 */
int pt_rlane_claims_loss(struct pt_handle *h, struct pt_rlane *l,
				const struct posix_trace_record *rec)
{
	struct pt_cursor *c = &l->cur;

	if (!pt_loss_plausible(h, l)) {
		if (!pt_rlane_may_report(h, l))
			return 0;
		pt_push_error(h, EIO, l->pid);
		return 1;
	}
	if (c->loss_pending || (rec && c->seq_known && rec->seq <= c->next_seq))
		return 0;
	c->loss_pending = 1;
	c->loss_ts = c->seq_known && PT_LOAD_ACQ(l->lost_seq) == c->next_seq ?
		     PT_LOAD(l->lost_ts) : 0;
	return 0;
}
