// SPDX-License-Identifier: GPL-2.0
/*
 * Writing records into lanes.
 *
 * Ring protocol (the reader side is libtrace/rlane.c and take.c; see
 * Documentation/design.md, "Ring buffer"):
 *  - positions are byte counts that only grow; a record may wrap;
 *  - before reusing bytes the writer raises desc->oldest past them and
 *    issues smp_wmb(), so a reader that copied a record and then sees
 *    oldest <= its position knows the copy is intact (reader: copy,
 *    acquire fence, load oldest);
 *  - a record becomes visible with smp_store_release(&desc->head), paired
 *    with the reader's load-acquire of head.
 *  - the reader publishes consumed positions in cons->tail; the kernel
 *    clamps it to [oldest, head] and never trusts anything else it reads
 *    from shared memory.
 */
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <posix_trace/ring.h>
#include "stream.h"

#define PT_REC_HDR	sizeof(struct posix_trace_record)

/*
 * Kernel lanes are written and read by 8-byte words: records start at
 * multiples of 8 and a lane's size is one, so every word of a record is
 * contiguous in the ring even where the record wraps.  The kernel's
 * memcpy() is a string move on current CPUs (rep movsb), which costs more
 * to start than a record of a few words takes word by word, and under an
 * emulator (QEMU's TCG) far more: Documentation/performance.md, "Kernel
 * events".
 */
static u64 *pt_ring_word(struct pt_lane *l, u64 pos)
{
	return (u64 *)(l->ring + pos % l->size);
}

/* The last @n (1..7) bytes at @p as a word, padded with zeros. */
static u64 pt_tail_word(const u8 *p, u32 n)
{
	u64 w = 0;
	u32 k;

	for (k = 0; k < n; k++)
		((u8 *)&w)[k] = p[k];
	return w;
}

/*
 * @len bytes from @src to @dst, then zeros up to the next multiple of 8:
 * the part of a record that does not wrap.
 */
static void pt_words_put(u8 *dst, const void *src, u32 len)
{
	const u8 *p = src;
	u32 i;

	for (i = 0; i + 8 <= len; i += 8)
		memcpy(dst + i, p + i, 8);	/* a move: @src may be unaligned */
	if (i < len)
		*(u64 *)(dst + i) = pt_tail_word(p + i, len - i);
}

/* @len bytes from @src at @pos, then zeros up to the next multiple of 8. */
static void pt_ring_put(struct pt_lane *l, u64 pos, const void *src, u32 len)
{
	const u8 *p = src;
	u64 off = pos % l->size;
	u32 i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(l->ring + off, p + i, 8);	/* a move: @src may be unaligned */
		off += 8;
		if (off == l->size)
			off = 0;
	}
	if (i < len)
		*(u64 *)(l->ring + off) = pt_tail_word(p + i, len - i);
}

/* The header of the record at @pos. */
static void pt_ring_get_header(struct pt_lane *l, u64 pos,
			       struct posix_trace_record *rec)
{
	u64 *dst = (u64 *)rec;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*rec) % 8);
	for (i = 0; i < sizeof(*rec) / 8; i++, pos += 8)
		dst[i] = *pt_ring_word(l, pos);
}

/* One 8-byte field of the header of the record at @pos. */
#define pt_ring_get_field(l, pos, field)				\
	(*pt_ring_word(l, (pos) + offsetof(struct posix_trace_record, field)))

static void pt_ring_read(struct pt_lane *l, u64 pos, void *dst, size_t len)
{
	pt_ring_copy_out(l->ring, l->size, pos % l->size, dst, len);
}

/* Size of the record at @pos (the u32 its header starts with).  Lanes
 * are written only by the kernel, so a bad size is a kernel bug: warn and
 * treat the rest of the lane as one record rather than loop.
 */
static u32 pt_rec_size(struct pt_lane *l, u64 pos)
{
	u32 size = *(u32 *)pt_ring_word(l, pos);

	BUILD_BUG_ON(offsetof(struct posix_trace_record, size) != 0);
	if (WARN_ON_ONCE(size < PT_REC_HDR || size > l->head - pos))
		return l->head - pos;
	return size;
}

