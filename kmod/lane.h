/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lanes and rings: a kernel lane (struct pt_lane, written by the kernel
 * only) and a writer lane (struct pt_writer, memory its process writes),
 * how they are laid out, and the inline readers of a writer lane's ring.
 * The layer above base.h; streams (stream.h) own lanes.
 */
#ifndef PT_LANE_H
#define PT_LANE_H

#include <linux/spinlock.h>
#include "base.h"

#define PT_LANE_RESERVE		2048	/* room for control events */
#define PT_LANE_STRIDE		64	/* one cache line per descriptor */
#define PT_CONS_STRIDE		64
#define PT_MAX_SYS_EVENT \
	ALIGN(sizeof(struct posix_trace_record) + \
	      2 * sizeof(struct posix_trace_event_set), 8)

/* Writers of one lane serialise on @lock; the kernel keeps its own copy of
 * every position and never reads one back from shared memory except the
 * reader's tail, which it clamps.
 *
 * @lock is raw: kernel events are recorded from probes that run with
 * preemption disabled, some under the scheduler's raw locks, where a
 * PREEMPT_RT spinlock_t (a sleeping lock) may not be taken.  What it
 * covers is bounded: one record's copy (at most POSIX_TRACE_MAX_DATA_MAX
 * bytes) and the evictions that make room for it (record.c).
 */
struct pt_lane {
	raw_spinlock_t lock;	/* serialises writers of this lane */
	struct posix_trace_lane *desc;
	struct posix_trace_consumer *cons;
	u8 *ring;
	u64 size;
	u64 head;
	u64 oldest;
	u64 seq;
	u64 flush_mark;		/* see pt_lane_crossed_mark() */
	u64 kicked;		/* the mark that asked last, @lock */
};

/*
 * struct pt_writer - a writer lane: memory shared read-write by the traced
 * process that owns it and the controller (layout: struct
 * posix_trace_writer_ctl, then the ring).  Lifetime: the stream's; freed
 * with it, while mappings keep the pages.  The kernel reads the shared
 * fields with READ_ONCE() only and trusts none of them.
 */
struct pt_writer {
	struct posix_trace_writer_ctl *ctl;
	void *mem;
	size_t mem_size;
	u64 data_size;
	struct pid *tgid;
	/* @ctl->dropped at the last clear (pt_writers_dropped()) */
	u64 dropped_base;
};

/*
 * struct pt_writer_cursor - the flusher's reader of a writer lane's ring,
 * by 8-byte words (take_run.c): a record is a few words, which a string
 * move takes longer to start than this takes to finish, and emulators far
 * longer (Documentation/performance.md, "The log worker").  The ring is
 * the writer's memory, which it may change at any time: each word is
 * loaded once, and what is checked is the copy loaded.
 */
struct pt_writer_cursor {
	const u64 *ring;
	size_t words;	/* in the ring */
	size_t at;	/* of the next word */
};

static __always_inline u64 pt_writer_word(struct pt_writer_cursor *c)
{
	u64 v = READ_ONCE(c->ring[c->at]);

	if (++c->at == c->words)
		c->at = 0;
	return v;
}

/* A cursor on writer @w's ring at position @pos, a multiple of 8. */
static __always_inline void pt_writer_cursor_at(const struct pt_writer *w,
						u64 pos,
						struct pt_writer_cursor *c)
{
	c->ring = (const u64 *)((const u8 *)w->mem + PAGE_SIZE);
	c->words = w->data_size / 8;
	c->at = (pos % w->data_size) / 8;
}

/* The next @n words at @c where they do not wrap (the cursor then moves
 * past them), else NULL (it does not move): most records are read without
 * an end test per word.
 */
static __always_inline const u64 *pt_writer_flat(struct pt_writer_cursor *c,
						 size_t n)
{
	const u64 *p;

	if (c->at + n >= c->words)
		return NULL;
	p = c->ring + c->at;
	c->at += n;
	return p;
}

/* Skip @n words, fewer than the ring has. */
static __always_inline void pt_writer_skip(struct pt_writer_cursor *c, size_t n)
{
	c->at += n;
	if (c->at >= c->words)
		c->at -= c->words;
}

/*
 * Can the header @rec, the log worker's copy of a writer lane's record
 * with @avail bytes of the lane from it on, be a record the library
 * wrote for a stream of @max_data bytes of data at most?
 * (pt_writer_peek(), and take_run.c's runs, which check their copies too;
 * inline: the worker asks it for every record.)
 */
static inline bool pt_writer_rec_honest(u64 max_data,
					const struct posix_trace_record *rec,
					u64 avail)
{
	return rec->size >= sizeof(*rec) && rec->size % 8 == 0 &&
	       rec->size <= avail &&
	       rec->data_len <= rec->size - sizeof(*rec) &&
	       rec->data_len <= max_data &&
	       rec->event_id >= POSIX_TRACE_ID_UNNAMED &&
	       rec->event_id < POSIX_TRACE_ID_NR &&
	       !(rec->flags & ~(u32)POSIX_TRACE_REC_TRUNCATED);
}

#endif /* PT_LANE_H */
