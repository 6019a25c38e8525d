/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the log worker reads a lane, whatever its kind: the kernel lanes
 * (record.c), which only the kernel writes, and the writer lanes
 * (writer.c), which the traced process writes and may scribble on.
 */
#ifndef PT_LANE_SOURCE_H
#define PT_LANE_SOURCE_H

#include <linux/types.h>

struct pt_stream;
struct posix_trace_record;

/*
 * struct pt_lane_source - one kind of lane, as the log worker sees it.
 * The worker binds each of its cursors to a kind once, when the log is
 * created (drain.c, pt_src_bind()): the only place that tells the kinds
 * apart by index.  @j is the lane's index among its kind.  Called under
 * the log's lock, from the worker or a clear.
 */
struct pt_lane_source {
	/* Its records are claims the gate checks (design.md §4, "Trust"). */
	bool claims;
	/*
	 * The header of the record at *@pos in @rec: 1; nothing below
	 * @limit: 0; a lane that cannot be believed: -EIO.  Records
	 * overwritten before the worker got them move *@pos up to the
	 * oldest one and set *@lost.  *@pos only moves forward.
	 */
	int (*peek)(struct pt_stream *s, unsigned int j, u64 *pos, u64 limit,
		    bool *lost, struct posix_trace_record *rec);
	/* The data of the record at @pos; false: overwritten meanwhile. */
	bool (*copy)(struct pt_stream *s, unsigned int j, u64 pos, void *dst,
		     u32 len);
	/* Where the worker goes on after a clear; the seq there in *@seq,
	 * and whether it is known.
	 */
	u64 (*start)(struct pt_stream *s, unsigned int j, u64 *seq,
		     bool *seq_known);
	/* When the record of seq @seq, lost at the worker's tail, was
	 * stamped, if the lane said (else U64_MAX).
	 */
	u64 (*lost_ts)(struct pt_stream *s, unsigned int j, u64 seq);
	/* Everything below @pos is logged: free for the writers again. */
	void (*consumed)(struct pt_stream *s, unsigned int j, u64 pos);
	/* Every record stamped before this is visible (U64_MAX: all). */
	u64 (*inflight)(struct pt_stream *s, unsigned int j, u64 now,
			u64 bound_ns);
	/* The head now: a flush takes nothing beyond it. */
	u64 (*head)(struct pt_stream *s, unsigned int j);
	/* The ring's bytes: at most what one flush takes from the lane. */
	u64 (*size)(struct pt_stream *s, unsigned int j);
	/* The pid of the worker's reports about the lane (0: none). */
	u32 (*pid)(struct pt_stream *s, unsigned int j);
};

extern const struct pt_lane_source pt_kernel_lanes;	/* record.c */
extern const struct pt_lane_source pt_writer_lanes;	/* writer.c */

#endif /* PT_LANE_SOURCE_H */
