// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parsing a trace log (Documentation/log-format.md) for a pre-recorded
 * stream.  The file may be hostile, truncated, or still being written:
 *   - the header and the first block (INFO) must be valid, else EINVAL;
 *   - metadata (TYPES, STATUS) is scanned in file order up to the first
 *     block that is incomplete or fails its checks, and the scan goes on
 *     from there whenever a reader reaches its end, so a growing log shows
 *     its new blocks and a damaged one ends at its last good block;
 *   - events are delivered only from blocks the scan accepted (sequential
 *     layout) or, in the ring layout, from valid slots in seq order.
 * Memory: one block buffer (at most block_max <= POSIX_TRACE_LOG_BLOCK_LIMIT), one
 * slot array (at most POSIX_TRACE_LOG_SLOTS_MAX) and the name table (at most
 * __POSIX_TRACE_ID_NR names of TRACE_EVENT_NAME_MAX bytes).
 * Time: linear in the file.  Each block is loaded at most twice per pass
 * (scan, then read); a ring's slot headers are read once per pass, and a
 * pass, with the resumed metadata scan, happens only when the reader
 * reaches the end of the order it took (pt_ring_next()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kevent.h"
#include "log_format.h"
#include "log_read.h"

enum { PT_LOAD_OK, PT_LOAD_SHORT, PT_LOAD_BAD };

/* The fuzz target (fuzz/) is built with this defined: mutated inputs then
 * reach the parsing behind the CRCs instead of stopping at them. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define PT_CRC_BAD(a, b)	((void)(a), (void)(b), 0)
#else
#define PT_CRC_BAD(a, b)	((a) != (b))
#endif

static int pt_pread_all(int fd, void *buf, size_t len, uint64_t pos)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, (off_t)(pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? PT_LOAD_BAD : PT_LOAD_SHORT;
		done += (size_t)n;
	}
	return PT_LOAD_OK;
}

static uint64_t pt_file_size(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || st.st_size < 0)
		return 0;
	return (uint64_t)st.st_size;
}

/*
 * Load the block at @pos, at most @max bytes long, into l->blk.  SHORT:
 * not all of it is in the file (yet); BAD: it is not a valid block.
 */
static int pt_log_load(struct pt_log *l, uint64_t pos, uint64_t max, uint64_t fsize)
{
	uint8_t h[POSIX_TRACE_LOG_BLOCK_HDR];
	uint32_t len;
	uint8_t *buf;
	int ret;

	if (max > l->block_max)
		max = l->block_max;
	if (pos > fsize || fsize - pos < POSIX_TRACE_LOG_BLOCK_HDR)
		return PT_LOAD_SHORT;
	ret = pt_pread_all(l->fd, h, sizeof(h), pos);
	if (ret)
		return ret;
	len = pt_le32(h + POSIX_TRACE_LOG_B_LENGTH);
	if (pt_le32(h + POSIX_TRACE_LOG_B_MAGIC) != POSIX_TRACE_LOG_BLOCK_MAGIC ||
	    pt_le32(h + POSIX_TRACE_LOG_B_TAG) != l->tag ||
	    len < POSIX_TRACE_LOG_BLOCK_HDR || len % 8 || len > max)
		return PT_LOAD_BAD;
	if (fsize - pos < len)
		return PT_LOAD_SHORT;
	if (len > l->blk_cap) {
		buf = realloc(l->blk, len);
		if (!buf)
			return PT_LOAD_BAD;
		l->blk = buf;
		l->blk_cap = len;
	}
	ret = pt_pread_all(l->fd, l->blk, len, pos);
	if (ret)
		return ret;
	/* Re-read: the header may have changed under a writer since. */
	if (memcmp(l->blk, h, POSIX_TRACE_LOG_BLOCK_HDR) ||
	    PT_CRC_BAD(pt_log_crc(l->blk, len, POSIX_TRACE_LOG_B_CRC), pt_le32(h + POSIX_TRACE_LOG_B_CRC)))
		return PT_LOAD_BAD;
	return PT_LOAD_OK;
}

static uint32_t pt_blk_len(const struct pt_log *l)
{
	return pt_le32(l->blk + POSIX_TRACE_LOG_B_LENGTH);
}

static int pt_policy_ok(uint32_t v, int a, int b, int c)
{
	return v == (uint32_t)a || v == (uint32_t)b || v == (uint32_t)c;
}

/* A 64-bit size for a size_t that may be narrower: the largest it holds. */
static size_t pt_size(uint64_t v)
{
#if SIZE_MAX < UINT64_MAX
	if (v > SIZE_MAX)
		return SIZE_MAX;
#endif
	return (size_t)v;
}

static int pt_parse_info(struct pt_log *l)
{
	const uint8_t *p = l->blk + POSIX_TRACE_LOG_BLOCK_HDR;
	uint32_t plen = pt_blk_len(l) - POSIX_TRACE_LOG_BLOCK_HDR;
	trace_attr_t *a = &l->attr;
	uint32_t isize, nlen;
	uint64_t res;

	if (pt_le16(l->blk + POSIX_TRACE_LOG_B_TYPE) != POSIX_TRACE_LOG_BT_INFO || plen < POSIX_TRACE_LOG_INFO_V1)
		return EINVAL;
	isize = pt_le32(p + POSIX_TRACE_LOG_I_SIZE);
	nlen = pt_le32(p + POSIX_TRACE_LOG_I_NAME_LEN);
	if (isize < POSIX_TRACE_LOG_INFO_V1 || isize % 8 || isize > plen ||
	    nlen >= sizeof(a->__name) || nlen > plen - isize ||
	    memchr(p + isize, 0, nlen))
		return EINVAL;
	/* Readers size their buffers by max-data-size: never more than the
	 * module's clamp, whatever the file says. */
	if (pt_le64(p + POSIX_TRACE_LOG_I_MAX_DATA) > POSIX_TRACE_MAX_DATA_MAX ||
	    pt_le32(p + POSIX_TRACE_LOG_I_INHERIT) > POSIX_TRACE_INHERITED ||
	    !pt_policy_ok(pt_le32(p + POSIX_TRACE_LOG_I_STREAM_POLICY), POSIX_TRACE_LOOP,
			  POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH) ||
	    !pt_policy_ok(pt_le32(p + POSIX_TRACE_LOG_I_LOG_POLICY), POSIX_TRACE_LOOP,
			  POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND))
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->__magic = PT_ATTR_MAGIC;
	a->__flags = PT_ATTR_STREAM_POLICY_SET;
	a->__inheritance = (int)pt_le32(p + POSIX_TRACE_LOG_I_INHERIT);
	a->__stream_policy = (int)pt_le32(p + POSIX_TRACE_LOG_I_STREAM_POLICY);
	a->__log_policy = (int)pt_le32(p + POSIX_TRACE_LOG_I_LOG_POLICY);
	a->__stream_size = pt_size(pt_le64(p + POSIX_TRACE_LOG_I_STREAM_SIZE));
	a->__max_data_size = (size_t)pt_le64(p + POSIX_TRACE_LOG_I_MAX_DATA);
	a->__log_size = pt_size(pt_le64(p + POSIX_TRACE_LOG_I_LOG_SIZE));
	l->created_real = pt_le64(p + POSIX_TRACE_LOG_I_REALTIME);
	l->created_mono = pt_le64(p + POSIX_TRACE_LOG_I_MONOTONIC);
	a->__create_time.tv_sec = (time_t)(l->created_real / 1000000000u);
	a->__create_time.tv_nsec = (long)(l->created_real % 1000000000u);
	res = pt_le64(p + POSIX_TRACE_LOG_I_CLOCK_RES);
	a->__clock_res.tv_sec = (time_t)(res / 1000000000u);
	a->__clock_res.tv_nsec = (long)(res % 1000000000u);
	memcpy(a->__genversion, p + POSIX_TRACE_LOG_I_GENVERSION, POSIX_TRACE_LOG_GENVERSION_LEN);
	a->__genversion[POSIX_TRACE_LOG_GENVERSION_LEN] = 0;
	memcpy(a->__name, p + isize, nlen);
	a->__name[nlen] = 0;
	return 0;
}

/*
 * Names already known stay: ids are never renamed (clear keeps them).
 * The format has no field for the kernel event classes of the stream: a
 * writer names the kernel ids of the classes it records, so an id of a
 * class named here says the class was recorded (log_open.c lists the
 * class's other ids, and names an id the log does not).
 */
static void pt_parse_types(struct pt_log *l)
{
	uint32_t len = pt_blk_len(l), count = pt_le32(l->blk + POSIX_TRACE_LOG_B_COUNT);
	uint32_t off = POSIX_TRACE_LOG_BLOCK_HDR, id, nlen, step;
	const uint8_t *e;

	for (; count; count--) {
		if (len - off < POSIX_TRACE_LOG_TYPE_HDR)
			return;
		e = l->blk + off;
		id = pt_le32(e + POSIX_TRACE_LOG_T_ID);
		nlen = pt_le16(e + POSIX_TRACE_LOG_T_NAME_LEN);
		step = (uint32_t)PT_ROUND8(POSIX_TRACE_LOG_TYPE_HDR + nlen);
		if (!nlen || nlen > TRACE_EVENT_NAME_MAX || step > len - off ||
		    memchr(e + POSIX_TRACE_LOG_TYPE_HDR, 0, nlen))
			return;
		if (id < __POSIX_TRACE_ID_NR && !l->names[id])
			l->names[id] = strndup((const char *)e + POSIX_TRACE_LOG_TYPE_HDR, nlen);
		l->kclasses |= pt_kernel_class(id);
		off += step;
	}
}

static void pt_parse_status(struct pt_log *l)
{
	const uint8_t *p = l->blk + POSIX_TRACE_LOG_BLOCK_HDR;
	struct posix_trace_status_info *s = &l->status;

	if (pt_blk_len(l) - POSIX_TRACE_LOG_BLOCK_HDR < POSIX_TRACE_LOG_STATUS_V1 ||
	    pt_le32(p + POSIX_TRACE_LOG_S_SIZE) < POSIX_TRACE_LOG_STATUS_V1)
		return;
	s->posix_stream_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_STREAM);
	s->posix_stream_full_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_FULL);
	s->posix_stream_overrun_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_OVERRUN);
	s->posix_stream_flush_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_FLUSH);
	s->posix_stream_flush_error = (int)pt_le32(p + POSIX_TRACE_LOG_S_FLUSH_ERROR);
	s->posix_log_overrun_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_LOG_OVERRUN);
	s->posix_log_full_status = (int)pt_le32(p + POSIX_TRACE_LOG_S_LOG_FULL);
	l->finished = 1;
}

