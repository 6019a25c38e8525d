// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_event() without a system call: every thread writes its events
 * into a writer lane of its own in each stream tracing the process (per
 * thread, not per CPU: one producer per lane needs no atomic instruction,
 * and a thread killed halfway leaves nothing half-reserved; see
 * Documentation/performance.md for the measurements behind the choice).
 *
 * Writer side of the lane protocol (reader: rlane.c, take.c; kernel: kmod/writer.c;
 * Documentation/design.md, "Writer lanes"):
 *   - positions only grow; records may wrap; head/oldest/seq are kept here,
 *     in private memory, and only published to the shared page;
 *   - to reuse bytes (LOOP) raise ctl->oldest past them first, then a
 *     release fence, then write: a reader that copied a record and then
 *     sees oldest <= its position knows the copy is intact;
 *   - a record is committed by a release store of ctl->head;
 *   - ctl->inflight_ts says a record is being written and with which
 *     timestamp (pt_wlane_stamp()), so that readers do not let later
 *     records of other lanes overtake it; cleared after the commit.
 * The lanes come from the process's pool (pool.c), which lends them to
 * one thread at a time.
 *
 * Everything here is async-signal-safe: no lock, no malloc; a signal
 * handler interrupting its own thread's write records through the kernel.
 * fork() from a handler that interrupted a write: pt_writer_atfork_child().
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include "dev.h"
#include "internal.h"
#include <posix_trace/ring.h>
#include "wlane.h"
#include "writer.h"

static __thread struct pt_wthread pt_wt __attribute__((tls_model("initial-exec")));

static uint64_t pt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pt_event_ioctl(uint32_t trid, uint32_t flags, const struct pt_wevent *ev)
{
	struct posix_trace_event_req req;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.event_id = ev->id;
	req.data_ptr = (uint64_t)(uintptr_t)ev->data;
	req.data_len = ev->data ? ev->len : 0;
	req.thread = (uint64_t)pthread_self();
	req.address = (uint64_t)(uintptr_t)ev->address;
	req.trid = trid;
	req.flags = flags;
	req.timestamp = ev->timestamp;
	pt_ioctl(POSIX_TRACE_IOC_EVENT, &req);
}

/* 0, or the kernel's error number (the host benchmark's fake: 0). */
static int pt_wlane_notify(const struct pt_wlane *w, uint32_t what)
{
	struct posix_trace_notify n = {
		.size = sizeof(n), .trid = w->trid, .index = w->index, .what = what,
	};

	return pt_fake ? 0 : pt_ioctl(POSIX_TRACE_IOC_WRITER_NOTIFY, &n);
}


/*
 * A stream whose log flushes by itself: past the mark the kernel set (half
 * a lane beyond what it logged), ask for a flush, once per mark, so the
 * lane is emptied long before it fills.  One system call per half lane,
 * never one per event.  The mark is in the kernel's half of the control
 * page, next to @waiting: no extra cache line per event.
 */
static inline void pt_wlane_check_mark(struct pt_wlane *w)
{
	uint64_t mark = PT_LOAD(&w->ctl->flush_mark);

	if (__builtin_expect(mark && w->head >= mark && mark != w->kicked, 0)) {
		w->kicked = mark;
		pt_wlane_notify(w, POSIX_TRACE_NOTIFY_FLUSH);
	}
}

/* Take back what the reader (or the log) consumed, up to the tail it
 * read into *@tailp; does @size fit now?
 */
static int pt_wlane_reclaim_consumed(struct pt_wlane *w, uint64_t size,
				     uint64_t *tailp)
{
	uint64_t tail = PT_LOAD_ACQ(&w->ctl->tail);

	*tailp = tail;

	if (tail != w->oldest && tail - w->oldest <= w->head - w->oldest) {
		/* within [oldest, head]: what the reader consumed is free */
		w->oldest = tail;
		w->oldest_off = tail % w->size;
	}
	return w->head + size - w->oldest <= w->cap;
}

/*
 * Never-lose mode (posix_trace_attr_setfullwait_np()): the lane is full,
 * so ask for room (a flush of the log, which frees what it logged) and
 * wait for it, @wait ns at most in all, then give up: a log worker that a
 * file stalls, or a reader that stopped reading, costs one bound, as the
 * stream then stops.  Each request waits in the kernel (100 ms at most,
 * interruptibly: a signal handler runs meanwhile).  System calls only:
 * async-signal-safe.  Returns 1 once @size bytes fit.
 */
