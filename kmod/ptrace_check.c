// SPDX-License-Identifier: GPL-2.0
/*
 * "May current ptrace-attach to this task?", asked of the kernel through
 * interfaces a module may call.
 *
 * ptrace_may_access() is not exported, and on kernels with indirect branch
 * tracking (x86 IBT: Debian 13, Ubuntu 24.04, Fedora, RHEL; most
 * distribution kernels since 6.2) a function whose address is never taken
 * cannot be called through a pointer: objtool seals its ENDBR64.  The
 * kernel does export a path to the same check: opening /proc/<tid>/mem
 * runs mm_access(), which asks ptrace_may_access(PTRACE_MODE_ATTACH_FSCREDS)
 * of the thread, every LSM included (Yama, SELinux, AppArmor...), with the
 * thread's exec_update_lock held.  We open it
 * - on a procfs mount of our own (kern_mount() from a kernel worker: the
 *   initial pid namespace), attached to no mount namespace, so that no
 *   caller can put a file of its own at the path we open;
 * - with dentry_open(), which does not test the file's mode: ptrace does
 *   not ask a CAP_SYS_PTRACE caller to own the target, nor may we;
 * - with a copy of the caller's credentials whose fsuid and fsgid are its
 *   real uid and gid, the ids PTRACE_MODE_REALCREDS (ptrace(2)'s mode)
 *   compares where FSCREDS compares the fs ids.
 *
 * What is left of FSCREDS (posix_trace(7), "Privileges"):
 * - commoncap compares the target's permitted capabilities with the
 *   caller's effective ones, not its permitted ones.  Effective is within
 *   permitted, so the answer can only be stricter: a caller whose effective
 *   set lacks capabilities its permitted set holds may be refused where
 *   ptrace(2) allows.  Raising the copy's effective set would show other
 *   LSMs capabilities the caller does not have in effect (Smack asks for
 *   CAP_MAC_OVERRIDE), which is worse.
 * - An LSM that refuses the open itself (an SELinux file:read rule,
 *   AppArmor or Landlock file rules) refuses the trace: stricter again.
 * mm_access() does not ask at all for a task that shares the caller's mm
 * (clone(CLONE_VM) without CLONE_THREAD, vfork()); for those we apply the
 * credential rules ourselves (pt_cred_rules_allow()), without other LSMs.
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>
#include "base.h"

/* Mounted at load, unmounted at unload; read-only in between. */
static struct vfsmount *pt_proc_mnt;

struct pt_mount_work {
	struct work_struct work;
	struct vfsmount *mnt;
};

/* A worker's pid namespace is the initial one, whoever loads us. */
static void pt_mount_proc(struct work_struct *work)
{
	struct pt_mount_work *mw = container_of(work, struct pt_mount_work, work);
	struct file_system_type *proc = get_fs_type("proc");

	mw->mnt = ERR_PTR(-ENODEV);
	if (!proc)
		return;
	mw->mnt = kern_mount(proc);
	module_put(proc->owner);	/* get_fs_type()'s reference */
}

int pt_ptrace_check_init(void)
{
	struct pt_mount_work mw;

	INIT_WORK_ONSTACK(&mw.work, pt_mount_proc);
	schedule_work(&mw.work);
	flush_work(&mw.work);
	destroy_work_on_stack(&mw.work);
	if (IS_ERR(mw.mnt)) {
		pr_err("posix_trace: cannot mount procfs for the privilege check: %ld\n",
		       PTR_ERR(mw.mnt));
		return PTR_ERR(mw.mnt);
	}
	pt_proc_mnt = mw.mnt;
	return 0;
}

void pt_ptrace_check_exit(void)
{
	kern_unmount(pt_proc_mnt);
}

static bool pt_capable(struct user_namespace *ns, bool noaudit)
{
	return noaudit ? ns_capable_noaudit(ns, CAP_SYS_PTRACE) :
			 ns_capable(ns, CAP_SYS_PTRACE);
}

/*
 * The credential rules of an attach, as __ptrace_may_access() applies them
 * with PTRACE_MODE_REALCREDS and then commoncap: may a tracer with
 * credentials @tracer attach to a task with real credentials @tcred whose
 * mm is @mm (NULL: none)?  The capability tests ask current's subjective
 * credentials, which the caller makes @tracer.  No other LSM is asked.
 */