/* The LOSS block (log-format.md §5.5): the last one read counts. */
static void pt_parse_losses(struct pt_log *l)
{
	const uint8_t *p = l->blk + POSIX_TRACE_LOG_BLOCK_HDR;
	struct posix_trace_losses_np *s = &l->losses;

	if (pt_blk_len(l) - POSIX_TRACE_LOG_BLOCK_HDR < POSIX_TRACE_LOG_LOSS_V1 ||
	    pt_le32(p + POSIX_TRACE_LOG_L_SIZE) < POSIX_TRACE_LOG_LOSS_V1)
		return;
	memset(s, 0, sizeof(*s));
	s->posix_dropped = pt_le64(p + POSIX_TRACE_LOG_L_DROPPED);
	s->posix_drop_gaps = pt_le64(p + POSIX_TRACE_LOG_L_DROP_GAPS);
	s->posix_overwritten = pt_le64(p + POSIX_TRACE_LOG_L_OVERWRITTEN);
	s->posix_overwrite_gaps = pt_le64(p + POSIX_TRACE_LOG_L_OVERWRITE_GAPS);
	s->posix_log_discarded = pt_le64(p + POSIX_TRACE_LOG_L_DISCARDED);
	s->posix_log_write_lost = pt_le64(p + POSIX_TRACE_LOG_L_WRITE_LOST);
	l->has_losses = 1;
}

