// SPDX-License-Identifier: GPL-2.0
/*
 * Writer lanes as user space asks for them: POSIX_TRACE_IOC_WRITER (a
 * traced process opens a lane of a stream tracing it), its mmap(), and
 * POSIX_TRACE_IOC_NOTIFY (a writer tells the kernel its lane crossed a
 * mark, or is full).  What the kernel then reads in a lane is writer.c's.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "surface.h"

/* Is @s tracing the calling process?  Under pt_ctl_lock for an answer
 * that stays true; without it for one that was true a moment ago.
 */
static bool pt_traces_current(struct pt_stream *s)
{
	struct pt_attach *a;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &s->targets, stream_node) {
		if (a->proc->tgid == task_tgid(current)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

static unsigned int pt_writers_of_current(struct pt_stream *s)
{
	unsigned int i, n = 0;

	lockdep_assert_held(&pt_ctl_lock);
	for (i = 0; i < s->nr_writers; i++)
		n += s->writers[i]->tgid == task_tgid(current);
	return n;
}

/*
 * A new lane: its memory counts against the stream creator's
 * max_user_memory and is charged to the creator's memory cgroup, as the
 * stream's own buffers are (it is freed with the stream).  NULL if either
 * refuses: the thread then records through the ioctl.
 */
static struct pt_writer *pt_writer_alloc(struct pt_stream *s)
{
	size_t data_size = PAGE_ALIGN(s->capacity);
	struct mem_cgroup *old;
	struct pt_writer *w;

	lockdep_assert_held(&pt_ctl_lock);
	if (!pt_user_charge(s->user, PT_RES_MEMORY, PAGE_SIZE + data_size))
		return NULL;
	old = set_active_memcg(s->memcg);
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (w) {
		w->data_size = data_size;
		w->mem_size = PAGE_SIZE + data_size;
		w->mem = pt_vmalloc_user(w->mem_size);
	}
	set_active_memcg(old);
	if (!w || !w->mem) {
		kfree(w);
		pt_user_uncharge(s->user, PT_RES_MEMORY, PAGE_SIZE + data_size);
		return NULL;
	}
	w->ctl = w->mem;
	w->ctl->lost_seq = U64_MAX;
	w->ctl->flush_mark = s->flush_step;
	w->ctl->full_wait_ns = s->full_wait_ns;
	/* A reader may be asleep already: the first record wakes it. */
	w->ctl->waiting = 1;
	w->tgid = get_pid(task_tgid(current));
	pt_stat_inc(PT_STAT_WRITERS);
	return w;
}

static void pt_writer_publish(struct pt_stream *s, struct pt_writer *w,
			      unsigned int index)
{
	struct posix_trace_writer_desc *d = &s->wdesc[index];

	lockdep_assert_held(&pt_ctl_lock);
	d->mmap_offset = pt_writer_offset(s->trid, index);
	d->mmap_size = w->mem_size;
	d->data_offset = PAGE_SIZE;
	d->data_size = w->data_size;
	d->pid = pid_nr_ns(w->tgid, s->pidns);
	s->writers[index] = w;
	/* The descriptor before the count: pairs with pt_nr_writers() here
	 * and with the library's load-acquire of the header's count.
	 */
	smp_store_release(&s->nr_writers, index + 1);
	/* see above */
	smp_store_release(&s->hdr->nr_writers, index + 1);
}

/* POSIX_TRACE_IOC_WRITER_OPEN. */
int pt_writer_open(struct posix_trace_writer *args)
{
	struct pt_stream *s = pt_stream_find(args->trid);
	struct pt_writer *w = NULL;
	unsigned int index;
	int ret;

	if (!s)
		return -EINVAL;
	pt_settle_current();
	ret = mutex_lock_interruptible(&pt_ctl_lock);
	if (ret)
		goto out_put;
	ret = -EINVAL;
	if (atomic_read(&s->state) == PT_DEAD || !pt_traces_current(s))
		goto out_unlock;
	ret = -EAGAIN;
	index = s->nr_writers;
	if (index >= s->max_writers ||
	    pt_writers_of_current(s) >= pt_max_writers_per_proc)
		goto out_unlock;
	ret = -ENOMEM;
	w = pt_writer_alloc(s);
	if (!w)
		goto out_unlock;
	s->charged += w->mem_size;
	pt_writer_publish(s, w, index);
	/* A sleeping reader starts watching the new lane. */
	wake_up_interruptible_all(&s->wq);
	ret = 0;
	args->index = index;
	args->mmap_offset = s->wdesc[index].mmap_offset;
	args->mmap_size = s->wdesc[index].mmap_size;
	args->data_offset = s->wdesc[index].data_offset;
	args->data_size = s->wdesc[index].data_size;
	args->capacity = s->capacity;
out_unlock:
	mutex_unlock(&pt_ctl_lock);
out_put:
	pt_stream_put(s);
	return ret == -ERESTARTSYS ? -EINTR : ret;
}

/* POSIX_TRACE_IOC_WRITER_NOTIFY, from the process owning lane @index. */
int pt_writer_notify(const struct posix_trace_notify *n)
{
	struct pt_stream *s = pt_stream_find(n->trid);
	unsigned int nr;
	int ret = -EINVAL;

	if (!s)
		return -EINVAL;
	nr = pt_nr_writers(s);
	/* A process detached at exec (lifecycle.c) lost its lanes. */
	if (n->index >= nr || s->writers[n->index]->tgid != task_tgid(current) ||
	    !pt_traces_current(s))
		goto out;
	ret = 0;
	if (n->what == POSIX_TRACE_NOTIFY_FLUSH) {
		pt_log_kick(s);
		goto out;
	}
	if (n->what == POSIX_TRACE_NOTIFY_ROOM) {
		ret = s->full_wait_ns ? pt_log_wait_room(s, false) : -EINVAL;
		goto out;
	}
	if (n->what == POSIX_TRACE_NOTIFY_FULL &&
	    s->policy == POSIX_TRACE_POLICY_UNTIL_FULL)
		pt_record_autostop(s);
	pt_writers_set_waiting(s, 0);
	wake_up_interruptible_all(&s->wq);
out:
	pt_stream_put(s);
	return ret;
}

/*
 * mmap of a writer lane: read-write and shared, for its owner and for the
 * stream's controller only; never inherited by fork() (pt_vm_no_fork()).
 * Permission comes first: a stream that neither is the caller's nor
 * traces it answers as one that does not exist (EINVAL), whatever index
 * and length were asked, so no answer tells whether another user's
 * stream exists or how large its lanes are.
 */
int pt_writer_mmap(struct vm_area_struct *vma, u32 trid, u32 index)
{
	struct pt_stream *s = pt_stream_find(trid);
	struct pt_writer *w;
	bool controller;
	int ret = -EINVAL;

	if (!s)
		return -EINVAL;
	/* The controller of a stream with log does not read its lanes. */
	controller = s->owner == task_tgid(current) && !s->log;
	if (!controller && !pt_traces_current(s))
		goto out;
	if (index >= pt_nr_writers(s))
		goto out;
	w = s->writers[index];
	ret = -EACCES;
	/* Another traced process's lane. */
	if (!controller && w->tgid != task_tgid(current))
		goto out;
	ret = -EINVAL;
	if (vma->vm_end - vma->vm_start != w->mem_size ||
	    !(vma->vm_flags & VM_SHARED))
		goto out;
	pt_vm_no_fork(vma);
	ret = remap_vmalloc_range(vma, w->mem, 0);
	if (!ret)
		pt_vma_hold_stream(vma, s);
out:
	pt_stream_put(s);
	return ret;
}
