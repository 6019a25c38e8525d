/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace log writer for the tests and the fuzz corpus only (not part of
 * the library): builds a log of Documentation/log-format.md in memory,
 * block by block, so that tests can cut, flip and forge it.
 */
#ifndef PT_LOG_WRITER_H
#define PT_LOG_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace.h>
#include "internal.h"
#include "log_format.h"

struct lw_event {
	uint32_t id, pid, tid, flags;
	uint64_t ts, thread, address;
	const void *data;
	uint32_t data_len;
};

struct lw_log {
	uint8_t *buf;
	size_t len;		/* bytes of the file */
	size_t end;		/* where lw_append() puts the next block */
	uint32_t tag;
	uint64_t seq;		/* next block's seq */
	int layout;
	uint64_t ring_offset;
	uint32_t slot_size;
};

static inline void lw_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void lw_put32(uint8_t *p, uint32_t v)
{
	lw_put16(p, (uint16_t)v);
	lw_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void lw_put64(uint8_t *p, uint64_t v)
{
	lw_put32(p, (uint32_t)v);
	lw_put32(p + 4, (uint32_t)(v >> 32));
}

static inline void lw_reserve(struct lw_log *w, size_t upto)
{
	if (upto > w->len) {
		w->buf = realloc(w->buf, upto);
		memset(w->buf + w->len, 0, upto - w->len);
		w->len = upto;
	}
}

/* A log of @layout; the ring layout has @nslots slots of @slot_size
 * after a metadata area of @meta bytes. */
static inline void lw_init(struct lw_log *w, int layout, uint32_t meta,
			   uint32_t nslots, uint32_t slot_size)
{
	uint8_t *h;

	memset(w, 0, sizeof(*w));
	w->layout = layout;
	w->tag = 0x5eed1234;
	lw_reserve(w, POSIX_TRACE_LOG_HEADER_V1);
	h = w->buf;
	memcpy(h, POSIX_TRACE_LOG_MAGIC, 8);
	lw_put16(h + POSIX_TRACE_LOG_H_MAJOR, POSIX_TRACE_LOG_MAJOR);
	lw_put16(h + POSIX_TRACE_LOG_H_MINOR, POSIX_TRACE_LOG_MINOR);
	h[POSIX_TRACE_LOG_H_BYTE_ORDER] = POSIX_TRACE_LOG_ORDER_LE;
	h[POSIX_TRACE_LOG_H_WORD_SIZE] = sizeof(void *);
	h[POSIX_TRACE_LOG_H_LAYOUT] = (uint8_t)layout;
	lw_put32(h + POSIX_TRACE_LOG_H_HEADER_SIZE, POSIX_TRACE_LOG_HEADER_V1);
	lw_put32(h + POSIX_TRACE_LOG_H_BLOCK_MAX, 1 << 16);
	lw_put32(h + POSIX_TRACE_LOG_H_LOG_TAG, w->tag);
	if (layout == POSIX_TRACE_LOG_LAYOUT_RING) {
		w->ring_offset = POSIX_TRACE_LOG_HEADER_V1 + meta;
		w->slot_size = slot_size;
		lw_put64(h + POSIX_TRACE_LOG_H_RING_OFFSET, w->ring_offset);
		lw_put64(h + POSIX_TRACE_LOG_H_RING_SIZE, (uint64_t)nslots * slot_size);
		lw_put32(h + POSIX_TRACE_LOG_H_SLOT_SIZE, slot_size);
		lw_reserve(w, w->ring_offset + (size_t)nslots * slot_size);
		h = w->buf;
	}
	lw_put32(h + POSIX_TRACE_LOG_H_CRC, pt_log_crc(h, POSIX_TRACE_LOG_HEADER_V1, POSIX_TRACE_LOG_H_CRC));
	w->end = POSIX_TRACE_LOG_HEADER_V1;
}

/* Write a block at @pos; returns its length. */
static inline uint32_t lw_block_at(struct lw_log *w, size_t pos, uint16_t type, uint16_t flags,
				   uint64_t seq, uint32_t count, const void *payload,
				   uint32_t plen)
{
	uint32_t len = (uint32_t)PT_ROUND8(POSIX_TRACE_LOG_BLOCK_HDR + plen);
	uint8_t *b;

	lw_reserve(w, pos + len);
	b = w->buf + pos;
	memset(b, 0, len);
	lw_put32(b + POSIX_TRACE_LOG_B_MAGIC, POSIX_TRACE_LOG_BLOCK_MAGIC);
	lw_put16(b + POSIX_TRACE_LOG_B_TYPE, type);
	lw_put16(b + POSIX_TRACE_LOG_B_FLAGS, flags);
	lw_put32(b + POSIX_TRACE_LOG_B_LENGTH, len);
	lw_put64(b + POSIX_TRACE_LOG_B_SEQ, seq);
	lw_put32(b + POSIX_TRACE_LOG_B_COUNT, count);
	lw_put32(b + POSIX_TRACE_LOG_B_TAG, w->tag);
	if (plen)
		memcpy(b + POSIX_TRACE_LOG_BLOCK_HDR, payload, plen);
	lw_put32(b + POSIX_TRACE_LOG_B_CRC, pt_log_crc(b, len, POSIX_TRACE_LOG_B_CRC));
	return len;
}

/* Recompute the CRC of the block at @pos after a test changed it. */
static inline void lw_reseal(struct lw_log *w, size_t pos)
{
	uint8_t *b = w->buf + pos;

	lw_put32(b + POSIX_TRACE_LOG_B_CRC, pt_log_crc(b, pt_le32(b + POSIX_TRACE_LOG_B_LENGTH), POSIX_TRACE_LOG_B_CRC));
}

/* The next block in file order (sequential) or in the metadata area. */
static inline size_t lw_append(struct lw_log *w, uint16_t type, uint32_t count,
			       const void *payload, uint32_t plen)
{
	size_t pos = w->end;

	w->end += lw_block_at(w, pos, type, 0, w->seq++, count, payload, plen);
	return pos;
}

static inline void lw_info(struct lw_log *w, const char *name, int stream_policy,
			   int log_policy)
{
	uint8_t p[POSIX_TRACE_LOG_INFO_V1 + TRACE_NAME_MAX] = { 0 };
	uint32_t nlen = (uint32_t)strlen(name);

	lw_put32(p + POSIX_TRACE_LOG_I_SIZE, POSIX_TRACE_LOG_INFO_V1);
	lw_put32(p + POSIX_TRACE_LOG_I_PID, 4242);
	lw_put64(p + POSIX_TRACE_LOG_I_REALTIME, 1700000000ull * 1000000000ull);
	lw_put64(p + POSIX_TRACE_LOG_I_MONOTONIC, 5000000000ull);
	lw_put64(p + POSIX_TRACE_LOG_I_CLOCK_RES, 1);
	lw_put32(p + POSIX_TRACE_LOG_I_INHERIT, POSIX_TRACE_INHERITED);
	lw_put32(p + POSIX_TRACE_LOG_I_STREAM_POLICY, (uint32_t)stream_policy);
	lw_put32(p + POSIX_TRACE_LOG_I_LOG_POLICY, (uint32_t)log_policy);
	lw_put64(p + POSIX_TRACE_LOG_I_STREAM_SIZE, 65536);
	lw_put64(p + POSIX_TRACE_LOG_I_MAX_DATA, 200);
	lw_put64(p + POSIX_TRACE_LOG_I_LOG_SIZE, 1 << 20);
	memcpy(p + POSIX_TRACE_LOG_I_GENVERSION, "posix-trace-1.0", 15);
	lw_put32(p + POSIX_TRACE_LOG_I_NAME_LEN, nlen);
	memcpy(p + POSIX_TRACE_LOG_INFO_V1, name, nlen);
	lw_append(w, POSIX_TRACE_LOG_BT_INFO, 1, p, POSIX_TRACE_LOG_INFO_V1 + nlen);
}

static inline size_t lw_types(struct lw_log *w, const trace_event_id_t *ids,
			    const char *const *names, unsigned int n)
{
	uint8_t p[64 * (POSIX_TRACE_LOG_TYPE_HDR + TRACE_EVENT_NAME_MAX + 8)] = { 0 };
	uint32_t off = 0, nlen;
	unsigned int i;

	for (i = 0; i < n && i < 64; i++) {
		nlen = (uint32_t)strlen(names[i]);
		lw_put32(p + off + POSIX_TRACE_LOG_T_ID, ids[i]);
		lw_put16(p + off + POSIX_TRACE_LOG_T_NAME_LEN, (uint16_t)nlen);
		memcpy(p + off + POSIX_TRACE_LOG_TYPE_HDR, names[i], nlen);
		off += (uint32_t)PT_ROUND8(POSIX_TRACE_LOG_TYPE_HDR + nlen);
	}
	return lw_append(w, POSIX_TRACE_LOG_BT_TYPES, i, p, off);
}

/* The EVENTS payload of @n events into @p (big enough); its length. */
static inline uint32_t lw_records(uint8_t *p, const struct lw_event *ev, unsigned int n,
				  uint64_t *seq)
{
	uint32_t off = 0, size;
	unsigned int i;

	for (i = 0; i < n; i++) {
		size = (uint32_t)PT_ROUND8(POSIX_TRACE_LOG_RECORD_HDR + ev[i].data_len);
		memset(p + off, 0, size);
		lw_put32(p + off + POSIX_TRACE_LOG_R_SIZE, size);
		lw_put32(p + off + POSIX_TRACE_LOG_R_ID, ev[i].id);
		lw_put32(p + off + POSIX_TRACE_LOG_R_PID, ev[i].pid);
		lw_put32(p + off + POSIX_TRACE_LOG_R_TID, ev[i].tid);
		lw_put32(p + off + POSIX_TRACE_LOG_R_DATA_LEN, ev[i].data_len);
		lw_put32(p + off + POSIX_TRACE_LOG_R_FLAGS, ev[i].flags);
		lw_put64(p + off + POSIX_TRACE_LOG_R_SEQ, (*seq)++);
		lw_put64(p + off + POSIX_TRACE_LOG_R_TIMESTAMP, ev[i].ts);
		lw_put64(p + off + POSIX_TRACE_LOG_R_THREAD, ev[i].thread);
		lw_put64(p + off + POSIX_TRACE_LOG_R_ADDRESS, ev[i].address);
		if (ev[i].data_len)
			memcpy(p + off + POSIX_TRACE_LOG_RECORD_HDR, ev[i].data, ev[i].data_len);
		off += size;
	}
	return off;
}

static inline size_t lw_events(struct lw_log *w, const struct lw_event *ev, unsigned int n)
{
	static uint8_t p[1 << 16];
	uint64_t rseq = 0;

	return lw_append(w, POSIX_TRACE_LOG_BT_EVENTS, n, p, lw_records(p, ev, n, &rseq));
}

/*
 * The packed EVENTS payload (format 1.1, <linux/posix_trace_log.h>) of @n
 * events into @p (big enough): a context record whenever pid, tid or
 * thread change, the address when it changes.  Its length.
 */
static inline uint32_t lw_packed_records(uint8_t *p, const struct lw_event *ev,
					 unsigned int n)
{
	uint32_t off = 0, word, dlen;
	uint64_t addr = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!i || ev[i].pid != ev[i - 1].pid || ev[i].tid != ev[i - 1].tid ||
		    ev[i].thread != ev[i - 1].thread) {
			memset(p + off, 0, POSIX_TRACE_LOG_C_SIZE);
			lw_put32(p + off, POSIX_TRACE_LOG_PF_CONTEXT);
			lw_put32(p + off + POSIX_TRACE_LOG_C_PID, ev[i].pid);
			lw_put32(p + off + POSIX_TRACE_LOG_C_TID, ev[i].tid);
			lw_put64(p + off + POSIX_TRACE_LOG_C_THREAD, ev[i].thread);
			off += POSIX_TRACE_LOG_C_SIZE;
		}
		dlen = ev[i].data_len;
		word = dlen;
		if (ev[i].flags & POSIX_TRACE_REC_TRUNCATED)
			word |= POSIX_TRACE_LOG_PF_TRUNCATED;
		if (ev[i].flags & POSIX_TRACE_REC_AUTO)
			word |= POSIX_TRACE_LOG_PF_AUTO;
		if (ev[i].address != addr)
			word |= POSIX_TRACE_LOG_PF_ADDRESS;
		lw_put32(p + off + POSIX_TRACE_LOG_P_WORD, word);
		lw_put32(p + off + POSIX_TRACE_LOG_P_ID, ev[i].id);
		lw_put64(p + off + POSIX_TRACE_LOG_P_TIMESTAMP, ev[i].ts);
		off += POSIX_TRACE_LOG_P_HDR;
		if (word & POSIX_TRACE_LOG_PF_ADDRESS) {
			addr = ev[i].address;
			lw_put64(p + off, addr);
			off += 8;
		}
		memset(p + off, 0, PT_ROUND8(dlen));
		if (dlen)
			memcpy(p + off, ev[i].data, dlen);
		off += (uint32_t)PT_ROUND8(dlen);
	}
	return off;
}

