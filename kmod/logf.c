// SPDX-License-Identifier: GPL-2.0
/*
 * The log file of a stream with log: which files may hold which log,
 * where each block goes, and the bytes of the header, INFO, TYPES, EVENTS
 * and STATUS blocks (Documentation/log-format.md, version 1.0, is the
 * reference).  drain.c fills the EVENTS blocks.
 *
 * Every write is a whole block at its final offset, so a crash leaves at
 * worst one torn block, which readers drop.  A failed write does not move
 * the position: the next block overwrites the torn one.
 */
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/falloc.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/pid_namespace.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "log.h"

#define PT_LOG_BLOCK_DEFAULT	(64u << 10)
/*
 * A full pipe or socket is tried again after 5 ms, then twice as long each
 * time up to 100 ms: a reader that stopped costs the machine 10 worker
 * wake-ups a second per log, not 200, however many such logs a user
 * makes; one that only paused is served again within 100 ms.
 */
#define PT_LOG_RETRY_MS		5
#define PT_LOG_RETRY_MAX_MS	100

/* CRC32C of @len bytes whose 4-byte CRC field at @off is zero, stored. */
static void pt_seal(u8 *buf, u32 len, u32 off)
{
	pt_logf_put32(buf + off, 0);
	pt_logf_put32(buf + off, ~__crc32c_le(~0u, buf, len));
}

/*
 * Which files serve which log-full policy (spec 5.11, design.md §10):
 * LOOP and UNTIL_FULL rewrite and position their blocks, so they need a
 * regular file written without O_APPEND; APPEND only ever appends, so a
 * regular file, a FIFO or a socket will do.  Character devices are
 * refused: nothing bounds how long their write may block the worker.
 */
static int pt_logf_check_type(struct file *f, u32 policy)
{
	umode_t mode = file_inode(f)->i_mode;

	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	/* O_DIRECT would need aligned buffers the blocks are not. */
	if (!(f->f_mode & FMODE_CAN_WRITE) || (f->f_flags & O_DIRECT))
		return -EINVAL;
	if (S_ISREG(mode))
		return policy == POSIX_TRACE_LOG_APPEND ||
		       !(f->f_flags & O_APPEND) ? 0 : -EINVAL;
	if (policy != POSIX_TRACE_LOG_APPEND || !f->f_op->write_iter)
		return -EINVAL;
	return S_ISFIFO(mode) || S_ISSOCK(mode) ? 0 : -EINVAL;
}

/*
 * Take the module's own reference on the caller's descriptor.  A pipe is
 * opened again, non-blocking: pipe_write() honours O_NONBLOCK but not
 * IOCB_NOWAIT, and a worker blocked in it would wait for a reader for
 * ever.  Sockets honour IOCB_NOWAIT (pt_logf_write_once()).
 */
int pt_logf_open(struct pt_log *log, int fd)
{
	struct file *f = fget(fd), *nb;
	int ret;

	if (!f)
		return -EBADF;
	ret = pt_logf_check_type(f, log->policy);
	if (ret)
		goto out_put;
	log->seekable = S_ISREG(file_inode(f)->i_mode);
	if (S_ISFIFO(file_inode(f)->i_mode)) {
		nb = dentry_open(&f->f_path, O_WRONLY | O_NONBLOCK, current_cred());
		fput(f);
		if (IS_ERR(nb))	/* ENXIO: no reader left */
			return PTR_ERR(nb) == -ENXIO ? -EINVAL : PTR_ERR(nb);
		f = nb;
	}
	log->file = f;
	return 0;
out_put:
	fput(f);
	return ret;
}

/*
 * Metadata area of a ring log: INFO, a type table of every possible name
 * (one block per name at worst) and the STATUS trailer.
 */
static u64 pt_logf_meta_size(void)
{
	u64 names = PT_LOG_NR_SYSTEM + POSIX_TRACE_USER_EVENT_MAX;
	u64 info = POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_INFO_V1 + POSIX_TRACE_NAME_MAX + 1;
	u64 types = names * (POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_TYPE_HDR +
			     ALIGN(POSIX_TRACE_EVENT_NAME_MAX, 8));
	u64 status = POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_STATUS_V1;
	u64 loss = POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_LOSS_V1;

	return PAGE_ALIGN(POSIX_TRACE_LOG_HEADER_V1 + ALIGN(info, 8) + types + loss +
			  status);
}

