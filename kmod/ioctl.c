// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl entry points.  Each command has one validator that runs, in this
 * order: size bounds, copy_struct_from_user(), unknown flags, reserved
 * fields zero, then semantic checks.
 */
#include <linux/sched/signal.h>
#include <linux/fs.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "surface.h"

/* Smallest published size of each argument (ABI version 1). */
#define PT_ARG_MIN(type)	offsetofend(type, reserved)
/* posix_trace_create grew by kernel_classes and reserved0, where its
 * reserved[] began: the size before is still accepted.
 */
#define PT_CREATE_MIN		offsetofend(struct posix_trace_create, reserved0)

static int pt_copy_arg(void *dst, size_t dst_size, size_t min_size,
		       void __user *uarg)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < min_size || usize > PAGE_SIZE)
		return -EINVAL;
	return copy_struct_from_user(dst, dst_size, uarg, usize);
}

static bool pt_zero(const u64 *words, size_t n)
{
	while (n--) {
		if (words[n])
			return false;
	}
	return true;
}

#define PT_RESERVED_ZERO(arg) ({					\
	typeof(arg) _arg = (arg);					\
	pt_zero(_arg->reserved, ARRAY_SIZE(_arg->reserved));		\
})

static int pt_copy_out(void __user *uarg, const void *src, size_t size)
{
	return copy_to_user(uarg, src, size) ? -EFAULT : 0;
}

/*
 * An argument back to the caller: no more than the caller's size, which
 * may be smaller than ours (a struct that grew: posix_trace_create).
 */
static int pt_copy_out_arg(void __user *uarg, const void *src, u32 usize,
			   size_t ksize)
{
	return pt_copy_out(uarg, src, min_t(size_t, usize, ksize));
}

static int pt_ioc_query(void __user *uarg)
{
	struct posix_trace_query q;
	int ret = pt_copy_arg(&q, sizeof(q), PT_ARG_MIN(struct posix_trace_query), uarg);

	if (ret)
		return ret;
	if (q.abi_version || q.features || q.sys_max || q.nr_lanes ||
	    q.max_stream_size || q.clock_res_ns || !PT_RESERVED_ZERO(&q))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.abi_version = POSIX_TRACE_ABI_VERSION;
	q.features = POSIX_TRACE_FEAT_TRACE | POSIX_TRACE_FEAT_PROC_PAGE |
		     POSIX_TRACE_FEAT_MMAP_READ | POSIX_TRACE_FEAT_FILTER |
		     POSIX_TRACE_FEAT_WRITER | POSIX_TRACE_FEAT_INHERIT |
		     POSIX_TRACE_FEAT_STATS | POSIX_TRACE_FEAT_LOG |
		     (pt_kev_classes() ? POSIX_TRACE_FEAT_KERNEL_EVENTS : 0);
	q.sys_max = pt_max_streams;
	q.nr_lanes = nr_cpu_ids;
	q.max_stream_size = pt_max_stream_size;
	q.clock_res_ns = pt_clock_res_ns();
	return pt_copy_out(uarg, &q, sizeof(q));
}

static int pt_ioc_create(void __user *uarg)
{
	struct posix_trace_create c;
	struct pid *target;
	int ret = pt_copy_arg(&c, sizeof(c), PT_CREATE_MIN, uarg);

	if (ret)
		return ret;
	if (c.flags & ~POSIX_TRACE_CREATE_LOG)
		return -EINVAL;
	if (c.reserved0 || (c.kernel_classes & ~POSIX_TRACE_KCLASS_ALL))
		return -EINVAL;
	if (c.kernel_classes & ~pt_kev_classes())
		return -EOPNOTSUPP;	/* this kernel lacks a tracepoint */
	if (c.trid || c.creation_realtime || c.creation_monotonic ||
	    c.ro_offset || c.ro_size || c.cons_offset || c.cons_size ||
	    c.cons_stride || !PT_RESERVED_ZERO(&c))
		return -EINVAL;
	if (!(c.flags & POSIX_TRACE_CREATE_LOG) &&
	    (c.log_fd || c.log_policy || c.log_size))
		return -EINVAL;
	if ((c.flags & POSIX_TRACE_CREATE_LOG) && c.log_fd > INT_MAX)
		return -EBADF;
	ret = pt_may_trace((pid_t)c.pid, &target);
	if (ret)
		return ret;
	ret = pt_stream_create(&c, target, &pt_log_stream_ops, &pt_kev_class_ops);
	put_pid(target);
	if (ret)
		return ret;
	ret = pt_copy_out_arg(uarg, &c, c.size, sizeof(c));
	if (ret) {
		struct pt_stream *s = pt_stream_lookup(c.trid);

		if (s) {
			pt_stream_shutdown(s, NULL);
			pt_stream_put(s);
		}
	}
	return ret;
}

