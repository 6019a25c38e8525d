// SPDX-License-Identifier: GPL-2.0
/*
 * Flushing a stream with log: the module is the stream's only reader.
 * A worker merges the lanes by timestamp, as the library's reader does,
 * into EVENTS blocks (logfile.c writes them) and frees the space of what
 * it logged (spec 5.13; design.md §10 has the whole picture).
 *
 * Who flushes: posix_trace_flush() (POSIX_TRACE_IOC_FLUSH, which waits for
 * the worker), the FLUSH stream policy (a tick every PT_LOG_TICK while new
 * events arrive, and at once when the stream fills), and the shutdown
 * (the final flush, then the STATUS trailer).  File writes happen only in
 * the worker: the caller's file size limit, and SIGXFSZ, never apply.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include "log.h"

#define PT_LOG_TICK		msecs_to_jiffies(100)
/* In-flight stamps older than this are not believed (design.md §4). */
#define PT_LOG_INFLIGHT_NS	NSEC_PER_SEC
#define PT_REC_HDR		sizeof(struct posix_trace_record)
/* Copies of one record that may fail in one flush (pt_take()). */
#define PT_LOG_COPY_TRIES	4

/* What an exiting or exec'ing controller waits, at most, for the final
 * flushes of its streams; the logs are finished in the background after.
 */
#define PT_LOG_EXIT_WAIT	(10 * HZ)
#define PT_ROOM_WAIT		(HZ / 10)	/* one wait for room, at most */

static struct workqueue_struct *pt_log_wq;

/*
 * Queue the worker of @s's log.  Each queued run holds a reference to the
 * stream, dropped as its last step, so that the stream is freed only when
 * no run is pending or running: pt_log_free() then never waits for a
 * worker, which a file whose writes block for ever (FUSE, a stalled NFS)
 * can hold in kernel_write() for as long as that file likes.  Only the
 * worker ever waits on the file; every caller's wait is killable or
 * bounded (design.md, "Threat model").  Any context.
 */
static bool pt_log_queue(struct pt_stream *s)
{
	if (!kref_get_unless_zero(&s->ref))
		return false;
	if (queue_work(pt_log_wq, &s->log->work))
		return true;
	pt_stream_put(s);	/* a run is pending already: it holds one */
	return false;
}

/* Ask for a run that starts after now: the number to wait for in @done. */
static u64 pt_log_request(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u64 want;

	spin_lock(&log->req_lock);
	want = ++log->wanted;
	spin_unlock(&log->req_lock);
	pt_log_queue(s);
	return want;
}

static bool pt_log_done(struct pt_log *log, u64 want)
{
	/* pairs with pt_log_work()'s release of @done */
	return smp_load_acquire(&log->done) >= want;
}

static bool pt_log_finished(struct pt_log *log)
{
	/* pairs with pt_log_work()'s release of @finished */
	return smp_load_acquire(&log->finished);
}

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
};

static unsigned int pt_nr_src(struct pt_stream *s)
{
	return s->nr_lanes + pt_nr_writers(s);
}

/* Everything logged so far is free for the writers again. */
static void pt_publish(struct pt_stream *s)
{
	unsigned int i, n = pt_nr_src(s);

	for (i = 0; i < n; i++) {
		if (i < s->nr_lanes)
			pt_lane_consumed(s, i, s->log->src[i].pos);
		else
			pt_writer_consumed(s, i - s->nr_lanes, s->log->src[i].pos);
	}
}

/* First error of a flush: kept for get_status (RULE-34). */
static void pt_flush_error(struct pt_log *log, int *first, int err)
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
	pt_flush_error(s->log, first, err);
	pt_publish(s);
	/* Room, after the lanes' tails: a writer waiting for it goes on
	 * while the rest of the run is written.
	 */
	smp_store_release(&s->log->published, s->log->published + 1);
	if (wq_has_sleeper(&s->log->done_wq))
		wake_up_all(&s->log->done_wq);
}

/* A count a writer lane may claim any value of: it sticks at the top. */
static u64 pt_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
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

static bool pt_copy(struct pt_stream *s, unsigned int i, const struct pt_src *src,
		    void *dst)
{
	if (i < s->nr_lanes)
		return pt_lane_copy(s, i, src->pos, dst, src->rec.data_len);
	return pt_writer_copy(s, i - s->nr_lanes, src->pos, dst, src->rec.data_len);
}

/* Time of the first record lane @i lost at @src's position, if the lane
 * published it (U64_MAX if not).
 */
