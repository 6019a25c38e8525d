// SPDX-License-Identifier: GPL-2.0
/*
 * Class FAULT: a page fault of a traced thread, once the kernel resolved
 * it, as major (the page had to be read in) or minor,
 * <linux/posix_trace_kernel.h>.
 *
 * No tracepoint tells the two apart: exceptions:page_fault_user fires at
 * the fault's entry, before anyone knows whether it will wait for I/O.
 * The kernel decides when it accounts the fault (mm_account_fault(), in
 * 5.13 .. 6.x), which feeds the software perf events
 * PERF_COUNT_SW_PAGE_FAULTS_MAJ and _MIN with the faulting address.  So
 * while a stream asks for the class, each online CPU has two kernel
 * counters of these (perf_event_create_kernel_counter(), exported),
 * sampling every event into pt_kev_fault_overflow(), which runs in the
 * faulting thread, in the fault, with preemption disabled and the
 * address space's lock (or the VMA's) held.  Faults through
 * get_user_pages() have no registers and no perf event: they are not
 * the thread's own accesses, and are not recorded.
 *
 * CPU hotplug: a counter's static key takes cpus_read_lock() when the
 * counter is created or freed, so neither may happen in a hotplug
 * callback, which runs under the hotplug lock (perf's own watchdog frees
 * its counters later for that reason).  The callbacks only mark the CPU
 * and queue pt_fault_work, which brings the counters in line with the
 * online CPUs afterwards: perf detaches a CPU's counters when it goes
 * offline and does not put them back, so a CPU that went offline gets
 * new ones; one that came online gets its first.  Faults on a CPU in the
 * moment between its coming online and that work are not recorded.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <uapi/linux/posix_trace_kernel.h>
#include "kev.h"

/*
 * The two counters of each CPU: [0] major faults, [1] minor faults,
 * set and cleared under pt_kev_lock (kev.c).  pt_fault_stale: CPUs that
 * went offline since their counters were made (set by the hotplug
 * callback, atomically).
 */
struct pt_fault_counters {
	struct perf_event *ev[2];
};

static DEFINE_PER_CPU(struct pt_fault_counters, pt_fault_events);
static struct cpumask pt_fault_stale;
/* The dynamic hotplug state while the class is on, else 0. */
static int pt_fault_state;
static void pt_fault_work_fn(struct work_struct *work);
static DECLARE_WORK(pt_fault_work, pt_fault_work_fn);

static void pt_kev_fault_overflow(struct perf_event *event,
				  struct perf_sample_data *sample,
				  struct pt_regs *regs)
{
	bool user = user_mode(regs);
	struct posix_trace_fault f = {
		.address = sample->addr,
		/* A fault taken by the kernel inside a system call has the
		 * kernel's instruction pointer: never recorded.
		 */
		.ip = user ? instruction_pointer(regs) : 0,
		.flags = user ? POSIX_TRACE_FAULT_USER : 0,
	};
	struct pt_event ev = {
		.id = event->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ?
		      POSIX_TRACE_ID_FAULT_MAJOR : POSIX_TRACE_ID_FAULT_MINOR,
		.from_task = true,
		.data = &f,
		.data_len = sizeof(f),
	};
	struct pt_proc *proc;

	/* Only a task's own fault on user memory reaches this (an
	 * interrupt cannot take one that sleeps), but the address is
	 * recorded as a user's: make sure of it.
	 */
	if (!in_task() || f.address >= TASK_SIZE_MAX)
		return;
	rcu_read_lock();
	/* As for the scheduler's records: nothing inside an exec that may
	 * have raised privileges, where the kernel faults the new image's
	 * stack and bss in before the lifecycle settled the exec.
	 */
	proc = pt_kev_proc_of(current);
	if (proc)
		pt_kev_emit(proc, POSIX_TRACE_KCLASS_FAULT, &ev);
	rcu_read_unlock();
}

static struct perf_event *pt_fault_counter(unsigned int cpu, u64 config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = 1,	/* every fault: no sampling */
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL,
						pt_kev_fault_overflow, NULL);
}

