// SPDX-License-Identifier: GPL-2.0
/*
 * The log worker's merge: every lane of a stream with log, oldest record
 * first, into EVENTS blocks (logf.c packs and writes them), with the
 * OVERFLOW/RESUME of what a lane lost and the writer lanes' records
 * checked by the gate (gate.c).  A writer's plain records go as runs
 * (take_run.c).  log.c decides when this runs (design.md §10).
 */
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <posix_trace/merge.h>
#include "drain.h"

/* In-flight stamps older than this are not believed (design.md §4). */
#define PT_LOG_INFLIGHT_NS	NSEC_PER_SEC

/*
 * Cursor @i reads kernel lane @i, or writer lane @i - nr_lanes after the
 * kernel lanes: the one place that tells the kinds apart by index.
 */
static void pt_src_bind(struct pt_stream *s, unsigned int i, struct pt_src *src)
{
	if (i < s->nr_lanes) {
		src->lane = &pt_kernel_lanes;
		src->j = i;
	} else {
		src->lane = &pt_writer_lanes;
		src->j = i - s->nr_lanes;
	}
}

static unsigned int pt_nr_src(struct pt_stream *s)
{
	return s->nr_lanes + pt_nr_writers(s);
}

/* Everything logged so far is free for the writers again. */
static void pt_publish(struct pt_stream *s)
{
	unsigned int i, n = pt_nr_src(s);

	for (i = 0; i < n; i++) {
		const struct pt_src *src = &s->log->src[i];

		src->lane->consumed(s, src->j, src->pos);
	}
}

/* First error of a flush: kept for get_status (RULE-34). */
void pt_drain_error(struct pt_log *log, int *first, int err)
{
	if (!err)
		return;
	atomic_set(&log->log_overrun, 1);	/* the block's events are lost */
	atomic_cmpxchg(&log->flush_error, 0, -err);
	if (!*first)
		*first = err;
}

/* Write the EVENTS block, then free the space of its records. */
static void pt_write_block(struct pt_stream *s, int *first)
{
	int err = 0;

	if (s->log->count) {
		u32 count = s->log->user_count;

		err = pt_logf_write_types(s);
		if (!err)
			err = pt_logf_write_events(s);
		else
			pt_logf_drop(s->log);
		if (err)
			s->log->write_lost += count;
	}
	pt_drain_error(s->log, first, err);
	pt_publish(s);
	/* Room, after the lanes' tails: a writer waiting for it goes on
	 * while the rest of the run is written.
	 */
	smp_store_release(&s->log->published, s->log->published + 1);
	if (wq_has_sleeper(&s->log->done_wq))
		wake_up_all(&s->log->done_wq);
}

/* @pid: 0, or the writer's for a report about its lane (design.md §9). */
static void pt_add_marker(struct pt_log *log, u32 id, u64 ts,
			  const void *data, u32 len, u32 pid)
{
	struct posix_trace_record rec = {
		.size = pt_log_rec_size(len),
		.event_id = id,
		.pid = pid,
		.data_len = len,
		.flags = POSIX_TRACE_REC_AUTO,
		.timestamp = ts,
	};

	void *p = pt_logf_reserve(log, &rec);

	if (len)
		memcpy(p, data, len);
	pt_logf_commit(log, &rec);
}

/*
 * Make room for @need bytes in the block; false when the log takes no
 * more (UNTIL_FULL): the record is then discarded, and the first discard
 * ends the log with STOP(auto) (RULE-41, room kept for it).
 */
static bool pt_room(struct pt_stream *s, u32 need, u64 ts, int *first)
{
	static const int auto_stop = 1;
	struct pt_log *log = s->log;

	if (log->full && log->policy == POSIX_TRACE_LOG_UNTIL_FULL) {
		atomic_set(&log->log_overrun, 1);
		return false;
	}
	if (max_t(u32, log->len, POSIX_TRACE_LOG_BLOCK_HDR) + need +
	    pt_log_rec_size(sizeof(int)) > log->block_max)
		pt_write_block(s, first);
	if (need <= pt_logf_events_room(log))
		return true;
	pt_add_marker(log, POSIX_TRACE_ID_STOP, ts, &auto_stop, sizeof(auto_stop),
		      0);
	log->full = true;
	atomic_set(&log->log_overrun, 1);
	return false;
}

