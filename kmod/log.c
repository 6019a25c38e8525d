// SPDX-License-Identifier: GPL-2.0
/*
 * The log of a stream with log: its creation, its worker, and the calls
 * that ask the worker for something.  The module is the stream's only
 * reader: the worker merges the lanes into EVENTS blocks (drain.c;
 * logf.c writes them) and frees the space of what it logged (spec
 * 5.13; design.md §10 has the whole picture).
 *
 * Who flushes: posix_trace_flush() (POSIX_TRACE_IOC_FLUSH, which waits for
 * the worker), the FLUSH stream policy (a tick every PT_LOG_TICK while new
 * events arrive, and at once when the stream fills), and the shutdown
 * (the final flush, then the STATUS trailer).  File writes happen only in
 * the worker: the caller's file size limit, and SIGXFSZ, never apply.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include "log.h"

#define PT_LOG_TICK		msecs_to_jiffies(100)

#define PT_ROOM_WAIT		(HZ / 10)	/* one wait for room, at most */

static struct workqueue_struct *pt_log_wq;

/*
 * Queue the worker of @s's log.  Each queued run holds a reference to the
 * stream, dropped as its last step, so that the stream is freed only when
 * no run is pending or running: pt_log_free() then never waits for a
 * worker, which a file whose writes block for ever (FUSE, a stalled NFS)
 * can hold in kernel_write() for as long as that file likes.  Only the
 * worker ever waits on the file; every caller's wait is killable or
 * bounded (design.md, "Threat model").  Any context.
 */
static bool pt_log_queue(struct pt_stream *s)
{
	if (!kref_get_unless_zero(&s->ref))
		return false;
	if (queue_work(pt_log_wq, &s->log->work))
		return true;
	pt_stream_put(s);	/* a run is pending already: it holds one */
	return false;
}

/* Ask for a run that starts after now: the number to wait for in @done. */
static u64 pt_log_request(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u64 want;

	spin_lock(&log->req_lock);
	want = ++log->wanted;
	spin_unlock(&log->req_lock);
	pt_log_queue(s);
	return want;
}

static bool pt_log_done(struct pt_log *log, u64 want)
{
	/* pairs with pt_log_work()'s release of @done */
	return smp_load_acquire(&log->done) >= want;
}

static bool pt_log_finished(struct pt_log *log)
{
	/* pairs with pt_log_work()'s release of @finished */
	return smp_load_acquire(&log->finished);
}

static void pt_record_marker(struct pt_stream *s, u32 id, const void *data,
			     u32 len)
{
	struct pt_event ev = {
		.id = id,
		.flags = POSIX_TRACE_REC_AUTO,
		.data = data,
		.data_len = len,
		.control = true,
	};

	pt_record(s, &ev);
}

/* A flush, or the final one, begins: false if the log is closed already.
 * Its writes give up waiting for a stalled pipe or socket at @deadline.
 */
static bool pt_flush_begin(struct pt_log *log)
{
	lockdep_assert_held(&log->lock);
	if (log->closed)
		return false;
	atomic_set(&log->flushing, 1);
	log->deadline = jiffies + PT_LOG_STALL;
	return true;
}

/*
 * One flush (FLUSH-1..9): FLUSH_START goes into the batch it starts,
 * FLUSH_STOP reaches the log with the next flush; both only while the
 * stream runs.  A write error is recorded as an ERROR event once per run
 * of failures.  An auto-stopped stream restarts once it is empty.
 */
static int pt_flush(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	bool running = atomic_read(&s->state) == PT_RUNNING;
	u64 logged = log->event_bytes;
	int err = 0;

	if (!pt_flush_begin(log))
		return 0;
	if (running)
		pt_record_marker(s, POSIX_TRACE_ID_FLUSH_START, NULL, 0);
	pt_drain(s, false, &err);
	if (atomic_read(&s->state) == PT_RUNNING) {
		pt_record_marker(s, POSIX_TRACE_ID_FLUSH_STOP, NULL, 0);
		if (err && err != log->last_err) {
			int e = -err;

			pt_record_marker(s, POSIX_TRACE_ID_ERROR, &e, sizeof(e));
		}
	}
	log->last_err = err;
	WRITE_ONCE(log->quiet, pt_lanes_heads(s));
	atomic_set(&log->flushing, 0);
	if (atomic_read(&s->state) == PT_AUTOSTOPPED) {
		mutex_lock(&pt_ctl_lock);
		pt_stream_try_restart(s);
		mutex_unlock(&pt_ctl_lock);
		/* Not empty yet: another writer filled its lane past this
		 * flush's snapshot.  Flush again now rather than at the tick,
		 * while flushes take records: the stream loses everything
		 * until it restarts.  (A lane that only lies takes nothing.)
		 */
		if (atomic_read(&s->state) == PT_AUTOSTOPPED &&
		    log->event_bytes != logged)
			pt_log_queue(s);
	}
	return err;
}

