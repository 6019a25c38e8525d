// SPDX-License-Identifier: GPL-2.0
/*
 * posix_trace.ko: the kernel half of the POSIX Tracing option.
 * /dev/posix_trace is world-accessible; every permission decision is made
 * per call by pt_may_trace() (priv.c) and by the owner check of
 * pt_stream_lookup() (stream.c).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include "surface.h"

/* Serialises stream state changes, the trid table and attach lists. */
DEFINE_MUTEX(pt_ctl_lock);
struct workqueue_struct *pt_wq;

unsigned int pt_max_streams = 256;
static int pt_set_max_streams(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < 8)	/* _POSIX_TRACE_SYS_MAX */
		return -EINVAL;
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops pt_max_streams_ops = {
	.set = pt_set_max_streams,
	.get = param_get_uint,
};
module_param_cb(max_streams, &pt_max_streams_ops, &pt_max_streams, 0444);
MODULE_PARM_DESC(max_streams, "TRACE_SYS_MAX: streams in the system (>= 8)");

unsigned long pt_max_stream_size = 64UL << 20;
module_param_named(max_stream_size, pt_max_stream_size, ulong, 0444);
MODULE_PARM_DESC(max_stream_size, "largest stream-min-size in bytes (per lane)");

unsigned int pt_max_writers = 64;
module_param_named(max_writers, pt_max_writers, uint, 0644);
MODULE_PARM_DESC(max_writers, "writer lanes per stream (<= 1024; more use the ioctl path)");

unsigned int pt_max_writers_per_proc = 16;
module_param_named(max_writers_per_proc, pt_max_writers_per_proc, uint, 0644);
MODULE_PARM_DESC(max_writers_per_proc, "writer lanes of one process in one stream");

unsigned int pt_max_procs_per_stream = 1024;
module_param_named(max_procs_per_stream, pt_max_procs_per_stream, uint, 0644);
MODULE_PARM_DESC(max_procs_per_stream,
		 "processes one stream traces (inheritance stops there)");

/* One user must not be able to take every stream of TRACE_SYS_MAX. */
unsigned int pt_max_streams_per_user = 64;
module_param_named(max_streams_per_user, pt_max_streams_per_user, uint, 0644);
MODULE_PARM_DESC(max_streams_per_user, "streams of one user (real uid) at a time");

/* 0 at load: a quarter of RAM (set by pt_init()). */
unsigned long pt_max_user_memory;
module_param_named(max_user_memory, pt_max_user_memory, ulong, 0644);
MODULE_PARM_DESC(max_user_memory,
		 "bytes of stream and writer-lane buffers of one user (0 at load: RAM/4)");

/*
 * Kernel events are recorded in the kernel's own paths, some with a
 * global lock held and interrupts off (a signal sent to each thread of a
 * process under tasklist_lock): one record per stream that asks, so the
 * streams of one user that may ask are few.
 */
unsigned int pt_max_kev_streams_per_user = 4;
module_param_named(max_kev_streams_per_user, pt_max_kev_streams_per_user, uint, 0644);
MODULE_PARM_DESC(max_kev_streams_per_user,
		 "streams of one user (real uid) recording kernel events at a time");

unsigned int pt_max_names_per_user = 16384;
module_param_named(max_names_per_user, pt_max_names_per_user, uint, 0644);
MODULE_PARM_DESC(max_names_per_user,
		 "event names one user registers (beyond: the unnamed id)");

static const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = pt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pt_mmap,
};

/*
 * A fixed minor, so that the device can be autoloaded: depmod turns the
 * char-major-10-N and devname: aliases below into modules.devname, from
 * which kmod's static-nodes has /dev/posix_trace created at boot, and the
 * first open of that node makes misc_open() request char-major-10-N.
 * Documentation/admin-guide/devices.txt reserves 243-254 of the misc major
 * for local use and no driver of 6.1 registers any of them; dynamic minors
 * are 0-127 in 6.1, so the two never meet.  If another local driver holds
 * 243, misc_register() fails with -EBUSY and so does the load: falling back
 * to a dynamic minor would leave the static node pointing at that driver.
 */