/* The reader's tail, clamped to what the kernel knows is sane. */
static u64 pt_lane_tail(struct pt_lane *l)
{
	u64 tail = READ_ONCE(l->cons->tail);

	return clamp(tail, l->oldest, l->head);
}

/*
 * Records the writer forgets per call once the reader consumed them, with
 * interrupts off: a reader moving its tail a whole lane ahead must not
 * make one event walk capacity / 56 records (issue 19, item 10).  What is
 * left is forgotten by later events, or by pt_lane_make_room() when the
 * space is needed: the work of one event is bounded by its own size.
 */
#define PT_RECLAIM_BATCH	16

/* Forget the oldest record if the reader has consumed it: oldest only
 * ever moves to a record boundary the kernel wrote itself.
 */
static bool pt_lane_forget_one(struct pt_lane *l, u64 tail)
{
	u32 size;

	if (l->oldest >= tail)
		return false;
	size = pt_rec_size(l, l->oldest);
	if (l->oldest + size > tail)
		return false;
	l->oldest += size;
	WRITE_ONCE(l->desc->oldest, l->oldest);
	return true;
}

static void pt_lane_reclaim(struct pt_lane *l)
{
	u64 tail = pt_lane_tail(l);
	unsigned int n = 0;

	while (n++ < PT_RECLAIM_BATCH && pt_lane_forget_one(l, tail))
		;
}

/* Forget consumed records until @size more bytes fit below @limit; false
 * if unconsumed ones are in the way.  Each step frees a record header or
 * more, so this is bounded by @size (and the reserve) over the header.
 */
static bool pt_lane_make_room(struct pt_lane *l, u32 size, u64 limit)
{
	u64 tail = pt_lane_tail(l);

	while (l->head + size - l->oldest > limit) {
		if (!pt_lane_forget_one(l, tail))
			return false;
	}
	return true;
}

/* LOOP: drop the oldest record to make room.  Losing a record the reader
 * has not consumed is an overrun; the first one lost at the reader's
 * position is remembered so the reader can timestamp its OVERFLOW.
 */
static void pt_lane_evict(struct pt_stream *s, struct pt_lane *l)
{
	u32 size = pt_rec_size(l, l->oldest);

	if (l->oldest == READ_ONCE(l->cons->tail)) {
		WRITE_ONCE(l->desc->lost_timestamp,
			   pt_ring_get_field(l, l->oldest, timestamp));
		smp_wmb();	/* lost_timestamp before lost_seq */
		WRITE_ONCE(l->desc->lost_seq, pt_ring_get_field(l, l->oldest, seq));
	}
	atomic_set(&s->overrun, 1);
	l->oldest += size;
	WRITE_ONCE(l->desc->oldest, l->oldest);
}

static void pt_fill_record(struct pt_stream *s, struct pt_lane *l,
			   const struct pt_event *ev, u32 size,
			   struct posix_trace_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->size = size;
	rec->event_id = ev->id;
	rec->data_len = ev->data_len;
	rec->flags = ev->flags | (ev->truncated ? POSIX_TRACE_REC_TRUNCATED : 0);
	rec->seq = l->seq;
	rec->thread = ev->thread;
	rec->address = ev->address;
	if (ev->from_task) {
		struct task_struct *t = ev->task ?: current;

		pt_task_ids(t, s->pidns, &rec->pid, &rec->tid);
	}
}

/*
 * The timestamp of the record @l is about to write, published in the
 * lane's inflight_ts until the commit, as a writer lane does
 * (Documentation/design.md, "Order across lanes"): the lane lock keeps
 * other writers of this lane out, not readers from other lanes, and on
 * PREEMPT_RT the lock sleeps, so the writer may be preempted between
 * this clock read and its commit.  The marker covers the clock read.
 * An event a writer lane took already keeps that lane's stamp.
 */