/* Time of the first record lane @i lost at @src's position, if the lane
 * published it (U64_MAX if not).
 */
static u64 pt_lost_ts(struct pt_stream *s, const struct pt_src *src)
{
	if (!src->seq_known)
		return U64_MAX;
	return src->lane->lost_ts(s, src->j, src->next_seq);
}

/* The record at @src's position is gone for the log: it is the first one
 * lost unless an earlier one was.
 */
static void pt_src_lost(struct pt_src *src, u64 ts)
{
	if (!src->lost)
		src->lost_ts = ts;
	src->lost = true;
}

/* The record @src has peeked leaves the lane, logged or not.  It counts
 * against the flush's budget for the lane (pt_snapshot()).
 */
static void pt_src_advance(struct pt_src *src)
{
	src->budget -= min_t(u64, src->budget, src->rec.size);
	src->pos += src->rec.size;
	src->next_seq = src->rec.seq + 1;
	src->seq_known = true;
	src->last_ts = src->rec.timestamp;
	src->lost = false;
	src->copy_fails = 0;
}

/* The gate keeps the writer-lane record @src has peeked out of the log.
 * A loss of the lane is still reported before its next record logged.
 */
static void pt_src_refuse(struct pt_log *log, struct pt_src *src)
{
	bool lost = src->lost;

	src->peeked = false;
	pt_src_advance(src);
	src->lost = lost;
	log->gate->refused++;
}

/*
 * The time of the OVERFLOW before @rec, the next record logged from
 * @src's lane: the first lost record's (RULE-8) when the lane told it,
 * else the survivor's, which RESUME carries (RULE-9).  A writer lane's
 * word is kept between its last record and @rec.
 */
static u64 pt_overflow_ts(const struct pt_src *src,
			  const struct posix_trace_record *rec)
{
	u64 ts = min(src->lost_ts, rec->timestamp);

	if (!src->lane->claims)
		return ts;
	return max(ts, min(src->last_ts, rec->timestamp));
}

/* Log the record @src has peeked, with OVERFLOW/RESUME before it if
 * records of its lane were lost (spec 5.15).  A writer lane's record only
 * if the gate lets it through (design.md §4 "Trust").
 */
static void pt_take(struct pt_stream *s, struct pt_src *src, int *first)
{
	struct pt_log *log = s->log;
	struct posix_trace_record rec = src->rec;
	u32 size = pt_log_rec_size(rec.data_len);
	u32 markers, pid = src->lane->pid(s, src->j);
	u64 ts = max(rec.timestamp, log->last_ts);
	void *data;

	if (src->lane->claims) {
		if (!pt_gate_pass(log->gate, rec.timestamp, rec.event_id)) {
			/* written before its writer saw the stream stop full */
			if (rec.event_id >= POSIX_TRACE_ID_UNNAMED &&
			    pt_gate_full(log->gate, rec.timestamp))
				atomic64_inc(&s->dropped);
			pt_src_refuse(log, src);
			return;
		}
		/* the seq the lane lost from is still there: nothing was */
		if (src->seq_known && rec.seq <= src->next_seq)
			src->lost = false;
	}
	markers = src->lost ? 2 * pt_log_rec_size(0) : 0;
	src->peeked = false;
	if (!pt_room(s, size + markers, ts, first)) {
		if (rec.event_id >= POSIX_TRACE_ID_UNNAMED)
			log->discarded++;
		pt_src_advance(src);
		return;
	}
	rec.size = size;
	pt_logf_mark(log);
	if (src->lost) {
		/* the log shows the loss: so does its trailer */
		atomic_set(&s->overrun_seen, 1);
		log->overwrite_gaps++;
		/* how many, by the lane's seq (a writer lane's: its word) */
		log->overwritten = pt_sat_add(log->overwritten,
					      src->seq_known && rec.seq > src->next_seq ?
					      rec.seq - src->next_seq : 1);
		pt_add_marker(log, POSIX_TRACE_ID_OVERFLOW,
			      pt_overflow_ts(src, &rec), NULL, 0, pid);
		pt_add_marker(log, POSIX_TRACE_ID_RESUME, rec.timestamp,
			      NULL, 0, pid);
	}
	data = pt_logf_reserve(log, &rec);
	if (!src->lane->copy(s, src->j, src->pos, data, rec.data_len)) {
		pt_logf_rollback(log);	/* overwritten meanwhile: peek again */
		/* A writer lane's loss is its claim: the next peek judges it. */
		if (!src->lane->claims)
			pt_src_lost(src, rec.timestamp);
		src->seq_known = false;
		pt_src_copy_failed(src);
		return;
	}
	pt_logf_commit(log, &rec);
	if (!src->lane->claims)
		pt_gate_control(log->gate, rec.event_id, rec.timestamp, data,
				rec.data_len);
	log->last_ts = max(log->last_ts, rec.timestamp);
	pt_src_advance(src);
}