/*
 * Scan the metadata from l->meta_end on, as far as the blocks are
 * complete and valid.  In the sequential layout the scan ends for good
 * after the STATUS trailer or at an unknown critical block.
 */
static void pt_log_scan(struct pt_log *l)
{
	uint64_t fsize = pt_file_size(l->fd);
	uint16_t type;
	uint32_t len;

	while (!l->meta_done && l->meta_end < l->meta_limit) {
		if (pt_log_load(l, l->meta_end, l->meta_limit - l->meta_end, fsize))
			return;
		type = pt_le16(l->blk + POSIX_TRACE_LOG_B_TYPE);
		len = pt_blk_len(l);
		if (type == POSIX_TRACE_LOG_BT_TYPES) {
			pt_parse_types(l);
		} else if (type == POSIX_TRACE_LOG_BT_LOSS) {
			pt_parse_losses(l);
		} else if (type == POSIX_TRACE_LOG_BT_STATUS) {
			pt_parse_status(l);
			l->meta_done = l->layout == POSIX_TRACE_LOG_LAYOUT_SEQ;
		} else if (type > POSIX_TRACE_LOG_BT_PAD && type != POSIX_TRACE_LOG_BT_PACKED &&
			   (pt_le16(l->blk + POSIX_TRACE_LOG_B_FLAGS) & POSIX_TRACE_LOG_BF_CRITICAL)) {
			l->meta_done = 1;
			return;
		}
		l->meta_end += len;
	}
}