static u64 pt_lane_stamp(struct pt_lane *l, const struct pt_event *ev)
{
	u64 ts = ev->timestamp;

	if (!ts) {
		WRITE_ONCE(l->desc->inflight_ts, POSIX_TRACE_INFLIGHT_CLOCK);
		ts = ktime_get_ns();
	}
	WRITE_ONCE(l->desc->inflight_ts, ts);
	return ts;
}

static void pt_lane_append(struct pt_stream *s, struct pt_lane *l,
			   const struct pt_event *ev, u32 size)
{
	u64 off = l->head % l->size;
	struct posix_trace_record rec;

	lockdep_assert_held(&l->lock);
	pt_fill_record(s, l, ev, size, &rec);
	smp_wmb();	/* oldest (evictions) before the bytes they free */
	if (likely(off + size <= l->size)) {
		/* Most records do not wrap: no position to wrap per word. */
		pt_words_put(l->ring + off + PT_REC_HDR, ev->data, ev->data_len);
		rec.timestamp = pt_lane_stamp(l, ev);
		memcpy(l->ring + off, &rec, sizeof(rec));
	} else {
		pt_ring_put(l, l->head + PT_REC_HDR, ev->data, ev->data_len);
		rec.timestamp = pt_lane_stamp(l, ev);
		pt_ring_put(l, l->head, &rec, sizeof(rec));
	}
	/* Before the commit: a reader never sees the word unset.  Words
	 * are contiguous even where the record wraps (pt_ring_word()).
	 */
	if (unlikely(ev->since) && !WARN_ON_ONCE(ev->since_off % 8 ||
						 ev->since_off + 8 > ev->data_len))
		*pt_ring_word(l, l->head + PT_REC_HDR + ev->since_off) =
			rec.timestamp > ev->since ? rec.timestamp - ev->since : 0;
	l->seq++;
	l->head += size;
	/* Publish the record: pairs with the reader's load-acquire of head. */
	smp_store_release(&l->desc->head, l->head);
	/* After head: a reader that sees 0 then sees the record. */
	smp_store_release(&l->desc->inflight_ts, 0);
}

/* UNTIL_FULL ran out of space: stop, and end the run with STOP(auto) if
 * the reserve still has room for it.  Returns true if this call stopped
 * the stream; the caller then refreshes the traced processes' pages.
 */
static bool pt_autostop(struct pt_stream *s, struct pt_lane *l)
{
	static const int auto_stop = 1;
	struct pt_event stop = {
		.id = POSIX_TRACE_ID_STOP,
		.flags = POSIX_TRACE_REC_AUTO,
		.data = &auto_stop,
		.data_len = sizeof(auto_stop),
		.control = true,
	};
	u32 size = ALIGN(PT_REC_HDR + sizeof(auto_stop), 8);

	if (atomic_cmpxchg(&s->state, PT_RUNNING, PT_AUTOSTOPPED) != PT_RUNNING)
		return false;
	atomic_inc(&s->drop_gaps);
	if (pt_lane_make_room(l, size, s->capacity + PT_LANE_RESERVE))
		pt_lane_append(s, l, &stop, size);
	return true;
}

/*
 * A stream whose log flushes by itself is flushed long before it fills:
 * a lane whose head passes its flush mark (half a lane past what the
 * flusher logged) asks for a flush, once per mark.  The worker's next
 * flush moves the mark on (pt_lane_consumed()).
 */
static bool pt_lane_crossed_mark(struct pt_stream *s, struct pt_lane *l)
{
	u64 mark = READ_ONCE(l->flush_mark);

	lockdep_assert_held(&l->lock);
	if (!s->flush_step || l->head < mark || mark == l->kicked)
		return false;
	l->kicked = mark;
	return true;
}

static struct pt_lane *pt_this_lane(struct pt_stream *s)
{
	return &s->lanes[raw_smp_processor_id() % s->nr_lanes];
}

/* The stream filled up: its log flushes at once (FLUSH policy). */
static void pt_stream_tell_full(struct pt_stream *s)
{
	if (s->log_ops)
		s->log_ops->full(s);
}