static void pt_fault_release(unsigned int cpu)
{
	struct perf_event **ev = per_cpu(pt_fault_events, cpu).ev;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (ev[i])
			perf_event_release_kernel(ev[i]);
		ev[i] = NULL;
	}
}

static int pt_fault_create(unsigned int cpu)
{
	static const u64 config[2] = {
		PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	};
	struct perf_event **ev = per_cpu(pt_fault_events, cpu).ev;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct perf_event *e = pt_fault_counter(cpu, config[i]);

		if (IS_ERR(e)) {
			pt_fault_release(cpu);
			return PTR_ERR(e);
		}
		ev[i] = e;
	}
	return 0;
}

/*
 * Counters for every online CPU, none for offline ones, new ones for a
 * CPU that went offline since its were made.  A CPU going offline or
 * coming online meanwhile queues pt_fault_work again.  Called with
 * pt_kev_lock held, the class on.
 *
 * perf lets only a privileged caller make a CPU-wide counter
 * (perf_event_paranoid); these are the module's own, and what they
 * record reaches a stream only for a process its controller may ptrace
 * (the rule of every kernel event), so they are made with the kernel's
 * credentials, not the caller's.  A failure stops at once: each try
 * patches every CPU's code (the counters' static key) and back.
 */
int pt_kev_fault_sync(void)
{
	const struct cred *kcred, *old;
	unsigned int cpu;
	int ret = 0;

	kcred = prepare_kernel_cred(&init_task);
	if (!kcred)
		return -ENOMEM;
	old = override_creds(kcred);
	for_each_possible_cpu(cpu) {
		bool stale = cpumask_test_and_clear_cpu(cpu, &pt_fault_stale);
		bool have = per_cpu(pt_fault_events, cpu).ev[0];

		if (have && (stale || !cpu_online(cpu))) {
			pt_fault_release(cpu);
			have = false;
		}
		if (!have && cpu_online(cpu)) {
			ret = pt_fault_create(cpu);
			if (ret == -ENODEV)	/* it went offline meanwhile */
				ret = 0;
			if (ret)
				break;
		}
		cond_resched();
	}
	revert_creds(old);
	put_cred(kcred);
	return ret;
}

/* Hotplug callback, under the hotplug lock: only note and defer. */
static int pt_fault_cpu_changed(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &pt_fault_stale);
	queue_work(system_wq, &pt_fault_work);
	return 0;
}

static void pt_fault_work_fn(struct work_struct *work)
{
	pt_kev_fault_resync();
}

/* Called with pt_kev_lock held (kev.c), as pt_kev_fault_off(). */
int pt_kev_fault_on(void)
{
	int state, ret;

	state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "posix_trace/fault",
					  pt_fault_cpu_changed, pt_fault_cpu_changed);
	if (state < 0)
		return state;
	pt_fault_state = state;
	cpumask_clear(&pt_fault_stale);
	ret = pt_kev_fault_sync();
	if (ret)
		pt_kev_fault_off();
	return ret;
}

/*
 * The counters are gone when this returns; an overflow handler already
 * running on another CPU runs under RCU (perf's software events are
 * found and removed under RCU): the module waits for it before its code
 * goes (pt_kev_exit()).  A pt_fault_work still queued finds the class
 * off and does nothing; pt_kev_fault_exit() waits for it.
 */
void pt_kev_fault_off(void)
{
	unsigned int cpu;

	if (pt_fault_state)
		cpuhp_remove_state_nocalls(pt_fault_state);
	pt_fault_state = 0;
	for_each_possible_cpu(cpu)
		pt_fault_release(cpu);
}

/*
 * Module exit, pt_kev_lock not held, the class off (so a pt_fault_work
 * still to run does nothing).  The caller then waits for an RCU grace
 * period, which no overflow handler outlives.
 */
void pt_kev_fault_exit(void)
{
	cancel_work_sync(&pt_fault_work);
}
