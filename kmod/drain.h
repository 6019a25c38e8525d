/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log worker's cursors in the lanes of a stream with log: shared by
 * the merge (drain.c) and the runs of writer records (take_run.c) only.
 */
#ifndef PT_DRAIN_H
#define PT_DRAIN_H

#include "log.h"

/* Copies of one record that may fail in one flush (pt_take()). */
#define PT_LOG_COPY_TRIES	4

/* The flusher's cursor in one lane: kernel lanes first, then writers. */
struct pt_src {
	u64 pos;		/* next record */
	u64 limit;		/* head when this flush began */
	u64 next_seq;		/* seq of the record at @pos, if @seq_known */
	u64 lost_ts;		/* time of the first lost record, if known */
	u64 last_ts;		/* time of the last record that left the lane */
	u64 budget;		/* bytes this flush may still take here */
	u64 reported;		/* writer lane: time of its last ERROR, or 0 */
	bool seq_known;		/* not after a clear or a corrupt writer lane */
	u8 copy_fails;		/* in a row, at @pos */
	bool peeked;		/* @rec is the header of the record at @pos */
	bool empty;		/* nothing more below @limit in this flush */
	bool lost;		/* records before @pos were overwritten */
	struct posix_trace_record rec;
	const struct pt_lane_source *lane;	/* its kind (pt_src_bind()) */
	unsigned int j;		/* its index among its kind */
};

/* The record at @src's position could not be copied whole (its writer
 * reused it meanwhile): a writer doing so for ever leaves the rest of its
 * lane to the next flush.
 */
static inline void pt_src_copy_failed(struct pt_src *src)
{
	if (++src->copy_fails >= PT_LOG_COPY_TRIES)
		src->empty = true;
}

u32 pt_take_run(struct pt_stream *s, struct pt_src *src, u64 bound);

#endif /* PT_DRAIN_H */
