// SPDX-License-Identifier: GPL-2.0
/*
 * "May the caller trace process nr?" - the one privilege check of the
 * module (spec 4.12, 5.16).
 *
 * The answer must be exactly ptrace attach's, LSMs (Yama) included, so we
 * ask the kernel's own ptrace_may_access() with
 * PTRACE_MODE_ATTACH_REALCREDS.  Distribution kernels do not export it to
 * modules; its address is resolved once at load time by registering a
 * kprobe on the symbol and reading the address the kprobe resolved (the
 * technique lttng-modules uses for kallsyms_lookup_name()).  Loading fails
 * if the symbol cannot be resolved: a weaker check is not acceptable.
 */
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include "pt.h"

static bool (*pt_ptrace_may_access)(struct task_struct *task, unsigned int mode);

/* With kernel IBT, an indirect call must land on an ENDBR64; objtool
 * seals the ENDBR of functions whose address is never taken.
 */
static bool pt_callable(const void *addr)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		return true;
	return !memcmp(addr, endbr64, sizeof(endbr64));
}

int pt_priv_init(void)
{
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };
	void *addr;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("posix_trace: cannot resolve ptrace_may_access: %d\n", ret);
		return ret;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);
	if (!addr || !pt_callable(addr)) {
		pr_err("posix_trace: ptrace_may_access is not callable\n");
		return -ENOENT;
	}
	pt_ptrace_may_access = addr;
	return 0;
}

/* The whole thread group is on its way out (a zombie leader whose other
 * threads still run is not).  signal->live reaches 0 when the last thread
 * enters do_exit(), even when no exit_group() set SIGNAL_GROUP_EXIT (the
 * leader called pthread_exit() and the last thread exit()s): the leader is
 * then a zombie and its group not empty yet, but the group is gone.
 */
static bool pt_group_exiting(struct task_struct *task)
{
	if (task->signal->flags & SIGNAL_GROUP_EXIT ||
	    !atomic_read(&task->signal->live))
		return true;
	return (task->exit_state || (task->flags & PF_EXITING)) &&
	       thread_group_empty(task);
}

/*
 * Is the thread group of @tgid still there and not on its way out?
 * Callers that just put the group's entry in the proc table rely on this:
 * the last thread decrements signal->live (a full barrier) before its
 * sched_process_exit probe looks the entry up, and we insert before the
 * smp_mb() below and read ->live after it.  So either the probe finds the
 * entry (and its exit job will forget it) or we see the group dead.
 */
bool pt_group_alive(struct pid *tgid)
{
	struct task_struct *task;
	bool alive;

	smp_mb();	/* the entry's insertion before ->live: see above */
	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	alive = task && !pt_group_exiting(task);
	rcu_read_unlock();
	return alive;
}

/*
 * The privilege check of the module: may current trace the thread group
 * of @task?  -ESRCH: the group is on its way out; -EPERM: not allowed.
 */
static int pt_check_trace(struct task_struct *task)
{
	if (pt_group_exiting(task))
		return -ESRCH;
	if (same_thread_group(task, current))
		return 0;
	if (task->flags & PF_KTHREAD)
		return -EPERM;
	if (!pt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS))
		return -EPERM;
	return 0;
}

/* pt_check_trace() on the group of @tgid as it is now. */
static int pt_check_trace_pid(struct pid *tgid)
{
	struct task_struct *task = get_pid_task(tgid, PIDTYPE_TGID);
	int ret;

	if (!task)
		return -ESRCH;
	ret = pt_check_trace(task);
	put_task_struct(task);
	return ret;
}

/*
 * Resolve @nr in the caller's pid namespace (0 = the caller) and check the
 * caller may trace it.  On success *@tgid holds a reference to the
 * thread group's pid.  -ESRCH: no such process, a thread id, or exiting;
 * -EPERM: not allowed.  An early answer only: the check that counts is
 * pt_trace_lock()'s, at the attach.
 */
