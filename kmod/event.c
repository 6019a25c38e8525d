// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX_TRACE_IOC_EVENT: posix_trace_event() of a traced process whose
 * writes cannot go straight into a mapped lane.
 */
#include <linux/freezer.h>
#include <linux/sched/signal.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "surface.h"

#define PT_STACK_DATA	256

/* The streams a request is for: all (trid 0) or one. */
static bool pt_req_wants(const struct posix_trace_event_req *req,
			 const struct pt_attach *a)
{
	if (req->flags & POSIX_TRACE_EVENT_UNSLOTTED)
		return READ_ONCE(a->slot) < 0;
	return !req->trid || req->trid == a->stream->trid;
}

/* Largest max-data-size among the streams the request is for. */
static u64 pt_proc_max_data(struct pt_proc *proc,
			    const struct posix_trace_event_req *req, bool *restart)
{
	struct pt_attach *a;
	u64 max = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		int state = atomic_read(&a->stream->state);

		if (!pt_req_wants(req, a))
			continue;

		if (state == PT_AUTOSTOPPED)
			*restart = true;
		if (state == PT_RUNNING || state == PT_AUTOSTOPPED)
			max = max(max, a->stream->max_data);
	}
	rcu_read_unlock();
	return max;
}

/* UNTIL_FULL streams restart once empty, before the next event they would
 * record (spec 4.3.2); the event path is where "next event" is seen.
 */
static void pt_proc_restart(struct pt_proc *proc)
{
	struct pt_attach *a;

	mutex_lock(&pt_ctl_lock);
	list_for_each_entry(a, &proc->streams, proc_node)
		pt_stream_try_restart(a->stream);
	mutex_unlock(&pt_ctl_lock);
}

/* The copy of the event that @s records: @want_len bytes were passed,
 * @have_len of them copied, enough for every stream seen by
 * pt_proc_max_data(); a stream attached since gets no more than that.
 */
static void pt_proc_prepare(struct pt_stream *s,
			    const struct posix_trace_event_req *req, bool stamp_now,
			    struct pt_event *ev, u64 want_len, u64 have_len)
{
	u64 now = ktime_get_ns();

	/* The library's timestamp, so an event that reaches some streams
	 * through lanes and others here is the same event; bounded so it
	 * can only misplace the caller's own events.  Not after a restart
	 * or a wait (@stamp_now): the event must follow a START recorded
	 * meanwhile.  Else 0: stamped under the lane lock, and published in
	 * flight from before the clock read (record.c), so no window opens
	 * between stamp and commit.
	 */
	ev->timestamp = req->timestamp && !stamp_now ?
		clamp(req->timestamp, s->created_mono, now) : 0;
	ev->data_len = min3(want_len, s->max_data, have_len);
	ev->truncated = want_len > s->max_data;
}

/*
 * Never-lose mode on the kernel path (threads without a writer lane, a
 * signal handler that interrupted its thread's write): @s had no room.
 * Try again (a block may have been written since), then wait for room as
 * a writer lane does (pt_log_wait_room()) until full_wait_ns after @start
 * (when the event first waited, whichever stream it waits for), and
 * record or, past the bound, on a fatal signal or when the task is to be
 * frozen (suspend, cgroup freezer: a killable sleep would keep it from
 * freezing), drop and count.  Killable only: the event may be in some
 * streams already, and a return to user space halfway would lose it in
 * the rest.  Stamped when recorded (the stream may have restarted
 * meanwhile, and its START must come first), as a writer lane stamps
 * after its wait.
 */
static void pt_proc_record_waiting(struct pt_stream *s,
				   const struct posix_trace_event_req *req,
				   struct pt_event *ev, u64 want_len, u64 have_len,
				   u64 start)
{
	for (;;) {
		pt_proc_prepare(s, req, true, ev, want_len, have_len);
		if (pt_record(s, ev))
			return;
		if (pt_log_wait_room(s, true) || freezing(current) ||
		    ktime_get_ns() - start >= s->full_wait_ns)
			ev->may_wait = false;	/* the next try drops */
		cond_resched();
	}
}

/*
 * Record @ev in every stream @req is for.  A never-lose stream whose lane
 * is full is set aside (held by a reference) and waited for after the
 * RCU walk, one after the other, all within the largest bound of theirs
 * from the first wait on; beyond POSIX_TRACE_PROC_STREAMS of them at
 * once, the rest drop as other streams do.
 */
static void pt_proc_record(struct pt_proc *proc,
			   const struct posix_trace_event_req *req, bool restarted,
			   struct pt_event *ev, u64 want_len, u64 have_len)
{
	struct pt_stream *full[POSIX_TRACE_PROC_STREAMS];
	unsigned int nr_full = 0, i;
	struct pt_attach *a;
	u64 start;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		struct pt_stream *s = a->stream;

		if (!pt_req_wants(req, a))
			continue;
		ev->may_wait = nr_full < ARRAY_SIZE(full);
		pt_proc_prepare(s, req, restarted, ev, want_len, have_len);
		if (pt_record(s, ev))
			continue;
		if (kref_get_unless_zero(&s->ref)) {
			full[nr_full++] = s;
			continue;
		}
		ev->may_wait = false;	/* being freed: drop (and count) now */
		pt_record(s, ev);
	}
	rcu_read_unlock();
	start = ktime_get_ns();		/* one bound for the event */
	for (i = 0; i < nr_full; i++) {
		ev->may_wait = true;
		pt_proc_record_waiting(full[i], req, ev, want_len, have_len, start);
		pt_stream_put(full[i]);
	}
}

static void pt_proc_record_error(struct pt_proc *proc,
				 const struct posix_trace_event_req *req, int err)
{
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_ERROR,
		.data = &err,
		.data_len = sizeof(err),
		.from_task = true,
	};
	struct pt_attach *a;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		if (pt_req_wants(req, a))
			pt_record(a->stream, &ev);
	}
	rcu_read_unlock();
}

int pt_event_from_user(const struct posix_trace_event_req *req)
{
	struct pt_event ev = {
		.id = req->event_id,
		.thread = req->thread,
		.address = req->address,
		.from_task = true,
	};
	u8 stack_buf[PT_STACK_DATA];
	bool restart = false;
	struct pt_proc *proc;
	void *buf = stack_buf;
	u64 len;
	int ret = 0;

	proc = pt_proc_find(task_tgid(current));
	if (!proc)
		return 0;
	pt_proc_settle(proc);
	/* Ids the process never opened, and system ids, are not recordable. */
	if (!pt_map_valid_id(proc->map, req->event_id))
		goto out;
	len = pt_proc_max_data(proc, req, &restart);
	if (restart)
		pt_proc_restart(proc);
	len = req->data_ptr ? min(req->data_len, len) : 0;
	if (len > sizeof(stack_buf)) {
		buf = kvmalloc(len, GFP_KERNEL);
		if (!buf) {
			pt_proc_record_error(proc, req, ENOMEM);
			ret = -ENOMEM;
			goto out;
		}
	}
	if (copy_from_user(buf, u64_to_user_ptr(req->data_ptr), len)) {
		pt_proc_record_error(proc, req, EFAULT);
		ret = -EFAULT;
		goto out_free;
	}
	ev.data = buf;
	pt_proc_record(proc, req, restart, &ev, req->data_ptr ? req->data_len : 0, len);
out_free:
	if (buf != stack_buf)
		kvfree(buf);
out:
	pt_proc_put(proc);
	return ret;
}
