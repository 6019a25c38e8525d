// SPDX-License-Identifier: GPL-2.0
/*
 * Writer lanes: rings the traced process writes its own events into, with
 * no system call (libtrace/writer.c is the writer, libtrace/take.c the
 * reader; Documentation/design.md, "Writer lanes", has the protocol).
 *
 * The process owning a lane can write anything into it, so the kernel
 * reads the shared fields only to answer questions whose answer can hurt
 * nobody but that process's own events: "is there data?", "is it full?",
 * "was something lost?".  Every value is bounded where it is used, and
 * nothing read from a lane ever sizes a kernel copy or indexes kernel
 * memory.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/delay.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include <posix_trace/ring.h>
#include "stream.h"

/* Bytes the reader has not consumed, bounded by the ring: a lane whose
 * head went backwards or jumped ahead has nothing, or everything.
 */
static u64 pt_writer_unread(const struct pt_writer *w)
{
	u64 head = READ_ONCE(w->ctl->head);
	u64 tail = READ_ONCE(w->ctl->tail);

	if ((s64)(head - tail) <= 0)
		return 0;
	return min(head - tail, w->data_size);
}

bool pt_writers_have_data(struct pt_stream *s)
{
	unsigned int i, nr = pt_nr_writers(s);

	for (i = 0; i < nr; i++) {
		if (pt_writer_unread(s->writers[i]))
			return true;
	}
	return false;
}

bool pt_writers_loop_full(struct pt_stream *s, u64 maxrec)
{
	unsigned int i, nr = pt_nr_writers(s);

	for (i = 0; i < nr; i++) {
		if (pt_writer_unread(s->writers[i]) + maxrec > s->capacity)
			return true;
	}
	return false;
}

/* Read the writers' overrun flags, and clear them if @clear. */
bool pt_writers_overrun(struct pt_stream *s, bool clear)
{
	unsigned int i, nr = pt_nr_writers(s);
	bool lost = false;

	for (i = 0; i < nr; i++) {
		u32 *p = &s->writers[i]->ctl->overrun;

		lost |= (clear ? xchg(p, 0) : READ_ONCE(*p)) != 0;
	}
	return lost;
}

/*
 * Events the writers dropped by themselves, without a system call, while
 * the stream was stopped full (posix_trace_writer_ctl.dropped), since the
 * create or the last clear.  A writer's word: it only ever grows when
 * honest, a value below the base counts nothing, and the sum sticks at
 * the top (pt_sat_add()).
 */
u64 pt_writers_dropped(struct pt_stream *s)
{
	unsigned int i, nr = pt_nr_writers(s);
	u64 sum = 0;

	for (i = 0; i < nr; i++) {
		struct pt_writer *w = s->writers[i];
		u64 d = READ_ONCE(w->ctl->dropped);
		u64 n = d > w->dropped_base ? d - w->dropped_base : 0;

		sum = pt_sat_add(sum, n);
	}
	return sum;
}

/* posix_trace_clear(): everything written so far counts as consumed. */
void pt_writers_reset(struct pt_stream *s)
{
	unsigned int i, nr = pt_nr_writers(s);

	for (i = 0; i < nr; i++) {
		struct posix_trace_writer_ctl *ctl = s->writers[i]->ctl;

		u64 head = READ_ONCE(ctl->head);

		WRITE_ONCE(ctl->oldest, head);
		WRITE_ONCE(ctl->tail, head);
		WRITE_ONCE(ctl->overrun, 0);
		s->writers[i]->dropped_base = READ_ONCE(ctl->dropped);
	}
}

/*
 * A reader is about to sleep (1) or was woken (0).  The writer checks the
 * flag after publishing a record, without a full barrier (that would cost
 * every event), so a wake-up can be missed: pt_stream_wait() therefore
 * also polls while writer lanes exist.
 */
void pt_writers_set_waiting(struct pt_stream *s, u32 waiting)
{
	unsigned int i, nr = pt_nr_writers(s);

	for (i = 0; i < nr; i++) {
		if (READ_ONCE(s->writers[i]->ctl->waiting) != waiting)
			WRITE_ONCE(s->writers[i]->ctl->waiting, waiting);
	}
}

void pt_writers_free(struct pt_stream *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_writers; i++) {
		vfree(s->writers[i]->mem);
		put_pid(s->writers[i]->tgid);
		kfree(s->writers[i]);
		pt_stat_dec(PT_STAT_WRITERS);
	}
	kfree(s->writers);
}

