// SPDX-License-Identifier: GPL-2.0
/*
 * Trace streams: the id table, creation and its limits, the buffers, the
 * free after the last reference, and shutdown (control: stream_control.c;
 * attaching processes: stream_attach.c).
 */
#include <linux/idr.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "stream.h"

/* What an exiting or exec'ing controller waits, at most, for the final
 * flushes of its streams' logs; they are finished in the background after.
 */
#define PT_SHUTDOWN_EXIT_WAIT	(10 * HZ)

static DEFINE_IDR(pt_streams);
static atomic_t pt_nr_streams = ATOMIC_INIT(0);

/* Any live stream, for the processes it traces: they check themselves. */
struct pt_stream *pt_stream_find(u32 trid)
{
	struct pt_stream *s;

	rcu_read_lock();
	s = idr_find(&pt_streams, trid);
	if (s && !kref_get_unless_zero(&s->ref))
		s = NULL;
	rcu_read_unlock();
	return s;
}

/* A stream the caller controls. */
struct pt_stream *pt_stream_lookup(u32 trid)
{
	struct pt_stream *s = pt_stream_find(trid);

	if (s && s->owner != task_tgid(current)) {
		pt_stream_put(s);
		s = NULL;
	}
	return s;
}

static void pt_stream_free_work(struct work_struct *work)
{
	struct pt_stream *s = container_of(to_rcu_work(work), struct pt_stream,
					   free_work);

	/* a probe's notes, queued before the grace period, are told */
	pt_record_notes_sync(s);
	if (s->log_ops)
		s->log_ops->free(s);
	if (s->kclasses)
		s->class_ops->put(s->kclasses);
	if (s->writers)
		pt_writers_free(s);
	vfree(s->ro);
	vfree(s->cons);
	if (s->user) {
		pt_user_uncharge(s->user, PT_RES_MEMORY, s->charged);
		pt_release_end(s->user);
		pt_user_put(s->user);
	}
	mem_cgroup_put(s->memcg);
	pt_map_put(s->map);
	pt_map_put(s->map_shared);
	put_pid_ns(s->pidns);
	put_pid(s->owner);
	kfree(s);
	pt_stat_dec(PT_STAT_STREAMS);
	/*
	 * Last: the module stays until every stream is freed.  Module exit
	 * destroys pt_wq, which waits for this function to return.
	 */
	module_put(THIS_MODULE);
}

static void pt_stream_release(struct kref *ref)
{
	struct pt_stream *s = container_of(ref, struct pt_stream, ref);

	if (s->user)
		pt_release_begin(s->user);	/* its memory comes back in the work */
	INIT_RCU_WORK(&s->free_work, pt_stream_free_work);
	queue_rcu_work(pt_wq, &s->free_work);
}

void pt_stream_put(struct pt_stream *s)
{
	kref_put(&s->ref, pt_stream_release);
}

static int pt_stream_alloc_buffers(struct pt_stream *s)
{
	size_t wdesc_offset = PT_LANE_STRIDE * (1 + s->nr_lanes);
	size_t hdr_size = PAGE_ALIGN(wdesc_offset +
				     sizeof(*s->wdesc) * s->max_writers);
	size_t ring = PAGE_ALIGN(s->capacity + PT_LANE_RESERVE);
	struct posix_trace_stream_header *hdr;
	unsigned int i;

	s->ro_size = hdr_size + ring * s->nr_lanes;
	s->cons_size = PAGE_ALIGN(PT_CONS_STRIDE * s->nr_lanes);
	if (!pt_user_charge_memory(s->user, s->ro_size + s->cons_size))
		return -ENOMEM;
	s->charged = s->ro_size + s->cons_size;
	s->ro = pt_vmalloc_user(s->ro_size);
	s->cons = pt_vmalloc_user(s->cons_size);
	s->writers = kcalloc(s->max_writers, sizeof(*s->writers),
			     GFP_KERNEL_ACCOUNT);
	if (!s->ro || !s->cons || !s->writers)
		return -ENOMEM;
	hdr = s->ro;
	hdr->size = sizeof(*hdr);
	hdr->nr_lanes = s->nr_lanes;
	hdr->lane_offset = PT_LANE_STRIDE;
	hdr->lane_stride = PT_LANE_STRIDE;
	hdr->capacity = s->capacity;
	hdr->writer_offset = wdesc_offset;
	hdr->writer_stride = sizeof(*s->wdesc);
	hdr->max_writers = s->max_writers;
	s->hdr = hdr;
	s->wdesc = s->ro + wdesc_offset;
	for (i = 0; i < s->nr_lanes; i++) {
		struct pt_lane *l = &s->lanes[i];

		raw_spin_lock_init(&l->lock);
		l->desc = s->ro + PT_LANE_STRIDE * (1 + i);
		l->cons = s->cons + PT_CONS_STRIDE * i;
		l->ring = s->ro + hdr_size + ring * i;
		l->size = ring;
		l->desc->data_offset = hdr_size + ring * i;
		l->desc->data_size = ring;
		l->desc->lost_seq = U64_MAX;
	}
	return 0;
}