/* start, stop, clear and shutdown share one argument type. */
static int pt_ioc_ctl(unsigned int cmd, void __user *uarg)
{
	struct posix_trace_ctl c;
	struct pt_stream *s;
	int ret = pt_copy_arg(&c, sizeof(c), PT_ARG_MIN(struct posix_trace_ctl), uarg);

	if (ret)
		return ret;
	if (!PT_RESERVED_ZERO(&c))
		return -EINVAL;
	s = pt_stream_lookup(c.trid);
	if (!s)
		return -EINVAL;
	switch (cmd) {
	case POSIX_TRACE_IOC_START:
		ret = pt_stream_start(s, &c);
		break;
	case POSIX_TRACE_IOC_STOP:
		ret = pt_stream_stop(s, &c);
		break;
	case POSIX_TRACE_IOC_CLEAR:
		ret = s->log ? pt_log_clear(s) : pt_stream_clear(s);
		break;
	case POSIX_TRACE_IOC_FLUSH:
		ret = pt_log_flush(s);
		break;
	default:
		ret = pt_stream_shutdown(s, &c);
		break;
	}
	pt_stream_put(s);
	return ret;
}

static int pt_ioc_status(void __user *uarg)
{
	struct posix_trace_status st;
	struct pt_stream *s;
	int ret = pt_copy_arg(&st, sizeof(st),
			      offsetofend(struct posix_trace_status, reserved0), uarg);

	if (ret)
		return ret;
	if (st.running || st.full || st.overrun || st.flushing ||
	    st.flush_error || st.log_overrun || st.log_full || st.reserved0)
		return -EINVAL;
	s = pt_stream_lookup(st.trid);
	if (!s)
		return -EINVAL;
	pt_stream_status(s, &st);
	pt_stream_put(s);
	return pt_copy_out_arg(uarg, &st, st.size, sizeof(st));
}

static int pt_ioc_wait(void __user *uarg)
{
	struct posix_trace_wait w;
	struct pt_stream *s;
	int ret = pt_copy_arg(&w, sizeof(w), PT_ARG_MIN(struct posix_trace_wait), uarg);

	if (ret)
		return ret;
	if (w.flags & ~POSIX_TRACE_WAIT_TIMEOUT)
		return -EINVAL;
	if (w.reserved0 || !PT_RESERVED_ZERO(&w))
		return -EINVAL;
	s = pt_stream_lookup(w.trid);
	if (!s)
		return -EINVAL;
	/* The flusher is the only reader of a stream with log. */
	ret = -EINVAL;
	if (!s->log)
		ret = pt_stream_wait(s, w.flags & POSIX_TRACE_WAIT_TIMEOUT, w.abstime);
	pt_stream_put(s);
	return ret;
}

static int pt_ioc_event(void __user *uarg)
{
	struct posix_trace_event_req req;
	int ret = pt_copy_arg(&req, sizeof(req), PT_ARG_MIN(struct posix_trace_event_req), uarg);

	if (ret)
		return ret;
	if (req.flags & ~POSIX_TRACE_EVENT_UNSLOTTED)
		return -EINVAL;
	if (!PT_RESERVED_ZERO(&req))
		return -EINVAL;
	if ((req.flags & POSIX_TRACE_EVENT_UNSLOTTED) && req.trid)
		return -EINVAL;
	return pt_event_from_user(&req);
}

