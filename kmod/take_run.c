// SPDX-License-Identifier: GPL-2.0
/*
 * A run: the plain records of one writer lane taken in one go, from the
 * record the merge peeked (drain.c) up to the next record of another
 * lane, loaded word by word, checked and packed in registers
 * (Documentation/performance.md, "The log worker").
 */
#include "drain.h"

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
	const u64 *p = pt_writer_flat(c, 7);
	u64 w0, w1, w2, w3, w4, w5, w6;

	if (likely(p)) {
		w0 = READ_ONCE(p[0]);
		w1 = READ_ONCE(p[1]);
		w2 = READ_ONCE(p[2]);
		w3 = READ_ONCE(p[3]);
		w4 = READ_ONCE(p[4]);
		w5 = READ_ONCE(p[5]);
		w6 = READ_ONCE(p[6]);
	} else {
		w0 = pt_writer_word(c);
		w1 = pt_writer_word(c);
		w2 = pt_writer_word(c);
		w3 = pt_writer_word(c);
		w4 = pt_writer_word(c);
		w5 = pt_writer_word(c);
		w6 = pt_writer_word(c);
	}

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
	const u64 *p = pt_writer_flat(c, words);

	if (likely(p)) {
		for (k = 0; k < words; k++)
			d[k] = READ_ONCE(p[k]);
	} else {
		for (k = 0; k < words; k++)
			d[k] = pt_writer_word(c);
	}
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
u32 pt_take_run(struct pt_stream *s, struct pt_src *src, u64 bound)
{
	const u32 hdr = sizeof(struct posix_trace_record);
	struct pt_log *log = s->log;
	unsigned int j = src->j;	/* a writer lane's */
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
		if (!pt_writer_rec_honest(s->max_data, &r, end - pos) || r.seq != seq)
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
