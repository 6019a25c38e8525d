// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_get_filter() and posix_trace_set_filter() (spec 3.5.7,
 * 3.5.8).  The filter lives in the module, which checks it on the event
 * path and records the FILTER event.
 */
#include <errno.h>
#include "eventset.h"
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

PT_EXPORT int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
				     int how)
{
	struct posix_trace_filter f = {
		.how = (uint32_t)how,
		.thread = (uint64_t)pthread_self(),
		.address = (uint64_t)(uintptr_t)__builtin_return_address(0),
		.set_ptr = (uint64_t)(uintptr_t)set,
	};

	if (!set || !pt_evset_valid(set))
		return EINVAL;
	if (how != POSIX_TRACE_SET_EVENTSET && how != POSIX_TRACE_ADD_EVENTSET &&
	    how != POSIX_TRACE_SUB_EVENTSET)
		return EINVAL;
	return pt_filter_ioctl(trid, POSIX_TRACE_IOC_SET_FILTER, &f);
}