/* A packed EVENTS block (CRITICAL: a 1.0 reader stops there). */
static inline size_t lw_events_packed(struct lw_log *w, const struct lw_event *ev,
				      unsigned int n)
{
	static uint8_t p[1 << 16];
	size_t pos = w->end;

	w->end += lw_block_at(w, pos, POSIX_TRACE_LOG_BT_PACKED, POSIX_TRACE_LOG_BF_CRITICAL,
			      w->seq++, n, p, lw_packed_records(p, ev, n));
	return pos;
}

/* Ring layout: an EVENTS block of seq @seq in slot @slot, packed (format
 * 1.1) if @packed.
 */
static inline void lw_slot_as(struct lw_log *w, uint32_t slot, uint64_t seq,
			      const struct lw_event *ev, unsigned int n, int packed)
{
	static uint8_t p[1 << 16];
	uint64_t rseq = 0;
	size_t pos = w->ring_offset + (size_t)slot * w->slot_size;

	if (packed)
		lw_block_at(w, pos, POSIX_TRACE_LOG_BT_PACKED, POSIX_TRACE_LOG_BF_CRITICAL, seq, n,
			    p, lw_packed_records(p, ev, n));
	else
		lw_block_at(w, pos, POSIX_TRACE_LOG_BT_EVENTS, 0, seq, n, p,
			    lw_records(p, ev, n, &rseq));
}

