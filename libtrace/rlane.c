// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reader's lanes (rlane.h): the kernel lanes set up once, the writer
 * lanes mapped as traced threads open them (pt_rlanes_discover()), every
 * cursor reset after a clear, and what a lane offers now, its positions
 * checked before anything believes them (pt_rlane_span(), pt_peek()).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "dev.h"
#include "rlane.h"

/* Positions of a lane that could not be mapped: always empty. */
static const __u64 pt_zero_pos[1];

int pt_rlanes_init(struct pt_handle *h)
{
	const struct posix_trace_stream_header *hdr = h->ro;
	unsigned int i;

	h->nr_lanes = hdr->nr_lanes;
	h->max_rlanes = hdr->nr_lanes + hdr->max_writers;
	h->lanes = calloc(h->max_rlanes, sizeof(*h->lanes));
	if (!h->lanes)
		return ENOMEM;
	h->unmap_lanes = pt_rlanes_unmap;
	for (i = 0; i < h->nr_lanes; i++) {
		const struct posix_trace_lane *d = pt_lane(h, i);
		struct pt_rlane *l = &h->lanes[i];

		l->ring = (const uint8_t *)h->ro + d->data_offset;
		l->size = d->data_size;
		l->head = &d->head;
		l->oldest = &d->oldest;
		l->lost_seq = &d->lost_seq;
		l->lost_ts = &d->lost_timestamp;
		/* Stamped under the lane lock before the commit: a stamp
		 * in flight, as a writer lane's (kernel-written). */
		l->inflight = &d->inflight_ts;
		l->tail = &pt_consumer(h, i)->tail;
	}
	h->nr_rlanes = h->nr_lanes;
	h->nr_writers_seen = 0;
	h->lane_cap = hdr->capacity;
	h->max_rec = PT_ROUND8(PT_RECORD_HDR_SIZE + h->attr.__max_data_size);
	pt_gate_init(&h->gate);
	return 0;
}

/*
 * Seq of the record at position @pos of writer lane @l, if it can be
 * known: a lane's first record has seq 0, and a record still intact
 * carries its own.  Without it, an OVERFLOW for records lost from @pos
 * could only carry the first survivor's time (pt_take()).  Only this
 * writer's own events are misreported if it lies.
 */
static int pt_rlane_seq_at(const struct pt_rlane *l, uint64_t pos, uint64_t *seq)
{
	uint64_t head = PT_LOAD_ACQ(l->head);
	struct posix_trace_record rec;

	if (!pos) {
		*seq = 0;
		return 1;
	}
	if ((int64_t)(head - pos) < (int64_t)PT_RECORD_HDR_SIZE ||
	    head - pos > l->size || (int64_t)(PT_LOAD_ACQ(l->oldest) - pos) > 0)
		return 0;
	pt_ring_copy(l, pos, &rec, sizeof(rec));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((int64_t)(PT_LOAD(l->oldest) - pos) > 0)
		return 0;	/* overwritten while we copied */
	*seq = rec.seq;
	return 1;
}

/* Records start 8-aligned: round a writer's position up to where the
 * next one may start (none past PT_POS_MAX). */
uint64_t pt_pos_up(uint64_t pos)
{
	return pos > PT_POS_MAX ? PT_POS_MAX : (pos + 7) & ~(uint64_t)7;
}

/* Writer lane @l's positions, in the control page of its mapping. */
static void pt_rlane_point(struct pt_rlane *l)
{
	struct posix_trace_writer_ctl *ctl = l->map;

	l->head = &ctl->head;
	l->oldest = &ctl->oldest;
	l->lost_seq = &ctl->lost_seq;
	l->lost_ts = &ctl->lost_timestamp;
	l->inflight = &ctl->inflight_ts;
	l->tail = &ctl->tail;
}

/* A writer lane claiming a position past PT_POS_MAX: never read again,
 * until a clear starts it afresh (pt_rlane_reset()). */
void pt_rlane_ignore(struct pt_rlane *l)
{
	l->head = l->oldest = l->lost_seq = l->lost_ts = pt_zero_pos;
	l->inflight = pt_zero_pos;
}

static void pt_rlane_reset(struct pt_rlane *l, uint64_t base_seq)
{
	uint64_t tail;

	if (l->user && l->map) {
		/* New to us, or cleared: the kernel moved the tail to the
		 * writer's head.  The lane starts there again, on the 8-byte
		 * grid; the only time its position may go back, once per
		 * posix_trace_clear(). */
		pt_rlane_point(l);
		tail = PT_LOAD(l->tail);
		l->cur.pos = pt_pos_up(tail);
		if (tail > PT_POS_MAX)
			pt_rlane_ignore(l);
		l->cur.seq_known = pt_rlane_seq_at(l, l->cur.pos,
						   &l->cur.next_seq);
		l->cur.loss_pending = 0;
	} else if (l->user) {
		l->cur.pos = 0;		/* not mapped: nothing to read */
	} else {
		/* No record of the lane may be lost unnoticed, not even the
		 * first one: the kernel says which seq comes first. */
		l->cur.pos = PT_LOAD_ACQ(l->oldest);
		l->cur.next_seq = base_seq;
		l->cur.seq_known = 1;
	}
	l->cur.peek_ts = 0;
	__atomic_store_n(l->tail, l->cur.pos, __ATOMIC_RELEASE);
}

void pt_cursors_reset(struct pt_handle *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_rlanes; i++)
		pt_rlane_reset(&h->lanes[i], i < h->nr_lanes ?
			       PT_LOAD(&pt_lane(h, i)->base_seq) : 0);
	h->npending = 0;
	h->pending_head = 0;
	h->safe_ts = 0;
	h->last_tid = 0;	/* what was read is gone */
}

