// SPDX-License-Identifier: GPL-2.0
/*
 * What a controller does to a live stream: start, stop, clear, the
 * filter, its status, and waiting for events.  Each records the control
 * events the spec asks for (START, STOP, FILTER) in the stream itself.
 */
#include <linux/hrtimer.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include "stream.h"

/* How often a sleeping reader looks at writer lanes itself, for the
 * wake-ups a writer may miss (pt_writers_set_waiting()).
 */
#define PT_WRITER_POLL_NS	(10 * NSEC_PER_MSEC)

/* The stream's filter as a trace_event_set_t (START and FILTER data). */
static void pt_filter_event_set(struct pt_stream *s, struct posix_trace_event_set *set)
{
	memset(set, 0, sizeof(*set));
	set->magic = POSIX_TRACE_EVSET_MAGIC;
	bitmap_to_arr64(set->bits, s->filter, POSIX_TRACE_ID_NR);
}

/*
 * Who caused a control event (spec 5.21): the calling thread of the
 * controller, or nobody (@c NULL) for automatic events.
 */
static void pt_event_caller(struct pt_event *ev, const struct posix_trace_ctl *c)
{
	if (!c) {
		ev->flags = POSIX_TRACE_REC_AUTO;
		return;
	}
	ev->thread = c->thread;
	ev->address = c->address;
	ev->from_task = true;
}

static void pt_record_start(struct pt_stream *s, const struct posix_trace_ctl *c)
{
	struct posix_trace_event_set filter;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_START,
		.data = &filter,
		.data_len = sizeof(filter),
		.control = true,
	};

	pt_filter_event_set(s, &filter);
	pt_event_caller(&ev, c);
	pt_record(s, &ev);
}

/* @c is NULL for the stop of an automatic shutdown (owner gone). */
void pt_record_stop(struct pt_stream *s, const struct posix_trace_ctl *c)
{
	static const int auto_stop;
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_STOP,
		.data = &auto_stop,
		.data_len = sizeof(auto_stop),
		.control = true,
	};

	pt_event_caller(&ev, c);
	pt_record(s, &ev);
}

/* START is recorded before the state flips, so no event of the new run
 * can precede it (spec 5.8 for the full cases).
 */
int pt_stream_start(struct pt_stream *s, const struct posix_trace_ctl *c)
{
	int ret = mutex_lock_interruptible(&pt_ctl_lock);

	if (ret)
		return -EINTR;
	switch (atomic_read(&s->state)) {
	case PT_SUSPENDED_FULL:
		if (!pt_stream_empty(s))
			break;
		fallthrough;
	case PT_SUSPENDED:
		pt_record_start(s, c);
		atomic_set(&s->state, PT_RUNNING);
		pt_update_targets(s);
		break;
	default:	/* running, auto-stopped (restarts by itself), dead */
		break;
	}
	mutex_unlock(&pt_ctl_lock);
	return 0;
}

int pt_stream_stop(struct pt_stream *s, const struct posix_trace_ctl *c)
{
	int ret = mutex_lock_interruptible(&pt_ctl_lock);

	if (ret)
		return -EINTR;
	switch (atomic_read(&s->state)) {
	case PT_RUNNING:
		atomic_set(&s->state, PT_SUSPENDED);
		pt_record_stop(s, c);
		pt_update_targets(s);
		break;
	case PT_AUTOSTOPPED:	/* cancels the automatic restart */
		atomic_set(&s->state, PT_SUSPENDED_FULL);
		pt_update_targets(s);
		break;
	default:
		break;
	}
	mutex_unlock(&pt_ctl_lock);
	return 0;
}

/* An auto-stopped UNTIL_FULL stream runs again once its reader emptied it;
 * a START(auto) marks the restart for the reader (RULE-24).
 */
void pt_stream_try_restart(struct pt_stream *s)
{
	lockdep_assert_held(&pt_ctl_lock);
	if (atomic_read(&s->state) != PT_AUTOSTOPPED || !pt_stream_empty(s))
		return;
	pt_record_start(s, NULL);
	atomic_set(&s->state, PT_RUNNING);
	pt_update_targets(s);
}

int pt_stream_clear(struct pt_stream *s)
{
	mutex_lock(&pt_ctl_lock);
	pt_lanes_reset(s);
	atomic_set(&s->overrun, 0);
	atomic_set(&s->overrun_seen, 0);
	atomic64_set(&s->dropped, 0);
	atomic_set(&s->drop_gaps, 0);
	switch (atomic_read(&s->state)) {
	case PT_AUTOSTOPPED:
		pt_record_start(s, NULL);
		atomic_set(&s->state, PT_RUNNING);
		break;
	case PT_SUSPENDED_FULL:
		atomic_set(&s->state, PT_SUSPENDED);
		break;
	}
	pt_update_targets(s);
	mutex_unlock(&pt_ctl_lock);
	return 0;
}

/* posix_stream_full_status now: LOOP wraps, the others stop. */
bool pt_stream_full(struct pt_stream *s)
{
	int state = atomic_read(&s->state);

	lockdep_assert_held(&pt_ctl_lock);
	if (s->policy == POSIX_TRACE_POLICY_LOOP)
		return pt_stream_loop_full(s);
	return state == PT_AUTOSTOPPED ||
	       (state == PT_SUSPENDED_FULL && !pt_stream_empty(s));
}

