/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The floor: the least a shared-memory tracer can do per event.  A record
 * is a 32-byte header (with a CLOCK_MONOTONIC timestamp) plus the payload,
 * padded to 8, written into a ring in MAP_SHARED anonymous memory, as a
 * tracer's buffer shared with a reader process would be.
 */
#ifndef BENCH_RING_H
#define BENCH_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct ring_rec {
	uint32_t size;		/* header + data, padded to 8 */
	uint32_t id;
	uint32_t data_len;
	uint32_t tid;
	_Atomic uint64_t pos;	/* multi-producer commit word */
	uint64_t timestamp;
};

/* Head, tail and the constants each on their own cache line, as a reader
 * in another process would need them. */
struct ring {
	_Alignas(64) _Atomic uint64_t head;	/* SP: committed; MP: reserved */
	_Alignas(64) _Atomic uint64_t tail;	/* reader */
	_Alignas(64) uint64_t mask;
	unsigned char *data;
	size_t map_size;
};

/* What the reader copies out of a record, like posix_trace_event_info. */
struct ring_event {
	uint32_t id;
	uint32_t tid;
	uint64_t timestamp;
	size_t data_len;
};

/* A ring of @size bytes (a power of two); NULL on failure. */
struct ring *ring_new(uint64_t size);
void ring_free(struct ring *r);
/* Bytes a record of @len data bytes takes. */
uint32_t ring_rec_size(size_t len);
/* Single producer: plain stores, then a release store of head. */
void ring_sp_write(struct ring *r, uint32_t id, const void *data, uint32_t len);
/* Multi-producer: reserve with fetch_add on head, fill, then commit with a
 * release store of the record's pos. */
void ring_mp_write(struct ring *r, uint32_t id, const void *data, uint32_t len);
/* Copies the next record of a single-producer ring out: 1, or 0 if empty. */
int ring_sp_read(struct ring *r, struct ring_event *ev, void *buf, size_t bufsize);

#endif /* BENCH_RING_H */