/* posix_trace_clear() emptied every lane, by @when: control events the
 * reader had not consumed went too (pt_gate_gap()); every cursor starts
 * again. */
void pt_rlanes_cleared(struct pt_handle *h, uint64_t when)
{
	uint64_t from = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < h->nr_lanes; i++) {
		if (h->lanes[i].cur.last_ts < from)
			from = h->lanes[i].cur.last_ts;
	}
	pt_gate_gap(&h->gate, from, when);
	pt_cursors_reset(h);
}

void pt_rlanes_unmap(struct pt_handle *h)
{
	unsigned int i;

	for (i = h->nr_lanes; i < h->nr_rlanes; i++) {
		if (h->lanes[i].map)
			munmap(h->lanes[i].map, h->lanes[i].map_len);
		h->lanes[i].map = NULL;
	}
	h->nr_rlanes = h->nr_lanes;
	h->nr_writers_seen = 0;
}

static const struct posix_trace_writer_desc *pt_wdesc(const struct pt_handle *h,
						      unsigned int i)
{
	const struct posix_trace_stream_header *hdr = h->ro;

	return (const void *)((const char *)h->ro + hdr->writer_offset +
			      (size_t)hdr->writer_stride * i);
}

/* Writer lane @i, mapped at @p (MAP_FAILED: it could not be, errno says
 * why): only the descriptor's sizes and pid are believed.  Not static:
 * the host tests attach lanes of their own making. */
void pt_rlane_attach_writer(struct pt_handle *h, unsigned int i, void *p)
{
	const struct posix_trace_writer_desc *d = pt_wdesc(h, i);
	struct pt_rlane *l = &h->lanes[h->nr_lanes + i];

	l->user = 1;
	l->pid = d->pid;
	if (p == MAP_FAILED) {
		l->broken = errno ? errno : EIO;
		l->head = l->oldest = l->lost_seq = l->lost_ts = pt_zero_pos;
		l->inflight = pt_zero_pos;
		l->tail = &l->broken_tail;	/* nobody else reads it */
		l->size = 1;
		l->ring = (const uint8_t *)pt_zero_pos;
		return;
	}
	l->map = p;
	l->map_len = d->mmap_size;
	l->ring = (const uint8_t *)p + d->data_offset;
	l->size = d->data_size;
	pt_rlane_reset(l, 0);
}

/* Map writer lane @i, read-write: the reader publishes its tail there. */
void pt_rlane_map_writer(struct pt_handle *h, unsigned int i)
{
	const struct posix_trace_writer_desc *d = pt_wdesc(h, i);
	int saved = errno;
	void *p = MAP_FAILED;

	errno = 0;
	if (d->data_size >= PT_RECORD_HDR_SIZE && d->data_size % 8 == 0 &&
	    d->data_offset >= sizeof(struct posix_trace_writer_ctl) &&
	    d->data_offset <= d->mmap_size &&
	    d->data_size <= d->mmap_size - d->data_offset)
		p = mmap(NULL, d->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 pt_dev_fd(), (off_t)d->mmap_offset);
	pt_rlane_attach_writer(h, i, p);
	errno = saved;
}

/*
 * The records lane @l offers the reader now: [*@startp, *@headp).
 * Returns 0, or -1 when a writer lane's positions cannot be believed: off
 * the 8-byte grid (records start 8-aligned in a ring of 8-byte multiples,
 * so a record header never wraps and one load reads a timestamp), past
 * PT_POS_MAX, or a head more than a ring ahead.  Each position is
 * loaded once, the head before the oldest (pt_loss_plausible() loads the
 * head again after it).  A writer's head at or behind the cursor means
 * nothing new, its oldest counts only within [cursor, head]: the reader's
 * position never moves back.
 */
int pt_rlane_span(const struct pt_rlane *l, uint64_t *headp, uint64_t *startp)
{
	uint64_t head = PT_LOAD_ACQ(l->head), oldest = PT_LOAD_ACQ(l->oldest);
	uint64_t pos = l->cur.pos;

	*headp = head;
	if (!l->user) {
		*startp = (int64_t)(oldest - pos) > 0 ? oldest : pos;
		return 0;
	}
	if (head <= pos) {
		*headp = *startp = pos;
		return 0;
	}
	*startp = oldest <= pos ? pos : oldest < head ? oldest : head;
	if ((head | *startp) % 8 || head > PT_POS_MAX || head - *startp > l->size)
		return -1;
	return 0;
}

/* Timestamp of the next record of lane @l, or 0 if the lane is empty;
 * cached in the cursor when that record is the one at the cursor.  A torn
 * read only affects which lane is tried first.  A kernel lane that lost
 * records since the last one read may have lost control events: the gate
 * learns it here, before any writer record stamped after them goes out. */
uint64_t pt_peek(struct pt_handle *h, struct pt_rlane *l)
{
	uint64_t head, pos, off, ts;

	if (l->broken)
		return 1;
	if (pt_rlane_span(l, &head, &pos))
		return PT_TS_BAD;
	if ((int64_t)(head - pos) <= 0)
		return 0;
	off = pos % l->size;
	ts = pt_ts_at(l, off);
	if (pos == l->cur.pos) {
		l->cur.peek_ts = ts;
		l->cur.peek_off = off;
	} else if (!l->user) {
		pt_gate_gap(&h->gate, l->cur.last_ts, ts);
	}
	return ts;
}