/* Copy from the ring of @w, which may wrap; @pos is a position. */
static void pt_writer_ring_read(const struct pt_writer *w, u64 pos, void *dst,
				size_t len)
{
	pt_ring_copy_out((const u8 *)w->mem + PAGE_SIZE, w->data_size,
			 pos % w->data_size, dst, len);
}

/*
 * A lane that cannot be believed: the flusher goes on from its head, but
 * never backwards.  A writer flipping its head between an old value and a
 * new one would otherwise make the flusher read the same records again
 * and again, for as long as the writer likes (issue 19, item 2).
 */
static int pt_writer_corrupt(u64 *pos, u64 head)
{
	if ((s64)(head - *pos) > 0)
		*pos = head;
	return -EIO;
}

/*
 * Can writer lane @w really have lost records from the flusher's @pos?
 * Only a LOOP writer evicts records the flusher has not consumed, and only
 * to make room for one that does not fit: its head is then more than the
 * capacity less one maximal record past @pos.  The head is loaded after
 * the oldest that claims the loss, which a writer raises only after
 * publishing the head it had then (libtrace/writer.c).
 */
static bool pt_writer_may_lose(struct pt_stream *s, const struct pt_writer *w,
			       u64 pos)
{
	u64 maxrec = ALIGN(sizeof(struct posix_trace_record) + s->max_data, 8);
	u64 head;

	smp_rmb();	/* the caller's load of oldest before head */
	head = READ_ONCE(w->ctl->head);
	return s->policy == POSIX_TRACE_POLICY_LOOP && (s64)(head - pos) > 0 &&
	       head - pos + maxrec > s->capacity;
}

/*
 * The log worker's reads of writer lane @j (struct pt_lane_source), which
 * its process can scribble on at any time: the same checks as the
 * library's reader (design.md, "Trust").  The header's pid is the
 * kernel's.  -EIO when the lane cannot be believed (*@pos then skips
 * forward to its head) or claims a loss it cannot have had (*@pos then
 * skips to the claimed oldest record); *@lost for a loss
 * pt_writer_may_lose() finds possible.
 */
static int pt_writer_peek(struct pt_stream *s, unsigned int j, u64 *pos,
			  u64 limit, bool *lost, struct posix_trace_record *rec)
{
	const struct pt_writer *w = s->writers[j];
	struct posix_trace_writer_ctl *ctl = w->ctl;
	/* pairs with the writer's release of head: the record is there */
	u64 head = smp_load_acquire(&ctl->head);
	u64 oldest = READ_ONCE(ctl->oldest);

	/* Records are 8-byte aligned, and so is every honest position. */
	if ((head | oldest) % 8)
		return pt_writer_corrupt(pos, head);
	if ((s64)(oldest - *pos) > 0) {
		/* overwritten, however often the writer went round since */
		if ((s64)(head - oldest) < 0 || head - oldest > w->data_size)
			return pt_writer_corrupt(pos, head);
		*lost = pt_writer_may_lose(s, w, *pos);
		*pos = oldest;
		if (!*lost)
			return -EIO;
	} else if ((s64)(head - *pos) < 0 || head - *pos > w->data_size) {
		return pt_writer_corrupt(pos, head);
	}
	if ((s64)(min(head, limit) - *pos) <= 0)
		return 0;
	pt_writer_ring_read(w, *pos, rec, sizeof(*rec));
	if (!pt_writer_rec_honest(s->max_data, rec, head - *pos))
		return pt_writer_corrupt(pos, head);
	rec->pid = s->wdesc[j].pid;
	return 1;
}

/* Where the worker goes on in writer lane @j after a clear: its oldest
 * record, or its head if the writer says something impossible.  A writer
 * that does not exist yet will start at 0, seq 0.  The seq elsewhere is
 * not known: the writer's word (design.md §10).
 */
static u64 pt_writer_start(struct pt_stream *s, unsigned int j, u64 *seq,
			   bool *seq_known)
{
	const struct pt_writer *w;
	u64 head, oldest, pos;

	*seq = 0;
	*seq_known = j >= pt_nr_writers(s);
	if (*seq_known)
		return 0;
	w = s->writers[j];
	/* pairs with the writer's release of head */
	head = smp_load_acquire(&w->ctl->head);
	oldest = READ_ONCE(w->ctl->oldest);
	pos = head - oldest <= w->data_size ? oldest : head;
	*seq_known = !pos;	/* at 0, the lane's first record: seq 0 */
	return pos;
}

/* Timestamp of the record of seq @seq of writer lane @j if the writer says
 * it lost that record at the flusher's tail, else U64_MAX.  The writer's
 * word, like its events' own timestamps.
 */
