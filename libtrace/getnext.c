// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The getnext family (spec 3.7).  Records are read straight from the
 * lanes mapped read-only into this process; the kernel is entered only to
 * sleep when every lane is empty.  One event, top to bottom:
 *   getnext.c	the calls; a pre-recorded trid goes to log_open.c
 *   merge.h	pt_try_read(): the pending queue first, else pt_fetch()
 *   merge.c	pt_pick() the oldest record, pt_inflight() may it go,
 *		pt_take_fast() / pt_take() take it
 *   take.c	copy-out from the ring (the reader side of the protocol)
 *   trust.c	what a writer lane's records and losses are worth
 *   pending.c	what must go out first (ERROR, OVERFLOW, RESUME)
 *   rlane.c	the lanes, their positions checked (pt_rlane_span())
 *   wait.c	nothing at hand: sleep, read again
 * Before a record goes out, the writer lanes' in-flight stamps say
 * whether an older one is still being written (pt_inflight()).  A writer
 * lane is written by a traced process that may write anything there: its
 * positions are believed only as far as pt_rlane_span() says, its records
 * only as far as pt_rec_valid() and the gate (gate.c: the stream's state
 * and filter at the record's time) say, and what it can make the reader
 * report is bounded (pt_rlane_claims_loss(), pt_rlane_may_report()).
 */
#include <errno.h>
#include "handle.h"
#include "log_read.h"
#include "merge.h"
#include "wait.h"

/* mode: 0 block, 1 try, 2 timed */
static inline __attribute__((always_inline)) int pt_getnext(trace_id_t trid, struct posix_trace_event_info *ev,
		      void *data, size_t num_bytes, size_t *data_len,
		      int *unavailable, int mode, const struct timespec *abstime)
{
	const struct pt_out out = {
		.ev = ev, .data = data, .num_bytes = num_bytes, .data_len = data_len,
	};
	struct pt_handle *h;
	int ret, got, put, held;

	if (!ev || !data_len || !unavailable || (num_bytes && !data))
		return EINVAL;
	if (trid < 0)	/* pre-recorded (log_open.c); trygetnext: never */
		return mode == 1 ? EINVAL :
			pt_log_getnext(trid, ev, data, num_bytes, data_len, unavailable);
	h = pt_handle_cached(trid, &put);
	if (!h)
		return EINVAL;
	if (__builtin_expect(h->withlog, 0)) {
		/* The module's flusher is its only reader (design.md §10). */
		if (put)
			pt_handle_put(h);
		return EINVAL;
	}
	/* An event at hand: no cancellation point, no cleanup handler. */
	ret = pt_try_read(h, &out, &got, &held);
	if (!ret && !got && mode != 1)
		ret = pt_getnext_wait(h, put, trid, &out, mode, abstime, &got, held);
	if (put)
		pt_handle_put(h);
	if (!ret)
		*unavailable = !got;
	return ret;
}

PT_EXPORT int posix_trace_getnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 0, NULL);
}

PT_EXPORT int posix_trace_trygetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 1, NULL);
}

PT_EXPORT int posix_trace_timedgetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable,
		const struct timespec *restrict abstime)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 2, abstime);
}