/* Where a run from @best's lane must stop: before the next record of any
 * other lane (peeked by pt_drain()'s scan), and at the horizon.
 */
static u64 pt_run_bound(struct pt_stream *s, const struct pt_src *best,
			u64 horizon)
{
	unsigned int i, n = pt_nr_src(s);
	u64 bound = horizon == U64_MAX ? U64_MAX : horizon + 1;

	for (i = 0; i < n; i++) {
		const struct pt_src *src = &s->log->src[i];

		if (src != best && src->peeked)
			bound = min(bound, src->rec.timestamp);
	}
	return bound;
}

/*
 * @src's kernel lane lost records before its position (LOOP): their
 * OVERFLOW goes before its next record, and the gate does not know the
 * state from them on, until a control record stamped after now (they
 * may have held some).  They were stamped after the lane's last record
 * left it, and at or after the first lost one, if the lane told it.
 */
static void pt_kernel_lost(struct pt_stream *s, struct pt_src *src)
{
	u64 ts = pt_lost_ts(s, src);

	pt_src_lost(src, ts);
	pt_gate_gap(s->log->gate,
		    ts == U64_MAX ? src->last_ts : max(ts, src->last_ts),
		    ktime_get_ns());
}

/*
 * @src's writer lane cannot be believed, or claimed a loss it cannot have
 * had: one ERROR (EIO) with the writer's pid, at most once a second per
 * lane (the others are counted).  The lane sits out the rest of the flush.
 */
static void pt_writer_error(struct pt_stream *s, struct pt_src *src,
			    int *first)
{
	static const int eio = EIO;
	struct pt_log *log = s->log;
	u64 now = ktime_get_ns();

	src->seq_known = false;
	if (src->reported && now - src->reported < NSEC_PER_SEC) {
		log->gate->withheld++;
		return;
	}
	src->reported = now;
	if (pt_room(s, pt_log_rec_size(sizeof(eio)), log->last_ts, first))
		pt_add_marker(log, POSIX_TRACE_ID_ERROR, log->last_ts, &eio,
			      sizeof(eio), src->lane->pid(s, src->j));
}

static bool pt_peek(struct pt_stream *s, struct pt_src *src, int *first)
{
	bool lost = false;
	int r;

	if (src->peeked)
		return true;
	if (src->empty || !src->budget)
		return false;
	r = src->lane->peek(s, src->j, &src->pos, src->limit, &lost, &src->rec);
	if (lost && !src->lane->claims)
		pt_kernel_lost(s, src);
	else if (lost)
		pt_src_lost(src, pt_lost_ts(s, src));
	if (r == -EIO)
		pt_writer_error(s, src, first);
	src->peeked = r > 0;
	/* A lane that lied is done for this flush: one ERROR at most. */
	src->empty = r <= 0;
	return src->peeked;
}

/* Kernel lane @src stopped before its limit (its budget, or records
 * overwritten while copied): the rest of it waits for the next flush.
 */
static bool pt_src_cut(const struct pt_src *src)
{
	return !src->budget || src->copy_fails >= PT_LOG_COPY_TRIES;
}