static int pt_wlane_wait_room(struct pt_wlane *w, uint64_t size, uint64_t wait)
{
	uint64_t start = pt_now(), tail;
	int err;

	if (pt_fake)
		return 0;
	do {
		err = pt_wlane_notify(w, POSIX_TRACE_NOTIFY_ROOM);
		if (pt_wlane_reclaim_consumed(w, size, &tail))
			return 1;
		/* EINVAL: the stream went away, or waits no more */
	} while ((!err || err == EINTR) && pt_now() - start < wait);
	return 0;
}

/*
 * No room for @size more bytes.  Records the reader consumed are free;
 * then LOOP drops the oldest ones, UNTIL_FULL waits for room in
 * never-lose mode, then asks the kernel to stop the stream.  Returns 0
 * when the event is lost.
 */
static int pt_wlane_make_room(struct pt_wlane *w, uint32_t policy, uint64_t size)
{
	struct posix_trace_record rec;
	uint64_t tail, wait;

	if (!pt_wlane_reclaim_consumed(w, size, &tail)) {
		if (policy != POSIX_TRACE_POLICY_LOOP) {
			wait = PT_LOAD(&w->ctl->full_wait_ns);
			if (wait && pt_wlane_wait_room(w, size, wait))
				return 1;
			pt_wlane_notify(w, POSIX_TRACE_NOTIFY_FULL);
			return 0;
		}
		PT_STORE(&w->ctl->overrun, 1);
	}
	while (w->head + size - w->oldest > w->cap) {
		/* Records start 8-aligned and the ring is a multiple of 8, so
		 * the size field never wraps; the rest is read only if needed. */
		uint32_t rsize = *(const uint32_t *)(w->ring + w->oldest_off);

		/* Another thread of this process may have scribbled here. */
		if (rsize < PT_RECORD_HDR_SIZE || rsize % 8 ||
		    rsize > w->head - w->oldest) {
			w->oldest = w->head;
			w->oldest_off = w->off;
			break;
		}
		if (w->oldest == tail) {
			pt_ring_copy_out(w->ring, w->size, w->oldest_off, &rec, sizeof(rec));
			PT_STORE(&w->ctl->lost_timestamp, rec.timestamp);
			PT_STORE_REL(&w->ctl->lost_seq, rec.seq);
		}
		w->oldest += rsize;
		w->oldest_off += rsize;
		if (w->oldest_off >= w->size)
			w->oldest_off -= w->size;
	}
	PT_STORE_REL(&w->ctl->oldest, w->oldest);
	/* oldest before the bytes it frees are overwritten */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 1;
}

/*
 * The timestamp of the record being written into @w, taken as late as
 * possible (after the payload copy, the first time the event is written
 * anywhere) and published in @w->ctl->inflight_ts until the commit: a
 * reader merging lanes holds back later records of other lanes meanwhile,
 * so a writer stopped between its clock read and its commit does not see
 * its event overtaken (Documentation/design.md, "Order across lanes").
 * The marker covers the clock read itself, where a signal is delivered
 * when the clock is a system call.  Plain stores in our own cache line.
 */
static inline uint64_t pt_wlane_stamp(struct pt_wlane *w, struct pt_wevent *ev)
{
	if (!ev->timestamp) {
		PT_STORE(&w->ctl->inflight_ts, POSIX_TRACE_INFLIGHT_CLOCK);
		ev->timestamp = pt_now();
	}
	PT_STORE(&w->ctl->inflight_ts, ev->timestamp);
	return ev->timestamp;
}

/*
 * Write @ev into @w.  Returns 0 when the kernel must take the event (it is
 * larger than a lane), 1 when it was written or, the lane being full,
 * lost as the stream's policy says.
 */
static int pt_wlane_write(struct pt_wlane *w, const struct posix_trace_proc_stream *slot,
			  struct pt_wevent *ev, const struct pt_wthread *t)
{
	uint32_t max = PT_LOAD(&slot->max_data);
	size_t len = ev->data ? ev->len : 0;
	uint64_t size, off;
	uint8_t *dst;

	uint32_t flags = 0;

