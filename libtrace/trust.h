/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a lane's word is worth (trust.c; Documentation/design.md, "Writer
 * lanes", Trust): a record header is believed only as far as
 * pt_rec_valid() says, and what a writer lane can make the reader report
 * beyond its own records is bounded.
 */
#ifndef PT_TRUST_H
#define PT_TRUST_H

#include "pending.h"
#include "rlane.h"

static inline int pt_rec_valid(const struct pt_rlane *l, const struct posix_trace_record *r,
			uint64_t avail, size_t max_data)
{
	if (r->size < PT_RECORD_HDR_SIZE || r->size % 8 || r->size > avail ||
	    r->data_len > r->size - PT_RECORD_HDR_SIZE || r->data_len > max_data)
		return 0;
	/* A traced process may write only user events of its own. */
	return !l->user ||
	       (r->event_id >= POSIX_TRACE_ID_UNNAMED &&
		r->event_id < POSIX_TRACE_ID_NR &&
		!(r->flags & ~(uint32_t)POSIX_TRACE_REC_TRUNCATED));
}

/* May writer lane @l cause one more ERROR? */
int pt_rlane_may_report(struct pt_handle *h, struct pt_rlane *l);
/* Lane @l cannot be believed up to @head: PT_QUEUED (an ERROR) or
 * PT_SKIPPED. */
int pt_rlane_corrupt(struct pt_handle *h, struct pt_rlane *l, uint64_t head);
/* Writer lane @l says the records before @rec (NULL: its head) are gone;
 * whether an ERROR was queued. */
int pt_rlane_claims_loss(struct pt_handle *h, struct pt_rlane *l,
			 const struct posix_trace_record *rec);

#endif /* PT_TRUST_H */