/*
 * Choose the layout and the block size; sets @log->max_size to the
 * effective log-max-size.  A block holds at least one maximal record and
 * one TYPES entry.  A ring has 2 .. 65536 slots of one block each and
 * holds at least log-max-size bytes.
 */
int pt_logf_layout(struct pt_log *log, u64 max_data)
{
	/* Room for a maximal record, OVERFLOW + RESUME and a STOP. */
	u32 block_min = max_t(u32, 512, POSIX_TRACE_LOG_BLOCK_HDR + pt_log_rec_size(max_data) +
			      3 * pt_log_rec_size(sizeof(int)));
	u64 slot, nslots;

	if (log->policy != POSIX_TRACE_LOG_LOOP) {
		log->layout = POSIX_TRACE_LOG_LAYOUT_SEQ;
		log->block_max = max(block_min, PT_LOG_BLOCK_DEFAULT);
		return 0;
	}
	log->layout = POSIX_TRACE_LOG_LAYOUT_RING;
	slot = clamp_t(u64, round_down(log->max_size / 8, 8), block_min,
		       max(block_min, PT_LOG_BLOCK_DEFAULT));
	if (DIV_ROUND_UP_ULL(log->max_size, slot) > POSIX_TRACE_LOG_SLOTS_MAX)
		slot = ALIGN(DIV_ROUND_UP_ULL(log->max_size, POSIX_TRACE_LOG_SLOTS_MAX), 8);
	if (slot > POSIX_TRACE_LOG_BLOCK_LIMIT)
		return -EINVAL;
	nslots = max_t(u64, 2, DIV_ROUND_UP_ULL(log->max_size, slot));
	log->slot_size = slot;
	log->nslots = nslots;
	log->block_max = slot;
	log->ring_size = slot * nslots;
	log->ring_offset = pt_logf_meta_size();
	log->max_size = log->ring_size;
	return 0;
}

/* One attempt; -EAGAIN when a pipe or socket is full. */
static ssize_t pt_logf_write_once(struct pt_log *log, const void *buf,
				  size_t len, loff_t pos)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;
	struct kiocb kiocb;

	if (log->seekable)
		return kernel_write(log->file, buf, len, &pos);
	/* Never block in the worker: a reader that stopped reading would
	 * hold the flush, and the shutdown waiting for it, for ever.
	 */
	iov_iter_kvec(&it, PT_ITER_SOURCE, &kv, 1, len);
	init_sync_kiocb(&kiocb, log->file);
	kiocb.ki_flags |= IOCB_NOWAIT;
	return vfs_iocb_iter_write(log->file, &kiocb, &it);
}

/*
 * The worker writes for the stream's creator: the page cache and any
 * buffer the file system allocates are charged to the creator's memory
 * cgroup, not to the worker's (the root), which would let a user in a
 * limited cgroup grow the page cache without bound.
 */
static ssize_t pt_logf_write_as_creator(struct pt_log *log, const void *buf,
					size_t len, loff_t pos)
{
	struct mem_cgroup *old = set_active_memcg(log->stream->memcg);
	ssize_t n = pt_logf_write_once(log, buf, len, pos);

	set_active_memcg(old);
	return n;
}

/*
 * Write @len bytes at @pos (ignored by pipes and sockets).  Runs in the
 * flush worker, so the file size limit and SIGXFSZ of the controller do
 * not apply: -EFBIG is the file system's own limit.  A full pipe or
 * socket is retried until the flush's deadline, then -EIO.
 */