/*
 * Where this flush stops: the heads now, and (but for the final flush,
 * which takes everything: nothing comes after it) the stamp of the oldest
 * record a writer is still writing, so a record stamped earlier but
 * committed later is not overtaken (design.md §4).
 * A flush takes at most one ring's worth of records from each lane: a
 * writer that keeps its lane looking full, or moves its positions about,
 * cannot make a flush last longer than what the lanes held when it began
 * (issue 19, item 2); the rest waits for the next flush.
 * Every kernel record stamped before the flush's clock is below the heads
 * taken, and the gate gets the state changes made before it: a writer
 * record is judged once every control record stamped before it is seen.
 */
static u64 pt_snapshot(struct pt_stream *s, bool final)
{
	unsigned int i, n = pt_nr_src(s);
	u64 now = ktime_get_ns(), horizon = final ? U64_MAX : now;

	for (i = 0; i < n && !final; i++) {
		const struct pt_src *src = &s->log->src[i];
		u64 ts = src->lane->inflight(s, src->j, now, PT_LOG_INFLIGHT_NS);

		horizon = min(horizon, max(ts, 1ULL) - 1);
	}
	for (i = 0; i < n; i++) {
		struct pt_src *src = &s->log->src[i];

		src->empty = false;
		src->copy_fails = 0;
		src->limit = src->lane->head(s, src->j);
		src->budget = src->lane->size(s, src->j);
	}
	pt_gate_begin(s->log->gate, now);
	return horizon;
}

/* Merge every lane into the log in the order <posix_trace/merge.h> gives. */
void pt_drain(struct pt_stream *s, bool final, int *first)
{
	struct pt_log *log = s->log;
	unsigned int i, n = pt_nr_src(s);
	u64 horizon = pt_snapshot(s, final);

	for (;;) {
		struct pt_src *best = NULL;

		for (i = 0; i < n; i++) {
			struct pt_src *src = &log->src[i];

			if (!pt_peek(s, src, first)) {
				/* Nothing later than what it gave may go first. */
				if (!src->lane->claims && pt_src_cut(src))
					horizon = min(horizon, src->last_ts);
				continue;
			}
			if (src->rec.timestamp > horizon)
				continue;
			if (!best || pt_merge_before(src->rec.timestamp,
						     best->rec.timestamp))
				best = src;
		}
		/* A lane cut short may have lowered the horizon under it. */
		if (!best || best->rec.timestamp > horizon)
			break;
		/* A writer's plain records go as a run, the others one by
		 * one.  A run taken back leaves its lane to be peeked again.
		 */
		if (!best->lane->claims) {
			pt_take(s, best, first);
		} else {
			/* pt_take() moves no other lane: one bound for both */
			u64 bound = pt_run_bound(s, best, horizon);

			if (!pt_take_run(s, best, bound) && best->peeked) {
				pt_take(s, best, first);
				pt_take_run(s, best, bound);
			}
		}
		/* A full UNTIL_FULL log takes records without any I/O. */
		cond_resched();
	}
	pt_write_block(s, first);
}

/* After a clear, @src goes on where the lane's records now begin, so that
 * records overwritten before the next flush are reported lost.  A writer
 * lane's seq there is not known (design.md §10).
 */
static void pt_src_restart(struct pt_stream *s, struct pt_src *src, u64 when)
{
	src->peeked = false;
	src->lost = false;
	src->last_ts = when;
	src->pos = src->lane->start(s, src->j, &src->next_seq, &src->seq_known);
}

/* posix_trace_clear(): every cursor goes on where its lane now begins. */
void pt_drain_restart(struct pt_stream *s, u64 when)
{
	unsigned int i;

	lockdep_assert_held(&s->log->lock);
	for (i = 0; i < s->nr_lanes + s->max_writers; i++)
		pt_src_restart(s, &s->log->src[i], when);
}

/* The cursors of @s's log, one per lane it may ever have: each starts
 * empty, at position 0 and seq 0.  Freed with the log (kvfree()).
 */
int pt_drain_init(struct pt_stream *s)
{
	unsigned int i, n = s->nr_lanes + s->max_writers;
	struct pt_src *src;

	src = kvcalloc(n, sizeof(*src), GFP_KERNEL_ACCOUNT);
	if (!src)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pt_src_bind(s, i, &src[i]);
		src[i].seq_known = true;
	}
	s->log->src = src;
	return 0;
}
