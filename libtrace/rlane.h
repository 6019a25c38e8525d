/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lanes as the reader sees them (rlane.c): the kernel lanes of the
 * read-only region and the writer lanes of traced processes, mapped as
 * they appear; each with the reader's cursor.  Everything the reader
 * knows of a lane's positions comes through here, checked
 * (pt_rlane_span()).
 */
#ifndef PT_RLANE_H
#define PT_RLANE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/posix_trace.h>
#include "handle.h"
#include <posix_trace/ring.h>

#define PT_LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define PT_LOAD(p)	__atomic_load_n((p), __ATOMIC_RELAXED)

#define PT_TS_OFFSET	offsetof(struct posix_trace_record, timestamp)
_Static_assert(PT_TS_OFFSET % 8 == 0, "the timestamp never wraps");

/*
 * Writer lanes (Documentation/design.md, "Writer lanes", Trust).  No
 * writer gets anywhere near 2^62 bytes: a lane claiming a position past
 * it is ignored until the next clear.  A lane whose positions cannot be believed has
 * no record to offer: it sorts after every record (PT_TS_BAD).  What a
 * lane can make the reader report is bounded in trust.c, what a fetch
 * skips in merge.c.
 */
#define PT_POS_MAX	(1ULL << 62)
#define PT_TS_BAD	(UINT64_MAX - 1)

struct pt_cursor {
	uint64_t pos;		/* next record to read; published as tail */
	uint64_t next_seq;	/* seq expected at pos */
	int seq_known;		/* 0 after a corrupt record: take what comes */
	/* The record at @pos as last seen, so that a drain reads each header
	 * once and an empty lane costs one load (merge.c, pt_pick()): its
	 * timestamp (0: not known) and its ring offset, @pos % size. */
	uint64_t peek_ts;
	uint64_t peek_off;
	uint64_t last_ts;	/* timestamp of the last record consumed */
	/* Writer lanes: a loss to report before the lane's next record
	 * delivered (pending.c, pt_push_loss()), and its OVERFLOW time (0:
	 * that record's). */
	int loss_pending;
	uint64_t loss_ts;
};

/*
 * A lane as the reader sees it.  Kernel lanes live in the read-only region
 * and are written by the kernel alone.  Writer lanes are written by a
 * traced process: only @ring, @size and @pid (from the kernel's descriptor)
 * are trusted; every position and record read through the pointers is
 * validated before use (rlane.c, trust.c).
 */
struct pt_rlane {
	const uint8_t *ring;
	uint64_t size;
	const __u64 *head, *oldest, *lost_seq, *lost_ts;
	const __u64 *inflight;	/* writer lanes: ctl->inflight_ts */
	uint64_t inflight_stale;	/* a stamp found stuck: no clock read again */
	uint64_t clock_head;	/* head when POSIX_TRACE_INFLIGHT_CLOCK was */
	uint64_t clock_since;	/* first seen there, reader's clock (0: not) */
	/* The record this lane last held back (lane index, position), how
	 * long its earlier writes held it, the write holding it now (the
	 * lane's head) from its first to its last sighting, and until when
	 * the lane may hold nothing (inflight.c, pt_held_too_long()). */
	unsigned int held_lane;
	uint64_t held_pos, held_ns, held_head, held_first, held_last;
	uint64_t hold_off_until;
	__u64 *tail;
	uint32_t pid;		/* writer lanes: the writing process */
	int user;		/* a writer lane */
	int broken;		/* errno to report once: the lane is unusable */
	uint64_t reported;	/* reader's clock at the lane's last ERROR */
	__u64 broken_tail;
	void *map;		/* writer lanes: our mapping of it */
	size_t map_len;
	struct pt_cursor cur;
};

/*
 * The ring copy on the reader's side: @len bytes of lane @l from position
 * @pos, wrapping at the ring's end (pt_ring_copy_out(), <posix_trace/ring.h>).
 */
static inline void pt_ring_copy(const struct pt_rlane *l, uint64_t pos, void *dst, size_t len)
{
	pt_ring_copy_out(l->ring, l->size, pos % l->size, dst, len);
}

/* Timestamp of the record at ring offset @off (never 0: 0 means "not
 * known").  Records start 8-aligned in a ring of 8-byte multiples: the
 * field never wraps, one load reads it. */
static inline uint64_t pt_ts_at(const struct pt_rlane *l, uint64_t off)
{
	uint64_t ts;

	off += PT_TS_OFFSET;
	if (off >= l->size)
		off -= l->size;
	ts = PT_LOAD((const uint64_t *)(l->ring + off));
	return ts ? ts : 1;
}

/* The reader's clock: CLOCK_MONOTONIC in ns, the clock of every stamp. */
static inline uint64_t pt_mono_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Set up the kernel lanes (0 or an errno); resynchronise all cursors on
 * the lanes' oldest records; unmap the writer lanes. */
int pt_rlanes_init(struct pt_handle *h);
void pt_cursors_reset(struct pt_handle *h);
/* After posix_trace_clear(), done by @when: the cursors are reset and the
 * gate forgets what the cleared control events said. */
void pt_rlanes_cleared(struct pt_handle *h, uint64_t when);
void pt_rlanes_unmap(struct pt_handle *h);
/* Writer lane @i of the header, mapped at @p (MAP_FAILED if it could not
 * be); pt_rlanes_discover() maps them, host tests attach their own. */
void pt_rlane_attach_writer(struct pt_handle *h, unsigned int i, void *p);
void pt_rlane_map_writer(struct pt_handle *h, unsigned int i);
/* A writer's position rounded up to the 8-byte grid; a writer lane that
 * is never read again (until a clear). */
uint64_t pt_pos_up(uint64_t pos);
void pt_rlane_ignore(struct pt_rlane *l);
/* What lane @l offers: [*@startp, *@headp), or -1 when it cannot be
 * believed. */
int pt_rlane_span(const struct pt_rlane *l, uint64_t *headp, uint64_t *startp);
/* Timestamp of lane @l's next record (0: empty; PT_TS_BAD: not to be
 * believed). */
uint64_t pt_peek(struct pt_handle *h, struct pt_rlane *l);

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

#endif /* PT_RLANE_H */