static int pt_logf_write(struct pt_log *log, const void *buf, size_t len,
			 u64 pos)
{
	unsigned int wait_ms = PT_LOG_RETRY_MS;

	while (len) {
		ssize_t n = pt_logf_write_as_creator(log, buf, len, pos);

		if (n == -EAGAIN) {
			/* A shutdown waits: a stalled flush before its own
			 * final one gives up at once.
			 */
			if (time_after(jiffies, log->deadline) ||
			    (READ_ONCE(log->finishing) && !log->final))
				return -EIO;
			msleep(wait_ms);
			wait_ms = min(2 * wait_ms, PT_LOG_RETRY_MAX_MS);
			continue;
		}
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		wait_ms = PT_LOG_RETRY_MS;
		buf += n;
		len -= n;
		pos += n;
	}
	return 0;
}

/* Start a block of @type in @buf; returns the payload. */
static u8 *pt_block_begin(u8 *buf, u16 type)
{
	memset(buf, 0, POSIX_TRACE_LOG_BLOCK_HDR);
	pt_logf_put32(buf + POSIX_TRACE_LOG_B_MAGIC, POSIX_TRACE_LOG_BLOCK_MAGIC);
	pt_logf_put16(buf + POSIX_TRACE_LOG_B_TYPE, type);
	return buf + POSIX_TRACE_LOG_BLOCK_HDR;
}

/* Close the block (@len bytes, @count entries), then write it at @pos. */
static int pt_block_write(struct pt_log *log, u8 *buf, u32 len, u32 count,
			  u64 pos)
{
	int ret;

	len = ALIGN(len, 8);
	pt_logf_put32(buf + POSIX_TRACE_LOG_B_LENGTH, len);
	pt_logf_put64(buf + POSIX_TRACE_LOG_B_SEQ, log->seq);
	pt_logf_put32(buf + POSIX_TRACE_LOG_B_COUNT, count);
	pt_logf_put32(buf + POSIX_TRACE_LOG_B_TAG, log->tag);
	pt_seal(buf, len, POSIX_TRACE_LOG_B_CRC);
	ret = pt_logf_write(log, buf, len, pos);
	if (!ret)
		log->seq++;
	return ret;
}

/* A metadata block: next in the file (sequential) or in the metadata
 * area (ring), which pt_logf_meta_size() made large enough.
 */
static int pt_meta_write(struct pt_log *log, u8 *buf, u32 len, u32 count)
{
	int ret;

	len = ALIGN(len, 8);
	if (log->layout == POSIX_TRACE_LOG_LAYOUT_RING &&
	    WARN_ON_ONCE(log->pos + len > log->ring_offset))
		return -EFBIG;
	ret = pt_block_write(log, buf, len, count, log->pos);
	if (!ret)
		log->pos += len;
	return ret;
}

static int pt_logf_write_header(struct pt_log *log)
{
	u8 h[POSIX_TRACE_LOG_HEADER_V1] __aligned(8) = POSIX_TRACE_LOG_MAGIC;

	pt_logf_put16(h + POSIX_TRACE_LOG_H_MAJOR, POSIX_TRACE_LOG_MAJOR);
	pt_logf_put16(h + POSIX_TRACE_LOG_H_MINOR, POSIX_TRACE_LOG_MINOR);
	h[POSIX_TRACE_LOG_H_BYTE_ORDER] = IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ?
		POSIX_TRACE_LOG_ORDER_BE : POSIX_TRACE_LOG_ORDER_LE;
	/* the writers' word size */
	h[POSIX_TRACE_LOG_H_WORD_SIZE] = sizeof(long);
	h[POSIX_TRACE_LOG_H_LAYOUT] = log->layout;
	pt_logf_put32(h + POSIX_TRACE_LOG_H_HEADER_SIZE, POSIX_TRACE_LOG_HEADER_V1);
	pt_logf_put32(h + POSIX_TRACE_LOG_H_BLOCK_MAX, log->block_max);
	pt_logf_put32(h + POSIX_TRACE_LOG_H_LOG_TAG, log->tag);
	pt_logf_put64(h + POSIX_TRACE_LOG_H_RING_OFFSET, log->ring_offset);
	pt_logf_put64(h + POSIX_TRACE_LOG_H_RING_SIZE, log->ring_size);
	pt_logf_put32(h + POSIX_TRACE_LOG_H_SLOT_SIZE, log->slot_size);
	pt_seal(h, sizeof(h), POSIX_TRACE_LOG_H_CRC);
	return pt_logf_write(log, h, sizeof(h), 0);
}

