// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The merge: the lanes' records go out in timestamp order.  pt_pick()
 * finds the lane whose next record is the oldest, pt_inflight() says
 * whether it may go before an older one still being written, pt_take()
 * takes it (pt_take_fast() when nothing is special).
 */
#include <posix_trace/merge.h>
#include "inflight.h"
#include "merge.h"
#include "rlane.h"
#include "take.h"

/* A fetch skips at most PT_SKIP_MAX records that it does not deliver
 * (refused by the gate, or corrupt) before the caller goes on without an
 * event. */
#define PT_SKIP_MAX	4096

/*
 * The lane whose next record is the oldest, or -1 if all are empty; ties
 * go to the lower lane (deterministic: kernel lanes, then writer lanes in
 * the order they were opened).  A cached timestamp stays right while the
 * writer has not evicted the record (oldest <= pos), and an empty lane
 * costs one load of its head, so a drain does not re-read every lane's
 * header for every event.
 */
static int pt_pick(struct pt_handle *h, uint64_t *best_tsp)
{
	uint64_t ts, best_ts = UINT64_MAX;
	unsigned int i;
	int best = -1;

	for (i = 0; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		ts = l->cur.peek_ts;
		if (!ts && !l->broken && PT_LOAD_ACQ(l->head) == l->cur.pos)
			continue;
		if (!ts || (int64_t)(PT_LOAD_ACQ(l->oldest) - l->cur.pos) > 0) {
			l->cur.peek_ts = 0;
			ts = pt_peek(h, l);
			if (!ts)
				continue;
		}
		if (pt_merge_before(ts, best_ts)) {
			best_ts = ts;
			best = (int)i;
		}
	}
	*best_tsp = best_ts;
	return best;
}

/*
 * Nothing to read: make sure the kernel agrees before the caller sleeps.
 * A writer lane whose oldest passed its head claimed a loss: that may
 * give an ERROR to deliver (returns 1).
 */
static int pt_fetch_none(struct pt_handle *h)
{
	uint64_t head, pos;
	unsigned int i;

	for (i = h->nr_lanes; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		if (l->broken || pt_rlane_span(l, &head, &pos))
			continue;
		if ((int64_t)(head - pos) <= 0 && pos != l->cur.pos) {
			l->cur.peek_ts = 0;
			if (pt_take_none(h, l, pos) == PT_QUEUED)
				return 1;
		}
		if (PT_LOAD(l->tail) != l->cur.pos)
			__atomic_store_n(l->tail, l->cur.pos, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Take the oldest record of all lanes (pt_pick()), straight to @out when
 * it can (returns 2), else into the pending queue (returns 1); 0 when
 * every lane is empty, -1 when the oldest record must wait for an older
 * one being written (pt_inflight()) or PT_SKIP_MAX records were skipped.
 * Bounded, so a writer that keeps changing its lane under us cannot keep
 * the reader here. */
int pt_fetch(struct pt_handle *h, const struct pt_out *out)
{
	unsigned int round = 0, skipped = 0;
	struct pt_rlane *l;
	uint64_t ts;
	int best, ret;

	while (round < 4 * h->nr_rlanes + 4) {
		best = pt_pick(h, &ts);
		if (best < 0) {
			if (pt_rlanes_discover(h)) {
				round++;
				continue;
			}
			break;
		}
		l = &h->lanes[best];
		/* Records older than h->safe_ts are known to be in order. */
		if (ts >= h->safe_ts && ts != PT_TS_BAD) {
			ret = pt_inflight(h, (unsigned int)best, ts);
			if (ret == PT_HOLD)
				return -1;
			if (ret == PT_REPICK) {
				round++;
				continue;
			}
		}
		if (l->cur.peek_ts && pt_take_fast(h, l, out))
			return 2;
		ret = pt_take(h, l, out);
		if (ret == PT_QUEUED || ret == PT_DIRECT)
			return ret == PT_DIRECT ? 2 : 1;
		/* A record skipped is progress: it costs no round. */
		if (ret == PT_EMPTY)
			round++;
		else if (++skipped >= PT_SKIP_MAX)
			return -1;
	}
	return pt_fetch_none(h);
}