/* A writer lane of an UNTIL_FULL stream is full (POSIX_TRACE_NOTIFY_FULL). */
void pt_record_autostop(struct pt_stream *s)
{
	struct pt_lane *l = pt_this_lane(s);
	unsigned long flags;
	bool stopped;

	raw_spin_lock_irqsave(&l->lock, flags);
	atomic64_inc(&s->dropped);	/* the writer lost its event */
	if (atomic_read(&s->state) == PT_RUNNING)
		atomic_set(&s->overrun, 1);
	pt_lane_reclaim(l);
	stopped = pt_autostop(s, l);
	raw_spin_unlock_irqrestore(&l->lock, flags);
	if (stopped) {
		pt_stream_refresh_slots(s);
		pt_stream_tell_full(s);
	}
}

/* An event of the program's (not the trace system's) the stream lost. */
static void pt_count_drop(struct pt_stream *s, const struct pt_event *ev)
{
	if (ev->id >= POSIX_TRACE_ID_UNNAMED)
		atomic64_inc(&s->dropped);
}

/* What pt_record() has to tell after the record (struct pt_stream.notes). */
#define PT_NOTE_FULL	BIT(0)	/* it stopped the stream: slots, the log */
#define PT_NOTE_KICK	BIT(1)	/* a lane passed its flush mark */
#define PT_NOTE_WAKE	BIT(2)	/* readers may be waiting */

static void pt_record_tell(struct pt_stream *s, unsigned int notes)
{
	if (notes & PT_NOTE_FULL) {
		pt_stream_refresh_slots(s);
		pt_stream_tell_full(s);
	} else if ((notes & PT_NOTE_KICK) && s->log_ops) {
		s->log_ops->kick(s);
	}
	if (notes & PT_NOTE_WAKE)
		wake_up_interruptible_all(&s->wq);
}

/*
 * A record made under the scheduler's locks (the rq lock, a task's
 * pi_lock) may not wake a task or queue a work item, which would take
 * them again; one made under a siglock, maybe inside a loop over every
 * thread under tasklist_lock, should not walk a stream's targets there.
 * It leaves its notes here, told from an interrupt after, once for all
 * the records made meanwhile.
 */
static void pt_record_notes(struct irq_work *work)
{
	struct pt_stream *s = container_of(work, struct pt_stream, note_work);

	pt_record_tell(s, atomic_xchg(&s->notes, 0));
}

void pt_record_notes_init(struct pt_stream *s)
{
	atomic_set(&s->notes, 0);
	init_irq_work(&s->note_work, pt_record_notes);
}

/* Before the stream is freed: no probe can queue it any more (RCU). */
void pt_record_notes_sync(struct pt_stream *s)
{
	irq_work_sync(&s->note_work);
}

/*
 * Record @ev in the lane of the current CPU unless the stream filters it
 * out.  User events need a running
 * stream and fit in the lane's capacity; control events (ev->control) may
 * also use the reserve, so START/STOP never cause a loss.
 * Returns false only for an event that may wait (ev->may_wait) and found
 * the lane of a never-lose stream full: it is neither recorded nor
 * counted lost, and the caller waits for room (pt_log_wait_room()) out of
 * its RCU walk, then calls again.
 */