static u64 pt_lost_ts(struct pt_stream *s, unsigned int i,
		      const struct pt_src *src)
{
	if (!src->seq_known)
		return U64_MAX;
	if (i < s->nr_lanes)
		return pt_lane_lost_ts(s, i, src->next_seq);
	return pt_writer_lost_ts(s, i - s->nr_lanes, src->next_seq);
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

/* The record at @src's position could not be copied whole (its writer
 * reused it meanwhile): a writer doing so for ever leaves the rest of its
 * lane to the next flush.
 */
static void pt_src_copy_failed(struct pt_src *src)
{
	if (++src->copy_fails >= PT_LOG_COPY_TRIES)
		src->empty = true;
}

/* The pid of the reports about lane @i: a writer's, for its own lane. */
static u32 pt_src_pid(struct pt_stream *s, unsigned int i)
{
	return i < s->nr_lanes ? 0 : s->wdesc[i - s->nr_lanes].pid;
}

/*
 * The time of the OVERFLOW before @rec, the next record logged from lane
 * @i: the first lost record's (RULE-8) when the lane told it, else the
 * survivor's, which RESUME carries (RULE-9).  A writer lane's word is
 * kept between its last record and @rec.
 */
static u64 pt_overflow_ts(struct pt_stream *s, unsigned int i,
			  const struct pt_src *src,
			  const struct posix_trace_record *rec)
{
	u64 ts = min(src->lost_ts, rec->timestamp);

	if (i < s->nr_lanes)
		return ts;
	return max(ts, min(src->last_ts, rec->timestamp));
}

/* Log the record @src has peeked, with OVERFLOW/RESUME before it if
 * records of its lane were lost (spec 5.15).  A writer lane's record only
 * if the gate lets it through (design.md §4 "Trust").
 */
static void pt_take(struct pt_stream *s, unsigned int i, struct pt_src *src,
		    int *first)
{
	struct pt_log *log = s->log;
	struct posix_trace_record rec = src->rec;
	u32 size = pt_log_rec_size(rec.data_len);
	u32 markers, pid = pt_src_pid(s, i);
	u64 ts = max(rec.timestamp, log->last_ts);
	void *data;

	if (i >= s->nr_lanes) {
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
			      pt_overflow_ts(s, i, src, &rec), NULL, 0, pid);
		pt_add_marker(log, POSIX_TRACE_ID_RESUME, rec.timestamp,
			      NULL, 0, pid);
	}
	data = pt_logf_reserve(log, &rec);
	if (!pt_copy(s, i, src, data)) {
		pt_logf_rollback(log);	/* overwritten meanwhile: peek again */
		/* A writer lane's loss is its claim: the next peek judges it. */
		if (i < s->nr_lanes)
			pt_src_lost(src, rec.timestamp);
		src->seq_known = false;
		pt_src_copy_failed(src);
		return;
	}
	pt_logf_commit(log, &rec);
	if (i < s->nr_lanes)
		pt_gate_control(log->gate, rec.event_id, rec.timestamp, data,
				rec.data_len);
	log->last_ts = max(log->last_ts, rec.timestamp);
	pt_src_advance(src);
}

/* The two 32-bit halves of a lane word, in memory order. */
#ifdef __LITTLE_ENDIAN
#define PT_W_FIRST(w)	((u32)(w))
#define PT_W_SECOND(w)	((u32)((w) >> 32))
#else
#define PT_W_FIRST(w)	((u32)((w) >> 32))
#define PT_W_SECOND(w)	((u32)(w))
#endif

/* The record at @c, a lane header loaded word by word (pt_writer_word())
 * into registers, its pid the kernel's.
 */
static __always_inline void pt_run_header(struct pt_writer_cursor *c, u32 pid,
					  struct posix_trace_record *r)
{
	u64 w0 = pt_writer_word(c), w1 = pt_writer_word(c);
	u64 w2 = pt_writer_word(c), w3 = pt_writer_word(c);
	u64 w4 = pt_writer_word(c), w5 = pt_writer_word(c);
	u64 w6 = pt_writer_word(c);

	/* the layout of the words above */
	BUILD_BUG_ON(sizeof(*r) != 56 || offsetof(typeof(*r), event_id) != 4 ||
		     offsetof(typeof(*r), tid) != 12 ||
		     offsetof(typeof(*r), data_len) != 16 ||
		     offsetof(typeof(*r), flags) != 20 ||
		     offsetof(typeof(*r), seq) != 24 ||
		     offsetof(typeof(*r), timestamp) != 32 ||
		     offsetof(typeof(*r), thread) != 40 ||
		     offsetof(typeof(*r), address) != 48);
	r->size = PT_W_FIRST(w0);
	r->event_id = PT_W_SECOND(w0);
	r->pid = pid;
	r->tid = PT_W_SECOND(w1);
	r->data_len = PT_W_FIRST(w2);
	r->flags = PT_W_SECOND(w2);
	r->seq = w3;
	r->timestamp = w4;
	r->thread = w5;
	r->address = w6;
}