int pt_log_parse_open(struct pt_log *l)
{
	uint8_t h[POSIX_TRACE_LOG_HEADER_MAX];
	uint64_t ring_size, fsize;
	int ret;

	if (pt_pread_all(l->fd, h, POSIX_TRACE_LOG_HEADER_V1, 0))
		return EINVAL;
	l->header_size = pt_le32(h + POSIX_TRACE_LOG_H_HEADER_SIZE);
	if (memcmp(h, POSIX_TRACE_LOG_MAGIC, 8) || pt_le16(h + POSIX_TRACE_LOG_H_MAJOR) != POSIX_TRACE_LOG_MAJOR ||
	    l->header_size < POSIX_TRACE_LOG_HEADER_V1 || l->header_size > POSIX_TRACE_LOG_HEADER_MAX ||
	    l->header_size % 8)
		return EINVAL;
	if (l->header_size > POSIX_TRACE_LOG_HEADER_V1 &&
	    pt_pread_all(l->fd, h + POSIX_TRACE_LOG_HEADER_V1, l->header_size - POSIX_TRACE_LOG_HEADER_V1,
			 POSIX_TRACE_LOG_HEADER_V1))
		return EINVAL;
	if (PT_CRC_BAD(pt_log_crc(h, l->header_size, POSIX_TRACE_LOG_H_CRC), pt_le32(h + POSIX_TRACE_LOG_H_CRC)))
		return EINVAL;
	l->layout = h[POSIX_TRACE_LOG_H_LAYOUT];
	l->block_max = pt_le32(h + POSIX_TRACE_LOG_H_BLOCK_MAX);
	l->tag = pt_le32(h + POSIX_TRACE_LOG_H_LOG_TAG);
	if (l->block_max < 2 * POSIX_TRACE_LOG_BLOCK_HDR || l->block_max > POSIX_TRACE_LOG_BLOCK_LIMIT ||
	    l->block_max % 8)
		return EINVAL;
	if (l->layout == POSIX_TRACE_LOG_LAYOUT_SEQ) {
		l->meta_limit = UINT64_MAX;
	} else if (l->layout == POSIX_TRACE_LOG_LAYOUT_RING) {
		l->ring_offset = pt_le64(h + POSIX_TRACE_LOG_H_RING_OFFSET);
		ring_size = pt_le64(h + POSIX_TRACE_LOG_H_RING_SIZE);
		l->slot_size = pt_le32(h + POSIX_TRACE_LOG_H_SLOT_SIZE);
		if (l->ring_offset < l->header_size || l->ring_offset % 8 ||
		    l->ring_offset > INT64_MAX / 2 ||
		    l->slot_size < 2 * POSIX_TRACE_LOG_BLOCK_HDR || l->slot_size > l->block_max ||
		    l->slot_size % 8 || ring_size % l->slot_size ||
		    ring_size / l->slot_size == 0 ||
		    ring_size / l->slot_size > POSIX_TRACE_LOG_SLOTS_MAX)
			return EINVAL;
		l->nslots = (uint32_t)(ring_size / l->slot_size);
		l->meta_limit = l->ring_offset;
		l->slots = calloc(l->nslots, sizeof(*l->slots));
		if (!l->slots)
			return ENOMEM;
	} else {
		return EINVAL;
	}
	/* The first block is the INFO block, whole and valid. */
	fsize = pt_file_size(l->fd);
	if (pt_log_load(l, l->header_size, l->meta_limit - l->header_size, fsize))
		return EINVAL;
	ret = pt_parse_info(l);
	if (ret)
		return ret;
	l->meta_end = l->header_size + pt_blk_len(l);
	pt_log_scan(l);
	pt_log_rewind_cursor(l);
	return 0;
}

