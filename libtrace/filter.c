// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_get_filter() and posix_trace_set_filter() (spec 3.5.7,
 * 3.5.8).  The filter lives in the module, which checks it on the event
 * path and records the FILTER event; the reader's gate (gate.c) learns
 * each change too, to check the records of writer lanes.
 */
#include <errno.h>
#include <string.h>
#include "eventset.h"
#include "dev.h"
#include "handle.h"

static int pt_filter_ioctl(trace_id_t trid, unsigned long cmd,
			   struct posix_trace_filter *f)
{
	struct pt_handle *h = pt_handle_get(trid);
	int ret;

	if (!h)
		return EINVAL;
	f->size = sizeof(*f);
	f->trid = (uint32_t)trid;
	ret = pt_ioctl(cmd, f);
	pt_handle_put(h);
	return ret;
}

PT_EXPORT int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set)
{
	struct posix_trace_filter f = { .set_ptr = (uint64_t)(uintptr_t)set };

	if (!set)
		return EINVAL;
	return pt_filter_ioctl(trid, POSIX_TRACE_IOC_GET_FILTER, &f);
}

/*
 * The filter after a set_filter call that succeeded, for the reader's gate
 * (gate.c): the module's word, or, if it cannot be had, the same result
 * computed from the filter before.
 */
static void pt_filter_after(struct pt_handle *h, const trace_event_set_t *set,
			    int how, uint64_t *bits)
{
	const uint64_t *before = h->gate.cmd.e[h->gate.cmd.n - 1].filter;
	struct posix_trace_filter f = {
		.size = sizeof(f), .trid = (uint32_t)h->trid,
	};
	trace_event_set_t now;
	size_t i;

	f.set_ptr = (uint64_t)(uintptr_t)&now;
	if (!pt_ioctl(POSIX_TRACE_IOC_GET_FILTER, &f)) {
		memcpy(bits, now.__bits, sizeof(now.__bits));
		return;
	}
	for (i = 0; i < POSIX_TRACE_ID_NR / 64; i++) {
		if (how == POSIX_TRACE_SET_EVENTSET)
			bits[i] = set->__bits[i];
		else if (how == POSIX_TRACE_ADD_EVENTSET)
			bits[i] = before[i] | set->__bits[i];
		else
			bits[i] = before[i] & ~(uint64_t)set->__bits[i];
	}
}

PT_EXPORT int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
				     int how)
{
	struct posix_trace_filter f = {
		.size = sizeof(f),
		.trid = (uint32_t)trid,
		.how = (uint32_t)how,
		.thread = (uint64_t)pthread_self(),
		.address = (uint64_t)(uintptr_t)__builtin_return_address(0),
		.set_ptr = (uint64_t)(uintptr_t)set,
	};
	uint64_t bits[POSIX_TRACE_ID_NR / 64], lo;
	struct pt_handle *h;
	int ret;

	if (!set || !pt_evset_valid(set))
		return EINVAL;
	if (how != POSIX_TRACE_SET_EVENTSET && how != POSIX_TRACE_ADD_EVENTSET &&
	    how != POSIX_TRACE_SUB_EVENTSET)
		return EINVAL;
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	/* Under the handle's lock: the gate learns the calls in their order. */
	pt_lock(&h->lock);
	lo = pt_gate_clock();
	ret = h->dead ? EINVAL : pt_ioctl(POSIX_TRACE_IOC_SET_FILTER, &f);
	if (!ret && !h->withlog) {
		pt_filter_after(h, set, how, bits);
		pt_gate_command(&h->gate, PT_CMD_FILTER, bits, lo, pt_gate_clock());
	}
	pt_unlock(&h->lock);
	pt_handle_put(h);
	return ret;
}