/* Copy @len bytes of data at @c by words to @dst, the lane's padding of
 * the last word zeroed (it is not the record's); returns the end.
 */
static __always_inline u8 *pt_run_data(struct pt_writer_cursor *c,
				       u8 *dst, u32 len)
{
	u64 *d = (u64 *)dst;
	u32 k, words = DIV_ROUND_UP(len, 8);

	for (k = 0; k < words; k++)
		d[k] = pt_writer_word(c);
	if (len % 8)	/* the bytes of the last word after @len, in memory order */
		d[words - 1] &= le64_to_cpu((__force __le64)(BIT_ULL(8 * (len % 8)) - 1));
	return dst + 8 * words;
}

/*
 * The records of writer lane @i from @src's position on, while they come
 * before @bound (every other lane's next record, and the flush's horizon):
 * each header is loaded by 8-byte words into registers the writer cannot
 * change, checked there, packed into the block, and its data copied by
 * words after it, as pt_take() would have logged it.  This is the flush's
 * common case (a busy writer), at a fraction of pt_take()'s cost per
 * record (Documentation/performance.md, "The log worker"): the gate is
 * asked once per span of its timeline and type, the block's end and
 * context stay in registers.  The run ends at the first record that is
 * not plain (a lie, a loss, a record the gate refuses), at a full block,
 * or at the budget: pt_peek() and pt_take() take it from there.  A record
 * it read that comes after @bound stays peeked, as pt_peek() would have
 * found it.  Had the writer reused any byte of the run while it was
 * copied, the whole run is taken back and pt_peek() finds the loss.
 * Returns how many records it logged.
 */
static u32 pt_take_run(struct pt_stream *s, unsigned int i,
		       struct pt_src *src, u64 bound)
{
	const u32 hdr = sizeof(struct posix_trace_record);
	struct pt_log *log = s->log;
	unsigned int j = i - s->nr_lanes;
	u64 pos = src->pos, seq = src->next_seq, ts = src->last_ts;
	u64 budget = src->budget, end = src->limit;
	u32 room = pt_logf_events_room(log), pid = s->wdesc[j].pid, n = 0;
	u32 limit, id = U32_MAX;
	struct pt_gate_span span = { .lo = 1, .hi = 0 };	/* none yet */
	struct posix_trace_record r, next;
	struct pt_writer_cursor c;
	struct pt_logf_ctx ctx;
	bool pass = false, stay = false;
	u8 *out, *rec;

	/* a peeked record is the run's first if it is plain */
	if (src->peeked && (src->rec.seq != src->next_seq ||
			    src->rec.timestamp >= bound))
		return 0;
	if (src->lost || !src->seq_known || src->empty ||
	    (log->full && log->policy == POSIX_TRACE_LOG_UNTIL_FULL) ||
	    !pt_writer_span(s, j, pos, end))
		return 0;
	/* A peek may be stale (cond_resched() since): if the writer reused
	 * its bytes, pt_peek() tells the loss, with the lane's seq still known.
	 */
	if (src->peeked && !pt_writer_kept(s, j, pos)) {
		src->peeked = false;
		pt_src_copy_failed(src);
		return 0;
	}
	pt_logf_mark(log);
	out = pt_logf_run_begin(log, &limit);
	ctx = log->ctx;
	pt_writer_cursor_at(s->writers[j], pos, &c);
	while (budget && end - pos >= hdr) {
		u32 most, word;

		pt_run_header(&c, pid, &r);
		/* honest, the next of the lane's seq */
		if (!pt_writer_rec_honest(s, &r, end - pos) || r.seq != seq)
			break;
		if (r.timestamp >= bound) {
			next = r;
			stay = true;
			break;
		}
		if (r.timestamp < span.lo || r.timestamp >= span.hi) {
			if (!pt_gate_span_at(log->gate, r.timestamp, &span))
				break;
			id = U32_MAX;
		}
		if (r.event_id != id) {
			id = r.event_id;
			pass = pt_gate_span_pass(&span, id);
		}
		most = pt_log_rec_size(r.data_len);
		if (!pass || most > room || out - log->buf + most > limit)
			break;
		word = r.data_len;
		if (r.flags & POSIX_TRACE_REC_TRUNCATED)
			word |= POSIX_TRACE_LOG_PF_TRUNCATED;
		rec = out;
		out = pt_logf_pack(&ctx, out, pid, r.tid, r.thread, r.address,
				   word, r.event_id, r.timestamp);
		out = pt_run_data(&c, out, r.data_len);
		/* the lane's record may be longer than its data: skip that */
		pt_writer_skip(&c, (r.size - hdr) / 8 - DIV_ROUND_UP(r.data_len, 8));
		room -= out - rec;
		ts = r.timestamp;
		budget -= min_t(u64, budget, r.size);
		pos += r.size;
		seq++;
		n++;
	}
	if (!n)
		return 0;
	pt_logf_run_end(log, out, n, &ctx);
	if (!pt_writer_kept(s, j, src->pos)) {
		pt_logf_rollback(log);
		src->peeked = false;	/* peek again */
		pt_src_copy_failed(src);
		return 0;
	}
	src->peeked = stay;
	if (stay)
		src->rec = next;
	src->copy_fails = 0;
	src->pos = pos;
	src->next_seq = seq;
	src->last_ts = ts;
	src->budget = budget;
	log->last_ts = max(log->last_ts, ts);
	return n;
}

