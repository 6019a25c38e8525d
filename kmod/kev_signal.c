// SPDX-License-Identifier: GPL-2.0
/*
 * Class SIGNAL: a signal generated for a traced thread (whoever sent it,
 * and what the kernel did with it) and a signal a traced thread takes
 * (what it does with it), <linux/posix_trace_kernel.h>.
 *
 * Probe prototypes (include/trace/events/signal.h), 3.x .. 6.x:
 *   signal_generate(int sig, struct kernel_siginfo *info,
 *                   struct task_struct *task, int group, int result)
 *   signal_deliver(int sig, struct kernel_siginfo *info,
 *                  struct k_sigaction *ka)
 * Both run with the target's siglock held and interrupts off; generate
 * may run in an interrupt (a timer's signal), where current is nobody
 * in particular, and in loops over every thread of a process with
 * tasklist_lock held (a parent's exit signals each child thread): the
 * records leave what they have to tell to an irq_work (ev.defer_notes),
 * and a user has few streams recording kernel events (main.c).
 */
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "kev.h"

/* The si_code of @info, as the signal tracepoints decode it. */
static int pt_sig_code(const struct kernel_siginfo *info)
{
	if (info == SEND_SIG_NOINFO)
		return SI_USER;
	if (info == SEND_SIG_PRIV)
		return SI_KERNEL;
	return info->si_code;
}

/* Codes of the signals a process sends itself: kill, sigqueue, tgkill. */
static bool pt_sig_from_process(int code)
{
	return code == SI_USER || code == SI_QUEUE || code == SI_TKILL;
}

struct pt_generate_rec {
	struct posix_trace_signal_generate g;
	bool by_current;	/* the sender is current */
};

/* The sender's pid in the stream's namespace. */
static void pt_generate_fill(struct pt_stream *s, void *arg)
{
	struct pt_generate_rec *r = arg;

	r->g.sender_pid = r->by_current ? task_tgid_nr_ns(current, s->pidns) : 0;
}

/*
 * Called by the sender (or in an interrupt) for @task, the target.  The
 * record is the target's: its pid/tid, into the streams that trace it.
 * The sender is current only in a task and for a code a process sends;
 * it is taken from current, not from info->si_pid, which sigqueue()'s
 * caller writes itself.
 */
void pt_kev_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			    struct task_struct *task, int group, int result)
{
	int code = pt_sig_code(info);
	struct pt_generate_rec r = {
		.g = {
			.signo = sig,
			.code = code,
			.result = result,
			.flags = group ? POSIX_TRACE_SIGNAL_GROUP : 0,
		},
		.by_current = in_task() && pt_sig_from_process(code),
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SIGNAL_GENERATE,
		.from_task = true,
		.defer_notes = true,
		.task = task,
		.data = &r.g,
		.data_len = sizeof(r.g),
	};
	struct pt_proc *proc;

	rcu_read_lock();
	proc = pt_kev_proc_of(task);
	if (proc)
		pt_kev_emit_fill(proc, POSIX_TRACE_KCLASS_SIGNAL, &ev,
				 pt_generate_fill, &r);
	rcu_read_unlock();
}

/*
 * A process dying of a signal is killed thread by thread with SIGKILL,
 * which get_signal() reports without siginfo (SEND_SIG_NOINFO, only
 * there); the signal it dies of is in group_exit_code (its low 7 bits,
 * which an exit_group() status leaves 0).  The siglock is held.
 */
static int pt_sig_group_exit(const struct kernel_siginfo *info, int sig)
{
	int fatal;

	/* An exec killing the other threads: group_exit_code may hold a
	 * stop signal (it is overloaded), not a fatal one.
	 */
	if (info != SEND_SIG_NOINFO || sig != SIGKILL ||
	    !(current->signal->flags & SIGNAL_GROUP_EXIT))
		return sig;
	fatal = current->signal->group_exit_code & 0x7f;
	return fatal && valid_signal(fatal) ? fatal : sig;
}

/*
 * Called by the traced thread as it takes @sig off its pending set, @ka
 * the action it will take.  The sender is the si_pid the thread itself
 * receives in its siginfo_t.
 */
void pt_kev_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
			   struct k_sigaction *ka)
{
	int code = info == SEND_SIG_NOINFO ? SI_KERNEL : pt_sig_code(info);
	__sighandler_t h = ka->sa.sa_handler;
	struct posix_trace_signal_deliver d = {
		.signo = pt_sig_group_exit(info, sig),
		.code = code,
		.sa_flags = ka->sa.sa_flags,
	};
	struct pt_event ev = {
		.id = POSIX_TRACE_ID_SIGNAL_DELIVER,
		.from_task = true,
		.defer_notes = true,
		.data = &d,
		.data_len = sizeof(d),
	};
	struct pt_proc *proc;

	if (h == SIG_IGN || (h == SIG_DFL && sig_kernel_ignore(sig))) {
		d.action = POSIX_TRACE_SIGNAL_IGNORE;
	} else if (h == SIG_DFL) {
		d.action = POSIX_TRACE_SIGNAL_DEFAULT;
	} else {
		d.action = POSIX_TRACE_SIGNAL_HANDLER;
		d.handler = (unsigned long)h;
	}
	if (info != SEND_SIG_NOINFO && info != SEND_SIG_PRIV &&
	    pt_sig_from_process(code))
		d.sender_pid = info->si_pid;
	rcu_read_lock();
	proc = pt_kev_proc();
	if (proc)
		pt_kev_emit(proc, POSIX_TRACE_KCLASS_SIGNAL, &ev);
	rcu_read_unlock();
}
