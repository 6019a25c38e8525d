/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel events: probes on kernel tracepoints that record what a traced
 * process does in the kernel into the streams that asked for the event's
 * class (posix_trace_create.kernel_classes).  Beside the log writer and
 * the lifecycle, above streams (stream.h): kev.c registers a class's
 * probes while a stream asks (struct pt_class_ops) and finds the streams
 * of the current process; kev_syscall.c, kev_signal.c, kev_sched.c and
 * kev_process.c are the probes; kev_fault.c takes perf's page-fault
 * events instead.
 */
#ifndef PT_KEV_H
#define PT_KEV_H

#include <linux/rculist.h>
#include "stream.h"

struct k_sigaction;
struct kernel_siginfo;
struct linux_binprm;
struct pt_regs;

/* kev.c */
extern const struct pt_class_ops pt_kev_class_ops;
int pt_kev_init(void);
void pt_kev_exit(void);
u32 pt_kev_classes(void);
u32 pt_kev_registered(void);
struct pt_proc *pt_kev_proc_of(struct task_struct *t);
struct pt_proc *pt_kev_proc(void);
void pt_kev_emit(struct pt_proc *proc, u32 class, struct pt_event *ev);

/*
 * pt_kev_emit() of a record that differs per stream: before each record
 * @fill(s, @arg) sets what does in the record's data (ids in the
 * stream's pid namespace, whether the stream may know another process).
 * Inline, so that a probe's fill is not an indirect call.
 */
static __always_inline void
pt_kev_emit_fill(struct pt_proc *proc, u32 class, struct pt_event *ev,
		 void (*fill)(struct pt_stream *s, void *arg), void *arg)
{
	struct pt_attach *a;

	list_for_each_entry_rcu(a, &proc->streams, proc_node) {
		if (!(a->stream->kclasses & class))
			continue;
		fill(a->stream, arg);
		pt_record(a->stream, ev);
	}
}

/* kev_syscall.c, kev_signal.c, kev_sched.c, kev_process.c: the probes. */
void pt_kev_sys_enter(void *data, struct pt_regs *regs, long id);
void pt_kev_sys_exit(void *data, struct pt_regs *regs, long ret);
void pt_kev_sys_switch(void *data, bool preempt, struct task_struct *prev,
		       struct task_struct *next, unsigned int prev_state);
void pt_kev_sys_on(void);
void pt_kev_signal_generate(void *data, int sig, struct kernel_siginfo *info,
			    struct task_struct *task, int group, int result);
void pt_kev_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
			   struct k_sigaction *ka);
void pt_kev_sched_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state);
void pt_kev_sched_waking(void *data, struct task_struct *p);
void pt_kev_fork(void *data, struct task_struct *parent,
		 struct task_struct *child);
void pt_kev_exec(void *data, struct task_struct *p, pid_t old_pid,
		 struct linux_binprm *bprm);
void pt_kev_exit_probe(void *data, struct task_struct *p);
void pt_kev_exec_kept(struct pt_stream *s, const char *name, u32 len,
		      bool by_leader);

/* kev_fault.c: perf's page-fault counters, not a tracepoint. */
int pt_kev_fault_on(void);
void pt_kev_fault_off(void);
int pt_kev_fault_sync(void);
void pt_kev_fault_exit(void);
void pt_kev_fault_resync(void);	/* kev.c: pt_kev_fault_sync() if on */

#endif /* PT_KEV_H */