static int pt_logf_write_info(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u32 name_len = strnlen(s->name, sizeof(s->name) - 1);
	u8 *p = pt_block_begin(log->mbuf, POSIX_TRACE_LOG_BT_INFO);

	memset(p, 0, POSIX_TRACE_LOG_INFO_V1 + ALIGN(name_len, 8));
	pt_logf_put32(p + POSIX_TRACE_LOG_I_SIZE, POSIX_TRACE_LOG_INFO_V1);
	pt_logf_put32(p + POSIX_TRACE_LOG_I_PID, log->pid);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_REALTIME, s->created_real);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_MONOTONIC, s->created_mono);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_CLOCK_RES, pt_clock_res_ns());
	pt_logf_put32(p + POSIX_TRACE_LOG_I_INHERIT, s->inherit);
	pt_logf_put32(p + POSIX_TRACE_LOG_I_STREAM_POLICY,
		      log->auto_flush ? POSIX_TRACE_POLICY_FLUSH : s->policy);
	pt_logf_put32(p + POSIX_TRACE_LOG_I_LOG_POLICY, log->policy);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_STREAM_SIZE, s->capacity);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_MAX_DATA, s->max_data);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_LOG_SIZE, log->max_size);
	pt_logf_put64(p + POSIX_TRACE_LOG_I_PIDNS, s->pidns->ns.inum);
	memcpy(p + POSIX_TRACE_LOG_I_GENVERSION, POSIX_TRACE_GENVERSION,
	       sizeof(POSIX_TRACE_GENVERSION) - 1);
	pt_logf_put32(p + POSIX_TRACE_LOG_I_NAME_LEN, name_len);
	memcpy(p + POSIX_TRACE_LOG_INFO_V1, s->name, name_len);
	return pt_meta_write(log, log->mbuf, POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_INFO_V1 +
			     name_len, 1);
}

static const char *const pt_system_names[PT_LOG_NR_SYSTEM + 1] =
	POSIX_TRACE_SYSTEM_NAMES;
static const char *const pt_kernel_names[POSIX_TRACE_ID_KERNEL_LAST -
					  POSIX_TRACE_ID_KERNEL_FIRST + 1] =
	POSIX_TRACE_KERNEL_NAMES;
static const u32 pt_kernel_classes[ARRAY_SIZE(pt_kernel_names)] =
	POSIX_TRACE_KERNEL_CLASSES;

/* A TYPES block being assembled in @log->mbuf. */
struct pt_types {
	u32 len;
	u32 count;
};

static void pt_types_add(struct pt_log *log, struct pt_types *t, u32 id,
			 const char *name, u32 len)
{
	u8 *p = log->mbuf + t->len;

	memset(p, 0, POSIX_TRACE_LOG_TYPE_HDR + ALIGN(len, 8));
	pt_logf_put32(p + POSIX_TRACE_LOG_T_ID, id);
	pt_logf_put16(p + POSIX_TRACE_LOG_T_NAME_LEN, len);
	memcpy(p + POSIX_TRACE_LOG_TYPE_HDR, name, len);
	t->len += POSIX_TRACE_LOG_TYPE_HDR + ALIGN(len, 8);
	t->count++;
}

static int pt_types_flush(struct pt_log *log, struct pt_types *t)
{
	int ret = 0;

	if (t->count)
		ret = pt_meta_write(log, log->mbuf, t->len, t->count);
	t->len = POSIX_TRACE_LOG_BLOCK_HDR;
	t->count = 0;
	pt_block_begin(log->mbuf, POSIX_TRACE_LOG_BT_TYPES);
	return ret;
}

/*
 * TYPES entries for the ids not written yet: the system ones at init,
 * then each user name registered since.  Called before every EVENTS
 * block, so a name is in the log before the first event that uses it.
 */