/* The final flush: everything, then the trailer; the file is let go. */
static int pt_finish(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	int err = 0;

	if (!pt_flush_begin(log))
		return 0;
	log->final = true;
	pt_drain(s, true, &err);
	pt_drain_error(log, &err, pt_logf_write_types(s));
	pt_drain_error(log, &err, pt_logf_write_losses(s));
	atomic_set(&log->flushing, 0);
	pt_drain_error(log, &err, pt_logf_close(s));
	log->closed = true;
	fput(log->file);
	log->file = NULL;
	return err;
}

static void pt_log_work(struct work_struct *work)
{
	struct pt_log *log = container_of(work, struct pt_log, work);
	struct pt_stream *s = log->stream;
	u64 target;
	int err;

	spin_lock(&log->req_lock);
	target = log->wanted;
	spin_unlock(&log->req_lock);
	mutex_lock(&log->lock);
	if (log->reinit && !log->closed) {
		log->reinit = false;
		pt_drain_error(log, &log->reinit_err, pt_logf_init(s));
	}
	/* Only the run that closes the log sets the shutdown's answer. */
	if (READ_ONCE(log->finishing) && !log->closed) {
		log->finish_err = pt_finish(s);
		/* @finish_err before @finished: pairs with pt_log_finished() */
		smp_store_release(&log->finished, true);
	}
	err = pt_flush(s);
	mutex_unlock(&log->lock);
	/* One run at a time (a work item never runs concurrently with
	 * itself): @done_err before @done, read in that order by waiters.
	 */
	WRITE_ONCE(log->done_err, err);
	smp_store_release(&log->done, target);	/* see above */
	wake_up_all(&log->done_wq);
	pt_stream_put(s);	/* this run's reference (pt_log_queue()); last */
}

/* FLUSH policy: flush while new events keep coming (RULE-39). */
static void pt_log_tick(struct work_struct *work)
{
	struct pt_log *log = container_of(to_delayed_work(work), struct pt_log,
					  tick);

	if (READ_ONCE(log->closed))
		return;
	/* Not while a flush runs: it may be stalled by the file already. */
	if (!atomic_read(&log->flushing) &&
	    pt_lanes_heads(log->stream) != READ_ONCE(log->quiet))
		pt_log_queue(log->stream);
	queue_delayed_work(pt_log_wq, &log->tick, PT_LOG_TICK);
}

/* The stream filled up (any context): FLUSH policy flushes at once. */
static void pt_log_stream_full(struct pt_stream *s)
{
	if (s->log && s->log->auto_flush)
		pt_log_queue(s);
}

/*
 * A lane of a FLUSH stream passed its flush mark (record.c, or a writer's
 * POSIX_TRACE_NOTIFY_FLUSH): flush now, long before the stream fills.
 * Nothing new since the last flush (a writer may ask as often as it
 * likes): nothing to do.  A run pending already takes it.  Any context.
 */
void pt_log_kick(struct pt_stream *s)
{
	struct pt_log *log = s->log;

	if (!log || !log->auto_flush || READ_ONCE(log->closed) ||
	    pt_lanes_heads(s) == READ_ONCE(log->quiet))
		return;
	pt_log_queue(s);
}

/* A block written since @seen, the run asked for done, or the log closed. */
static bool pt_log_room(struct pt_log *log, u64 want, u64 seen)
{
	/* pairs with the release in pt_write_block(): tails before count */
	return smp_load_acquire(&log->published) != seen ||
	       pt_log_done(log, want) || READ_ONCE(log->closed);
}

/*
 * A writer of a never-lose stream (full_wait_ns) has no room in its lane
 * (POSIX_TRACE_NOTIFY_ROOM, or an event of the kernel path, event.c):
 * with a log, start a flush and wait until it wrote a block (which frees
 * the space of its records) or ended: the writer then fills its lane
 * again while the worker writes the rest, rather than both taking turns;
 * without a log, the reader frees room, and the writer sleeps a tick.
 * Each call waits PT_ROOM_WAIT at most; the writer calls again until its
 * own bound (full_wait_ns) has passed, then drops the record: a
 * worker stalled by its file costs a writer that bound, once, as the
 * stream then stops.  A writer lane's request waits interruptibly (a
 * signal handler runs between two requests); the kernel path, which
 * cannot return halfway through its streams, waits @killable.
 */