int pt_may_trace(pid_t nr, struct pid **tgid)
{
	struct pid *pid;
	int ret;

	if (nr == 0) {
		*tgid = get_pid(task_tgid(current));
		return 0;
	}
	if (nr < 0)
		return -ESRCH;
	rcu_read_lock();
	pid = get_pid(find_vpid(nr));
	rcu_read_unlock();
	if (!pid)
		return -ESRCH;
	ret = pt_check_trace_pid(pid);
	if (!ret)
		*tgid = get_pid(pid);
	put_pid(pid);
	return ret;
}

/*
 * Check again, for an attach to the group of @tgid, and keep the answer
 * true until pt_trace_unlock(): an exec of the group holds the group's
 * exec_update_lock for writing from before it replaces the mm until the
 * new credentials and dumpability are in place, so with the lock held for
 * reading the group runs the image that was checked, or has run the new
 * one's checks already.  An exec that comes after the attach finds the
 * attach in place, and its exec probe detaches it if the new image may
 * no longer be traced (lifecycle.c).  ptrace_attach() holds
 * cred_guard_mutex across its check and attach for the same reason.
 * Returns a task of the group, or an ERR_PTR: -ESRCH, -EPERM, or -EINTR
 * when a signal came while waiting for an exec.
 */
struct task_struct *pt_trace_lock(struct pid *tgid)
{
	struct task_struct *task = get_pid_task(tgid, PIDTYPE_TGID);
	int ret;

	if (!task)
		return ERR_PTR(-ESRCH);
	/* One per group, as the task's signal_struct, which it pins. */
	if (down_read_interruptible(&task->signal->exec_update_lock)) {
		put_task_struct(task);
		return ERR_PTR(-EINTR);
	}
	/* Its leader may have changed: an exec in another thread. */
	ret = pt_check_trace_pid(tgid);
	if (ret) {
		pt_trace_unlock(task);
		return ERR_PTR(ret);
	}
	return task;
}

void pt_trace_unlock(struct task_struct *task)
{
	up_read(&task->signal->exec_update_lock);
	put_task_struct(task);
}

/*
 * After an exec that raised current's privileges: could the controller
 * whose thread group is @owner still ptrace-attach to current?
 * ptrace_may_access() answers for its caller, and the caller here is the
 * traced process, so __ptrace_may_access()'s credential rules are applied
 * to the controller's real credentials instead: every uid and gid of the
 * target equal to the tracer's, or CAP_SYS_PTRACE in the target's user
 * namespace; and for a non-dumpable target CAP_SYS_PTRACE in its mm's user
 * namespace.  LSMs answered at create and are not asked again.  An owner
 * that is gone cannot trace.
 */
bool pt_owner_may_trace_current(struct pid *owner)
{
	const struct cred *tcred = current_real_cred();
	unsigned int superpriv = current->flags & PF_SUPERPRIV;
	struct mm_struct *mm = current->mm;
	const struct cred *tracer, *old;
	struct task_struct *task;
	bool ids, dumpable, ok;

	rcu_read_lock();
	task = pid_task(owner, PIDTYPE_TGID);
	tracer = task ? get_task_cred(task) : NULL;
	rcu_read_unlock();
	if (!tracer)
		return false;
	ids = uid_eq(tracer->uid, tcred->euid) && uid_eq(tracer->uid, tcred->suid) &&
	      uid_eq(tracer->uid, tcred->uid) && gid_eq(tracer->gid, tcred->egid) &&
	      gid_eq(tracer->gid, tcred->sgid) && gid_eq(tracer->gid, tcred->gid);
	dumpable = !mm || get_dumpable(mm) == SUID_DUMP_USER;
	ok = ids && dumpable;
	if (!ok) {
		/* ns_capable() asks about current's subjective credentials. */
		old = override_creds(tracer);
		ok = (ids || ns_capable_noaudit(tcred->user_ns, CAP_SYS_PTRACE)) &&
		     (dumpable || ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE));
		revert_creds(old);
		/* The capability was the controller's, not this process's. */
		current->flags = (current->flags & ~PF_SUPERPRIV) | superpriv;
	}
	put_cred(tracer);
	return ok;
}
