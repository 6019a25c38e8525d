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
 * it is still runnable.  So is one that yielded (TASK_RUNNING).
 */
static u32 pt_sched_reason(bool preempt, unsigned int state)
{
	if (preempt)
		return POSIX_TRACE_SCHED_PREEMPTED;
	if (state & TASK_DEAD)
		return POSIX_TRACE_SCHED_EXITING;
	if (state & (__TASK_STOPPED | __TASK_TRACED))
		return POSIX_TRACE_SCHED_STOPPED;
	if (state & TASK_UNINTERRUPTIBLE)
		return POSIX_TRACE_SCHED_BLOCKED;
	if (state & TASK_INTERRUPTIBLE)
		return POSIX_TRACE_SCHED_SLEEPING;
	return POSIX_TRACE_SCHED_PREEMPTED;
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

/*
 * In the waker's context: current woke @p, unless an interrupt did (or a
 * kernel thread, whose id would mean nothing to the stream).  The waker
 * is named in each stream's pid namespace.
 */
void pt_kev_sched_waking(void *data, struct task_struct *p)
{
	bool by_task = in_task() && !(current->flags & PF_KTHREAD);
	struct posix_trace_sched_wakeup w = {
		.flags = in_task() ? 0 : POSIX_TRACE_SCHED_WAKER_IRQ,
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SCHED_WAKEUP,
		.from_task = true,
		.defer_notes = true,
		.task = p,
		.data = &w,
		.data_len = sizeof(w),
	};
	struct pt_attach *a;
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc_of(p);
	if (!proc)
		goto out;
	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		struct pt_stream *s = a->stream;

		if (!(s->kclasses & POSIX_TRACE_KCLASS_SCHED))
			continue;
		w.waker_pid = by_task ? task_tgid_nr_ns(current, s->pidns) : 0;
		w.waker_tid = by_task ? task_pid_nr_ns(current, s->pidns) : 0;
		pt_record(s, &ev);
	}
out:
	rcu_read_unlock();
}
