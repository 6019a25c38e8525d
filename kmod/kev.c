// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel event classes: their probes are registered while a stream asks
 * for the class, and not at all otherwise, so that nobody pays for a
 * class no stream records.  While one does, every task that reaches the
 * tracepoint pays one lookup of its process (pt_kev_proc()); only the
 * processes a stream traces pay for a record.
 */
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "kev.h"

/*
 * Registered in this order, unregistered in the reverse: the SYSCALL
 * class's switch probe, which empties a thread's kept entry when it
 * leaves its CPU (kev_syscall.c), is there before the first entry is
 * kept and until the last one is.
 */
static struct pt_tp_hook pt_kev_hooks[] = {
	{ "sched_switch", pt_kev_sys_switch, POSIX_TRACE_KCLASS_SYSCALL },
	{ "sys_exit", pt_kev_sys_exit, POSIX_TRACE_KCLASS_SYSCALL },
	{ "sys_enter", pt_kev_sys_enter, POSIX_TRACE_KCLASS_SYSCALL },
	{ "signal_generate", pt_kev_signal_generate, POSIX_TRACE_KCLASS_SIGNAL },
	{ "signal_deliver", pt_kev_signal_deliver, POSIX_TRACE_KCLASS_SIGNAL },
	{ "sched_switch", pt_kev_sched_switch, POSIX_TRACE_KCLASS_SCHED },
	{ "sched_waking", pt_kev_sched_waking, POSIX_TRACE_KCLASS_SCHED },
	{ "sched_process_fork", pt_kev_fork, POSIX_TRACE_KCLASS_PROCESS },
	{ "sched_process_exec", pt_kev_exec, POSIX_TRACE_KCLASS_PROCESS },
	{ "sched_process_exit", pt_kev_exit_probe, POSIX_TRACE_KCLASS_PROCESS },
};

#define PT_KEV_NR_CLASSES	5	/* bits of POSIX_TRACE_KCLASS_* */

/* Switch class bit @b on or off: tracepoints, or perf's fault counters. */
static int pt_kev_class_on(unsigned int b)
{
	if (BIT(b) == POSIX_TRACE_KCLASS_FAULT)
		return pt_kev_fault_on();
	if (BIT(b) == POSIX_TRACE_KCLASS_SYSCALL)
		pt_kev_sys_on();
	return pt_tp_register(pt_kev_hooks, ARRAY_SIZE(pt_kev_hooks), BIT(b));
}

static void pt_kev_class_off(unsigned int b)
{
	if (BIT(b) == POSIX_TRACE_KCLASS_FAULT)
		pt_kev_fault_off();
	else
		pt_tp_unregister(pt_kev_hooks, ARRAY_SIZE(pt_kev_hooks), BIT(b));
}

/*
 * Streams recording each class (bit number), and the classes whose probes
 * are registered: from the first user on, and until PT_KEV_IDLE after the
 * last one left (pt_kev_idle_work), so that a user creating and freeing
 * streams in a loop cannot make the kernel walk every thread and patch
 * every CPU's code (what registering a syscall tracepoint does) more than
 * once per PT_KEV_IDLE.
 */
#define PT_KEV_IDLE	(2 * HZ)
static DEFINE_MUTEX(pt_kev_lock);
static unsigned int pt_kev_users[PT_KEV_NR_CLASSES];
static u32 pt_kev_on;
static void pt_kev_idle(struct work_struct *work);
static DECLARE_DELAYED_WORK(pt_kev_idle_work, pt_kev_idle);
/* Classes whose tracepoints this kernel has: set once at init. */
static u32 pt_kev_avail;

int pt_kev_init(void)
{
	unsigned int i;

	pt_tp_find(pt_kev_hooks, ARRAY_SIZE(pt_kev_hooks));
	pt_kev_avail = POSIX_TRACE_KCLASS_ALL;
	if (!IS_ENABLED(CONFIG_PERF_EVENTS)) {
		pr_info("posix_trace: no perf events: kernel events of class %#lx not offered\n",
			POSIX_TRACE_KCLASS_FAULT);
		pt_kev_avail &= ~POSIX_TRACE_KCLASS_FAULT;
	}
	for (i = 0; i < ARRAY_SIZE(pt_kev_hooks); i++) {
		if (!pt_kev_hooks[i].tp) {
			pr_info("posix_trace: no tracepoint %s: kernel events of class %#x not offered\n",
				pt_kev_hooks[i].name, pt_kev_hooks[i].class);
			pt_kev_avail &= ~pt_kev_hooks[i].class;
		}
	}
	return 0;
}

/* Every stream was freed first (each holds a module reference). */
void pt_kev_exit(void)
{
	unsigned int b;

	cancel_delayed_work_sync(&pt_kev_idle_work);
	/* Under the lock: a CPU's coming or going may run pt_kev_fault_sync()
	 * meanwhile (pt_kev_fault_resync()), which must see the class off.
	 */
	mutex_lock(&pt_kev_lock);
	for (b = 0; b < PT_KEV_NR_CLASSES; b++) {
		WARN_ON(pt_kev_users[b]);
		if (pt_kev_on & BIT(b))
			pt_kev_class_off(b);
	}
	pt_kev_on = 0;
	mutex_unlock(&pt_kev_lock);
	pt_kev_fault_exit();
	/* Also waits for the fault handlers, which run under RCU. */
	tracepoint_synchronize_unregister();
}