bool pt_cred_rules_allow(const struct cred *tracer, const struct cred *tcred,
			 struct mm_struct *mm, bool noaudit)
{
	bool ids;

	ids = uid_eq(tracer->uid, tcred->euid) && uid_eq(tracer->uid, tcred->suid) &&
	      uid_eq(tracer->uid, tcred->uid) && gid_eq(tracer->gid, tcred->egid) &&
	      gid_eq(tracer->gid, tcred->sgid) && gid_eq(tracer->gid, tcred->gid);
	if (!ids && !pt_capable(tcred->user_ns, noaudit))
		return false;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !pt_capable(mm->user_ns, noaudit))
		return false;
	/* commoncap: the target's capabilities are within the tracer's. */
	if (tracer->user_ns == tcred->user_ns &&
	    cap_issubset(tcred->cap_permitted, tracer->cap_permitted))
		return true;
	return pt_capable(tcred->user_ns, noaudit);
}

/* The open's answer as ours: -EPERM, -ESRCH (gone), -EINTR or -ENOMEM. */
static int pt_open_errno(int err)
{
	switch (err) {
	case -ESRCH:
	case -ENOENT:	/* the thread's directory went away */
		return -ESRCH;
	case -EINTR:	/* mm_access() waits killably for an exec */
		return -EINTR;
	case -ENOMEM:
	case -ENFILE:
		return -ENOMEM;
	default:	/* -EACCES from mm_access(), or an LSM's refusal */
		return -EPERM;
	}
}

/*
 * Open <tid>/mem of @t on our mount (lookups as vfs_path_lookup(), which
 * 6.1 does not declare, would make them), and prove the open checked @t
 * in @mm: mem_open() lets a task without an mm through unchecked on 6.1
 * (proc_mem_open() maps mm_access()'s -ESRCH to a NULL mm, and only 6.12.y
 * refuses that), and a reaped @t's number may name another task by then.
 * A task's mm only ever goes from @mm to NULL or to an exec's new one, and
 * @mm is pinned, so @t still in @mm after the open means mm_access() found
 * @t with @mm, and asked.
 */
static int pt_open_mem(const char *tid, struct task_struct *t,
		       struct mm_struct *mm)
{
	struct dentry *dir, *mem;
	struct file *file;
	int ret = 0;

	dir = lookup_positive_unlocked(tid, pt_proc_mnt->mnt_root, strlen(tid));
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	mem = lookup_positive_unlocked("mem", dir, 3);
	dput(dir);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	file = dentry_open(&(struct path){ .mnt = pt_proc_mnt, .dentry = mem },
			   O_RDONLY, current_cred());
	dput(mem);
	if (IS_ERR(file))
		return PTR_ERR(file);
	/* Compared, never dereferenced. */
	if (READ_ONCE(t->mm) != mm)
		ret = -ESRCH;
	fput(file);
	return ret;
}

/*
 * May current ptrace-attach to @t, a thread of another group whose mm is
 * @mm (not NULL, pinned by the caller)?  0, -EPERM, -ESRCH (@t exited or
 * exec'd), -EINTR or -ENOMEM.
 */
int pt_ptrace_check(struct task_struct *t, struct mm_struct *mm)
{
	const struct cred *old;
	struct cred *creds;
	char name[16];
	pid_t nr;
	int ret;

	if (mm == current->mm) {
		/* mm_access() would not ask: see the top of the file. */
		const struct cred *tcred = get_task_cred(t);

		ret = pt_cred_rules_allow(current_cred(), tcred, mm, false) ?
		      0 : -EPERM;
		put_cred(tcred);
		return ret;
	}
	nr = task_pid_nr_ns(t, proc_pid_ns(pt_proc_mnt->mnt_sb));
	if (!nr)
		return -ESRCH;
	snprintf(name, sizeof(name), "%d", nr);
	creds = prepare_creds();
	if (!creds)
		return -ENOMEM;
	creds->fsuid = creds->uid;
	creds->fsgid = creds->gid;
	old = override_creds(creds);
	ret = pt_open_mem(name, t, mm);
	revert_creds(old);
	put_cred(creds);
	return ret ? pt_open_errno(ret) : 0;
}
