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
#include "handle.h"
#include "log_read.h"
#include "out.h"

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

/* posix_trace_event_tid_np(3) of an active stream: under the lock its
 * readers store it with. */
static int pt_stream_event_tid(trace_id_t trid, pid_t *tid)
{
	struct pt_handle *h = pt_handle_get(trid);
	uint64_t last;
	int dead;

	if (!h)
		return EINVAL;
	pt_lock(&h->lock);
	dead = h->dead;
	last = h->last_tid;
	pt_unlock(&h->lock);
	pt_handle_put(h);
	if (dead || !(last & PT_LAST_EVENT))
		return EINVAL;
	*tid = (pid_t)(uint32_t)last;
	return 0;
}

/*
 * The kernel thread id of the event that the last getnext call on @trid
 * returned: what posix_thread_id cannot say of a kernel event (no
 * pthread_t), and what tells the threads of a process apart for them.
 * Concurrent readers of one @trid share it: the last call's event wins.
 */
PT_EXPORT int posix_trace_event_tid_np(trace_id_t trid, pid_t *tid)
{
	if (!tid)
		return EINVAL;
	if (trid < 0)	/* pre-recorded (log_open.c) */
		return pt_log_event_tid(trid, tid);
	return pt_stream_event_tid(trid, tid);
}