void pt_log_rewind_cursor(struct pt_log *l)
{
	l->has_event = 0;	/* the next event read is the first again */
	l->next_pos = l->header_size;
	l->have_last = 0;
	l->nsnap = 0;		/* the next read takes the ring's order */
	l->snap_pos = 0;
	l->blk_left = 0;
}

void pt_log_free_contents(struct pt_log *l)
{
	unsigned int i;

	for (i = 0; i < __POSIX_TRACE_ID_NR; i++)
		free(l->names[i]);
	free(l->blk);
	free(l->slots);
}

/* Blocks of events: format 1.0's, and 1.1's packed ones. */
static int pt_events_type(uint16_t type)
{
	return type == POSIX_TRACE_LOG_BT_EVENTS || type == POSIX_TRACE_LOG_BT_PACKED;
}

static int pt_slot_cmp(const void *a, const void *b)
{
	const struct pt_log_slot *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Ring layout: the order of the slots, taken by one pass over their
 * headers: the EVENTS blocks of this log above the last seq read, lowest
 * seq first, in l->slots[0, l->nsnap).  Reading follows it, so each slot
 * header is read once per pass, not once per block read.
 */
static void pt_ring_order(struct pt_log *l, uint64_t fsize)
{
	uint8_t h[POSIX_TRACE_LOG_BLOCK_HDR];
	uint32_t i, n = 0;
	uint64_t pos, seq;

	for (i = 0; i < l->nslots; i++) {
		pos = l->ring_offset + (uint64_t)i * l->slot_size;
		if (pos >= fsize || fsize - pos < POSIX_TRACE_LOG_BLOCK_HDR ||
		    pt_pread_all(l->fd, h, sizeof(h), pos))
			continue;
		seq = pt_le64(h + POSIX_TRACE_LOG_B_SEQ);
		if (pt_le32(h + POSIX_TRACE_LOG_B_MAGIC) != POSIX_TRACE_LOG_BLOCK_MAGIC ||
		    pt_le32(h + POSIX_TRACE_LOG_B_TAG) != l->tag ||
		    !pt_events_type(pt_le16(h + POSIX_TRACE_LOG_B_TYPE)) ||
		    (l->have_last && seq <= l->last_seq))
			continue;
		l->slots[n].seq = seq;
		l->slots[n++].index = i;
	}
	qsort(l->slots, n, sizeof(*l->slots), pt_slot_cmp);
	l->nsnap = n;
	l->snap_pos = 0;
}

/*
 * Load the next valid slot of the order.  One that fails its checks
 * (torn, or rewritten since the order was taken) is passed over only
 * when a later one is valid, so a slot being written is retried on the
 * next call.
 */
static int pt_ring_take(struct pt_log *l, uint64_t fsize)
{
	const struct pt_log_slot *s;
	uint32_t i;

	for (i = l->snap_pos; i < l->nsnap; i++) {
		s = &l->slots[i];
		if ((l->have_last && s->seq <= l->last_seq) ||
		    pt_log_load(l, l->ring_offset + (uint64_t)s->index * l->slot_size,
				l->slot_size, fsize) ||
		    pt_le64(l->blk + POSIX_TRACE_LOG_B_SEQ) != s->seq ||
		    !pt_events_type(pt_le16(l->blk + POSIX_TRACE_LOG_B_TYPE)))
			continue;
		l->snap_pos = i + 1;
		l->last_seq = s->seq;
		l->have_last = 1;
		return 1;
	}
	return 0;
}

/*
 * Ring layout: load the EVENTS slot with the lowest seq above the last
 * one read.  At the end of the order, one new pass per call: a log being
 * written may have new blocks, and new names before them (the metadata
 * scan resumes first, so an event's TYPES block is in before the event).
 */
static int pt_ring_next(struct pt_log *l)
{
	uint64_t fsize = pt_file_size(l->fd);

	if (pt_ring_take(l, fsize))
		return 1;
	pt_log_scan(l);
	fsize = pt_file_size(l->fd);
	pt_ring_order(l, fsize);
	return pt_ring_take(l, fsize);
}

/* Sequential layout: load the next block the metadata scan accepted. */
static int pt_seq_next(struct pt_log *l)
{
	if (l->next_pos >= l->meta_end)
		pt_log_scan(l);
	if (l->next_pos >= l->meta_end)
		return 0;
	if (pt_log_load(l, l->next_pos, l->meta_end - l->next_pos, pt_file_size(l->fd)))
		return 0;	/* rewritten under us: the end, for now */
	l->next_pos += pt_blk_len(l);
	return 1;
}

static void pt_log_timespec(const struct pt_log *l, uint64_t mono, struct timespec *ts)
{
	uint64_t real = l->created_real + (mono - l->created_mono);

	ts->tv_sec = (time_t)(real / 1000000000u);
	ts->tv_nsec = (long)(real % 1000000000u);
}

/* @dlen bytes of data at @r into the caller's buffer of @num_bytes. */
static void pt_take_data(struct posix_trace_event_info *ev, const uint8_t *r,
			 uint32_t dlen, void *data, size_t num_bytes, size_t *data_len)
{
	size_t n = dlen;

	if (num_bytes < n) {
		n = num_bytes;
		ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	}
	if (n)
		memcpy(data, r, n);
	*data_len = n;
}

/* An event of thread @tid goes to the caller. */
static void pt_log_took(struct pt_log *l, uint32_t tid)
{
	l->has_event = 1;
	l->event_tid = tid;
}

/*
 * The packed record at l->blk_off (format 1.1, <linux/posix_trace_log.h>)
 * after the context records before it, or 0 when the rest of the block
 * is unusable.  Each context record moves on by 24 bytes: one call is
 * linear in the block.
 */
static int pt_take_packed(struct pt_log *l, struct posix_trace_event_info *ev,
			  void *data, size_t num_bytes, size_t *data_len)
{
	for (;;) {
		uint32_t rem = l->blk_len - l->blk_off, word, dlen, hdr;
		const uint8_t *r = l->blk + l->blk_off;

		if (rem < POSIX_TRACE_LOG_P_HDR)
			return 0;
		word = pt_le32(r + POSIX_TRACE_LOG_P_WORD);
		if ((word & ~POSIX_TRACE_LOG_P_LEN_MASK) & ~POSIX_TRACE_LOG_PF_KNOWN)
			return 0;
		if (word & POSIX_TRACE_LOG_PF_CONTEXT) {
			if (word != POSIX_TRACE_LOG_PF_CONTEXT ||
			    rem < POSIX_TRACE_LOG_C_SIZE ||
			    pt_le32(r + POSIX_TRACE_LOG_C_RESERVED))
				return 0;
			l->ctx_pid = pt_le32(r + POSIX_TRACE_LOG_C_PID);
			l->ctx_tid = pt_le32(r + POSIX_TRACE_LOG_C_TID);
			l->ctx_thread = pt_le64(r + POSIX_TRACE_LOG_C_THREAD);
			l->ctx_set = 1;
			l->blk_off += POSIX_TRACE_LOG_C_SIZE;
			continue;
		}
		dlen = word & POSIX_TRACE_LOG_P_LEN_MASK;
		hdr = POSIX_TRACE_LOG_P_HDR +
		      (word & POSIX_TRACE_LOG_PF_ADDRESS ? 8 : 0);
		/* dlen < 2^24: the sum cannot wrap */
		if (!l->ctx_set || rem < hdr || PT_ROUND8(dlen) > rem - hdr)
			return 0;
		if (word & POSIX_TRACE_LOG_PF_ADDRESS)
			l->ctx_address = pt_le64(r + POSIX_TRACE_LOG_P_ADDRESS);
		ev->posix_event_id = pt_le32(r + POSIX_TRACE_LOG_P_ID);
		ev->posix_pid = (pid_t)l->ctx_pid;
		ev->posix_prog_address = (void *)(uintptr_t)l->ctx_address;
		ev->posix_thread_id = (pthread_t)l->ctx_thread;
		pt_log_timespec(l, pt_le64(r + POSIX_TRACE_LOG_P_TIMESTAMP),
				&ev->posix_timestamp);
		ev->posix_truncation_status = (word & POSIX_TRACE_LOG_PF_TRUNCATED) ?
			POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED;
		pt_take_data(ev, r + hdr, dlen, data, num_bytes, data_len);
		pt_log_took(l, l->ctx_tid);
		l->blk_off += hdr + (uint32_t)PT_ROUND8(dlen);
		l->blk_left--;
		return 1;
	}
}

/* The record at l->blk_off, or 0 when the rest of the block is unusable. */
static int pt_take_record(struct pt_log *l, struct posix_trace_event_info *ev,
			  void *data, size_t num_bytes, size_t *data_len)
{
	uint32_t rem = l->blk_len - l->blk_off, size, dlen;
	const uint8_t *r = l->blk + l->blk_off;

	if (l->packed)
		return pt_take_packed(l, ev, data, num_bytes, data_len);
	if (rem < POSIX_TRACE_LOG_RECORD_HDR)
		return 0;
	size = pt_le32(r + POSIX_TRACE_LOG_R_SIZE);
	dlen = pt_le32(r + POSIX_TRACE_LOG_R_DATA_LEN);
	if (size < POSIX_TRACE_LOG_RECORD_HDR || size % 8 || size > rem ||
	    dlen > size - POSIX_TRACE_LOG_RECORD_HDR)
		return 0;
	ev->posix_event_id = pt_le32(r + POSIX_TRACE_LOG_R_ID);
	ev->posix_pid = (pid_t)pt_le32(r + POSIX_TRACE_LOG_R_PID);
	ev->posix_prog_address = (void *)(uintptr_t)pt_le64(r + POSIX_TRACE_LOG_R_ADDRESS);
	ev->posix_thread_id = (pthread_t)pt_le64(r + POSIX_TRACE_LOG_R_THREAD);
	pt_log_timespec(l, pt_le64(r + POSIX_TRACE_LOG_R_TIMESTAMP), &ev->posix_timestamp);
	ev->posix_truncation_status = (pt_le32(r + POSIX_TRACE_LOG_R_FLAGS) & POSIX_TRACE_REC_TRUNCATED) ?
		POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED;
	pt_take_data(ev, r + POSIX_TRACE_LOG_RECORD_HDR, dlen, data, num_bytes, data_len);
	pt_log_took(l, pt_le32(r + POSIX_TRACE_LOG_R_TID));
	l->blk_off += size;
	l->blk_left--;
	return 1;
}

int pt_log_next(struct pt_log *l, struct posix_trace_event_info *ev, void *data,
		size_t num_bytes, size_t *data_len, int *got)
{
	for (;;) {
		if (l->blk_left) {
			if (pt_take_record(l, ev, data, num_bytes, data_len)) {
				*got = 1;
				return 0;
			}
			l->blk_left = 0;
		}
		if (l->layout == POSIX_TRACE_LOG_LAYOUT_RING) {
			if (!pt_ring_next(l))
				break;
		} else if (!pt_seq_next(l)) {
			break;
		}
		if (!pt_events_type(pt_le16(l->blk + POSIX_TRACE_LOG_B_TYPE)))
			continue;
		l->packed = pt_le16(l->blk + POSIX_TRACE_LOG_B_TYPE) == POSIX_TRACE_LOG_BT_PACKED;
		l->ctx_set = 0;
		l->ctx_address = 0;
		l->blk_len = pt_blk_len(l);
		l->blk_off = POSIX_TRACE_LOG_BLOCK_HDR;
		l->blk_left = pt_le32(l->blk + POSIX_TRACE_LOG_B_COUNT);
	}
	*got = 0;
	return 0;
}
