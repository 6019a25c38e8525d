// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The getnext family (spec 3.7).  Records are read straight from the
 * lanes mapped read-only into this process; the kernel is entered only to
 * sleep when every lane is empty.
 *
 * Reader side of the ring protocol (writer side: kmod/record.c):
 *   head = load-acquire(lane->head)         pairs with the writer's release
 *   copy the record at pos
 *   acquire fence; oldest = load(lane->oldest)
 *   oldest > pos: the writer may have reused the bytes: retry from oldest.
 * Consumed positions are published with a release store to the consumer's
 * tail, which the kernel clamps.  Before a record goes out, the writer
 * lanes' in-flight stamps say whether an older one is still being written
 * (pt_inflight()).  A writer lane is written by a traced process that may
 * write anything there: its positions are believed only as far as
 * pt_rlane_span() says, its records only as far as pt_rec_valid() and the
 * gate (gate.c: the stream's state and filter at the record's time) say,
 * and what it can make the reader report is bounded (pt_rlane_claims_loss(),
 * pt_rlane_may_report()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "dev.h"
#include "handle.h"
#include "log_read.h"
#include "ring.h"

#define PT_LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PT_LOAD(p)	__atomic_load_n((p), __ATOMIC_RELAXED)

/* A writer moving its oldest record faster than we can copy one is either
 * lapping a tiny lane or hostile: after this many tries the lane's unread
 * records count as lost. */
#define PT_COPY_TRIES	8

#define PT_TS_OFFSET	offsetof(struct posix_trace_record, timestamp)
_Static_assert(PT_TS_OFFSET % 8 == 0, "the timestamp never wraps");

/*
 * A writer lane's in-flight stamp (ctl->inflight_ts) holds back records of
 * other lanes that are later; the value is the writer's to write, so:
 * a stamp holds only while it is at most PT_INFLIGHT_NS old (the writer
 * has been stopped that long: dead, or too slow to wait for), a clock
 * marker only for PT_INFLIGHT_NS from its first sighting with the lane's
 * head where it is, a value found stuck is remembered and costs nothing
 * more, and a lane whose writes held one record back for more than
 * 2 * PT_INFLIGHT_NS in all (pt_held_too_long()) holds nothing for
 * PT_HOLD_OFF_NS.  A write stopped for less than PT_INFLIGHT_NS is never
 * overtaken; the bound is long enough for a thread or vCPU descheduled on
 * a loaded machine.
 */
#define PT_INFLIGHT_NS	1000000000u
#define PT_HOLD_OFF_NS	5000000000u
/* Loads of a set in-flight stamp before the record counts as not yet
 * available; a writer running on another CPU commits within these. */
#define PT_INFLIGHT_SPINS	256

/*
 * Writer lanes (Documentation/design.md, "Writer lanes", Trust).  No
 * writer gets anywhere near 2^62 bytes: a lane claiming a position past
 * it is ignored until the next clear.  A lane whose positions cannot be believed has
 * no record to offer: it sorts after every record (PT_TS_BAD).  Reports
 * a lane can cause beyond its own records and its real losses (an ERROR
 * for a corrupt lane, or for a loss it cannot have had) come at most once
 * per PT_REPORT_NS per lane, the rest are counted.  A fetch skips at most
 * PT_SKIP_MAX records that it does not deliver (refused by the gate, or
 * corrupt) before the caller goes on without an event.
 */
#define PT_POS_MAX	(1ULL << 62)
#define PT_TS_BAD	(UINT64_MAX - 1)
#define PT_REPORT_NS	1000000000u
#define PT_SKIP_MAX	4096

/* What pt_take() did with the lane's next record. */
enum { PT_EMPTY, PT_QUEUED, PT_DIRECT, PT_SKIPPED };

/* Positions of a lane that could not be mapped: always empty. */
static const __u64 pt_zero_pos[1];

static void pt_ring_copy(const struct pt_rlane *l, uint64_t pos, void *dst, size_t len)
{
	pt_ring_read(l->ring, l->size, pos % l->size, dst, len);
}

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
		/* Written under the lane lock, which on PREEMPT_RT sleeps:
		 * a stamp in flight, as a writer lane's (kernel-written). */
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
static uint64_t pt_pos_up(uint64_t pos)
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
static void pt_rlane_ignore(struct pt_rlane *l)
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
static void pt_rlane_map_writer(struct pt_handle *h, unsigned int i)
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

/* Writer lanes appear as traced threads first record: map new ones (the
 * only system call of a read that finds events, once per lane).  Returns
 * whether there were any. */
static inline int pt_rlanes_discover(struct pt_handle *h)
{
	const struct posix_trace_stream_header *hdr = h->ro;
	unsigned int nr = PT_LOAD_ACQ(&hdr->nr_writers);

	if (__builtin_expect(nr == h->nr_writers_seen, 1))
		return 0;
	h->nr_writers_seen = nr;
	if (nr > h->max_rlanes - h->nr_lanes)
		nr = h->max_rlanes - h->nr_lanes;
	if (h->nr_rlanes >= h->nr_lanes + nr)
		return 0;
	while (h->nr_rlanes < h->nr_lanes + nr) {
		pt_rlane_map_writer(h, h->nr_rlanes - h->nr_lanes);
		h->nr_rlanes++;
	}
	return 1;
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
static int pt_rlane_span(const struct pt_rlane *l, uint64_t *headp, uint64_t *startp)
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

/* Timestamp of the record at ring offset @off (never 0: 0 means "not
 * known").  Records start 8-aligned in a ring of 8-byte multiples: the
 * field never wraps, one load reads it. */
static uint64_t pt_ts_at(const struct pt_rlane *l, uint64_t off)
{
	uint64_t ts;

	off += PT_TS_OFFSET;
	if (off >= l->size)
		off -= l->size;
	ts = PT_LOAD((const uint64_t *)(l->ring + off));
	return ts ? ts : 1;
}

/* Timestamp of the next record of lane @l, or 0 if the lane is empty;
 * cached in the cursor when that record is the one at the cursor.  A torn
 * read only affects which lane is tried first.  A kernel lane that lost
 * records since the last one read may have lost control events: the gate
 * learns it here, before any writer record stamped after them goes out. */
static uint64_t pt_peek(struct pt_handle *h, struct pt_rlane *l)
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

/*
 * The lane whose next record is the oldest, or -1 if all are empty; ties
 * go to the lower lane (deterministic: kernel lanes, then writer lanes in
 * the order they were opened).  A cached timestamp stays right while the
 * writer has not evicted the record (oldest <= pos), and an empty lane
 * costs one load of its head, so a drain does not re-read every lane's
 * header for every event.
 */
static int pt_pick(struct pt_handle *h, uint64_t *best_tsp)
{
	uint64_t ts, best_ts = UINT64_MAX;
	unsigned int i;
	int best = -1;

	for (i = 0; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		ts = l->cur.peek_ts;
		if (!ts && !l->broken && PT_LOAD_ACQ(l->head) == l->cur.pos)
			continue;
		if (!ts || (int64_t)(PT_LOAD_ACQ(l->oldest) - l->cur.pos) > 0) {
			l->cur.peek_ts = 0;
			ts = pt_peek(h, l);
			if (!ts)
				continue;
		}
		if (ts < best_ts) {
			best_ts = ts;
			best = (int)i;
		}
	}
	*best_tsp = best_ts;
	return best;
}

static uint64_t pt_mono_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static inline void pt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

enum { PT_GO, PT_REPICK, PT_HOLD };

/*
 * Lane @l's writer is reading the clock for its next record (marker
 * POSIX_TRACE_INFLIGHT_CLOCK): its stamp will be no older than the
 * marker, which may be older than any record, so it holds them all, for
 * PT_INFLIGHT_NS from when we first saw it with the lane's head where it
 * is (a commit starts a new marker; a stuck one counts from its first
 * sighting and then holds nothing).  @head was loaded before the marker:
 * loaded after it, the head of a write that committed in between would
 * charge the next write's marker with this sighting's time.
 */
static int pt_clock_holds(struct pt_rlane *l, uint64_t head, uint64_t now)
{
	if (!l->clock_since || head != l->clock_head) {
		l->clock_since = now;
		l->clock_head = head;
	}
	return now - l->clock_since <= PT_INFLIGHT_NS;
}

/*
 * Lane @l holds back the record at @pos of lane @best once more: has it
 * held that record longer than an honest lane can?  Only the lane's own
 * writes count, each from its first to its last sighting (the lane's head
 * does not move until the write commits), so neither other lanes' holds
 * nor the reader's own stalls are charged to it.  An honest lane holds one
 * record with at most two writes: the one in flight when the record was
 * seen and, if that one is older and so delivered first, the next one
 * until its clock read (its stamp is later, and once committed it keeps
 * the lane from holding anything older).  Each holds no longer than its
 * call, so past 2 * PT_INFLIGHT_NS in all one call took longer than
 * PT_INFLIGHT_NS, or the lane is not honest: it then holds nothing for
 * PT_HOLD_OFF_NS.
 */
static bool pt_held_too_long(struct pt_rlane *l, unsigned int best, uint64_t pos,
			     uint64_t head, uint64_t now)
{
	if (l->held_lane != best || l->held_pos != pos || !l->held_first) {
		l->held_lane = best;
		l->held_pos = pos;
		l->held_ns = 0;
		l->held_head = head;
		l->held_first = now;
	} else if (head != l->held_head) {
		l->held_ns += l->held_last - l->held_first;
		l->held_head = head;
		l->held_first = now;
	}
	l->held_last = now;
	if (l->held_ns + (now - l->held_first) <= 2ull * PT_INFLIGHT_NS)
		return false;
	l->held_first = 0;
	return true;
}

/*
 * May the record @ts of lane @best, which pt_pick() found the oldest, be
 * delivered?  A writer lane that was empty at the pick may since have
 * committed an older record (PT_REPICK), or be writing one: its
 * inflight_ts, set from just before its clock read (a marker) until its
 * head is released, is older (PT_HOLD: the record is not available yet).
 * A lane that holds records needs no look for @ts: its next record is
 * never newer than the one being written after it.  Order: pt_pick()
 * loaded the heads; here the clock, the lane count, then each in-flight
 * value (acquire), then the head again, whatever the value: a write that
 * committed since the pick and a next one already under way (its marker or
 * stamp is what we load) must not hide the committed record.
 *
 * A clean pass also proves that every record stamped before h->safe_ts
 * (the clock at its start, or an older stamp in flight) is already
 * visible: a lane that was idle stamps after its in-flight value was
 * loaded, a lane published since stamps after its publication.  Records
 * older than that need no pass (pt_fetch()), so a drain of what is
 * already there costs one compare per event.  Bounds: PT_INFLIGHT_NS.
 */
static __attribute__((noinline)) int pt_inflight(struct pt_handle *h, unsigned int best,
						 uint64_t ts)
{
	uint64_t now = pt_mono_now(), safe = now, v, t2, head;
	unsigned int i, spins = 0;
	int empty;

	/* A lane opened since the pick may hold, or be writing, an older
	 * record; one opened after this load stamps after @now. */
	if (pt_rlanes_discover(h))
		return PT_REPICK;
	/* Kernel lanes too: see pt_rlanes_init(). */
	for (i = 0; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		if (l->broken)
			continue;
		empty = i != best && !l->cur.peek_ts;
again:
		/* Loaded before @v: the write @v belongs to is at this head or
		 * a later one, never an earlier one, so a write is never
		 * charged with the time of the one before it. */
		head = PT_LOAD_ACQ(l->head);
		v = PT_LOAD_ACQ(l->inflight);
		/* Whatever @v is, the write before it may have committed since
		 * the pick (or while we spun): its record may be the older. */
		if (empty && PT_LOAD_ACQ(l->head) != l->cur.pos) {
			t2 = pt_peek(h, l);
			if (t2 && (t2 < ts || (t2 == ts && i < best)))
				return PT_REPICK;
			empty = 0;	/* its next write is later still */
		}
		if (!v)
			continue;
		if (v == POSIX_TRACE_INFLIGHT_CLOCK) {
			if (!pt_clock_holds(l, head, now))
				continue;	/* stuck */
			safe = 0;
		} else {
			if (v == l->inflight_stale)
				continue;
			if ((int64_t)(now - v) > PT_INFLIGHT_NS) {
				l->inflight_stale = v;	/* stuck, or garbage */
				continue;
			}
			if (v < safe)
				safe = v;
			if (v > ts || (v == ts && i > best))
				continue;
		}
		if (!empty)
			continue;
		if (spins++ < PT_INFLIGHT_SPINS) {
			pt_cpu_relax();
			goto again;
		}
		if ((int64_t)(l->hold_off_until - now) > 0)
			continue;
		if (pt_held_too_long(l, best, h->lanes[best].cur.pos, head, now)) {
			l->hold_off_until = now + PT_HOLD_OFF_NS;
			continue;
		}
		return PT_HOLD;
	}
	h->safe_ts = safe;
	return PT_GO;
}

static struct pt_pending *pt_push(struct pt_handle *h)
{
	unsigned int slot = (h->pending_head + h->npending++) % PT_PENDING_MAX;
	struct pt_pending *p = &h->pending[slot];

	memset(&p->rec, 0, sizeof(p->rec));
	p->data_off = (uint32_t)(slot * (h->data_cap / PT_PENDING_MAX));
	return p;
}

/* @pid: a writer lane's for what it caused, 0 for a kernel lane's. */
static void pt_push_marker(struct pt_handle *h, uint32_t id, uint64_t ts, uint32_t pid)
{
	struct pt_pending *p = pt_push(h);

	p->rec.event_id = id;
	p->rec.timestamp = ts;
	p->rec.pid = pid;
	p->rec.flags = POSIX_TRACE_REC_AUTO;
}

static void pt_push_error(struct pt_handle *h, int err, uint32_t pid)
{
	struct pt_pending *p = pt_push(h);

	p->rec.event_id = POSIX_TRACE_ERROR;
	p->rec.pid = pid;
	p->rec.data_len = sizeof(err);
	memcpy(h->data + p->data_off, &err, sizeof(err));
}

static inline int pt_rec_valid(const struct pt_rlane *l, const struct posix_trace_record *r,
			uint64_t avail, size_t max_data)
{
	if (r->size < PT_RECORD_HDR_SIZE || r->size % 8 || r->size > avail ||
	    r->data_len > r->size - PT_RECORD_HDR_SIZE || r->data_len > max_data)
		return 0;
	/* A traced process may write only user events of its own. */
	return !l->user ||
	       (r->event_id >= POSIX_TRACE_ID_UNNAMED &&
		r->event_id < POSIX_TRACE_ID_NR &&
		!(r->flags & ~(uint32_t)POSIX_TRACE_REC_TRUNCATED));
}

/* May writer lane @l cause one more ERROR?  One per PT_REPORT_NS; the
 * others are counted. */
static int pt_rlane_may_report(struct pt_handle *h, struct pt_rlane *l)
{
	uint64_t now = pt_mono_now();

	if (l->reported && now - l->reported < PT_REPORT_NS) {
		h->gate.withheld++;
		return 0;
	}
	l->reported = now;
	return 1;
}

/* Something in lane @l cannot be believed: say so with an ERROR event
 * (a writer lane: with its pid, at most once per PT_REPORT_NS) and go on
 * after everything it holds now (a writer lane: at the next 8-aligned
 * position).  Returns PT_QUEUED, or PT_SKIPPED with nothing to say. */
static int pt_rlane_corrupt(struct pt_handle *h, struct pt_rlane *l, uint64_t head)
{
	struct pt_cursor *c = &l->cur;

	c->seq_known = 0;
	c->peek_ts = 0;
	if (!l->user)
		c->pos = head;
	else if (head > PT_POS_MAX)
		pt_rlane_ignore(l);
	else if (pt_pos_up(head) > c->pos)
		c->pos = pt_pos_up(head);
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	if (l->user && !pt_rlane_may_report(h, l))
		return PT_SKIPPED;
	pt_push_error(h, EIO, l->user ? l->pid : 0);
	return PT_QUEUED;
}

/*
 * Can writer lane @l really have lost records from the reader's position?
 * Only a LOOP writer evicts records the reader has not consumed, and only
 * to make room for one that does not fit: its head is then more than the
 * capacity less the largest record past the reader's position.  This head
 * is loaded after the oldest that claims the loss (pt_rlane_span()), which
 * the writer raises only after publishing the head it had then.
 */
static int pt_loss_plausible(const struct pt_handle *h, const struct pt_rlane *l)
{
	uint64_t head = PT_LOAD_ACQ(l->head), pos = l->cur.pos;

	return h->attr.__stream_policy == POSIX_TRACE_LOOP && head <= PT_POS_MAX &&
	       head > pos && head - pos + h->max_rec > h->lane_cap;
}

/*
 * Writer lane @l says the records from the cursor to its next one, @rec
 * (NULL: to its head), are gone.  A loss it can have had is reported
 * before its next record delivered (pt_push_loss()); one it cannot have
 * had means the lane is corrupt.  Returns whether an ERROR was queued.
 */
static int pt_rlane_claims_loss(struct pt_handle *h, struct pt_rlane *l,
				const struct posix_trace_record *rec)
{
	struct pt_cursor *c = &l->cur;

	if (!pt_loss_plausible(h, l)) {
		if (!pt_rlane_may_report(h, l))
			return 0;
		pt_push_error(h, EIO, l->pid);
		return 1;
	}
	if (c->loss_pending || (rec && c->seq_known && rec->seq <= c->next_seq))
		return 0;
	c->loss_pending = 1;
	c->loss_ts = c->seq_known && PT_LOAD_ACQ(l->lost_seq) == c->next_seq ?
		     PT_LOAD(l->lost_ts) : 0;
	return 0;
}

/*
 * Lane @l's next record, @rec at @pos, is past the cursor: the records in
 * between were lost.  A kernel lane's loss is reported now, and may have
 * hidden control events (pt_gate_gap()); a writer lane's is only a claim
 * (pt_rlane_claims_loss()).  Returns whether anything was queued.
 */
static int pt_take_lost(struct pt_handle *h, struct pt_rlane *l,
			const struct posix_trace_record *rec)
{
	struct pt_cursor *c = &l->cur;
	uint64_t lost_ts;

	if (l->user)
		return pt_rlane_claims_loss(h, l, rec);
	pt_gate_gap(&h->gate, c->last_ts, rec->timestamp);
	if (c->seq_known && rec->seq <= c->next_seq)
		return 0;
	lost_ts = c->seq_known && PT_LOAD_ACQ(l->lost_seq) == c->next_seq ?
		  PT_LOAD(l->lost_ts) : rec->timestamp;
	pt_push_marker(h, POSIX_TRACE_OVERFLOW, lost_ts, 0);
	pt_push_marker(h, POSIX_TRACE_RESUME, rec->timestamp, 0);
	return 1;
}

/* Lane @l holds nothing from @pos on, past the cursor: everything it held
 * was lost (pt_take_lost(), with no record after the loss). */
static int pt_take_none(struct pt_handle *h, struct pt_rlane *l, uint64_t pos)
{
	struct pt_cursor *c = &l->cur;
	int queued = 0;

	if (pos == c->pos)
		return PT_EMPTY;
	if (l->user)
		queued = pt_rlane_claims_loss(h, l, NULL);
	else
		pt_gate_gap(&h->gate, c->last_ts, pt_mono_now());
	c->pos = pos;
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return queued ? PT_QUEUED : PT_EMPTY;
}

/*
 * OVERFLOW and RESUME of writer lane @l (RULE-17), before @rec, its first
 * record delivered since the loss: with the lane's pid, and an OVERFLOW
 * time between the lane's last record read and @rec, whatever the lane
 * says (0: @rec's).
 */
static void pt_push_loss(struct pt_handle *h, struct pt_rlane *l,
			 const struct posix_trace_record *rec)
{
	uint64_t ts = l->cur.loss_ts, after = l->cur.last_ts;

	if (after > rec->timestamp)
		after = rec->timestamp;
	if (!ts || ts > rec->timestamp)
		ts = rec->timestamp;
	if (ts < after)
		ts = after;
	pt_push_marker(h, POSIX_TRACE_OVERFLOW, ts, l->pid);
	pt_push_marker(h, POSIX_TRACE_RESUME, rec->timestamp, l->pid);
	l->cur.loss_pending = 0;
}

/* Where the caller of getnext wants the event. */
struct pt_out {
	struct posix_trace_event_info *ev;
	void *data;
	size_t num_bytes;
	size_t *data_len;
};

static void pt_to_timespec(const struct pt_handle *h, uint64_t mono,
			   struct timespec *ts)
{
	uint64_t real = h->created_real + (mono - h->created_mono);

	if (mono < h->created_mono)
		real = h->created_real - (h->created_mono - mono);
	ts->tv_sec = (time_t)(real / 1000000000u);
	ts->tv_nsec = (long)(real % 1000000000u);
}

static void pt_fill_info(const struct pt_handle *h, const struct posix_trace_record *r,
			 struct posix_trace_event_info *ev)
{
	ev->posix_event_id = r->event_id;
	ev->posix_pid = (pid_t)r->pid;
	ev->posix_prog_address = (void *)(uintptr_t)r->address;
	ev->posix_thread_id = (pthread_t)r->thread;
	pt_to_timespec(h, r->timestamp, &ev->posix_timestamp);
	ev->posix_truncation_status = (r->flags & POSIX_TRACE_REC_TRUNCATED) ?
		POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED;
}

/* A lane's next record as pt_copy_next() copied it. */
struct pt_copy {
	struct posix_trace_record rec;
	uint64_t head, pos;
	int valid;	/* the header can be believed */
	int pass;	/* and the gate lets it through (pt_gate_pass()) */
	int direct;	/* its data went to the caller */
	uint8_t *data;
	size_t n;	/* bytes of data copied */
	/* A kernel lane's START or FILTER: the filter(s) it carries. */
	struct posix_trace_event_set sets[2];
};

enum { PT_COPY_OK, PT_COPY_EMPTY, PT_COPY_BAD, PT_COPY_TORN };

/*
 * Copy lane @l's next record into @r: its data straight to @out when it
 * can go there (nothing queued, nothing lost, the gate lets it through),
 * else where it is queued, after what may go before it (an ERROR, an
 * OVERFLOW and a RESUME).  PT_COPY_TORN: the writer reused the bytes
 * while we copied.
 */
static int pt_copy_next(struct pt_handle *h, struct pt_rlane *l,
			const struct pt_out *out, struct pt_copy *r)
{
	size_t slot_cap = h->data_cap / PT_PENDING_MAX;
	const struct posix_trace_record *rec = &r->rec;
	uint64_t oldest;

	if (pt_rlane_span(l, &r->head, &r->pos))
		return PT_COPY_BAD;
	if ((int64_t)(r->head - r->pos) <= 0)
		return PT_COPY_EMPTY;
	if (r->head - r->pos > l->size)
		return PT_COPY_BAD;
	pt_ring_copy(l, r->pos, &r->rec, sizeof(r->rec));
	r->valid = pt_rec_valid(l, rec, r->head - r->pos,
				l->user ? h->attr.__max_data_size : slot_cap);
	r->pass = r->valid &&
		  (!l->user || pt_gate_pass(&h->gate, rec->timestamp, rec->event_id));
	r->direct = r->pass && r->pos == l->cur.pos && !l->cur.loss_pending &&
		    !h->npending;
	r->data = h->data + (h->pending_head + PT_PENDING_MAX - 1) % PT_PENDING_MAX *
		  slot_cap;
	r->n = rec->data_len;
	if (r->direct) {
		r->data = out->data;
		r->n = r->n < out->num_bytes ? r->n : out->num_bytes;
	}
	if (r->pass && r->n)
		pt_ring_copy(l, r->pos + PT_RECORD_HDR_SIZE, r->data, r->n);
	if (r->valid && !l->user && pt_gate_is_control(rec->event_id))
		pt_ring_copy(l, r->pos + PT_RECORD_HDR_SIZE, r->sets,
			     rec->data_len < sizeof(r->sets) ? rec->data_len :
							       sizeof(r->sets));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	oldest = PT_LOAD(l->oldest);
	if ((int64_t)(oldest - r->pos) > 0 && (int64_t)(oldest - r->head) <= 0)
		return PT_COPY_TORN;
	return PT_COPY_OK;
}

/* The cursor of lane @l moves past @rec, at @pos. */
static void pt_consume(struct pt_rlane *l, uint64_t pos, const struct posix_trace_record *rec)
{
	l->cur.pos = pos + rec->size;
	l->cur.next_seq = rec->seq + 1;
	l->cur.seq_known = 1;
	l->cur.last_ts = rec->timestamp;
}

/*
 * Consume the next record of lane @l.  When nothing is queued and no
 * OVERFLOW/RESUME has to go first (RULE-17), it goes straight to @out
 * (PT_DIRECT); otherwise into the pending queue (PT_QUEUED).  PT_EMPTY
 * when the lane turned out empty, PT_SKIPPED when the record was consumed
 * but is not delivered (the gate refused it) and nothing was queued.
 */
static int pt_take(struct pt_handle *h, struct pt_rlane *l, const struct pt_out *out)
{
	struct pt_cursor *c = &l->cur;
	unsigned int tries = 0;
	struct pt_pending *p;
	struct pt_copy r;
	int ret, queued;

	c->peek_ts = 0;		/* the cursor moves, whatever happens */
	if (l->broken) {
		pt_push_error(h, l->broken, l->pid);
		l->broken = 0;
		return PT_QUEUED;
	}
	do
		ret = pt_copy_next(h, l, out, &r);
	while (ret == PT_COPY_TORN && ++tries < PT_COPY_TRIES);
	if (ret == PT_COPY_EMPTY)
		return pt_take_none(h, l, r.pos);
	if (ret != PT_COPY_OK || !r.valid)
		return pt_rlane_corrupt(h, l, r.head);
	queued = r.pos != c->pos && pt_take_lost(h, l, &r.rec);
	if (!l->user && pt_gate_is_control(r.rec.event_id))
		pt_gate_control(&h->gate, r.rec.event_id, r.rec.timestamp, r.sets,
				r.rec.data_len);
	if (r.pass && l->user && c->loss_pending)
		pt_push_loss(h, l, &r.rec);
	pt_consume(l, r.pos, &r.rec);
	if (!r.pass) {
		h->gate.refused++;
		__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
		return queued ? PT_QUEUED : PT_SKIPPED;
	}
	if (l->user)
		r.rec.pid = l->pid;
	if (r.direct) {
		pt_fill_info(h, &r.rec, out->ev);
		if (r.n < r.rec.data_len)
			out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
		*out->data_len = r.n;
		__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
		return PT_DIRECT;
	}
	p = pt_push(h);
	p->rec = r.rec;
	if (p->data_off != (uint32_t)(r.data - h->data))
		memmove(h->data + p->data_off, r.data, r.rec.data_len);
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return PT_QUEUED;
}

/*
 * pt_take() for the common case, with no copy but into @out: the record at
 * the cursor (its offset and timestamp known from pt_pick()), nothing
 * pending, nothing lost, header and data contiguous in the ring, not a
 * control event, and from a writer lane only what the gate lets through.
 * Returns 0, having consumed nothing, for anything else (pt_take() then
 * decides it); 1 when the record went to @out.
 */
static int pt_take_fast(struct pt_handle *h, struct pt_rlane *l, const struct pt_out *out)
{
	struct pt_cursor *c = &l->cur;
	uint64_t off = c->peek_off, pos = c->pos;
	uint64_t head = PT_LOAD_ACQ(l->head);
	struct posix_trace_record rec;
	size_t n;

	if (h->npending || l->broken || c->loss_pending || head - pos > l->size ||
	    head % 8 || off > l->size - PT_RECORD_HDR_SIZE)
		return 0;
	memcpy(&rec, l->ring + off, sizeof(rec));
	if (!pt_rec_valid(l, &rec, head - pos, l->user ? h->attr.__max_data_size :
			  h->data_cap / PT_PENDING_MAX) ||
	    rec.size > l->size - off)
		return 0;
	if (l->user ? !pt_gate_pass(&h->gate, rec.timestamp, rec.event_id) :
		      pt_gate_is_control(rec.event_id))
		return 0;
	n = rec.data_len < out->num_bytes ? rec.data_len : out->num_bytes;
	memcpy(out->data, l->ring + off + PT_RECORD_HDR_SIZE, n);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((int64_t)(PT_LOAD(l->oldest) - pos) > 0)
		return 0;	/* overwritten while we copied */
	if (l->user)
		rec.pid = l->pid;
	pt_fill_info(h, &rec, out->ev);
	if (n < rec.data_len)
		out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	*out->data_len = n;
	pt_consume(l, pos, &rec);
	c->peek_ts = 0;
	if (c->pos != head) {
		off += rec.size;
		c->peek_off = off == l->size ? 0 : off;
		c->peek_ts = pt_ts_at(l, c->peek_off);
	}
	__atomic_store_n(l->tail, c->pos, __ATOMIC_RELEASE);
	return 1;
}

/*
 * Nothing to read: make sure the kernel agrees before the caller sleeps.
 * A writer lane whose oldest passed its head claimed a loss: that may
 * give an ERROR to deliver (returns 1).
 */
static int pt_fetch_none(struct pt_handle *h)
{
	uint64_t head, pos;
	unsigned int i;

	for (i = h->nr_lanes; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		if (l->broken || pt_rlane_span(l, &head, &pos))
			continue;
		if ((int64_t)(head - pos) <= 0 && pos != l->cur.pos) {
			l->cur.peek_ts = 0;
			if (pt_take_none(h, l, pos) == PT_QUEUED)
				return 1;
		}
		if (PT_LOAD(l->tail) != l->cur.pos)
			__atomic_store_n(l->tail, l->cur.pos, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Take the oldest record of all lanes (pt_pick()), straight to @out when
 * it can (returns 2), else into the pending queue (returns 1); 0 when
 * every lane is empty, -1 when the oldest record must wait for an older
 * one being written (pt_inflight()) or PT_SKIP_MAX records were skipped.
 * Bounded, so a writer that keeps changing its lane under us cannot keep
 * the reader here. */
static int pt_fetch(struct pt_handle *h, const struct pt_out *out)
{
	unsigned int round = 0, skipped = 0;
	struct pt_rlane *l;
	uint64_t ts;
	int best, ret;

	while (round < 4 * h->nr_rlanes + 4) {
		best = pt_pick(h, &ts);
		if (best < 0) {
			if (pt_rlanes_discover(h)) {
				round++;
				continue;
			}
			break;
		}
		l = &h->lanes[best];
		/* Records older than h->safe_ts are known to be in order. */
		if (ts >= h->safe_ts && ts != PT_TS_BAD) {
			ret = pt_inflight(h, (unsigned int)best, ts);
			if (ret == PT_HOLD)
				return -1;
			if (ret == PT_REPICK) {
				round++;
				continue;
			}
		}
		if (l->cur.peek_ts && pt_take_fast(h, l, out))
			return 2;
		ret = pt_take(h, l, out);
		if (ret == PT_QUEUED || ret == PT_DIRECT)
			return ret == PT_DIRECT ? 2 : 1;
		/* A record skipped is progress: it costs no round. */
		if (ret == PT_EMPTY)
			round++;
		else if (++skipped >= PT_SKIP_MAX)
			return -1;
	}
	return pt_fetch_none(h);
}

static void pt_deliver(struct pt_handle *h, const struct pt_out *out)
{
	struct pt_pending *p = &h->pending[h->pending_head];
	size_t n = p->rec.data_len;

	pt_fill_info(h, &p->rec, out->ev);
	if (n > out->num_bytes) {
		n = out->num_bytes;
		out->ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	}
	if (n)
		memcpy(out->data, h->data + p->data_off, n);
	*out->data_len = n;
	h->pending_head = (h->pending_head + 1) % PT_PENDING_MAX;
	h->npending--;
}

/* One attempt without sleeping: 0 and *@got set, or an errno.  *@held
 * says that a record is there but waits for an older one being written. */
static inline __attribute__((always_inline)) int pt_try_read(struct pt_handle *h, const struct pt_out *out, int *got,
							     int *held)
{
	int ret = 0;

	*got = 0;
	*held = 0;
	pt_lock(&h->lock);
	if (h->dead) {
		ret = EINVAL;
	} else if (h->npending) {
		pt_deliver(h, out);
		*got = 1;
	} else {
		switch (pt_fetch(h, out)) {
		case -1:
			*held = 1;
			break;
		case 1:
			pt_deliver(h, out);
			/* fall through */
		case 2:
			*got = 1;
		}
	}
	pt_unlock(&h->lock);
	return ret;
}

static int pt_wait(trace_id_t trid, const struct timespec *abstime)
{
	struct posix_trace_wait w = { .size = sizeof(w), .trid = (uint32_t)trid };
	int ret, oldtype;

	if (abstime) {
		w.flags = POSIX_TRACE_WAIT_TIMEOUT;
		if (abstime->tv_sec < 0)
			w.abstime = 0;
		else if ((uint64_t)abstime->tv_sec >= UINT64_MAX / 1000000000u)
			w.abstime = UINT64_MAX;	/* beyond any clock: saturate */
		else
			w.abstime = (uint64_t)abstime->tv_sec * 1000000000u +
				    (uint64_t)abstime->tv_nsec;
	}
	/* Only the blocking calls are cancellation points (spec 5.28); the
	 * kernel dequeues nothing while we sleep, so no event is lost. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	ret = pt_ioctl(POSIX_TRACE_IOC_WAIT, &w);
	pthread_setcanceltype(oldtype, &oldtype);
	return ret;
}

/* A traced process can keep a writer lane looking non-empty to the kernel:
 * the deadline is checked here too, so a timed read always ends. */
static int pt_deadline_passed(const struct timespec *abstime)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec > abstime->tv_sec ||
	       (now.tv_sec == abstime->tv_sec && now.tv_nsec >= abstime->tv_nsec);
}

/*
 * Naps instead of WAIT.  PT_NAP_HOLD: a record is there but waits for an
 * older one a writer is still writing (pt_inflight()); the kernel would
 * answer WAIT at once (it sees the record), and the writer commits, or
 * its stamp grows stale, within PT_INFLIGHT_NS.  PT_NAP_IDLE: WAIT said
 * a lane holds something and the read found nothing to deliver (a writer
 * lane holding what the reader skips, or a head it keeps moving): the
 * kernel would answer the next WAIT at once too, so nap first, 100 us
 * doubling up to PT_IDLE_NS, the kernel's own polling period of writer
 * lanes.  A caught signal gives EINTR, as WAIT would.
 */
enum { PT_NAP_NONE, PT_NAP_HOLD, PT_NAP_IDLE };
#define PT_NAP_NS	100000u
#define PT_IDLE_NS	10000000u

/* Sleep @ns, not past @abstime (CLOCK_REALTIME) if given. */
static int pt_nap(uint64_t ns, const struct timespec *abstime)
{
	struct timespec d, now;
	int saved = errno, ret = 0;
	int64_t left;

	if (abstime) {
		clock_gettime(CLOCK_REALTIME, &now);
		left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
		       (abstime->tv_nsec - now.tv_nsec);
		if (left <= 0)
			return 0;
		if ((uint64_t)left < ns)
			ns = (uint64_t)left;
	}
	d.tv_sec = (time_t)(ns / 1000000000u);
	d.tv_nsec = (long)(ns % 1000000000u);
	if (nanosleep(&d, NULL) && errno == EINTR)
		ret = EINTR;
	errno = saved;
	return ret;
}

static uint64_t pt_idle_ns(unsigned int idle)
{
	uint64_t ns = (uint64_t)PT_NAP_NS << idle;

	return ns < PT_IDLE_NS ? ns : PT_IDLE_NS;
}

/* @h: a reference of our own to drop, or NULL for the thread's cache. */
static void pt_put_cleanup(void *h)
{
	if (h)
		pt_handle_put(h);
}

/* Nothing at hand: sleep until an event comes (mode 0) or until @abstime
 * (mode 2, 3: past it), reading again after each wake-up. */
static int pt_getnext_wait(struct pt_handle *h, int put, trace_id_t trid,
			   const struct pt_out *out, int mode,
			   const struct timespec *abstime, int *got, int held)
{
	/* volatile: they survive the cleanup handler's setjmp */
	volatile int how = mode, ret = 0, tmp = 0;
	volatile int nap = held ? PT_NAP_HOLD : PT_NAP_NONE;
	volatile unsigned int idle = 0;
	const struct timespec *until;

	pthread_cleanup_push(pt_put_cleanup, put ? h : NULL);
	while (!ret && !tmp) {
		if (how == 3) {
			ret = ETIMEDOUT;
		} else if (how == 2 && (!abstime || abstime->tv_nsec < 0 ||
					abstime->tv_nsec >= 1000000000)) {
			ret = EINVAL;
		} else {
			until = how == 2 ? abstime : NULL;
			if (nap == PT_NAP_HOLD)
				ret = pt_nap(PT_NAP_NS, NULL);
			else if (nap == PT_NAP_IDLE)
				ret = pt_nap(pt_idle_ns(idle), until);
			else
				ret = pt_wait(trid, until);
			if (ret)
				break;
			if (how == 2 && pt_deadline_passed(abstime))
				how = 3;	/* one last try, then ETIMEDOUT */
			ret = pt_try_read(h, out, got, &held);
			tmp = *got;
			if (held) {
				nap = PT_NAP_HOLD;
			} else if (nap == PT_NAP_NONE && !tmp) {
				nap = PT_NAP_IDLE;
				idle += idle < 7;
			} else {
				nap = PT_NAP_NONE;
			}
		}
	}
	pthread_cleanup_pop(0);
	return ret;
}

/* mode: 0 block, 1 try, 2 timed */
static inline __attribute__((always_inline)) int pt_getnext(trace_id_t trid, struct posix_trace_event_info *ev,
		      void *data, size_t num_bytes, size_t *data_len,
		      int *unavailable, int mode, const struct timespec *abstime)
{
	const struct pt_out out = {
		.ev = ev, .data = data, .num_bytes = num_bytes, .data_len = data_len,
	};
	struct pt_handle *h;
	int ret, got, put, held;

	if (!ev || !data_len || !unavailable || (num_bytes && !data))
		return EINVAL;
	if (trid < 0)	/* pre-recorded (log_open.c); trygetnext: never */
		return mode == 1 ? EINVAL :
			pt_log_getnext(trid, ev, data, num_bytes, data_len, unavailable);
	h = pt_handle_cached(trid, &put);
	if (!h)
		return EINVAL;
	if (__builtin_expect(h->withlog, 0)) {
		/* The module's flusher is its only reader (design.md §10). */
		if (put)
			pt_handle_put(h);
		return EINVAL;
	}
	/* An event at hand: no cancellation point, no cleanup handler. */
	ret = pt_try_read(h, &out, &got, &held);
	if (!ret && !got && mode != 1)
		ret = pt_getnext_wait(h, put, trid, &out, mode, abstime, &got, held);
	if (put)
		pt_handle_put(h);
	if (!ret)
		*unavailable = !got;
	return ret;
}

PT_EXPORT int posix_trace_getnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 0, NULL);
}

PT_EXPORT int posix_trace_trygetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 1, NULL);
}

PT_EXPORT int posix_trace_timedgetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable,
		const struct timespec *restrict abstime)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 2, abstime);
}
