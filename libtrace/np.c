// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Implementation-defined functions of <trace.h> (the _np ones), with the
 * conventions of attr.c: 0 or an error number, errno untouched, outputs
 * written only on success.
 *
 * Never-lose mode: how long a writer whose lane of an UNTIL_FULL or FLUSH
 * stream is full waits for room (writer.c, pt_wlane_wait_room()) before it
 * drops the event as the stream's policy says.  0, the default, is POSIX
 * behaviour: no wait.  The bound is the kernel's
 * (POSIX_TRACE_FULL_WAIT_MAX, 60 s): a wait must end, so that a log
 * stalled by its file cannot hang the traced program.
 */
#include <errno.h>
#include <time.h>

#include "internal.h"
#include "log_read.h"

PT_EXPORT int posix_trace_attr_getfullwait_np(const trace_attr_t *__restrict attr,
					      struct timespec *__restrict wait)
{
	if (pt_attr_check(attr) || !wait)
		return EINVAL;
	wait->tv_sec = (time_t)(attr->__full_wait_ns / 1000000000u);
	wait->tv_nsec = (long)(attr->__full_wait_ns % 1000000000u);
	return 0;
}

PT_EXPORT int posix_trace_attr_setfullwait_np(trace_attr_t *__restrict attr,
					      const struct timespec *__restrict wait)
{
	unsigned long long ns;

	if (pt_attr_check(attr) || !wait || wait->tv_sec < 0 ||
	    wait->tv_nsec < 0 || wait->tv_nsec >= 1000000000L ||
	    (unsigned long long)wait->tv_sec > POSIX_TRACE_FULL_WAIT_MAX / 1000000000u)
		return EINVAL;
	ns = (unsigned long long)wait->tv_sec * 1000000000u +
	     (unsigned long long)wait->tv_nsec;
	if (ns > POSIX_TRACE_FULL_WAIT_MAX)
		return EINVAL;
	attr->__full_wait_ns = ns;
	return 0;
}

/*
 * How many events never reached the trace log @trid (opened with
 * posix_trace_open()), and why: the log's LOSS block, written at its
 * end.  ENODATA for a log without one (written before loss counts
 * existed, or not finished); EINVAL for anything but an open log.
 */
PT_EXPORT int posix_trace_get_losses_np(trace_id_t trid,
					struct posix_trace_losses_np *losses)
{
	if (!losses || trid >= 0)
		return EINVAL;
	return pt_log_get_losses(trid, losses);
}