static struct pt_stream *pt_stream_alloc(const struct posix_trace_create *args,
					 struct pt_user *user)
{
	unsigned int nr_lanes = nr_cpu_ids;
	struct pt_stream *s;

	s = kzalloc(struct_size(s, lanes, nr_lanes), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	__module_get(THIS_MODULE);	/* put by pt_stream_free_work() */
	pt_stat_inc(PT_STAT_STREAMS);
	kref_init(&s->ref);
	atomic_set(&s->state, PT_SUSPENDED);
	INIT_LIST_HEAD(&s->targets);
	init_waitqueue_head(&s->wq);
	pt_record_notes_init(s);
	s->nr_lanes = nr_lanes;
	s->max_writers = min_t(unsigned int, READ_ONCE(pt_max_writers),
			       POSIX_TRACE_MAX_WRITERS);
	/* FLUSH records as UNTIL_FULL does; the log flushes it (log.c). */
	s->policy = args->stream_policy == POSIX_TRACE_POLICY_FLUSH ?
		    POSIX_TRACE_POLICY_UNTIL_FULL : args->stream_policy;
	s->inherit = args->inherit;
	s->capacity = ALIGN(args->stream_size, 8);
	s->full_wait_ns = args->full_wait_ns;
	s->max_data = min_t(u64, args->max_data_size, POSIX_TRACE_MAX_DATA_MAX);
	s->owner = get_pid(task_tgid(current));
	s->pidns = get_pid_ns(task_active_pid_ns(current));
	refcount_inc(&user->ref);
	s->user = user;
	/* Writer lanes, allocated by the traced process, are charged here too. */
	s->memcg = get_mem_cgroup_from_mm(current->mm);
	if (pt_stream_alloc_buffers(s)) {
		pt_stream_put(s);	/* the release path frees what exists */
		return NULL;
	}
	return s;
}

unsigned int pt_nr_active_streams(void)
{
	return atomic_read(&pt_nr_streams);
}

/* A LOOP or UNTIL_FULL log holds at least a maximal system event and its
 * STOP; the library enforces the same minimum (spec 5.23).
 */
static int pt_create_log_checks(const struct posix_trace_create *args)
{
	switch (args->log_policy) {
	case POSIX_TRACE_LOG_LOOP:
	case POSIX_TRACE_LOG_UNTIL_FULL:
		return args->log_size < 2 * PT_MAX_SYS_EVENT ? -EINVAL : 0;
	case POSIX_TRACE_LOG_APPEND:
		return 0;
	default:
		return -EINVAL;
	}
}

static int pt_create_checks(const struct posix_trace_create *args)
{
	bool log = args->flags & POSIX_TRACE_CREATE_LOG;

	if (args->stream_policy != POSIX_TRACE_POLICY_LOOP &&
	    args->stream_policy != POSIX_TRACE_POLICY_UNTIL_FULL &&
	    (args->stream_policy != POSIX_TRACE_POLICY_FLUSH || !log))
		return -EINVAL;
	if (log && pt_create_log_checks(args))
		return -EINVAL;
	if (args->inherit != POSIX_TRACE_INHERIT_CLOSE &&
	    args->inherit != POSIX_TRACE_INHERIT_INHERITED)
		return -EINVAL;
	if (args->stream_size < PT_MAX_SYS_EVENT ||
	    args->stream_size > pt_max_stream_size)
		return -EINVAL;
	/* A LOOP stream is never full: it overwrites. */
	if (args->full_wait_ns &&
	    (args->stream_policy == POSIX_TRACE_POLICY_LOOP ||
	     args->full_wait_ns > POSIX_TRACE_FULL_WAIT_MAX))
		return -EINVAL;
	return 0;
}

static bool pt_stream_try_reserve(struct pt_user *user)
{
	if (atomic_inc_return(&pt_nr_streams) <= pt_max_streams) {
		if (pt_user_charge(user, PT_RES_STREAMS, 1))
			return true;
	}
	atomic_dec(&pt_nr_streams);
	return false;
}

static void pt_stream_unreserve(struct pt_user *user)
{
	atomic_dec(&pt_nr_streams);
	pt_user_uncharge(user, PT_RES_STREAMS, 1);
}

/*
 * Count the new stream against TRACE_SYS_MAX and the user's
 * max_streams_per_user.  A stream's slot is given back at its shutdown,
 * and the shutdowns of an exiting controller are done before its parent
 * can reap it (lifecycle.c): nothing to wait for.
 */
static int pt_stream_reserve_slot(struct pt_user *user)
{
	return pt_stream_try_reserve(user) ? 0 : -EAGAIN;
}

/* Does the group of @tgid control a stream? */
static bool pt_owns_streams(struct pid *tgid)
{
	struct pt_stream *s;
	int id;

	lockdep_assert_held(&pt_ctl_lock);
	idr_for_each_entry(&pt_streams, s, id) {
		if (s->owner == tgid)
			return true;
	}
	return false;
}

/* Called with a reference on the target group's pid; consumes nothing. */
int pt_stream_create(struct posix_trace_create *args, struct pid *target,
		     const struct pt_log_ops *log_ops,
		     const struct pt_class_ops *class_ops)
{
	struct pt_proc *proc, *owner;
	struct task_struct *held;
	struct pt_stream *s;
	struct pt_user *user;
	int ret;

	ret = pt_create_checks(args);
	if (ret)
		return ret;
	user = pt_user_current();
	if (!user)
		return -ENOMEM;
	ret = pt_stream_reserve_slot(user);
	if (ret)
		goto err_user;
	ret = -ENOMEM;
	s = pt_stream_alloc(args, user);
	if (!s)
		goto err_limit;
	if (args->name_ptr &&
	    strncpy_from_user(s->name, u64_to_user_ptr(args->name_ptr),
			      sizeof(s->name) - 1) < 0) {
		ret = -EFAULT;
		goto err_setup;
	}
	if (args->kernel_classes) {
		ret = -EAGAIN;
		if (!pt_user_charge(user, PT_RES_KEV_STREAMS, 1))
			goto err_setup;
		ret = class_ops->get(args->kernel_classes);
		if (ret) {
			pt_user_uncharge(user, PT_RES_KEV_STREAMS, 1);
			goto err_setup;
		}
		s->class_ops = class_ops;	/* put when freed */
		s->kclasses = args->kernel_classes;	/* uncharged at shutdown */
	}
	s->created_mono = ktime_get_ns();
	s->created_real = ktime_to_ns(ktime_mono_to_real(ns_to_ktime(s->created_mono)));
	if (args->flags & POSIX_TRACE_CREATE_LOG) {
		s->log_ops = log_ops;
		ret = log_ops->create(s, args, target);
		if (ret)
			goto err_setup;
	}
	/*
	 * The privilege checked before the buffers and the log were set up
	 * (which can take seconds) may be gone: the target may have exec'd
	 * a set-ID program since.  Check again, and hold off its execs
	 * until the attach is done.
	 */
	held = pt_trace_lock(target);
	if (IS_ERR(held)) {
		ret = PTR_ERR(held);
		goto err_setup;
	}
	ret = mutex_lock_interruptible(&pt_ctl_lock);
	if (ret)
		goto err_held;
	/*
	 * The target's entry is made under the lock and only now, just
	 * before the liveness check below: a target that exited since
	 * pt_may_trace() looked at it may have passed its exit probe before
	 * the entry existed, and nothing else would ever forget the entry.
	 */
	ret = -ENOMEM;
	proc = pt_proc_get_or_create(target);
	if (!proc)
		goto err_unlock;
	owner = pt_proc_get_or_create(task_tgid(current));
	if (!owner)
		goto err_owner;
	/* If the exited target controls streams its exit job is still to
	 * come (it shuts them down), and that job needs the entry.
	 */
	if (!pt_group_alive(target)) {
		if (!pt_owns_streams(target))
			pt_proc_forget_if_unused(proc);
		ret = -ESRCH;
		goto err_idr;
	}
	/* A group on its way out (another thread is in exit_group()) may
	 * have been forgotten above: it must not gain a stream.
	 */
	if (!pt_group_alive(task_tgid(current))) {
		ret = -EINTR;
		goto err_idr;
	}
	ret = idr_alloc_cyclic(&pt_streams, s, 1, 1 << 30, GFP_KERNEL);
	if (ret < 0)
		goto err_idr;
	s->trid = ret;
	/* Under the lock: an untraced target's exec replaces its mapping. */
	s->map = proc->map;
	kref_get(&s->map->ref);
	ret = pt_attach(s, proc);
	if (ret)
		goto err_attach;
	mutex_unlock(&pt_ctl_lock);
	pt_trace_unlock(held);

	args->trid = s->trid;
	args->stream_size = s->capacity;
	args->max_data_size = s->max_data;
	args->creation_realtime = s->created_real;
	args->creation_monotonic = s->created_mono;
	args->ro_offset = pt_ro_offset(s->trid);
	args->ro_size = s->ro_size;
	args->cons_offset = pt_cons_offset(s->trid);
	args->cons_size = s->cons_size;
	args->cons_stride = PT_CONS_STRIDE;
	pt_proc_put(owner);	/* the hash table keeps it until exit */
	pt_proc_put(proc);
	pt_user_put(user);
	return 0;

err_attach:
	idr_remove(&pt_streams, s->trid);
err_idr:
	pt_proc_put(owner);
err_owner:
	pt_proc_put(proc);
err_unlock:
	mutex_unlock(&pt_ctl_lock);
err_held:
	pt_trace_unlock(held);
err_setup:
	if (s->kclasses)
		pt_user_uncharge(user, PT_RES_KEV_STREAMS, 1);
	pt_stream_put(s);
err_limit:
	pt_stream_unreserve(user);
err_user:
	pt_user_put(user);
	return ret == -ERESTARTSYS ? -EINTR : ret;
}

static void pt_stream_shutdown_locked(struct pt_stream *s,
				      const struct posix_trace_ctl *c)
{
	struct pt_attach *a, *tmp;

	lockdep_assert_held(&pt_ctl_lock);
	if (atomic_read(&s->state) == PT_DEAD)
		return;
	s->full_at_shutdown = pt_stream_full(s);
	if (atomic_read(&s->state) == PT_RUNNING) {
		atomic_set(&s->state, PT_SUSPENDED);
		pt_record_stop(s, c);
	}
	idr_remove(&pt_streams, s->trid);
	atomic_set(&s->state, PT_DEAD);
	list_for_each_entry_safe(a, tmp, &s->targets, stream_node)
		pt_detach(a);
	wake_up_interruptible_all(&s->wq);
	/* detached from every process: it records no kernel event again */
	if (s->kclasses)
		pt_user_uncharge(s->user, PT_RES_KEV_STREAMS, 1);
	pt_stream_unreserve(s->user);
	pt_stream_put(s);	/* the trid table's reference */
}

/*
 * posix_trace_shutdown(): the STOP of SHUT-1 is recorded first so the log
 * ends with it; the log is finished (flushed, closed) after pt_ctl_lock is
 * dropped, since that waits for file writes.  The caller holds a
 * reference.  Returns the first write error of the final flush; the
 * stream is gone either way (SHUT-2).
 */
int pt_stream_shutdown(struct pt_stream *s, const struct posix_trace_ctl *c)
{
	mutex_lock(&pt_ctl_lock);
	pt_stream_shutdown_locked(s, c);
	mutex_unlock(&pt_ctl_lock);
	return s->log_ops ? s->log_ops->finish(s, NULL) : 0;
}

/* The automatic shutdown (SHUT-8): one stream at a time, each with a
 * reference while its log is finished.  The final flushes together wait
 * PT_SHUTDOWN_EXIT_WAIT at most: a log file that never takes its
 * writes cannot hold an exit, or the work queue running it, for ever.
 */
void pt_shutdown_owned_by(struct pid *tgid)
{
	unsigned long deadline = jiffies + PT_SHUTDOWN_EXIT_WAIT;
	struct pt_stream *s, *found;
	int id;

	do {
		found = NULL;
		mutex_lock(&pt_ctl_lock);
		idr_for_each_entry(&pt_streams, s, id) {
			if (s->owner == tgid) {
				found = s;
				kref_get(&s->ref);
				pt_stream_shutdown_locked(s, NULL);
				break;
			}
		}
		mutex_unlock(&pt_ctl_lock);
		if (found) {
			if (found->log_ops)
				found->log_ops->finish(found, &deadline);
			pt_stream_put(found);
		}
	} while (found);
}