static int pt_ioc_writer_open(void __user *uarg)
{
	struct posix_trace_writer w;
	int ret = pt_copy_arg(&w, sizeof(w), PT_ARG_MIN(struct posix_trace_writer), uarg);

	if (ret)
		return ret;
	if (w.flags)
		return -EINVAL;
	if (w.index || w.mmap_offset || w.mmap_size || w.data_offset ||
	    w.data_size || w.capacity || !PT_RESERVED_ZERO(&w))
		return -EINVAL;
	ret = pt_writer_open(&w);
	if (ret)
		return ret;
	/* A lane the caller never learns about stays unused: harmless. */
	return pt_copy_out_arg(uarg, &w, w.size, sizeof(w));
}

static int pt_ioc_writer_notify(void __user *uarg)
{
	struct posix_trace_notify n;
	int ret = pt_copy_arg(&n, sizeof(n), PT_ARG_MIN(struct posix_trace_notify), uarg);

	if (ret)
		return ret;
	if (!PT_RESERVED_ZERO(&n))
		return -EINVAL;
	if (n.what != POSIX_TRACE_NOTIFY_WAKE && n.what != POSIX_TRACE_NOTIFY_FULL &&
	    n.what != POSIX_TRACE_NOTIFY_FLUSH && n.what != POSIX_TRACE_NOTIFY_ROOM)
		return -EINVAL;
	return pt_writer_notify(&n);
}

/* The mapping an eventid request works on: the caller's own (trid 0) or
 * that of a stream it controls.
 */
static struct pt_map *pt_eventid_map(u32 trid, bool create)
{
	struct pt_map *map = NULL;

	if (trid) {
		struct pt_stream *s = pt_stream_lookup(trid);

		if (s) {
			map = READ_ONCE(s->map);	/* pt_eventid_map_kept() */
			kref_get(&map->ref);
			pt_stream_put(s);
		}
	} else {
		struct pt_proc *proc = create ?
			pt_proc_get_or_create(task_tgid(current)) :
			pt_proc_find(task_tgid(current));

		if (proc) {
			map = proc->map;
			kref_get(&map->ref);
			pt_proc_put(proc);
		}
	}
	return map;
}

/*
 * A raised exec can give a stream a copy of the mapping it shared with the
 * process it traced (lifecycle.c) while a request works on the mapping it
 * took before: what the request found there may then be the new image's,
 * registered after the swap.  Did the mapping of @trid stay @map until
 * now?  A request for which it did not is made again.  A process's own
 * mapping (@trid 0) changes only in its only thread, never under a
 * request of its own.
 */
static bool pt_eventid_map_kept(u32 trid, struct pt_map *map)
{
	struct pt_stream *s;
	bool kept;

	if (!trid)
		return true;
	s = pt_stream_lookup(trid);
	if (!s)
		return false;	/* the retry finds the stream gone */
	smp_rmb();	/* what was read from @map before the pointer */
	kept = READ_ONCE(s->map) == map;
	pt_stream_put(s);
	return kept;
}

/* Tell the processes using the mapping that it has a new id, so their
 * posix_trace_event() records it without a system call.
 */
static void pt_publish_ids(u32 trid)
{
	struct pt_attach *a;
	struct pt_stream *s;
	struct pt_proc *proc;

	if (!trid) {
		proc = pt_proc_find(task_tgid(current));
		if (proc) {
			pt_proc_publish_ids(proc);
			pt_proc_put(proc);
		}
		return;
	}
	s = pt_stream_lookup(trid);
	if (!s)
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(a, &s->targets, stream_node) {
		if (a->proc->map == s->map)
			pt_proc_publish_ids(a->proc);
	}
	rcu_read_unlock();
	pt_stream_put(s);
}