bool pt_record(struct pt_stream *s, const struct pt_event *ev)
{
	unsigned int notes = 0;
	u32 size = ALIGN(PT_REC_HDR + ev->data_len, 8);
	bool stopped = false, kick = false, taken = true, appended = false;
	bool defer;
	struct pt_lane *l;
	unsigned long flags;
	u64 limit;

	/* Filtered-out ids are not recorded; control events always are. */
	if (!ev->control && test_bit(ev->id, s->filter))
		return true;
	l = pt_this_lane(s);
	limit = s->capacity + (ev->control ? PT_LANE_RESERVE : 0);
	raw_spin_lock_irqsave(&l->lock, flags);
	if (!ev->control && atomic_read(&s->state) != PT_RUNNING) {
		/* stopped because it was full: a loss, not a pause */
		if (atomic_read(&s->state) == PT_AUTOSTOPPED)
			pt_count_drop(s, ev);
		goto out;
	}
	pt_lane_reclaim(l);
	if (size > limit) {
		atomic_set(&s->overrun, 1);
		pt_count_drop(s, ev);
		goto out;
	}
	while (!pt_lane_make_room(l, size, limit)) {
		if (s->policy != POSIX_TRACE_POLICY_LOOP) {
			if (ev->may_wait && s->full_wait_ns) {
				taken = false;
				goto out;
			}
			atomic_set(&s->overrun, 1);
			pt_count_drop(s, ev);
			if (!ev->control)
				stopped = pt_autostop(s, l);
			goto out;
		}
		pt_lane_evict(s, l);
	}
	pt_lane_append(s, l, ev, size);
	appended = true;
	kick = pt_lane_crossed_mark(s, l);
out:
	raw_spin_unlock_irqrestore(&l->lock, flags);
	/* A record under the kernel's locks costs an interrupt to tell:
	 * not for one that wrote nothing (a stopped stream).  On PREEMPT_RT
	 * the wait queue's lock sleeps, so a record made with preemption
	 * off (a probe) defers its notes too.
	 */
	defer = ev->defer_notes ||
		(IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible());
	notes = (stopped ? PT_NOTE_FULL : 0) | (kick ? PT_NOTE_KICK : 0) |
		((!defer || appended || stopped) &&
		 wq_has_sleeper(&s->wq) ? PT_NOTE_WAKE : 0);
	if (!notes)
		return taken;
	if (!defer) {
		pt_record_tell(s, notes);
	} else {
		atomic_or(notes, &s->notes);
		irq_work_queue(&s->note_work);
	}
	return taken;
}

static bool pt_lane_has_data(struct pt_lane *l)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&l->lock, flags);
	ret = pt_lane_tail(l) != l->head;
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return ret;
}

bool pt_stream_has_data(struct pt_stream *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++) {
		if (pt_lane_has_data(&s->lanes[i]))
			return true;
	}
	return pt_writers_have_data(s);
}

bool pt_stream_empty(struct pt_stream *s)
{
	return !pt_stream_has_data(s);
}

/* LOOP streams are full while a lane could not take one more maximal user
 * record without overwriting.
 */
bool pt_stream_loop_full(struct pt_stream *s)
{
	u64 maxrec = ALIGN(PT_REC_HDR + s->max_data, 8);
	unsigned long flags;
	unsigned int i;
	bool full = false;

	for (i = 0; i < s->nr_lanes && !full; i++) {
		struct pt_lane *l = &s->lanes[i];

		raw_spin_lock_irqsave(&l->lock, flags);
		full = l->head - pt_lane_tail(l) + maxrec > s->capacity;
		raw_spin_unlock_irqrestore(&l->lock, flags);
	}
	return full || pt_writers_loop_full(s, maxrec);
}

/* posix_trace_clear(): drop every record.  Positions keep growing so a
 * stale tail can never look valid; the reader resynchronises from oldest.
 */
void pt_lanes_reset(struct pt_stream *s)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++) {
		struct pt_lane *l = &s->lanes[i];

		raw_spin_lock_irqsave(&l->lock, flags);
		l->oldest = l->head;
		WRITE_ONCE(l->desc->oldest, l->oldest);
		WRITE_ONCE(l->desc->base_seq, l->seq);
		WRITE_ONCE(l->cons->tail, l->head);
		raw_spin_unlock_irqrestore(&l->lock, flags);
	}
	pt_writers_reset(s);
}

/*
 * The log worker's reads of kernel lane @i (struct pt_lane_source): the
 * kernel is its reader for a stream with log.  A kernel lane never lies:
 * it has a record at *@pos below @limit (1) or not (0).
 */