/* Where a run from lane @bi must stop: before the next record of any
 * other lane (peeked by pt_drain()'s scan), and at the horizon.
 */
static u64 pt_run_bound(struct pt_stream *s, unsigned int bi, u64 horizon)
{
	unsigned int i, n = pt_nr_src(s);
	u64 bound = horizon == U64_MAX ? U64_MAX : horizon + 1;

	for (i = 0; i < n; i++) {
		const struct pt_src *src = &s->log->src[i];

		if (i != bi && src->peeked)
			bound = min(bound, src->rec.timestamp);
	}
	return bound;
}

/*
 * Kernel lane @i lost records before @src's position (LOOP): their
 * OVERFLOW goes before its next record, and the gate does not know the
 * state from them on, until a control record stamped after now (they
 * may have held some).  They were stamped after the lane's last record
 * left it, and at or after the first lost one, if the lane told it.
 */
static void pt_kernel_lost(struct pt_stream *s, unsigned int i,
			   struct pt_src *src)
{
	u64 ts = pt_lost_ts(s, i, src);

	pt_src_lost(src, ts);
	pt_gate_gap(s->log->gate,
		    ts == U64_MAX ? src->last_ts : max(ts, src->last_ts),
		    ktime_get_ns());
}

/*
 * Writer lane @i cannot be believed, or claimed a loss it cannot have
 * had: one ERROR (EIO) with the writer's pid, at most once a second per
 * lane (the others are counted).  The lane sits out the rest of the flush.
 */
static void pt_writer_error(struct pt_stream *s, unsigned int i,
			    struct pt_src *src, int *first)
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
			      sizeof(eio), pt_src_pid(s, i));
}

