/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log of a stream with log: shared by logf.c (the file and its
 * format, Documentation/log-format.md), drain.c and take_run.c (what goes
 * in it) and log.c (when).
 */
#ifndef PT_LOG_H
#define PT_LOG_H

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/posix_trace_log.h>
#include "stream.h"

/* The format's constants and offsets are posix_trace_log.h's; these are
 * the writer's own.  A flush waits at most this long for a pipe or
 * socket to take data.
 */
#define PT_LOG_STALL		(5 * HZ)

/* System ids the type table names (1 .. PT_LOG_NR_SYSTEM). */
#define PT_LOG_NR_SYSTEM	POSIX_TRACE_ID_DETACHED

/*
 * The flusher's gate on writer lanes (gate.c): the stream's state and
 * filter over time.  An era is the state from @lo on, until the next one;
 * an UNKNOWN era (records lost) stays so at least until @hi.
 */
#define PT_GATE_ERAS	32
#define PT_GATE_WORDS	(POSIX_TRACE_USER_EVENT_MAX / 64)

enum { PT_ERA_STOPPED, PT_ERA_RUNNING, PT_ERA_UNKNOWN };

struct pt_era {
	u64 lo, hi;
	u32 state;
	bool full;	/* STOPPED because the stream filled (auto-stop) */
	u64 filter[PT_GATE_WORDS];	/* user ids; bit set: filtered out */
};

/* Eras sorted by @lo; when full, the oldest is forgotten and @complete
 * cleared: a time before the first era is then not known.
 */
struct pt_eras {
	struct pt_era e[PT_GATE_ERAS];
	unsigned int n;
	bool complete;
};

/* A span of the gate's timeline: pt_gate_span_at() in gate.c. */
struct pt_gate_span {
	u64 lo, hi;			/* [@lo, @hi) */
	const struct pt_era *seen, *cmd;	/* NULL: before the first */
	u8 seen_none, cmd_none;		/* the answer then */
};

/*
 * struct pt_gate - what the flusher knows of the stream's state and
 * filter over time (gate.c has the rule).  @set is written under
 * pt_ctl_lock and @lock (the innermost lock: nothing is taken under it),
 * and copied into @cmd under @lock when a flush begins; everything else
 * belongs to the flusher (pt_log.lock).
 */
struct pt_gate {
	spinlock_t lock;	/* see above */
	struct pt_eras set;	/* after each change under pt_ctl_lock */
	struct pt_eras cmd;	/* @set when this flush began */
	struct pt_eras seen;	/* from the kernel lanes' control records */
	u64 now;		/* the clock of this flush */
	u64 floor;		/* the last clear: nothing stamped before */
	u64 refused;		/* writer records kept out of the log */
	u64 withheld;		/* ERRORs a writer lane asked for, not given */
	/* The last span pt_gate_span_at() gave, while @span_ok: every
	 * change of @cmd, @seen, @now or @floor clears it (the flush's
	 * runs of two writers that take turns ask for the same span).
	 */
	struct pt_gate_span span;
	bool span_ok;
};

/* Packed records (posix_trace_log.h): what the records of the EVENTS block
 * being assembled share, so each repeats only what changed.
 */
struct pt_logf_ctx {
	u32 pid, tid;
	u64 thread;
	u64 address;
	bool set;	/* a context record is in the block */
};

/*
 * struct pt_log - the log file of one stream and the flusher's state.
 * Lifetime: the stream's (s->log, set at create, freed with the stream);
 * the file reference is dropped by pt_log_finish() at shutdown, or at the
 * free of a stream whose creation failed.
 * Locking: @lock (a mutex: it is held across file writes) serialises
 * everything that writes the file or moves the lane cursors: flushes, the
 * clear of the log and the finish.  Lock order: @lock -> pt_ctl_lock ->
 * lane locks.  The status words are atomics, read by get_status without
 * @lock.
 */
