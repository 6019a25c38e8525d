// SPDX-License-Identifier: GPL-2.0
/*
 * Class SCHED: a traced thread leaves its CPU (and why), gets one again,
 * and is woken (and by whom), <linux/posix_trace_kernel.h>.
 *
 * Probe prototypes (include/trace/events/sched.h), 5.18 .. 6.x:
 *   sched_switch(bool preempt, struct task_struct *prev,
 *                struct task_struct *next, unsigned int prev_state)
 *   sched_waking(struct task_struct *p)
 * sched_switch runs under the runqueue's lock, sched_waking under the
 * woken task's pi_lock, both with interrupts off: their records may not
 * wake a reader or queue the log's work (ev.defer_notes, record.c).
 * sched_waking runs in the waker's context (sched_wakeup may run on the
 * target's CPU, in an interrupt), which is why it is the one used.
 */
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "kev.h"

/*
 * Why a thread in @state (prev_state) left its CPU.  A preempted thread
 * may have a sleeping state already (preempted while it set up a wait):
 * it is still runnable.  So is one that yielded (TASK_RUNNING).  The
 * freezer (suspend, a cgroup frozen) stops it; any other wait sleeps.
 */
static u32 pt_sched_reason(bool preempt, unsigned int state)
{
	if (preempt)
		return POSIX_TRACE_SCHED_PREEMPTED;
	if (state & TASK_DEAD)
		return POSIX_TRACE_SCHED_EXITING;
	if (state & (__TASK_STOPPED | __TASK_TRACED | TASK_FROZEN))
		return POSIX_TRACE_SCHED_STOPPED;
	if (state & TASK_UNINTERRUPTIBLE)
		return POSIX_TRACE_SCHED_BLOCKED;
	return state ? POSIX_TRACE_SCHED_SLEEPING : POSIX_TRACE_SCHED_PREEMPTED;
}

/* Record @ev for @t (its pid/tid) into its streams that asked for SCHED. */
static void pt_sched_emit(struct task_struct *t, struct pt_event *ev)
{
	struct pt_proc *proc = pt_kev_proc_of(t);

	ev->task = t;
	if (proc)
		pt_kev_emit(proc, POSIX_TRACE_KCLASS_SCHED, ev);
}

void pt_kev_sched_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct posix_trace_sched_out o = {
		.reason = pt_sched_reason(preempt, prev_state),
		.cpu = smp_processor_id(),
	};
	struct posix_trace_sched_in i = { .cpu = o.cpu };
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SCHED_OUT,
		.from_task = true,
		.defer_notes = true,
		.data = &o,
		.data_len = sizeof(o),
	};

	rcu_read_lock();
	pt_sched_emit(prev, &ev);
	ev.id = POSIX_TRACE_ID_SCHED_IN;
	ev.data = &i;
	ev.data_len = sizeof(i);
	pt_sched_emit(next, &ev);
	rcu_read_unlock();
}

/* Does @s trace @proc (a waker's process)?  At most its streams. */
static bool pt_sched_traces(struct pt_stream *s, struct pt_proc *proc)
{
	struct pt_attach *a;

	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		if (a->stream == s)
			return true;
	}
	return false;
}

struct pt_waking_rec {
	struct posix_trace_sched_wakeup w;
	bool by_task;		/* current woke it, not an interrupt */
	bool same;		/* ... and is a thread of its process */
	struct pt_proc *waker;	/* current's process, if traced */
};

/* Whether the stream may know the waker, and its ids there. */
static void pt_waking_fill(struct pt_stream *s, void *arg)
{
	struct pt_waking_rec *r = arg;
	bool named = r->same || (r->waker && pt_sched_traces(s, r->waker));

	r->w.flags = !in_task() ? POSIX_TRACE_SCHED_WAKER_IRQ :
		     r->by_task && !named ? POSIX_TRACE_SCHED_WAKER_OTHER : 0;
	r->w.waker_pid = 0;
	r->w.waker_tid = 0;
	if (named)
		pt_task_ids(current, s->pidns, &r->w.waker_pid, &r->w.waker_tid);
}

/*
 * In the waker's context: current woke @p, unless an interrupt did (or a
 * kernel thread, whose id would mean nothing to the stream).  The waker
 * is named, in each stream's pid namespace, only when it is a thread of
 * @p's process or of a process the stream traces too: who else wakes @p
 * (a pipe's writer, a mutex's releaser, another user's process) and when
 * is not the controller's to know.
 */
void pt_kev_sched_waking(void *data, struct task_struct *p)
{
	struct pt_waking_rec r = {
		.by_task = in_task() && !(current->flags & PF_KTHREAD),
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SCHED_WAKEUP,
		.from_task = true,
		.defer_notes = true,
		.task = p,
		.data = &r.w,
		.data_len = sizeof(r.w),
	};
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc_of(p);
	if (!proc)
		goto out;
	r.same = r.by_task && same_thread_group(current, p);
	if (r.by_task && !r.same)
		r.waker = pt_kev_proc_of(current);
	pt_kev_emit_fill(proc, POSIX_TRACE_KCLASS_SCHED, &ev, pt_waking_fill, &r);
out:
	rcu_read_unlock();
}