static inline void lw_slot(struct lw_log *w, uint32_t slot, uint64_t seq,
			   const struct lw_event *ev, unsigned int n)
{
	lw_slot_as(w, slot, seq, ev, n, 0);
}

static inline void lw_status(struct lw_log *w, const struct posix_trace_status_info *s)
{
	uint8_t p[POSIX_TRACE_LOG_STATUS_V1];

	lw_put32(p, POSIX_TRACE_LOG_STATUS_V1);
	lw_put32(p + POSIX_TRACE_LOG_S_STREAM, (uint32_t)s->posix_stream_status);
	lw_put32(p + POSIX_TRACE_LOG_S_FULL, (uint32_t)s->posix_stream_full_status);
	lw_put32(p + POSIX_TRACE_LOG_S_OVERRUN, (uint32_t)s->posix_stream_overrun_status);
	lw_put32(p + POSIX_TRACE_LOG_S_FLUSH, (uint32_t)s->posix_stream_flush_status);
	lw_put32(p + POSIX_TRACE_LOG_S_FLUSH_ERROR, (uint32_t)s->posix_stream_flush_error);
	lw_put32(p + POSIX_TRACE_LOG_S_LOG_OVERRUN, (uint32_t)s->posix_log_overrun_status);
	lw_put32(p + POSIX_TRACE_LOG_S_LOG_FULL, (uint32_t)s->posix_log_full_status);
	lw_append(w, POSIX_TRACE_LOG_BT_STATUS, 1, p, sizeof(p));
}

/* Write the first @len bytes of the log to @path; 0, or -1 with errno. */
static inline int lw_save(const struct lw_log *w, size_t len, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(w->buf, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* A memfd holding the first @len bytes of @buf. */
static inline int lw_memfd(const void *buf, size_t len)
{
	int fd = memfd_create("ptlog", MFD_CLOEXEC);

	if (fd >= 0 && len && write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif /* PT_LOG_WRITER_H */