static int pt_ioc_eventid_open(void __user *uarg)
{
	struct posix_trace_eventid e;
	struct pt_map *map;
	char *name;
	bool kept;
	int ret = pt_copy_arg(&e, sizeof(e), PT_ARG_MIN(struct posix_trace_eventid), uarg);

	if (ret)
		return ret;
	if (e.event_id || !PT_RESERVED_ZERO(&e))
		return -EINVAL;
	if (e.name_len > POSIX_TRACE_EVENT_NAME_MAX)
		return -ENAMETOOLONG;
	name = memdup_user_nul(u64_to_user_ptr(e.name_ptr), e.name_len);
	if (IS_ERR(name))
		return PTR_ERR(name);
	ret = -EINVAL;
	if (strlen(name) != e.name_len)
		goto out;
	do {
		map = pt_eventid_map(e.trid, true);
		if (!map) {
			ret = e.trid ? -EINVAL : -ENOMEM;
			goto out;
		}
		ret = pt_map_open(map, name, &e.event_id);
		kept = pt_eventid_map_kept(e.trid, map);
		pt_map_put(map);
	} while (!kept);
	if (!ret)
		pt_publish_ids(e.trid);
	if (!ret)
		ret = pt_copy_out_arg(uarg, &e, e.size, sizeof(e));
out:
	kfree(name);
	return ret;
}