static int pt_lane_peek(struct pt_stream *s, unsigned int i, u64 *pos,
			u64 limit, bool *lost, struct posix_trace_record *rec)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&l->lock, flags);
	if (*pos < l->oldest || *pos > l->head) {
		*lost = *pos < l->oldest;
		*pos = l->oldest;
	}
	if (*pos < min(limit, l->head)) {
		pt_ring_get_header(l, *pos, rec);
		ret = rec->size >= PT_REC_HDR && rec->size <= l->head - *pos &&
		      rec->data_len <= rec->size - PT_REC_HDR;
	}
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return ret;
}

/* Where the worker goes on in kernel lane @i after a clear: the oldest
 * record, and in *@seq the seq it has (or will have): always known.
 */
static u64 pt_lane_start(struct pt_stream *s, unsigned int i, u64 *seq,
			 bool *seq_known)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	u64 pos;

	raw_spin_lock_irqsave(&l->lock, flags);
	pos = l->oldest;
	*seq = l->seq;
	*seq_known = true;
	if (pos != l->head)
		*seq = pt_ring_get_field(l, pos, seq);
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return pos;
}

/* Timestamp of the record of seq @seq of kernel lane @i if it is the one
 * pt_lane_evict() lost at the reader's tail, else U64_MAX.
 */
static u64 pt_lane_lost_ts(struct pt_stream *s, unsigned int i, u64 seq)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	u64 ts = U64_MAX;

	raw_spin_lock_irqsave(&l->lock, flags);
	if (l->desc->lost_seq == seq)
		ts = l->desc->lost_timestamp;
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return ts;
}

/* Copy @len bytes of the data of the record at @pos; false if that
 * record was overwritten since pt_lane_peek().
 */
static bool pt_lane_copy(struct pt_stream *s, unsigned int i, u64 pos,
			 void *dst, u32 len)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&l->lock, flags);
	ret = pos >= l->oldest && pos + PT_REC_HDR + len <= l->head;
	if (ret)
		pt_ring_read(l, pos + PT_REC_HDR, dst, len);
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return ret;
}

/* The flusher logged everything below @pos: the space is free again. */
static void pt_lane_consumed(struct pt_stream *s, unsigned int i, u64 pos)
{
	/* the flusher's copies before the space is reused: pairs with
	 * READ_ONCE(tail) under the lane lock in pt_lane_tail()
	 */
	smp_store_release(&s->lanes[i].cons->tail, pos);
	if (s->flush_step)
		WRITE_ONCE(s->lanes[i].flush_mark, pos + s->flush_step);
}

/* A kernel lane stamps and commits a record under its lock: every record
 * stamped before the caller read the clock is below the head taken here.
 */
static u64 pt_lane_head(struct pt_stream *s, unsigned int i)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	u64 head;

	raw_spin_lock_irqsave(&l->lock, flags);
	head = l->head;
	raw_spin_unlock_irqrestore(&l->lock, flags);
	return head;
}

/* Nothing in a kernel lane is in flight: see pt_lane_head(). */
static u64 pt_lane_inflight(struct pt_stream *s, unsigned int i, u64 now,
			    u64 bound_ns)
{
	return U64_MAX;
}

static u64 pt_lane_size(struct pt_stream *s, unsigned int i)
{
	return s->lanes[i].size;
}

/* The kernel's reports about its own lanes name no process. */
static u32 pt_lane_pid(struct pt_stream *s, unsigned int i)
{
	return 0;
}

const struct pt_lane_source pt_kernel_lanes = {
	.claims = false,
	.peek = pt_lane_peek,
	.copy = pt_lane_copy,
	.start = pt_lane_start,
	.lost_ts = pt_lane_lost_ts,
	.consumed = pt_lane_consumed,
	.inflight = pt_lane_inflight,
	.head = pt_lane_head,
	.size = pt_lane_size,
	.pid = pt_lane_pid,
};

/* Sum of the lanes' heads: changes whenever a record is written. */
u64 pt_lanes_heads(struct pt_stream *s)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++)
		sum += READ_ONCE(s->lanes[i].desc->head);
	return sum + pt_writers_heads(s);
}