	if (len > max) {
		len = max;
		flags = POSIX_TRACE_REC_TRUNCATED;
	}
	size = PT_ROUND8(PT_RECORD_HDR_SIZE + len);
	if (size > w->cap)
		return 0;
	if (w->head + size - w->oldest > w->cap &&
	    !pt_wlane_make_room(w, PT_LOAD(&slot->policy), size))
		return 1;
	off = w->off;
	if (__builtin_expect(off + size <= w->size, 1)) {
		/* Straight into the ring: no copy of a header built aside. */
		struct posix_trace_record *r = (void *)(w->ring + off);

		dst = w->ring + off;
		memset(dst + size - 8, 0, 8);	/* the padding, first */
		r->size = (uint32_t)size;
		r->event_id = ev->id;
		r->pid = 0;	/* the reader knows whose lane this is */
		r->tid = t->tid;
		r->data_len = (uint32_t)len;
		r->flags = flags;
		r->seq = w->seq;
		r->thread = t->self;
		r->address = (uint64_t)(uintptr_t)ev->address;
		if (len)
			memcpy(r + 1, ev->data, len);
		r->timestamp = pt_wlane_stamp(w, ev);
	} else {
		static const uint8_t zero[8];
		struct posix_trace_record rec = {
			.size = (uint32_t)size, .event_id = ev->id, .tid = t->tid,
			.data_len = (uint32_t)len, .flags = flags, .seq = w->seq,
			.thread = t->self,
			.address = (uint64_t)(uintptr_t)ev->address,
		};

		pt_ring_copy_in(w->ring, w->size, (off + sizeof(rec)) % w->size,
			      ev->data, len);
		pt_ring_copy_in(w->ring, w->size, (off + sizeof(rec) + len) % w->size,
			      zero, size - sizeof(rec) - len);
		rec.timestamp = pt_wlane_stamp(w, ev);
		pt_ring_copy_in(w->ring, w->size, off, &rec, sizeof(rec));
	}
	w->seq++;
	w->head += size;
	w->off = off + size >= w->size ? off + size - w->size : off + size;
	PT_STORE_REL(&w->ctl->head, w->head);
	/* After head: a reader that sees 0 then sees the record. */
	PT_STORE_REL(&w->ctl->inflight_ts, 0);
	if (__builtin_expect(PT_LOAD(&w->ctl->waiting), 0))
		pt_wlane_notify(w, POSIX_TRACE_NOTIFY_WAKE);
	pt_wlane_check_mark(w);
	return 1;
}

/*
 * The stream stopped itself full (slot state KERNEL: UNTIL_FULL, FLUSH).
 * While @w still holds records its reader (or the log) has not consumed,
 * the stream is not empty and cannot restart (RULE-24), so the event is
 * lost: counted in the lane (ctl->dropped, which the kernel adds to the
 * stream's count) without a system call.  Returns 0 once the lane is
 * empty: the kernel then sees the event, restarts the stream if every
 * lane is empty, and records it after the START.  A thread emitting
 * into a stopped stream thus pays no system call per event while its
 * lane waits for the log (issue 21), only once it has been emptied.
 */
static int pt_wlane_drop_stopped(struct pt_wlane *w)
{
	if (PT_LOAD_ACQ(&w->ctl->tail) == w->head)
		return 0;
	PT_STORE(&w->ctl->dropped, PT_LOAD(&w->ctl->dropped) + 1);
	return 1;
}

/*
 * Data the library cannot copy without faulting: the never-mappable first
 * 64 KiB (vm.mmap_min_addr), addresses that wrap or reach kernel space.
 * The kernel copies those and records ERROR(EFAULT) instead of crashing
 * the caller.  Any other bad pointer faults here as memcpy() would.
 */
#define PT_LOW_ADDR	0x10000u

static int pt_data_suspect(const struct pt_wevent *ev)
{
	uintptr_t p = (uintptr_t)ev->data;

	return ev->data && ev->len &&
	       (p < PT_LOW_ADDR || p + ev->len < p || (intptr_t)(p + ev->len) < 0);
}

static int pt_filtered(const struct posix_trace_proc_stream *slot, uint32_t id)
{
	return (PT_LOAD(&slot->filter[id / 64]) >> (id % 64)) & 1;
}

/*
 * The call a fork() in a signal handler interrupted (pt_writer_atfork_child())
 * is over, in the child: lanes it took since are its parent's (the child
 * cannot map those) and are forgotten too.
 */
static void pt_writer_forked_done(struct pt_wthread *t)
{
	size_t i;
	int state;

	for (i = 0; i < PT_POOL_MAX; i++) {
		state = atomic_load(&pt_pool[i].state);
		if (state == PT_W_FREE || state == PT_W_CLAIMED) {
			pt_pool[i].trid = 0;
			atomic_store(&pt_pool[i].owner, 0);
			atomic_store(&pt_pool[i].state, PT_W_EMPTY);
		}
	}
	memset(t->lane, 0, sizeof(t->lane));
	t->synced = 0;
	t->forked = 0;
}