static int pt_logf_types(struct pt_stream *s, bool system)
{
	struct pt_log *log = s->log;
	/* At create the stream has no mapping yet: system names only. */
	unsigned int id, n = s->map ? smp_load_acquire(&s->map->count) : 0;
	u32 room = log->block_max - POSIX_TRACE_LOG_TYPE_HDR -
		   ALIGN(POSIX_TRACE_EVENT_NAME_MAX, 8);
	char name[POSIX_TRACE_EVENT_NAME_MAX + 1];
	struct pt_types t = { .len = POSIX_TRACE_LOG_BLOCK_HDR };
	int ret;

	pt_block_begin(log->mbuf, POSIX_TRACE_LOG_BT_TYPES);
	for (id = 1; system && id <= PT_LOG_NR_SYSTEM; id++)
		pt_types_add(log, &t, id, pt_system_names[id],
			     strlen(pt_system_names[id]));
	/* The kernel events of the classes the stream records: a reader
	 * lists the log's types from this block.
	 */
	for (id = POSIX_TRACE_ID_KERNEL_FIRST;
	     system && id <= POSIX_TRACE_ID_KERNEL_LAST; id++) {
		unsigned int k = id - POSIX_TRACE_ID_KERNEL_FIRST;
		const char *kname = pt_kernel_names[k];

		if (kname && (s->kclasses & pt_kernel_classes[k]))
			pt_types_add(log, &t, id, kname, strlen(kname));
	}
	for (; log->types_done < n; log->types_done++) {
		id = POSIX_TRACE_ID_UNNAMED + log->types_done;
		if (t.len > room) {
			ret = pt_types_flush(log, &t);
			if (ret)
				return ret;
		}
		if (pt_map_name(s->map, id, name, sizeof(name)))
			continue;
		pt_types_add(log, &t, id, name, strlen(name));
	}
	return pt_types_flush(log, &t);
}

int pt_logf_write_types(struct pt_stream *s)
{
	lockdep_assert_held(&s->log->lock);
	/* pairs with the release of count in pt_map_open() */
	if (s->log->types_done == smp_load_acquire(&s->map->count))
		return 0;
	return pt_logf_types(s, false);
}

/*
 * (Re)start the log: a new tag, so blocks of an earlier log in the same
 * file never count; then the header, INFO and the system type names.
 * User names follow with the first flush (pt_logf_write_types()).
 */
int pt_logf_init(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	int ret;

	log->tag = get_random_u32();
	log->seq = 0;
	log->pos = POSIX_TRACE_LOG_HEADER_V1;
	log->event_bytes = 0;
	log->types_done = 0;
	log->full = false;
	log->blocks = 0;
	pt_logf_drop(log);
	log->deadline = jiffies + PT_LOG_STALL;
	ret = pt_logf_write_header(log);
	if (!ret)
		ret = pt_logf_write_info(s);
	if (!ret)
		ret = pt_logf_types(s, true);
	return ret;
}

/* Reserve the space a LOOP or UNTIL_FULL log may use: a file system
 * without room fails the create with ENOSPC, not a flush later.
 */
int pt_logf_prealloc(struct pt_log *log)
{
	u64 len = log->layout == POSIX_TRACE_LOG_LAYOUT_RING ?
		  log->ring_offset + log->ring_size :
		  log->max_size + pt_logf_meta_size();
	int ret;

	if (log->policy == POSIX_TRACE_LOG_APPEND)
		return 0;
	ret = vfs_fallocate(log->file, FALLOC_FL_KEEP_SIZE, 0, len);
	return ret == -EOPNOTSUPP ? 0 : ret;
}

/* The end of the EVENTS block being assembled, begun if need be. */
static u8 *pt_logf_end(struct pt_log *log)
{
	if (!log->len) {
		pt_block_begin(log->buf, POSIX_TRACE_LOG_BT_PACKED);
		log->len = POSIX_TRACE_LOG_BLOCK_HDR;
		log->ctx = (struct pt_logf_ctx){ };
	}
	return log->buf + log->len;
}

/*
 * Room for @rec at the end of the EVENTS block, packed (posix_trace_log.h):
 * a context record first if its pid, tid or thread differ from the
 * block's last ones, its header, its address if it changed, in the file's
 * byte order, and its padding zeroed.  The caller copies its data to the
 * returned address, then commits.  pt_log_rec_size() bytes at most.
 */