static int pt_ioc_eventid_name(void __user *uarg)
{
	char name[POSIX_TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_eventid e;
	struct pt_map *map;
	bool kept;
	int ret = pt_copy_arg(&e, sizeof(e), PT_ARG_MIN(struct posix_trace_eventid), uarg);

	if (ret)
		return ret;
	if (!e.trid || !PT_RESERVED_ZERO(&e))
		return -EINVAL;
	do {
		map = pt_eventid_map(e.trid, false);
		if (!map)
			return -EINVAL;
		ret = pt_map_name(map, e.event_id, name, sizeof(name));
		kept = pt_eventid_map_kept(e.trid, map);
		pt_map_put(map);
	} while (!kept);
	if (ret)
		return ret;
	if (strlen(name) >= e.name_len)
		return -ERANGE;
	return pt_copy_out(u64_to_user_ptr(e.name_ptr), name, strlen(name) + 1);
}

static int pt_ioc_eventtypes(void __user *uarg)
{
	struct posix_trace_eventtypes t;
	struct pt_map *map;
	bool kept;
	int ret = pt_copy_arg(&t, sizeof(t), PT_ARG_MIN(struct posix_trace_eventtypes), uarg);

	if (ret)
		return ret;
	if (!t.trid || t.nr_user || t.reserved0 || !PT_RESERVED_ZERO(&t))
		return -EINVAL;
	do {
		map = pt_eventid_map(t.trid, false);
		if (!map)
			return -EINVAL;
		/* Pairs with smp_store_release() in pt_map_open(). */
		t.nr_user = smp_load_acquire(&map->count);
		kept = pt_eventid_map_kept(t.trid, map);
		pt_map_put(map);
	} while (!kept);
	return pt_copy_out_arg(uarg, &t, t.size, sizeof(t));
}

static int pt_ioc_set_filter(void __user *uarg)
{
	struct posix_trace_event_set set;
	struct posix_trace_filter f;
	struct pt_stream *s;
	int ret = pt_copy_arg(&f, sizeof(f), PT_ARG_MIN(struct posix_trace_filter), uarg);

	if (ret)
		return ret;
	if (f.reserved0 || !PT_RESERVED_ZERO(&f))
		return -EINVAL;
	if (f.how < POSIX_TRACE_FILTER_SET || f.how > POSIX_TRACE_FILTER_SUB)
		return -EINVAL;
	if (copy_from_user(&set, u64_to_user_ptr(f.set_ptr), sizeof(set)))
		return -EFAULT;
	if (set.magic != POSIX_TRACE_EVSET_MAGIC)
		return -EINVAL;
	s = pt_stream_lookup(f.trid);
	if (!s)
		return -EINVAL;
	ret = pt_stream_set_filter(s, &f, &set);
	pt_stream_put(s);
	return ret;
}

static int pt_ioc_get_filter(void __user *uarg)
{
	struct posix_trace_event_set set;
	struct posix_trace_filter f;
	struct pt_stream *s;
	int ret = pt_copy_arg(&f, sizeof(f), PT_ARG_MIN(struct posix_trace_filter), uarg);

	if (ret)
		return ret;
	if (f.how || f.reserved0 || f.thread || f.address || !PT_RESERVED_ZERO(&f))
		return -EINVAL;
	s = pt_stream_lookup(f.trid);
	if (!s)
		return -EINVAL;
	pt_stream_get_filter(s, &set);
	pt_stream_put(s);
	return pt_copy_out(u64_to_user_ptr(f.set_ptr), &set, sizeof(set));
}

/* Counts of live objects (base.h) and of the fork kits. */
static void pt_stats_read(struct posix_trace_stats *st)
{
	st->streams = atomic_read(&pt_stats[PT_STAT_STREAMS]);
	st->active_streams = pt_nr_active_streams();
	st->procs = atomic_read(&pt_stats[PT_STAT_PROCS]);
	st->attaches = atomic_read(&pt_stats[PT_STAT_ATTACHES]);
	st->writers = atomic_read(&pt_stats[PT_STAT_WRITERS]);
	st->mappings = atomic_read(&pt_stats[PT_STAT_MAPPINGS]);
	st->maps = atomic_read(&pt_stats[PT_STAT_MAPS]);
	st->users = atomic_read(&pt_stats[PT_STAT_USERS]);
	pt_kits_read(&st->fork_kits, &st->fork_misses);
	st->kernel_classes = pt_kev_registered();
}

/* Counts only, so any process may ask. */
static int pt_ioc_stats(void __user *uarg)
{
	struct posix_trace_stats st;
	int ret = pt_copy_arg(&st, sizeof(st), PT_ARG_MIN(struct posix_trace_stats), uarg);

	if (ret)
		return ret;
	if (st.flags)
		return -EINVAL;
	if (memchr_inv(&st.streams, 0, offsetof(typeof(st), reserved) -
		       offsetof(typeof(st), streams)) || !PT_RESERVED_ZERO(&st))
		return -EINVAL;
	pt_stats_read(&st);
	return pt_copy_out_arg(uarg, &st, st.size, sizeof(st));
}

long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case POSIX_TRACE_IOC_QUERY:
		return pt_ioc_query(uarg);
	case POSIX_TRACE_IOC_CREATE:
		return pt_ioc_create(uarg);
	case POSIX_TRACE_IOC_START:
	case POSIX_TRACE_IOC_STOP:
	case POSIX_TRACE_IOC_CLEAR:
	case POSIX_TRACE_IOC_SHUTDOWN:
	case POSIX_TRACE_IOC_FLUSH:
		return pt_ioc_ctl(cmd, uarg);
	case POSIX_TRACE_IOC_STATUS:
		return pt_ioc_status(uarg);
	case POSIX_TRACE_IOC_WAIT:
		return pt_ioc_wait(uarg);
	case POSIX_TRACE_IOC_EVENT:
		return pt_ioc_event(uarg);
	case POSIX_TRACE_IOC_EVENTID_OPEN:
		return pt_ioc_eventid_open(uarg);
	case POSIX_TRACE_IOC_EVENTID_NAME:
		return pt_ioc_eventid_name(uarg);
	case POSIX_TRACE_IOC_EVENTTYPES:
		return pt_ioc_eventtypes(uarg);
	case POSIX_TRACE_IOC_SET_FILTER:
		return pt_ioc_set_filter(uarg);
	case POSIX_TRACE_IOC_GET_FILTER:
		return pt_ioc_get_filter(uarg);
	case POSIX_TRACE_IOC_WRITER_OPEN:
		return pt_ioc_writer_open(uarg);
	case POSIX_TRACE_IOC_WRITER_NOTIFY:
		return pt_ioc_writer_notify(uarg);
	case POSIX_TRACE_IOC_STATS:
		return pt_ioc_stats(uarg);
	default:
		return -ENOTTY;
	}
}