struct pt_src;
struct pt_log {
	struct pt_stream *stream;
	struct mutex lock;	/* see above */
	struct file *file;
	u32 policy;		/* POSIX_TRACE_LOG_* */
	u8 layout;
	bool seekable;		/* a regular file: positioned writes */
	bool auto_flush;	/* stream-full-policy FLUSH */
	bool closed;		/* finished: nothing more is written */
	bool finished;		/* @finish_err is set: shutdown may return */
	bool full;		/* UNTIL_FULL log reached its size */
	u32 tag;		/* log_tag of the current log */
	u32 block_max;
	u64 max_size;		/* log-max-size, effective */
	/* Where blocks go: @pos in the sequential layout and, in the ring
	 * layout, the metadata area [header, @ring_offset); @seq numbers them.
	 */
	u64 pos;
	u64 seq;
	u64 ring_offset;
	u64 ring_size;
	u32 slot_size;
	u32 nslots;
	u64 blocks;		/* ring: EVENTS blocks written */
	u64 event_bytes;	/* UNTIL_FULL: record bytes in the log */
	u32 pid;		/* the traced process, for INFO */
	unsigned int types_done;	/* user ids already in a TYPES block */
	u64 last_ts;		/* timestamp of the last record logged */
	unsigned long deadline;	/* jiffies: this flush gives up waiting */
	/* The EVENTS block being assembled (@len bytes, @count records),
	 * and the buffer of metadata blocks; block_max bytes each.
	 */
	u8 *buf;
	u32 len;
	u32 count;
	u8 *mbuf;
	u32 user_count;		/* of @count, the program's events */
	struct pt_logf_ctx ctx;	/* of the block's records so far */
	u32 reserved;		/* bytes of the record pt_logf_reserve() began */
	u32 mark_len;		/* pt_logf_mark(): where a rollback goes */
	u32 mark_count;
	u32 mark_user;
	u64 mark_bytes;
	struct pt_logf_ctx mark_ctx;
	/* Flusher cursors: kernel lanes, then writer lanes (drain.c). */
	struct pt_src *src;
	struct pt_gate *gate;
	u64 quiet;		/* lane heads summed after the last flush */
	/* Flush requests: waiters of POSIX_TRACE_IOC_FLUSH. */
	spinlock_t req_lock;
	wait_queue_head_t done_wq;
	u64 wanted;		/* requests made, under @req_lock */
	u64 done;		/* requests served: written by the work only */
	/* Blocks written (and their lanes' space freed) so far: a writer
	 * waiting for room wakes at each (pt_log_wait_room()).  The work only.
	 */
	u64 published;
	int done_err;		/* first error of the last flush, as @done */
	bool finishing;		/* the work's next run is the final flush */
	bool final;		/* that run has begun, @lock */
	bool reinit;		/* a clear: the work restarts the log first */
	int reinit_err;
	int finish_err;
	int last_err;		/* outcome of the previous flush, @lock */
	struct work_struct work;
	struct delayed_work tick;
	atomic_t flushing;
	atomic_t flush_error;	/* first error since get_status */
	atomic_t log_overrun;
	/* The same since the create or the last clear, which get_status
	 * does not reset: for the STATUS trailer (GETSTAT-4, RULE-38).
	 */
	atomic_t flush_error_seen;
	atomic_t log_overrun_seen;
	/* Events lost on the way to the log since the create or the last
	 * clear, for its LOSS block (log-format.md): overwritten in a LOOP
	 * stream before the flusher took them (by the lanes' seqs, a writer
	 * lane's by its word) in @overwrite_gaps gaps, not taken by a full
	 * UNTIL_FULL log, and in blocks the file refused.  @lock.
	 */
	u64 overwritten;
	u64 overwrite_gaps;
	u64 discarded;
	u64 write_lost;
};

/* log.c: the log of a stream with log, for the layers above. */
extern const struct pt_log_ops pt_log_stream_ops;	/* for pt_stream_create() */
int pt_log_init(void);
void pt_log_exit(void);
int pt_log_flush(struct pt_stream *s);
int pt_log_clear(struct pt_stream *s);
void pt_log_kick(struct pt_stream *s);
int pt_log_wait_room(struct pt_stream *s, bool killable);
/* gate.c: the log's gate learns a change of state or filter. */
void pt_log_state_changed(struct pt_stream *s);

/* drain.c: the merge of the lanes into EVENTS blocks. */
int pt_drain_init(struct pt_stream *s);
void pt_drain(struct pt_stream *s, bool final, int *first);
void pt_drain_error(struct pt_log *log, int *first, int err);
void pt_drain_restart(struct pt_stream *s, u64 when);

/* logf.c */
int pt_logf_open(struct pt_log *log, int fd);
int pt_logf_layout(struct pt_log *log, u64 max_data);
int pt_logf_init(struct pt_stream *s);
int pt_logf_write_types(struct pt_stream *s);
int pt_logf_write_events(struct pt_stream *s);
int pt_logf_close(struct pt_stream *s);
int pt_logf_write_losses(struct pt_stream *s);
u32 pt_logf_events_room(struct pt_log *log);
int pt_logf_prealloc(struct pt_log *log);
void *pt_logf_reserve(struct pt_log *log, const struct posix_trace_record *rec);
void pt_logf_commit(struct pt_log *log, const struct posix_trace_record *rec);
void pt_logf_mark(struct pt_log *log);
void pt_logf_drop(struct pt_log *log);
void pt_logf_rollback(struct pt_log *log);
u8 *pt_logf_run_begin(struct pt_log *log, u32 *limit);
void pt_logf_run_end(struct pt_log *log, u8 *end, u32 count,
		     const struct pt_logf_ctx *ctx);