void *pt_logf_reserve(struct pt_log *log, const struct posix_trace_record *rec)
{
	u8 *start = pt_logf_end(log), *p;
	u32 word = rec->data_len;

	/* max-data-size is clamped below what the length bits hold */
	BUILD_BUG_ON(POSIX_TRACE_MAX_DATA_MAX > POSIX_TRACE_LOG_P_LEN_MASK);
	if (rec->flags & POSIX_TRACE_REC_TRUNCATED)
		word |= POSIX_TRACE_LOG_PF_TRUNCATED;
	if (rec->flags & POSIX_TRACE_REC_AUTO)
		word |= POSIX_TRACE_LOG_PF_AUTO;
	p = pt_logf_pack(&log->ctx, start, rec->pid, rec->tid, rec->thread,
			 rec->address, word, rec->event_id, rec->timestamp);
	memset(p + rec->data_len, 0, ALIGN(rec->data_len, 8) - rec->data_len);
	log->reserved = p - start + ALIGN(rec->data_len, 8);
	return p;
}

/*
 * A run of records the caller packs itself with pt_logf_pack() (take_run.c,
 * pt_take_run()): they go from the returned address on, and may end at
 * *@limit bytes into the block (room kept for a final STOP: pt_room()).
 */
u8 *pt_logf_run_begin(struct pt_log *log, u32 *limit)
{
	u8 *p = pt_logf_end(log);

	*limit = log->block_max - pt_log_rec_size(sizeof(int));
	return p;
}

/* The run ends at @end, with @count records of the program's (user ids),
 * which left the block's context at @ctx.
 */
void pt_logf_run_end(struct pt_log *log, u8 *end, u32 count,
		     const struct pt_logf_ctx *ctx)
{
	u32 len = end - log->buf;

	log->event_bytes += len - log->len;
	log->len = len;
	log->count += count;
	log->user_count += count;
	log->ctx = *ctx;
}

/* No EVENTS block assembled: after a write, a failed one, or a (re)start
 * of the log.
 */
void pt_logf_drop(struct pt_log *log)
{
	log->len = 0;
	log->count = 0;
	log->user_count = 0;
}

void pt_logf_commit(struct pt_log *log, const struct posix_trace_record *rec)
{
	log->len += log->reserved;
	log->count++;
	log->user_count += rec->event_id >= POSIX_TRACE_ID_UNNAMED;
	log->event_bytes += log->reserved;
}

/* Records committed after a mark can be taken back (a torn copy). */
void pt_logf_mark(struct pt_log *log)
{
	log->mark_len = log->len;
	log->mark_count = log->count;
	log->mark_user = log->user_count;
	log->mark_bytes = log->event_bytes;
	log->mark_ctx = log->ctx;
}

void pt_logf_rollback(struct pt_log *log)
{
	log->len = log->mark_len;
	log->count = log->mark_count;
	log->user_count = log->mark_user;
	log->event_bytes = log->mark_bytes;
	log->ctx = log->mark_ctx;
}

/* Bytes of records an UNTIL_FULL log still takes, its final STOP apart. */
u32 pt_logf_events_room(struct pt_log *log)
{
	u64 stop = pt_log_rec_size(sizeof(int));

	if (log->policy != POSIX_TRACE_LOG_UNTIL_FULL)
		return U32_MAX;
	if (log->event_bytes + stop >= log->max_size)
		return 0;
	return min_t(u64, U32_MAX, log->max_size - stop - log->event_bytes);
}

/*
 * Write the EVENTS block assembled in @log->buf (@log->len bytes,
 * @log->count records): next in the file, or in the next ring slot.
 * The buffer is free again afterwards, whether or not the write worked.
 */