void pt_writer_event(const struct posix_trace_proc_page *pg, struct pt_wevent *ev)
{
	struct pt_wthread *t = &pt_wt;
	unsigned int k, n, kernel = 0;

	if (t->busy || pt_data_suspect(ev)) {
		/* A signal handler interrupted this thread's write, or the
		 * data must be copied by the kernel. */
		if (!pt_fake)
			pt_event_ioctl(0, 0, ev);
		return;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!t->synced || t->gen != PT_LOAD(&pg->generation))
		pt_wthread_sync(t, pg);
	/* fork() from a handler during the sync: the lanes are not ours. */
	if (__builtin_expect(t->forked, 0))
		goto out;
	/* Ids the process never opened, and system ids, record nothing. */
	if (ev->id - POSIX_TRACE_ID_UNNAMED >= PT_LOAD(&pg->nr_ids))
		goto out;
	n = PT_LOAD(&pg->nr_slots);
	if (n > POSIX_TRACE_PROC_STREAMS)
		n = POSIX_TRACE_PROC_STREAMS;
	for (k = 0; k < n; k++) {
		const struct posix_trace_proc_stream *slot = &pg->slots[k];
		uint32_t state = PT_LOAD_ACQ(&slot->state);
		struct pt_wlane *w = t->lane[k];

		if (state == POSIX_TRACE_SLOT_OFF || pt_filtered(slot, ev->id))
			continue;
		/* The timestamp is taken after the state check, so no event
		 * precedes its START, in pt_wlane_write(). */
		if (w && w->trid == PT_LOAD(&slot->trid) &&
		    (state == POSIX_TRACE_SLOT_RECORD ? pt_wlane_write(w, slot, ev, t) :
		     state == POSIX_TRACE_SLOT_KERNEL && pt_wlane_drop_stopped(w)))
			continue;
		kernel |= 1u << k;
	}
	/* After the lanes: an event no lane took is stamped by the kernel
	 * under its lane lock (ev->timestamp 0), so no window opens between
	 * stamp and commit; one that some lane took keeps that stamp, so
	 * every stream holds the same event. */
	for (k = 0; kernel && !pt_fake; k++, kernel >>= 1) {
		if (kernel & 1)
			pt_event_ioctl(PT_LOAD(&pg->slots[k].trid), 0, ev);
	}
	if (PT_LOAD(&pg->unslotted) && !pt_fake)
		pt_event_ioctl(0, POSIX_TRACE_EVENT_UNSLOTTED, ev);
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(t->forked, 0))
		pt_writer_forked_done(t);
	t->busy = 0;
}

/* Lane @w's mapping, absent in a fork() child (VM_DONTCOPY), becomes
 * private memory at the same address. */
static int pt_wlane_stand_in(const struct pt_wlane *w)
{
	int saved = errno;
	void *p = mmap(w->map, w->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	errno = saved;
	return p != MAP_FAILED;
}

/*
 * In the child of fork(), before anything else: the lanes were not
 * copied (VM_DONTCOPY), forget them.  A fork() from a signal handler that
 * interrupted this thread's write (t->busy) returns into that write when
 * the handler returns: every lane it may still touch (free or held, whose
 * mappings were live) gets a stand-in of private memory at the same
 * address, so it writes nowhere that matters, and the call finishes
 * without a lane (t->forked, pt_writer_forked_done()); the stand-ins are
 * unmapped at the next sync (pt_pool_reap()).  A child made by the clone
 * system call in a handler runs no atfork handler before it returns: not
 * covered (design.md, "Writer lanes").
 */
void pt_writer_atfork_child(void)
{
	int busy = pt_wt.busy, state;
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		struct pt_wlane *w = &pt_pool[i];

		state = atomic_load(&w->state);
		w->trid = 0;
		atomic_store(&w->owner, 0);
		if (busy && (state == PT_W_FREE || state == PT_W_CLAIMED) &&
		    pt_wlane_stand_in(w)) {
			atomic_store(&w->state, PT_W_ORPHAN);
			atomic_store(&pt_orphans, 1);
		} else {
			atomic_store(&w->state, PT_W_EMPTY);
		}
	}
	memset(pt_wt.lane, 0, sizeof(pt_wt.lane));
	pt_wt.synced = 0;
	pt_wt.tid = 0;
	pt_wt.forked = busy;
}