/* gate.c */
void pt_gate_init(struct pt_gate *g);
void pt_gate_begin(struct pt_gate *g, u64 now);
bool pt_gate_pass(struct pt_gate *g, u64 ts, u32 id);
bool pt_gate_span_at(struct pt_gate *g, u64 ts, struct pt_gate_span *sp);
bool pt_gate_span_pass(const struct pt_gate_span *sp, u32 id);
bool pt_gate_full(struct pt_gate *g, u64 ts);
void pt_gate_control(struct pt_gate *g, u32 id, u64 ts, const void *data,
		     u32 len);
void pt_gate_gap(struct pt_gate *g, u64 from, u64 until);
void pt_gate_clear(struct pt_gate *g, u64 when, u64 done);

/* The most bytes a record with @data_len bytes of data takes in the log
 * (packed: its context record and address included); what room is
 * checked against.  The log counts what records really took.
 */
static inline u32 pt_log_rec_size(u32 data_len)
{
	return POSIX_TRACE_LOG_P_MAX(data_len);
}

/*
 * Little-endian stores of the format's fields.  Every field is naturally
 * aligned in its block or header (log-format.md), and every buffer one is
 * built in is 8-byte aligned, so a plain store does: the header, INFO,
 * TYPES, STATUS and LOSS blocks (logf.c) and every packed record.
 */
static __always_inline void pt_logf_put16(u8 *p, u16 v)
{
	*(__le16 *)p = cpu_to_le16(v);
}

static __always_inline void pt_logf_put32(u8 *p, u32 v)
{
	*(__le32 *)p = cpu_to_le32(v);
}

static __always_inline void pt_logf_put64(u8 *p, u64 v)
{
	*(__le64 *)p = cpu_to_le64(v);
}

/*
 * Pack a record's header at @p (posix_trace_log.h): a context record
 * first if @pid, @tid or @thread differ from @c's, the header word (@word:
 * data_len and flags, POSIX_TRACE_LOG_PF_ADDRESS added here), id and
 * timestamp, then the address if it differs from @c's.  @c follows.
 * Returns where the record's data goes.  Inline: the flush's runs pack
 * every record of a busy writer with it (take_run.c, pt_take_run()).
 */
static __always_inline u8 *pt_logf_pack(struct pt_logf_ctx *c, u8 *p,
					u32 pid, u32 tid, u64 thread,
					u64 address, u32 word, u32 id, u64 ts)
{
	/* the layout the 8-byte stores below assume */
	BUILD_BUG_ON(POSIX_TRACE_LOG_C_PID != 4 || POSIX_TRACE_LOG_C_TID != 8 ||
		     POSIX_TRACE_LOG_C_RESERVED != 12 ||
		     POSIX_TRACE_LOG_C_THREAD != 16 ||
		     POSIX_TRACE_LOG_P_ID != 4 ||
		     POSIX_TRACE_LOG_P_TIMESTAMP != 8);
	if (unlikely(!c->set || c->pid != pid || c->tid != tid ||
		     c->thread != thread)) {
		pt_logf_put64(p, POSIX_TRACE_LOG_PF_CONTEXT | (u64)pid << 32);
		pt_logf_put64(p + POSIX_TRACE_LOG_C_TID, tid);
		pt_logf_put64(p + POSIX_TRACE_LOG_C_THREAD, thread);
		p += POSIX_TRACE_LOG_C_SIZE;
		c->pid = pid;
		c->tid = tid;
		c->thread = thread;
		c->set = true;
	}
	if (address != c->address)
		word |= POSIX_TRACE_LOG_PF_ADDRESS;
	pt_logf_put64(p + POSIX_TRACE_LOG_P_WORD, word | (u64)id << 32);
	pt_logf_put64(p + POSIX_TRACE_LOG_P_TIMESTAMP, ts);
	p += POSIX_TRACE_LOG_P_HDR;
	if (word & POSIX_TRACE_LOG_PF_ADDRESS) {
		pt_logf_put64(p, address);
		p += sizeof(u64);
		c->address = address;
	}
	return p;
}

#endif /* PT_LOG_H */
