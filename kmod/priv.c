// SPDX-License-Identifier: GPL-2.0
/*
 * "May the caller trace process nr?" - the one privilege check of the
 * module (spec 4.12, 5.16).
 *
 * The answer must be exactly ptrace attach's, LSMs (Yama) included, so we
 * ask the kernel's own check (ptrace_check.c) of a live thread of the
 * target group: its leader, or another thread when the leader has exited
 * (ptrace(2) attaches to a thread, and a zombie has no image to check).
 * Here: which group, when, and how the answer stays true until the attach.
 */
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include "base.h"

/*
 * Threads that exit under a check, and execs between a check and its
 * lock, are retried this many times before -EAGAIN: a target that keeps
 * doing either only delays its own tracer's call.
 */
#define PT_CHECK_TRIES	8

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
 * A thread of @task's group that has an mm, the leader first, and that mm
 * (mmget()), both referenced; NULL if none has.
 */
static struct task_struct *pt_live_thread(struct task_struct *task,
					  struct mm_struct **mm)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	for_each_thread(task, t) {
		*mm = get_task_mm(t);
		if (*mm) {
			found = t;
			get_task_struct(found);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The privilege check of the module: may current trace the thread group
 * of @task?  0 with *@checked the mm of the image that was checked
 * (mmgrab(); NULL for current's own group), or -ESRCH: the group is on
 * its way out; -EPERM: not allowed; -EINTR, -ENOMEM, -EAGAIN.
 */
static int pt_check_trace(struct task_struct *task, struct mm_struct **checked)
{
	struct task_struct *t;
	struct mm_struct *mm;
	int tries, ret;

	*checked = NULL;
	if (pt_group_exiting(task))
		return -ESRCH;
	if (same_thread_group(task, current))
		return 0;
	if (task->flags & PF_KTHREAD)
		return -EPERM;
	for (tries = 0; tries < PT_CHECK_TRIES; tries++) {
		t = pt_live_thread(task, &mm);
		if (!t)
			return -ESRCH;
		ret = pt_ptrace_check(t, mm);
		put_task_struct(t);
		if (!ret) {
			mmgrab(mm);
			*checked = mm;
		}
		mmput(mm);
		/* -ESRCH: that thread exited; the group may not have. */
		if (ret != -ESRCH)
			return ret;
		if (pt_group_exiting(task))
			return -ESRCH;
		cond_resched();
	}
	return -EAGAIN;
}

/* Does a thread of @task's group still run in @mm? */
static bool pt_group_runs_mm(struct task_struct *task, struct mm_struct *mm)
{
	struct task_struct *t;
	bool found = false;

	rcu_read_lock();
	for_each_thread(task, t) {
		/* Compared, never dereferenced: the mm is grabbed. */
		if (READ_ONCE(t->mm) == mm) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* pt_check_trace() on the group of @tgid as it is now. */
static int pt_check_trace_pid(struct pid *tgid)
{
	struct task_struct *task = get_pid_task(tgid, PIDTYPE_TGID);
	struct mm_struct *mm;
	int ret;

	if (!task)
		return -ESRCH;
	ret = pt_check_trace(task, &mm);
	if (mm)
		mmdrop(mm);
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
 * one's checks already.  The kernel's check takes that lock itself
 * (mm_access()), and a second read lock behind a waiting exec would
 * deadlock, so the check comes first and, under the lock, a thread still
 * running in the mm that was checked shows that no exec came between
 * (an exec replaces the mm of the whole group); else we check again.  An
 * exec that comes after the attach finds the attach in place, and its exec
 * probe detaches it if the new image may no longer be traced
 * (lifecycle.c).  ptrace_attach() holds cred_guard_mutex across its check
 * and attach for the same reason.  Returns a task of the group, or an
 * ERR_PTR: -ESRCH, -EPERM, -ENOMEM, -EAGAIN (see PT_CHECK_TRIES), or
 * -EINTR when a signal came while waiting for an exec.
 */
struct task_struct *pt_trace_lock(struct pid *tgid)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int tries, ret;

	for (tries = 0; tries < PT_CHECK_TRIES; tries++) {
		/* Its leader may change between tries: an exec in another thread. */
		task = get_pid_task(tgid, PIDTYPE_TGID);
		if (!task)
			return ERR_PTR(-ESRCH);
		ret = pt_check_trace(task, &mm);
		if (ret)
			goto err_check;
		/* One per group, as the task's signal_struct, which it pins. */
		if (down_read_interruptible(&task->signal->exec_update_lock)) {
			ret = -EINTR;
			goto err_lock;
		}
		if (pt_group_exiting(task)) {
			ret = -ESRCH;
			goto err_exiting;
		}
		if (!mm || pt_group_runs_mm(task, mm)) {
			if (mm)
				mmdrop(mm);
			return task;
		}
		up_read(&task->signal->exec_update_lock);
		mmdrop(mm);
		put_task_struct(task);
		cond_resched();
	}
	return ERR_PTR(-EAGAIN);

err_exiting:
	up_read(&task->signal->exec_update_lock);
err_lock:
	if (mm)
		mmdrop(mm);
err_check:
	put_task_struct(task);
	return ERR_PTR(ret);
}

void pt_trace_unlock(struct task_struct *task)
{
	up_read(&task->signal->exec_update_lock);
	put_task_struct(task);
}

/*
 * After an exec that raised current's privileges: could the controller
 * whose thread group is @owner still ptrace-attach to current?  The kernel's
 * check answers for its caller, and the caller here is the traced process,
 * so the credential rules are applied to the controller's real
 * credentials instead (pt_cred_rules_allow()), with its capabilities.
 * LSMs answered at create and are not asked again.  An owner that is gone
 * cannot trace.
 */
bool pt_owner_may_trace_current(struct pid *owner)
{
	unsigned int superpriv = current->flags & PF_SUPERPRIV;
	const struct cred *tracer, *old;
	struct task_struct *task;
	bool ok;

	rcu_read_lock();
	task = pid_task(owner, PIDTYPE_TGID);
	tracer = task ? get_task_cred(task) : NULL;
	rcu_read_unlock();
	if (!tracer)
		return false;
	/* ns_capable() asks about current's subjective credentials. */
	old = override_creds(tracer);
	ok = pt_cred_rules_allow(tracer, current_real_cred(), current->mm, true);
	revert_creds(old);
	/* A capability used was the controller's, not this process's. */
	current->flags = (current->flags & ~PF_SUPERPRIV) | superpriv;
	put_cred(tracer);
	return ok;
}

/*
 * At sched_process_exec: the exec raised privileges (bprm->secureexec:
 * set-user-ID, set-group-ID, file capabilities, an LSM transition) or
 * left the process non-dumpable (commit_creds() made a set-ID image so).
 */
bool pt_exec_raised(struct task_struct *p, const struct linux_binprm *bprm)
{
	return bprm->secureexec || get_dumpable(p->mm) != SUID_DUMP_USER;
}
