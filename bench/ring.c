// SPDX-License-Identifier: GPL-2.0
/*
 * The floor rings.  Overwrite mode, like a LOOP stream: writers never look
 * at the reader.  A record never wraps: the data area has one maximal
 * record of slack past its end and a record always starts at (pos & mask),
 * so it is written and read in one piece at the same address; records of
 * one window of @size bytes still never overlap.  That is cheaper than
 * any wrapping ring, which is the point of a floor.
 *
 * The functions are out of line, in their own file, so that each event
 * costs a call with a run-time length, as posix_trace_event() does.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ring.h"

_Static_assert(sizeof(struct ring_rec) == 32, "the floor's header is 32 bytes");

#define RING_SLACK (sizeof(struct ring_rec) + BENCH_PAYLOAD_MAX + 8)

static _Thread_local uint32_t my_tid;

struct ring *ring_new(uint64_t size)
{
	size_t ctl = (sizeof(struct ring) + 4095) & ~(size_t)4095;
	size_t len = ctl + size + RING_SLACK;
	struct ring *r;

	r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	r->mask = size - 1;
	r->data = (unsigned char *)r + ctl;
	r->map_size = len;
	/* Fault the ring in now, not in the first repetition. */
	memset(r->data, 0, size + RING_SLACK);
	return r;
}

void ring_free(struct ring *r)
{
	if (r)
		munmap(r, r->map_size);
}

uint32_t ring_rec_size(size_t len)
{
	return (uint32_t)((sizeof(struct ring_rec) + len + 7) & ~(size_t)7);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint32_t tid(void)
{
	if (__builtin_expect(!my_tid, 0))
		my_tid = (uint32_t)gettid();
	return my_tid;
}

/* Everything but the commit word. */
static inline void fill(struct ring_rec *rec, uint32_t size, uint32_t id,
			const void *data, uint32_t len)
{
	rec->size = size;
	rec->id = id;
	rec->data_len = len;
	rec->tid = tid();
	rec->timestamp = now_ns();
	if (len) {
		/* Zero the padding, then the data over its start. */
		((uint64_t *)((unsigned char *)rec + size))[-1] = 0;
		memcpy(rec + 1, data, len);
	}
}

__attribute__((noinline))
void ring_sp_write(struct ring *r, uint32_t id, const void *data, uint32_t len)
{
	uint64_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t size = ring_rec_size(len);
	struct ring_rec *rec = (struct ring_rec *)(r->data + (pos & r->mask));

	fill(rec, size, id, data, len);
	atomic_store_explicit(&rec->pos, pos, memory_order_relaxed);
	atomic_store_explicit(&r->head, pos + size, memory_order_release);
}

__attribute__((noinline))
void ring_mp_write(struct ring *r, uint32_t id, const void *data, uint32_t len)
{
	uint32_t size = ring_rec_size(len);
	uint64_t pos = atomic_fetch_add_explicit(&r->head, size, memory_order_relaxed);
	struct ring_rec *rec = (struct ring_rec *)(r->data + (pos & r->mask));

	fill(rec, size, id, data, len);
	/* A reader takes the record once pos matches its position. */
	atomic_store_explicit(&rec->pos, pos, memory_order_release);
}

__attribute__((noinline))
int ring_sp_read(struct ring *r, struct ring_event *ev, void *buf, size_t bufsize)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	const struct ring_rec *rec;
	size_t n;

	if (tail == head)
		return 0;
	rec = (const struct ring_rec *)(r->data + (tail & r->mask));
	ev->id = rec->id;
	ev->tid = rec->tid;
	ev->timestamp = rec->timestamp;
	ev->data_len = rec->data_len;
	n = rec->data_len < bufsize ? rec->data_len : bufsize;
	memcpy(buf, rec + 1, n);
	/* Hands the bytes back to the writer, as a reader in another process
	 * would. */
	atomic_store_explicit(&r->tail, tail + rec->size, memory_order_release);
	return 1;
}