/* The classes POSIX_TRACE_IOC_CREATE accepts on this kernel. */
u32 pt_kev_classes(void)
{
	return pt_kev_avail;
}

/* The classes whose probes are registered now (POSIX_TRACE_IOC_STATS). */
u32 pt_kev_registered(void)
{
	u32 classes;

	mutex_lock(&pt_kev_lock);
	classes = pt_kev_on;
	mutex_unlock(&pt_kev_lock);
	return classes;
}

static void pt_kev_put_locked(u32 classes)
{
	bool idle = false;
	unsigned int b;

	lockdep_assert_held(&pt_kev_lock);
	for (b = 0; b < PT_KEV_NR_CLASSES; b++) {
		if ((classes & BIT(b)) && !--pt_kev_users[b])
			idle = true;
	}
	if (idle)
		mod_delayed_work(system_wq, &pt_kev_idle_work, PT_KEV_IDLE);
}

/* PT_KEV_IDLE after a class lost its last stream: off, if still unused. */
static void pt_kev_idle(struct work_struct *work)
{
	unsigned int b;

	mutex_lock(&pt_kev_lock);
	for (b = 0; b < PT_KEV_NR_CLASSES; b++) {
		if ((pt_kev_on & BIT(b)) && !pt_kev_users[b]) {
			pt_kev_class_off(b);
			pt_kev_on &= ~BIT(b);
		}
	}
	mutex_unlock(&pt_kev_lock);
}

/* A stream asks for @classes (validated against pt_kev_classes()). */
static int pt_kev_get(u32 classes)
{
	unsigned int b;
	int ret = 0;

	if (classes & ~pt_kev_avail)
		return -EOPNOTSUPP;
	mutex_lock(&pt_kev_lock);
	for (b = 0; b < PT_KEV_NR_CLASSES; b++) {
		if (!(classes & BIT(b)))
			continue;
		if (!(pt_kev_on & BIT(b))) {
			ret = pt_kev_class_on(b);
			if (ret)
				break;
			pt_kev_on |= BIT(b);
		}
		pt_kev_users[b]++;
	}
	if (ret)	/* the classes below b were taken */
		pt_kev_put_locked(classes & (BIT(b) - 1));
	mutex_unlock(&pt_kev_lock);
	return ret;
}

/* The stream is freed: it records nothing any more. */
static void pt_kev_put(u32 classes)
{
	mutex_lock(&pt_kev_lock);
	pt_kev_put_locked(classes);
	mutex_unlock(&pt_kev_lock);
}

/* A CPU came or went: the fault counters follow, if the class is on. */
void pt_kev_fault_resync(void)
{
	mutex_lock(&pt_kev_lock);
	if ((pt_kev_on & POSIX_TRACE_KCLASS_FAULT) && pt_kev_fault_sync())
		pr_warn_ratelimited("posix_trace: fault counters not made for every online CPU: faults there are not recorded\n");
	mutex_unlock(&pt_kev_lock);
}

const struct pt_class_ops pt_kev_class_ops = {
	.get = pt_kev_get,
	.put = pt_kev_put,
	.exec_kept = pt_kev_exec_kept,
};

/*
 * The calling task's process if a stream traces it, under the caller's
 * RCU read-side section (probes run with preemption disabled).  Nothing
 * while an exec that raised privileges has not yet detached the
 * controllers that lost the right to trace the process (lifecycle.c):
 * nothing of the new image may reach them.
 */
struct pt_proc *pt_kev_proc(void)
{
	struct pt_proc *proc = pt_proc_find_kev_rcu(task_tgid(current));

	if (!proc || test_bit(PT_PROC_EXEC_RAISED, &proc->flags))
		return NULL;
	return proc;
}

/*
 * The same for @t, which a record made by the scheduler or by another
 * task is about (its switches, its wake-up, a signal sent to it).  Such
 * a record can be made while @t is inside an exec, after the kernel
 * committed the new image's credentials and before the lifecycle knows
 * whether they were raised (its probe on sched_process_exec comes
 * later): from the group's self_exec_id moving on until the lifecycle
 * settled the exec (pt_proc.exec_id), nothing is recorded for @t.  The
 * thread's own system call and process records in that span are those
 * of the exec, which pt_kev_exec() and the execve exit judge themselves.
 */
struct pt_proc *pt_kev_proc_of(struct task_struct *t)
{
	struct pt_proc *proc = pt_proc_find_kev_rcu(task_tgid(t));

	if (!proc || test_bit(PT_PROC_EXEC_RAISED, &proc->flags) ||
	    READ_ONCE(t->self_exec_id) != READ_ONCE(proc->exec_id))
		return NULL;
	return proc;
}

static void pt_kev_same_for_all(struct pt_stream *s, void *arg)
{
}

/* Record @ev into each stream tracing @proc that asked for @class. */
void pt_kev_emit(struct pt_proc *proc, u32 class, struct pt_event *ev)
{
	pt_kev_emit_fill(proc, class, ev, pt_kev_same_for_all, NULL);
}