int pt_log_wait_room(struct pt_stream *s, bool killable)
{
	struct pt_log *log = s->log;
	u64 want, seen;
	long ret;

	if (!log || READ_ONCE(log->closed)) {
		if (killable) {
			schedule_timeout_killable(1);
			return fatal_signal_pending(current) ? -EINTR : 0;
		}
		schedule_timeout_interruptible(1);
		return signal_pending(current) ? -EINTR : 0;
	}
	seen = smp_load_acquire(&log->published);	/* see pt_log_room() */
	want = pt_log_request(s);
	if (killable)
		ret = wait_event_killable_timeout(log->done_wq,
						  pt_log_room(log, want, seen),
						  PT_ROOM_WAIT);
	else
		ret = wait_event_interruptible_timeout(log->done_wq,
						       pt_log_room(log, want, seen),
						       PT_ROOM_WAIT);
	return ret < 0 ? -EINTR : 0;
}

/* POSIX_TRACE_IOC_FLUSH: start a flush and wait for it (spec 5.13). */
int pt_log_flush(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u64 want;
	int ret;

	if (!log)
		return -EINVAL;
	want = pt_log_request(s);
	ret = wait_event_interruptible(log->done_wq, pt_log_done(log, want));
	if (ret)
		return -EINTR;	/* the flush goes on without us */
	return READ_ONCE(log->done_err);
}

/*
 * The shutdown of a stream with log (SHUT-6, SHUT-7), after it was
 * stopped and unhashed: the worker flushes everything and closes the log.
 * posix_trace_shutdown() waits for that (SHUT-6), killably: a file whose
 * writes never end cannot keep its caller from dying.  The automatic
 * shutdown of an exiting or exec'ing controller (SHUT-8) waits until
 * @deadline (jiffies) at most; the log is finished in the background
 * after that (@deadline, else NULL).  Returns the first write error, or
 * -EINTR / -ETIMEDOUT if the wait ended first.
 */
static int pt_log_finish(struct pt_stream *s, const unsigned long *deadline)
{
	struct pt_log *log = s->log;
	long ret;

	if (!log)
		return 0;
	cancel_delayed_work_sync(&log->tick);
	WRITE_ONCE(log->finishing, true);
	pt_log_queue(s);
	if (!deadline) {
		if (wait_event_killable(log->done_wq, pt_log_finished(log)))
			return -EINTR;
		return log->finish_err;
	}
	ret = wait_event_killable_timeout(log->done_wq, pt_log_finished(log),
					  max_t(long, *deadline - jiffies, 1));
	if (ret < 0)
		return -EINTR;
	return ret ? log->finish_err : -ETIMEDOUT;
}

/*
 * posix_trace_clear() of a stream with log (CLEAR-5..7): the stream's
 * records and the flusher's cursors go; the worker restarts the log before
 * anything else (so the first event logged after the clear is the
 * stream's first), and the clear waits for it.  A pipe or socket cannot be
 * rewound: its log goes on (CLEAR-9).
 */
int pt_log_clear(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u64 want, when;
	int ret;

	/* Killable: a flush may be stuck in a write that never ends. */
	if (mutex_lock_killable(&log->lock))
		return -EINTR;
	when = ktime_get_ns();
	ret = pt_stream_clear(s);
	pt_drain_restart(s, when);
	pt_gate_clear(log->gate, when, ktime_get_ns());
	atomic_set(&log->log_overrun, 0);
	atomic_set(&log->log_overrun_seen, 0);
	atomic_set(&log->flush_error_seen, 0);
	log->overwritten = 0;
	log->overwrite_gaps = 0;
	log->discarded = 0;
	log->write_lost = 0;
	log->full = false;
	log->reinit = log->seekable;
	log->reinit_err = 0;
	mutex_unlock(&log->lock);
	if (!log->seekable)
		return ret;
	want = pt_log_request(s);
	if (wait_event_killable(log->done_wq, pt_log_done(log, want)))
		return -EINTR;
	return log->reinit_err;
}

static void pt_log_status(struct pt_stream *s, struct posix_trace_status *st)
{
	struct pt_log *log = s->log;

	if (!log)
		return;
	st->flushing = atomic_read(&log->flushing);
	st->flush_error = atomic_xchg(&log->flush_error, 0);
	st->log_overrun = atomic_xchg(&log->log_overrun, 0);
	st->log_full = READ_ONCE(log->full);
	/* What get_status resets, the log's trailer still reports. */
	if (st->flush_error)
		atomic_cmpxchg(&log->flush_error_seen, 0, st->flush_error);
	if (st->log_overrun)
		atomic_set(&log->log_overrun_seen, 1);
}