int pt_logf_write_events(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u32 len = log->len;
	u64 pos;
	int ret;

	lockdep_assert_held(&log->lock);
	if (!log->count)
		return 0;
	pt_logf_put16(log->buf + POSIX_TRACE_LOG_B_TYPE, POSIX_TRACE_LOG_BT_PACKED);
	pt_logf_put16(log->buf + POSIX_TRACE_LOG_B_FLAGS, POSIX_TRACE_LOG_BF_CRITICAL);
	pt_logf_put32(log->buf, POSIX_TRACE_LOG_BLOCK_MAGIC);
	if (log->layout == POSIX_TRACE_LOG_LAYOUT_RING)
		pos = log->ring_offset + (log->blocks % log->nslots) * log->slot_size;
	else
		pos = log->pos;
	ret = pt_block_write(log, log->buf, len, log->count, pos);
	if (!ret && log->layout == POSIX_TRACE_LOG_LAYOUT_SEQ)
		log->pos += ALIGN(len, 8);
	if (!ret && log->layout == POSIX_TRACE_LOG_LAYOUT_RING &&
	    ++log->blocks >= log->nslots)
		log->full = true;	/* the next block overwrites the oldest */
	pt_logf_drop(log);
	return ret;
}

/*
 * The LOSS block, before the trailer: how many events never reached the
 * log, and why (log-format.md §5.5).  Readers that do not know it skip it.
 */
int pt_logf_write_losses(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u8 *p = pt_block_begin(log->mbuf, POSIX_TRACE_LOG_BT_LOSS);
	u64 dropped;

	lockdep_assert_held(&log->lock);
	memset(p, 0, POSIX_TRACE_LOG_LOSS_V1);
	pt_logf_put32(p + POSIX_TRACE_LOG_L_SIZE, POSIX_TRACE_LOG_LOSS_V1);
	/* and what writers dropped by themselves (pt_writers_dropped()) */
	dropped = pt_sat_add(atomic64_read(&s->dropped), pt_writers_dropped(s));
	pt_logf_put64(p + POSIX_TRACE_LOG_L_DROPPED, dropped);
	pt_logf_put64(p + POSIX_TRACE_LOG_L_DROP_GAPS, atomic_read(&s->drop_gaps));
	pt_logf_put64(p + POSIX_TRACE_LOG_L_OVERWRITTEN, log->overwritten);
	pt_logf_put64(p + POSIX_TRACE_LOG_L_OVERWRITE_GAPS, log->overwrite_gaps);
	pt_logf_put64(p + POSIX_TRACE_LOG_L_DISCARDED, log->discarded);
	pt_logf_put64(p + POSIX_TRACE_LOG_L_WRITE_LOST, log->write_lost);
	return pt_meta_write(log, log->mbuf,
			     POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_LOSS_V1, 1);
}

/* The STATUS trailer, then fsync: the log must survive a power loss. */
int pt_logf_close(struct pt_stream *s)
{
	struct pt_log *log = s->log;
	u8 *p = pt_block_begin(log->mbuf, POSIX_TRACE_LOG_BT_STATUS);
	u32 overrun, log_overrun;
	int ret;

	lockdep_assert_held(&log->lock);
	/* Status of the completed stream, whatever get_status reset. */
	overrun = atomic_read(&s->overrun) || atomic_read(&s->overrun_seen) ||
		  pt_writers_overrun(s, false);
	log_overrun = atomic_read(&log->log_overrun) ||
		      atomic_read(&log->log_overrun_seen);
	memset(p, 0, POSIX_TRACE_LOG_STATUS_V1);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_SIZE, POSIX_TRACE_LOG_STATUS_V1);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_STREAM, POSIX_TRACE_LOG_STATE_SUSPENDED);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_FULL, s->full_at_shutdown);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_OVERRUN, overrun);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_FLUSH_ERROR,
		      atomic_read(&log->flush_error) ?:
		      atomic_read(&log->flush_error_seen));
	pt_logf_put32(p + POSIX_TRACE_LOG_S_LOG_OVERRUN, log_overrun);
	pt_logf_put32(p + POSIX_TRACE_LOG_S_LOG_FULL, log->full);
	ret = pt_meta_write(log, log->mbuf,
			    POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_STATUS_V1, 1);
	if (!ret && log->seekable)
		ret = vfs_fsync(log->file, 0);
	return ret;
}