static bool pt_peek(struct pt_stream *s, unsigned int i, struct pt_src *src,
		    int *first)
{
	bool lost = false;
	int r;

	if (src->peeked)
		return true;
	if (src->empty || !src->budget)
		return false;
	if (i < s->nr_lanes) {
		r = pt_lane_peek(s, i, &src->pos, src->limit, &lost, &src->rec);
		if (lost)
			pt_kernel_lost(s, i, src);
	} else {
		r = pt_writer_peek(s, i - s->nr_lanes, &src->pos, src->limit,
				   &lost, &src->rec);
		if (lost)
			pt_src_lost(src, pt_lost_ts(s, i, src));
		if (r == -EIO)
			pt_writer_error(s, i, src, first);
	}
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

/* Kernel lane @i's head, under its lock: every record stamped before the
 * caller read the clock is below it (a kernel lane stamps and commits a
 * record under that lock).
 */
static u64 pt_lane_head_locked(struct pt_stream *s, unsigned int i)
{
	struct pt_lane *l = &s->lanes[i];
	unsigned long flags;
	u64 head;

	spin_lock_irqsave(&l->lock, flags);
	head = l->head;
	spin_unlock_irqrestore(&l->lock, flags);
	return head;
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

	for (i = s->nr_lanes; i < n && !final; i++)
		horizon = min(horizon, max(pt_writer_inflight(s, i - s->nr_lanes, now,
							      PT_LOG_INFLIGHT_NS),
					   1ULL) - 1);
	for (i = 0; i < n; i++) {
		struct pt_src *src = &s->log->src[i];

		src->empty = false;
		src->copy_fails = 0;
		if (i < s->nr_lanes) {
			src->limit = pt_lane_head_locked(s, i);
			src->budget = s->lanes[i].size;
		} else {	/* pairs with the writer's release of head */
			src->limit = smp_load_acquire(&s->writers[i - s->nr_lanes]->ctl->head);
			src->budget = s->writers[i - s->nr_lanes]->data_size;
		}
	}
	pt_gate_begin(s->log->gate, now);
	return horizon;
}

/* Merge every lane into the log, oldest record first (ties: lower lane). */
static void pt_drain(struct pt_stream *s, bool final, int *first)
{
	struct pt_log *log = s->log;
	unsigned int i, n = pt_nr_src(s);
	u64 horizon = pt_snapshot(s, final);

	for (;;) {
		struct pt_src *best = NULL;
		unsigned int bi = 0;

		for (i = 0; i < n; i++) {
			struct pt_src *src = &log->src[i];

			if (!pt_peek(s, i, src, first)) {
				/* Nothing later than what it gave may go first. */
				if (i < s->nr_lanes && pt_src_cut(src))
					horizon = min(horizon, src->last_ts);
				continue;
			}
			if (src->rec.timestamp > horizon)
				continue;
			if (!best || src->rec.timestamp < best->rec.timestamp) {
				best = src;
				bi = i;
			}
		}
		/* A lane cut short may have lowered the horizon under it. */
		if (!best || best->rec.timestamp > horizon)
			break;
		/* A writer's plain records go as a run, the others one by
		 * one.  A run taken back leaves its lane to be peeked again.
		 */
		if (bi < s->nr_lanes) {
			pt_take(s, bi, best, first);
		} else {
			/* pt_take() moves no other lane: one bound for both */
			u64 bound = pt_run_bound(s, bi, horizon);

			if (!pt_take_run(s, bi, best, bound) && best->peeked) {
				pt_take(s, bi, best, first);
				pt_take_run(s, bi, best, bound);
			}
		}
		/* A full UNTIL_FULL log takes records without any I/O. */
		cond_resched();
	}
	pt_write_block(s, first);
}

static void pt_record_marker(struct pt_stream *s, u32 id, const void *data,
			     u32 len)
{
	struct pt_event ev = {
		.id = id,
		.flags = POSIX_TRACE_REC_AUTO,
		.data = data,
		.data_len = len,
		.control = true,
	};

	pt_record(s, &ev);
}

/*
 * One flush (FLUSH-1..9): FLUSH_START goes into the batch it starts,
 * FLUSH_STOP reaches the log with the next flush; both only while the
 * stream runs.  A write error is recorded as an ERROR event once per run
 * of failures.  An auto-stopped stream restarts once it is empty.
 */
static int pt_flush(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	bool running = atomic_read(&s->state) == PT_RUNNING;
	u64 logged = log->event_bytes;
	int err = 0;

	lockdep_assert_held(&log->lock);
	if (log->closed)
		return 0;
	atomic_set(&log->flushing, 1);
	log->deadline = jiffies + PT_LOG_STALL;
	if (running)
		pt_record_marker(s, POSIX_TRACE_ID_FLUSH_START, NULL, 0);
	pt_drain(s, false, &err);
	if (atomic_read(&s->state) == PT_RUNNING) {
		pt_record_marker(s, POSIX_TRACE_ID_FLUSH_STOP, NULL, 0);
		if (err && err != log->last_err) {
			int e = -err;

			pt_record_marker(s, POSIX_TRACE_ID_ERROR, &e, sizeof(e));
		}
	}
	log->last_err = err;
	WRITE_ONCE(log->quiet, pt_lanes_heads(s));
	atomic_set(&log->flushing, 0);
	if (atomic_read(&s->state) == PT_AUTOSTOPPED) {
		mutex_lock(&pt_ctl_lock);
		pt_stream_try_restart(s);
		mutex_unlock(&pt_ctl_lock);
		/* Not empty yet: another writer filled its lane past this
		 * flush's snapshot.  Flush again now rather than at the tick,
		 * while flushes take records: the stream loses everything
		 * until it restarts.  (A lane that only lies takes nothing.)
		 */
		if (atomic_read(&s->state) == PT_AUTOSTOPPED &&
		    log->event_bytes != logged)
			pt_log_queue(s);
	}
	return err;
}

/* The final flush: everything, then the trailer; the file is let go. */
static int pt_finish(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	int err = 0;

	lockdep_assert_held(&log->lock);
	if (log->closed)
		return 0;
	atomic_set(&log->flushing, 1);
	log->deadline = jiffies + PT_LOG_STALL;
	log->final = true;
	pt_drain(s, true, &err);
	pt_flush_error(log, &err, pt_logf_write_types(s));
	pt_flush_error(log, &err, pt_logf_write_losses(s));
	atomic_set(&log->flushing, 0);
	pt_flush_error(log, &err, pt_logf_close(s));
	log->closed = true;
	fput(log->file);
	log->file = NULL;
	return err;
}

static void pt_log_work(struct work_struct *work)
{
	struct pt_log *log = container_of(work, struct pt_log, work);
	struct pt_stream *s = log->stream;
	u64 target;
	int err;

	spin_lock(&log->req_lock);
	target = log->wanted;
	spin_unlock(&log->req_lock);
	mutex_lock(&log->lock);
	if (log->reinit && !log->closed) {
		log->reinit = false;
		pt_flush_error(log, &log->reinit_err, pt_logf_init(s));
	}
	/* Only the run that closes the log sets the shutdown's answer. */
	if (READ_ONCE(log->finishing) && !log->closed) {
		log->finish_err = pt_finish(s);
		/* @finish_err before @finished: pairs with pt_log_finished() */
		smp_store_release(&log->finished, true);
	}
	err = pt_flush(s);
	mutex_unlock(&log->lock);
	/* One run at a time (a work item never runs concurrently with
	 * itself): @done_err before @done, read in that order by waiters.
	 */
	WRITE_ONCE(log->done_err, err);
	smp_store_release(&log->done, target);	/* see above */
	wake_up_all(&log->done_wq);
	pt_stream_put(s);	/* this run's reference (pt_log_queue()); last */
}

/* FLUSH policy: flush while new events keep coming (RULE-39). */
static void pt_log_tick(struct work_struct *work)
{
	struct pt_log *log = container_of(to_delayed_work(work), struct pt_log,
					  tick);

	if (READ_ONCE(log->closed))
		return;
	/* Not while a flush runs: it may be stalled by the file already. */
	if (!atomic_read(&log->flushing) &&
	    pt_lanes_heads(log->stream) != READ_ONCE(log->quiet))
		pt_log_queue(log->stream);
	queue_delayed_work(pt_log_wq, &log->tick, PT_LOG_TICK);
}

/* The stream filled up (any context): FLUSH policy flushes at once. */
void pt_log_stream_full(struct pt_stream *s)
{
	if (s->log && s->log->auto_flush)
		pt_log_queue(s);
}

/*
 * A lane of a FLUSH stream passed its flush mark (record.c, or a writer's
 * POSIX_TRACE_NOTIFY_FLUSH): flush now, long before the stream fills.
 * Nothing new since the last flush (a writer may ask as often as it
 * likes): nothing to do.  A run pending already takes it.  Any context.
 */
void pt_log_kick(struct pt_stream *s)
{
	struct pt_log *log = s->log;

	if (!log || !log->auto_flush || READ_ONCE(log->closed) ||
	    pt_lanes_heads(s) == READ_ONCE(log->quiet))
		return;
	pt_log_queue(s);
}

/* A block written since @seen, the run asked for done, or the log closed. */
static bool pt_log_room(struct pt_log *log, u64 want, u64 seen)
{
	/* pairs with the release in pt_write_block(): tails before count */
	return smp_load_acquire(&log->published) != seen ||
	       pt_log_done(log, want) || READ_ONCE(log->closed);
}

/*
 * A writer of a never-lose stream (full_wait_ns) has no room in its lane
 * (POSIX_TRACE_NOTIFY_ROOM, or an event of the kernel path, event.c):
 * with a log, start a flush and wait until it wrote a block (which frees
 * the space of its records) or ended: the writer then fills its lane
 * again while the worker writes the rest, rather than both taking turns;
 * without a log, the reader frees room, and the writer sleeps a tick.
 * Each call waits PT_ROOM_WAIT at most; the writer calls again until its
 * own bound (full_wait_ns) has passed, then drops the record: a
 * worker stalled by its file costs a writer that bound, once, as the
 * stream then stops.  A writer lane's request waits interruptibly (a
 * signal handler runs between two requests); the kernel path, which
 * cannot return halfway through its streams, waits @killable.
 */
int pt_log_wait_room(struct pt_stream *s, bool killable)
{
	struct pt_log *log = s->log;
	u64 want, seen;
	long ret;

	if (!log || READ_ONCE(log->closed)) {
		if (killable) {
			schedule_timeout_killable(1);
			return fatal_signal_pending(current) ? -EINTR : 0;
		}
		schedule_timeout_interruptible(1);
		return signal_pending(current) ? -EINTR : 0;
	}
	seen = smp_load_acquire(&log->published);	/* see pt_log_room() */
	want = pt_log_request(s);
	if (killable)
		ret = wait_event_killable_timeout(log->done_wq,
						  pt_log_room(log, want, seen),
						  PT_ROOM_WAIT);
	else
		ret = wait_event_interruptible_timeout(log->done_wq,
						       pt_log_room(log, want, seen),
						       PT_ROOM_WAIT);
	return ret < 0 ? -EINTR : 0;
}

/* POSIX_TRACE_IOC_FLUSH: start a flush and wait for it (spec 5.13). */
int pt_log_flush(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u64 want;
	int ret;

	if (!log)
		return -EINVAL;
	want = pt_log_request(s);
	ret = wait_event_interruptible(log->done_wq, pt_log_done(log, want));
	if (ret)
		return -EINTR;	/* the flush goes on without us */
	return READ_ONCE(log->done_err);
}

/*
 * The shutdown of a stream with log (SHUT-6, SHUT-7), after it was
 * stopped and unhashed: the worker flushes everything and closes the log.
 * posix_trace_shutdown() waits for that (SHUT-6), killably: a file whose
 * writes never end cannot keep its caller from dying.  The automatic
 * shutdown of an exiting or exec'ing controller (SHUT-8) waits until
 * @deadline (jiffies) at most; the log is finished in the background
 * after that (@deadline, else NULL).  Returns the first write error, or
 * -EINTR / -ETIMEDOUT if the wait ended first.
 */
int pt_log_finish(struct pt_stream *s, const unsigned long *deadline)
{
	struct pt_log *log = s->log;
	long ret;

	if (!log)
		return 0;
	cancel_delayed_work_sync(&log->tick);
	WRITE_ONCE(log->finishing, true);
	pt_log_queue(s);
	if (!deadline) {
		if (wait_event_killable(log->done_wq, pt_log_finished(log)))
			return -EINTR;
		return log->finish_err;
	}
	ret = wait_event_killable_timeout(log->done_wq, pt_log_finished(log),
					  max_t(long, *deadline - jiffies, 1));
	if (ret < 0)
		return -EINTR;
	return ret ? log->finish_err : -ETIMEDOUT;
}

/* The deadline of the automatic shutdowns of one exit or exec. */
unsigned long pt_log_exit_deadline(void)
{
	return jiffies + PT_LOG_EXIT_WAIT;
}

/* After a clear, @src goes on where the lane's records now begin, so that
 * records overwritten before the next flush are reported lost.  A writer
 * lane's seq there is not known (design.md §10).
 */
static void pt_src_restart(struct pt_stream *s, unsigned int i,
			   struct pt_src *src, u64 when)
{
	src->peeked = false;
	src->lost = false;
	src->last_ts = when;
	if (i < s->nr_lanes) {
		src->pos = pt_lane_start(s, i, &src->next_seq);
		src->seq_known = true;
	} else {
		src->pos = pt_writer_start(s, i - s->nr_lanes);
		src->seq_known = !src->pos;
		src->next_seq = 0;
	}
}

/*
 * posix_trace_clear() of a stream with log (CLEAR-5..7): the stream's
 * records and the flusher's cursors go; the worker restarts the log before
 * anything else (so the first event logged after the clear is the
 * stream's first), and the clear waits for it.  A pipe or socket cannot be
 * rewound: its log goes on (CLEAR-9).
 */
int pt_log_clear(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	unsigned int i;
	u64 want, when;
	int ret;

	/* Killable: a flush may be stuck in a write that never ends. */
	if (mutex_lock_killable(&log->lock))
		return -EINTR;
	when = ktime_get_ns();
	ret = pt_stream_clear(s);
	for (i = 0; i < s->nr_lanes + s->max_writers; i++)
		pt_src_restart(s, i, &log->src[i], when);
	pt_gate_clear(log->gate, when, ktime_get_ns());
	atomic_set(&log->log_overrun, 0);
	atomic_set(&log->log_overrun_seen, 0);
	atomic_set(&log->flush_error_seen, 0);
	log->overwritten = 0;
	log->overwrite_gaps = 0;
	log->discarded = 0;
	log->write_lost = 0;
	log->full = false;
	log->reinit = log->seekable;
	log->reinit_err = 0;
	mutex_unlock(&log->lock);
	if (!log->seekable)
		return ret;
	want = pt_log_request(s);
	if (wait_event_killable(log->done_wq, pt_log_done(log, want)))
		return -EINTR;
	return log->reinit_err;
}

void pt_log_status(struct pt_stream *s, struct posix_trace_status *st)
{
	struct pt_log *log = s->log;

	if (!log)
		return;
	st->flushing = atomic_read(&log->flushing);
	st->flush_error = atomic_xchg(&log->flush_error, 0);
	st->log_overrun = atomic_xchg(&log->log_overrun, 0);
	st->log_full = READ_ONCE(log->full);
	/* What get_status resets, the log's trailer still reports. */
	if (st->flush_error)
		atomic_cmpxchg(&log->flush_error_seen, 0, st->flush_error);
	if (st->log_overrun)
		atomic_set(&log->log_overrun_seen, 1);
}

/*
 * A stream with log (create_withlog): the file checks, the layout, and
 * the header, INFO and system types written before the stream exists, so
 * a file that cannot take them fails the create (ENOSPC, EFBIG; EINVAL
 * for a pipe or socket nobody reads).
 */
int pt_log_create(struct pt_stream *s, struct posix_trace_create *args,
		  struct pid *target)
{
	unsigned int i, nsrc = s->nr_lanes + s->max_writers;
	struct pt_log *log;
	unsigned long mem;
	u64 want;
	int ret;

	log = kzalloc(sizeof(*log), GFP_KERNEL_ACCOUNT);
	if (!log)
		return -ENOMEM;
	s->log = log;
	log->stream = s;
	mutex_init(&log->lock);
	spin_lock_init(&log->req_lock);
	init_waitqueue_head(&log->done_wq);
	INIT_WORK(&log->work, pt_log_work);
	INIT_DELAYED_WORK(&log->tick, pt_log_tick);
	log->policy = args->log_policy;
	log->auto_flush = args->stream_policy == POSIX_TRACE_POLICY_FLUSH;
	log->max_size = args->log_size;
	log->pid = pid_nr_ns(target, s->pidns);
	ret = pt_logf_open(log, args->log_fd);
	if (ret)
		return ret;
	ret = pt_logf_layout(log, s->max_data);
	if (ret)
		return ret;
	/* The two block buffers count against max_user_memory like the
	 * stream's own (up to 2 x 16 MiB), and so does the gate;
	 * s->charged is given back with it.
	 * The stream is not published yet: no lock.
	 */
	mem = 2ul * log->block_max + sizeof(*log->gate);
	if (!pt_user_charge_memory(s->user, mem))
		return -ENOMEM;
	s->charged += mem;
	log->src = kvcalloc(nsrc, sizeof(*log->src), GFP_KERNEL_ACCOUNT);
	log->buf = kvmalloc(log->block_max, GFP_KERNEL_ACCOUNT);
	log->mbuf = kvmalloc(log->block_max, GFP_KERNEL_ACCOUNT);
	log->gate = kvmalloc(sizeof(*log->gate), GFP_KERNEL_ACCOUNT);
	if (!log->src || !log->buf || !log->mbuf || !log->gate)
		return -ENOMEM;
	pt_gate_init(log->gate);
	/* Every lane starts empty, at position 0 and seq 0. */
	memset(log->src, 0, nsrc * sizeof(*log->src));
	for (ret = 0; ret < nsrc; ret++)
		log->src[ret].seq_known = true;
	ret = pt_logf_prealloc(log);
	if (ret)
		return ret;
	/* Written by the worker, like everything else: a pipe or socket
	 * without a reader must not send SIGPIPE to the caller.
	 */
	log->reinit = true;
	/*
	 * Killable: the stream is freed once the worker is done with it.
	 * One request, made before the wait: wait_event evaluates its
	 * condition at every wake-up, and a request there would ask for yet
	 * another run each time, so that a create whose worker is slower
	 * than its wake-ups would never return.
	 */
	want = pt_log_request(s);
	if (wait_event_killable(log->done_wq, pt_log_done(log, want)))
		return -EINTR;
	ret = log->reinit_err;
	if (ret == -EPIPE || ret == -ENOTCONN || ret == -ECONNREFUSED)
		return -EINVAL;	/* no reader: cannot serve the log */
	if (ret)
		return ret;
	args->log_size = log->max_size;
	if (log->auto_flush) {
		/* Not published yet: the lanes' marks need no lock. */
		s->flush_step = s->capacity / 2;
		for (i = 0; i < s->nr_lanes; i++)
			s->lanes[i].flush_mark = s->flush_step;
		queue_delayed_work(pt_log_wq, &log->tick, PT_LOG_TICK);
	}
	return 0;
}

/* With the stream, after its last reference: no run is pending or
 * running (each holds a reference), so the cancels wait for nothing.
 */
void pt_log_free(struct pt_stream *s)
{
	struct pt_log *log = s->log;

	if (!log)
		return;
	cancel_delayed_work_sync(&log->tick);
	cancel_work_sync(&log->work);
	if (log->file)
		fput(log->file);
	kvfree(log->src);
	kvfree(log->buf);
	kvfree(log->mbuf);
	kvfree(log->gate);
	kfree(log);
}

int pt_log_init(void)
{
	pt_log_wq = alloc_workqueue("posix_trace_log", WQ_UNBOUND, 0);
	return pt_log_wq ? 0 : -ENOMEM;
}

void pt_log_exit(void)
{
	destroy_workqueue(pt_log_wq);
}