/*
 * A stream with log (create_withlog): the file checks, the layout, and
 * the header, INFO and system types written before the stream exists, so
 * a file that cannot take them fails the create (ENOSPC, EFBIG; EINVAL
 * for a pipe or socket nobody reads).
 */
static int pt_log_create(struct pt_stream *s, struct posix_trace_create *args,
			 struct pid *target)
{
	unsigned int i;
	struct pt_log *log;
	unsigned long mem;
	u64 want;
	int ret;

	log = kzalloc(sizeof(*log), GFP_KERNEL_ACCOUNT);
	if (!log)
		return -ENOMEM;
	s->log = log;
	log->stream = s;
	mutex_init(&log->lock);
	spin_lock_init(&log->req_lock);
	init_waitqueue_head(&log->done_wq);
	INIT_WORK(&log->work, pt_log_work);
	INIT_DELAYED_WORK(&log->tick, pt_log_tick);
	log->policy = args->log_policy;
	log->auto_flush = args->stream_policy == POSIX_TRACE_POLICY_FLUSH;
	log->max_size = args->log_size;
	log->pid = pid_nr_ns(target, s->pidns);
	ret = pt_logf_open(log, args->log_fd);
	if (ret)
		return ret;
	ret = pt_logf_layout(log, s->max_data);
	if (ret)
		return ret;
	/* The two block buffers count against max_user_memory like the
	 * stream's own (up to 2 x 16 MiB), and so does the gate;
	 * s->charged is given back with it.
	 * The stream is not published yet: no lock.
	 */
	mem = 2ul * log->block_max + sizeof(*log->gate);
	if (!pt_user_charge_memory(s->user, mem))
		return -ENOMEM;
	s->charged += mem;
	log->buf = kvmalloc(log->block_max, GFP_KERNEL_ACCOUNT);
	log->mbuf = kvmalloc(log->block_max, GFP_KERNEL_ACCOUNT);
	log->gate = kvmalloc(sizeof(*log->gate), GFP_KERNEL_ACCOUNT);
	if (!log->buf || !log->mbuf || !log->gate)
		return -ENOMEM;
	pt_gate_init(log->gate);
	ret = pt_drain_init(s);
	if (ret)
		return ret;
	ret = pt_logf_prealloc(log);
	if (ret)
		return ret;
	/* Written by the worker, like everything else: a pipe or socket
	 * without a reader must not send SIGPIPE to the caller.
	 */
	log->reinit = true;
	/*
	 * Killable: the stream is freed once the worker is done with it.
	 * One request, made before the wait: wait_event evaluates its
	 * condition at every wake-up, and a request there would ask for yet
	 * another run each time, so that a create whose worker is slower
	 * than its wake-ups would never return.
	 */
	want = pt_log_request(s);
	if (wait_event_killable(log->done_wq, pt_log_done(log, want)))
		return -EINTR;
	ret = log->reinit_err;
	if (ret == -EPIPE || ret == -ENOTCONN || ret == -ECONNREFUSED)
		return -EINVAL;	/* no reader: cannot serve the log */
	if (ret)
		return ret;
	args->log_size = log->max_size;
	if (log->auto_flush) {
		/* Not published yet: the lanes' marks need no lock. */
		s->flush_step = s->capacity / 2;
		for (i = 0; i < s->nr_lanes; i++)
			s->lanes[i].flush_mark = s->flush_step;
		queue_delayed_work(pt_log_wq, &log->tick, PT_LOG_TICK);
	}
	return 0;
}

/* With the stream, after its last reference: no run is pending or
 * running (each holds a reference), so the cancels wait for nothing.
 */
static void pt_log_free(struct pt_stream *s)
{
	struct pt_log *log = s->log;

	if (!log)
		return;
	cancel_delayed_work_sync(&log->tick);
	cancel_work_sync(&log->work);
	if (log->file)
		fput(log->file);
	kvfree(log->src);
	kvfree(log->buf);
	kvfree(log->mbuf);
	kvfree(log->gate);
	kfree(log);
}

int pt_log_init(void)
{
	pt_log_wq = alloc_workqueue("posix_trace_log", WQ_UNBOUND, 0);
	return pt_log_wq ? 0 : -ENOMEM;
}

void pt_log_exit(void)
{
	destroy_workqueue(pt_log_wq);
}

const struct pt_log_ops pt_log_stream_ops = {
	.create = pt_log_create,
	.free = pt_log_free,
	.finish = pt_log_finish,
	.full = pt_log_stream_full,
	.kick = pt_log_kick,
	.state_changed = pt_log_state_changed,
	.status = pt_log_status,
};