static u64 pt_writer_lost_ts(struct pt_stream *s, unsigned int j, u64 seq)
{
	struct posix_trace_writer_ctl *ctl = s->writers[j]->ctl;

	/* pairs with the writer's release of lost_seq after lost_timestamp */
	if (smp_load_acquire(&ctl->lost_seq) != seq)
		return U64_MAX;
	return READ_ONCE(ctl->lost_timestamp);
}

/* Copy the data of the record at @pos; false if the writer reused its
 * bytes meanwhile (it raises oldest first: design.md's barrier pairs).
 */
static bool pt_writer_copy(struct pt_stream *s, unsigned int j, u64 pos,
			   void *dst, u32 len)
{
	pt_writer_ring_read(s->writers[j], pos + sizeof(struct posix_trace_record),
			    dst, len);
	return pt_writer_kept(s, j, pos);
}

/*
 * Can the flusher read lane @j from @pos up to @end in one run
 * (take_run.c, pt_take_run())?  Only if that is within one ring: @end is the
 * writer's word, checked before anything is read up to it.
 */
bool pt_writer_span(struct pt_stream *s, unsigned int j, u64 pos, u64 end)
{
	return (s64)(end - pos) >= 0 && end - pos <= s->writers[j]->data_size;
}

/* After copies of lane @j's bytes from @pos on: were they still records
 * when copied, or did the writer reuse them meanwhile (it raises oldest
 * first: design.md's barrier pairs)?
 */
bool pt_writer_kept(struct pt_stream *s, unsigned int j, u64 pos)
{
	smp_rmb();	/* the copies before oldest: pairs with the writer's smp_wmb */
	return (s64)(READ_ONCE(s->writers[j]->ctl->oldest) - pos) <= 0;
}

static void pt_writer_consumed(struct pt_stream *s, unsigned int j, u64 pos)
{
	struct posix_trace_writer_ctl *ctl = s->writers[j]->ctl;

	/* our copies before the writer reuses the space (it loads tail) */
	smp_store_release(&ctl->tail, pos);
	if (s->flush_step)
		WRITE_ONCE(ctl->flush_mark, pos + s->flush_step);
}

/*
 * The timestamp before which every record of writer lane @j is visible:
 * U64_MAX when it writes nothing now, else that of the record it is
 * writing (design.md, "Order across lanes").  A writer reading its clock
 * is waited for briefly; a stamp older than @bound_ns is not believed.
 */
static u64 pt_writer_inflight(struct pt_stream *s, unsigned int j, u64 now,
			      u64 bound_ns)
{
	struct posix_trace_writer_ctl *ctl = s->writers[j]->ctl;
	/* pairs with the writer's release of inflight_ts after head */
	u64 ts = smp_load_acquire(&ctl->inflight_ts);
	unsigned int tries = 0;

	while (ts == POSIX_TRACE_INFLIGHT_CLOCK && tries++ < 100) {
		usleep_range(10, 20);
		ts = smp_load_acquire(&ctl->inflight_ts);	/* as above */
	}
	if (ts == POSIX_TRACE_INFLIGHT_CLOCK)
		return now > bound_ns ? now - bound_ns : 0;
	if (!ts || ts > now || now - ts > bound_ns)
		return U64_MAX;
	return ts;
}

static u64 pt_writer_head(struct pt_stream *s, unsigned int j)
{
	/* pairs with the writer's release of head: its records are there */
	return smp_load_acquire(&s->writers[j]->ctl->head);
}

static u64 pt_writer_size(struct pt_stream *s, unsigned int j)
{
	return s->writers[j]->data_size;
}

/* The worker's reports about a writer lane carry its process's pid. */
static u32 pt_writer_pid(struct pt_stream *s, unsigned int j)
{
	return s->wdesc[j].pid;
}

const struct pt_lane_source pt_writer_lanes = {
	.claims = true,
	.peek = pt_writer_peek,
	.copy = pt_writer_copy,
	.start = pt_writer_start,
	.lost_ts = pt_writer_lost_ts,
	.consumed = pt_writer_consumed,
	.inflight = pt_writer_inflight,
	.head = pt_writer_head,
	.size = pt_writer_size,
	.pid = pt_writer_pid,
};

u64 pt_writers_heads(struct pt_stream *s)
{
	unsigned int j, nr = pt_nr_writers(s);
	u64 sum = 0;

	for (j = 0; j < nr; j++)
		sum += READ_ONCE(s->writers[j]->ctl->head);
	return sum;
}