#define PT_MISC_MINOR	243

static struct miscdevice pt_miscdev = {
	.minor = PT_MISC_MINOR,
	.name = "posix_trace",
	.fops = &pt_fops,
	.mode = 0666,
};

static int __init pt_init(void)
{
	int ret;

	if (pt_max_stream_size < PT_MAX_SYS_EVENT)
		return -EINVAL;
	if (!pt_max_user_memory)
		pt_max_user_memory = (totalram_pages() << PAGE_SHIFT) / 4;
	/* the lifecycle's part of every proc, before the first exists */
	pt_proc_init(pt_proc_fork_work);
	ret = pt_ptrace_check_init();
	if (ret)
		return ret;
	ret = -ENOMEM;
	pt_wq = alloc_workqueue("posix_trace", WQ_UNBOUND, 0);
	if (!pt_wq)
		goto err_wq;
	ret = pt_log_init();
	if (ret)
		goto err_log;
	ret = pt_kits_init();
	if (ret)
		goto err_kits;
	ret = pt_hooks_init();
	if (ret)
		goto err_hooks;
	ret = pt_kev_init();
	if (ret)
		goto err_kev;
	ret = misc_register(&pt_miscdev);
	if (ret) {
		pr_err("posix_trace: cannot register misc minor %d: %d\n",
		       PT_MISC_MINOR, ret);
		goto err_misc;
	}
	return 0;

err_misc:
	pt_kev_exit();
err_kev:
	pt_hooks_exit();
err_hooks:
	pt_kits_exit();
err_kits:
	pt_log_exit();
err_log:
	destroy_workqueue(pt_wq);
err_wq:
	pt_ptrace_check_exit();
	return ret;
}

/*
 * A task_work callback (lifecycle.c, forkkit.c) holds a module reference
 * while queued and puts it as its last act, but then still returns
 * through module text: a task preempted there, after the count reached 0,
 * would come back to freed memory (unless the compiler made the put a
 * sibling call, which a kernel with frame pointers forbids).  Such a task
 * was preempted, not blocked: it is off the CPU but still runnable, and
 * has not switched voluntarily since, which is what an RCU-tasks grace
 * period waits for, as for the trampolines of ftrace and kprobes.  So once
 * the count is 0 and the module going (no callback is queued any more),
 * one synchronize_rcu_tasks() lets every task that ran such a tail leave
 * it.  Without CONFIG_TASKS_RCU, synchronize_rcu_tasks() is
 * synchronize_rcu(), which waits for a task in kernel code only where
 * kernel code is not preemptible.
 */
#if defined(CONFIG_PREEMPTION) && !defined(CONFIG_TASKS_RCU)
#error "posix_trace needs CONFIG_TASKS_RCU on a preemptible kernel (module unload)"
#endif

/* No stream and no open file remain (each holds a module reference). */
static void __exit pt_exit(void)
{
	misc_deregister(&pt_miscdev);
	pt_kev_exit();
	pt_hooks_exit();
	pt_kits_exit();		/* no probe runs, no kit is lent out */
	synchronize_rcu_tasks();	/* see above */
	flush_workqueue(pt_wq);
	pt_proc_cleanup_all();
	rcu_barrier();		/* call_rcu() callbacks may queue rcu_work */
	destroy_workqueue(pt_wq);
	pt_log_exit();		/* streams, and their logs, are all freed */
	pt_ptrace_check_exit();
}

module_init(pt_init);
module_exit(pt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("POSIX Tracing option (IEEE Std 1003.1 <trace.h>)");
MODULE_VERSION(PT_VERSION);
MODULE_ALIAS_MISCDEV(PT_MISC_MINOR);
MODULE_ALIAS("devname:posix_trace");