void pt_stream_status(struct pt_stream *s, struct posix_trace_status *st)
{
	int state;

	mutex_lock(&pt_ctl_lock);
	pt_stream_try_restart(s);
	state = atomic_read(&s->state);
	st->running = state == PT_RUNNING;
	st->full = pt_stream_full(s);
	st->overrun = atomic_xchg(&s->overrun, 0);
	st->overrun |= pt_writers_overrun(s, true);
	if (st->overrun)
		atomic_set(&s->overrun_seen, 1);
	mutex_unlock(&pt_ctl_lock);
	if (s->log_ops)
		s->log_ops->status(s, st);
}

void pt_stream_get_filter(struct pt_stream *s, struct posix_trace_event_set *set)
{
	mutex_lock(&pt_ctl_lock);
	pt_filter_event_set(s, set);
	mutex_unlock(&pt_ctl_lock);
}

/*
 * posix_trace_set_filter(): while running, a FILTER event carrying the old
 * and the new set is recorded first (SETFILT-4); control events are never
 * filtered (spec 5.10).  The event path reads the bitmap without a lock:
 * an event racing with the call may see either filter (SETFILT-6).
 */
int pt_stream_set_filter(struct pt_stream *s, const struct posix_trace_filter *f,
			 const struct posix_trace_event_set *set)
{
	struct posix_trace_event_set sets[2];
	DECLARE_BITMAP(bits, POSIX_TRACE_ID_NR);
	DECLARE_BITMAP(given, POSIX_TRACE_ID_NR);
	struct posix_trace_ctl c = { .thread = f->thread, .address = f->address };
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_FILTER,
		.data = sets,
		.data_len = sizeof(sets),
		.control = true,
	};

	if (mutex_lock_interruptible(&pt_ctl_lock))
		return -EINTR;
	bitmap_from_arr64(given, set->bits, POSIX_TRACE_ID_NR);
	switch (f->how) {
	case POSIX_TRACE_FILTER_SET:
		bitmap_copy(bits, given, POSIX_TRACE_ID_NR);
		break;
	case POSIX_TRACE_FILTER_ADD:
		bitmap_or(bits, s->filter, given, POSIX_TRACE_ID_NR);
		break;
	default:
		bitmap_andnot(bits, s->filter, given, POSIX_TRACE_ID_NR);
		break;
	}
	if (atomic_read(&s->state) == PT_RUNNING) {
		pt_filter_event_set(s, &sets[0]);
		sets[1] = sets[0];
		bitmap_to_arr64(sets[1].bits, bits, POSIX_TRACE_ID_NR);
		pt_event_caller(&ev, &c);
		pt_record(s, &ev);
	}
	bitmap_copy(s->filter, bits, POSIX_TRACE_ID_NR);
	pt_update_targets(s);
	mutex_unlock(&pt_ctl_lock);
	return 0;
}

/*
 * Sleep until the deadline (absolute CLOCK_REALTIME, so setting the clock
 * moves it: TGETNEXT-3), or for at most PT_WRITER_POLL_NS while writer
 * lanes exist.  Returns false once the deadline passed.
 */
static bool pt_wait_sleep(struct pt_stream *s, bool timed, ktime_t expires)
{
	ktime_t poll;

	if (!pt_nr_writers(s)) {
		if (!timed) {
			schedule();
			return true;
		}
		return schedule_hrtimeout_range_clock(&expires, 0, HRTIMER_MODE_ABS,
						      CLOCK_REALTIME) != 0;
	}
	if (timed && ktime_after(ktime_get_real(), expires))
		return false;
	poll = ns_to_ktime(PT_WRITER_POLL_NS);
	schedule_hrtimeout_range(&poll, NSEC_PER_MSEC, HRTIMER_MODE_REL);
	return true;
}

/*
 * Sleep until a lane holds a record past the reader's tail.  A signal that
 * runs a handler gives -EINTR even with SA_RESTART (spec 5.27); one that
 * runs none (ignored by default, e.g. a SIGCHLD another thread blocked)
 * restarts the wait, with the same absolute deadline.
 */
int pt_stream_wait(struct pt_stream *s, bool timed, u64 abstime)
{
	ktime_t expires = abstime > KTIME_MAX ? KTIME_MAX : ns_to_ktime(abstime);
	DEFINE_WAIT(wait);
	int ret;

	for (;;) {
		prepare_to_wait(&s->wq, &wait, TASK_INTERRUPTIBLE);
		pt_writers_set_waiting(s, 1);
		smp_mb();	/* the flag before looking at the heads */
		if (atomic_read(&s->state) == PT_DEAD) {
			ret = -EINVAL;
			break;
		}
		if (pt_stream_has_data(s)) {
			ret = 0;
			break;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTNOHAND;
			break;
		}
		if (!pt_wait_sleep(s, timed, expires)) {
			ret = pt_stream_has_data(s) ? 0 : -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&s->wq, &wait);
	if (!wq_has_sleeper(&s->wq))
		pt_writers_set_waiting(s, 0);
	return ret;
}
