// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The getnext family (spec 3.7).  Records are read straight from the
 * lanes mapped read-only into this process; the kernel is entered only to
 * sleep when every lane is empty.
 *
 * Reader side of the ring protocol (writer side: kmod/record.c):
 *   head = load-acquire(lane->head)         pairs with the writer's release
 *   copy the record at pos
 *   acquire fence; oldest = load(lane->oldest)
 *   oldest > pos: the writer may have reused the bytes: retry from oldest.
 * Consumed positions are published with a release store to the consumer's
 * tail, which the kernel clamps.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "handle.h"

#define PT_LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

static void pt_ring_copy(const struct pt_handle *h, const struct posix_trace_lane *l,
			 uint64_t pos, void *dst, size_t len)
{
	const uint8_t *ring = (const uint8_t *)h->ro + l->data_offset;
	uint64_t off = pos % l->data_size;
	size_t first = len < l->data_size - off ? len : l->data_size - off;

	memcpy(dst, ring + off, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, ring, len - first);
}

void pt_cursors_reset(struct pt_handle *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_lanes; i++) {
		const struct posix_trace_lane *l = pt_lane(h, i);

		/* No record of the lane may be lost unnoticed, not even the
		 * first one: the kernel says which seq comes first. */
		h->cur[i].pos = PT_LOAD_ACQ(&l->oldest);
		h->cur[i].next_seq = __atomic_load_n(&l->base_seq, __ATOMIC_RELAXED);
		h->cur[i].seq_known = 1;
		__atomic_store_n(&pt_consumer(h, i)->tail, h->cur[i].pos,
				 __ATOMIC_RELEASE);
	}
	h->npending = 0;
	h->pending_head = 0;
}

/* Timestamp of the next record of lane @i, or 0 if the lane is empty.  A
 * torn read only affects which lane is tried first. */
static uint64_t pt_peek(const struct pt_handle *h, unsigned int i)
{
	const struct posix_trace_lane *l = pt_lane(h, i);
	uint64_t head = PT_LOAD_ACQ(&l->head);
	uint64_t oldest = PT_LOAD_ACQ(&l->oldest);
	uint64_t pos = h->cur[i].pos;
	struct posix_trace_record rec;

	if (pos < oldest)
		pos = oldest;
	if (pos >= head)
		return 0;
	pt_ring_copy(h, l, pos, &rec, sizeof(rec));
	return rec.timestamp ? rec.timestamp : 1;
}

static struct pt_pending *pt_push(struct pt_handle *h)
{
	unsigned int slot = (h->pending_head + h->npending++) % PT_PENDING_MAX;
	struct pt_pending *p = &h->pending[slot];

	memset(&p->rec, 0, sizeof(p->rec));
	p->data_off = (uint32_t)(slot * (h->data_cap / PT_PENDING_MAX));
	return p;
}

static void pt_push_marker(struct pt_handle *h, uint32_t id, uint64_t ts)
{
	struct pt_pending *p = pt_push(h);

	p->rec.event_id = id;
	p->rec.timestamp = ts;
	p->rec.flags = POSIX_TRACE_REC_AUTO;
}

static int pt_rec_valid(const struct posix_trace_record *r, uint64_t avail,
			size_t max_data)
{
	return r->size >= PT_RECORD_HDR_SIZE && r->size % 8 == 0 &&
	       r->size <= avail && r->data_len <= r->size - PT_RECORD_HDR_SIZE &&
	       r->data_len <= max_data;
}

/*
 * Consume the next record of lane @i into the pending queue, preceded by
 * OVERFLOW/RESUME when records were lost before it (RULE-17).  Returns 0
 * when the lane turned out empty.
 */
static int pt_take(struct pt_handle *h, unsigned int i)
{
	const struct posix_trace_lane *l = pt_lane(h, i);
	struct pt_cursor *c = &h->cur[i];
	size_t slot_cap = h->data_cap / PT_PENDING_MAX;
	struct posix_trace_record rec;
	uint64_t head, oldest, pos, lost_ts;
	struct pt_pending *p;
	uint8_t *data;

retry:
	head = PT_LOAD_ACQ(&l->head);
	oldest = PT_LOAD_ACQ(&l->oldest);
	pos = c->pos < oldest ? oldest : c->pos;
	if (pos >= head)
		return 0;
	/* Leave room for OVERFLOW + RESUME + the record. */
	data = h->data + ((h->pending_head + h->npending + 2) % PT_PENDING_MAX) * slot_cap;
	pt_ring_copy(h, l, pos, &rec, sizeof(rec));
	if (pt_rec_valid(&rec, head - pos, slot_cap))
		pt_ring_copy(h, l, pos + PT_RECORD_HDR_SIZE, data, rec.data_len);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&l->oldest, __ATOMIC_RELAXED) > pos)
		goto retry;	/* overwritten while we copied */
	if (!pt_rec_valid(&rec, head - pos, slot_cap)) {
		/* Cannot happen with kernel-written lanes; never trust it. */
		int err = EIO;

		c->pos = head;
		c->seq_known = 0;
		p = pt_push(h);
		p->rec.event_id = POSIX_TRACE_ERROR;
		p->rec.data_len = sizeof(err);
		memcpy(h->data + p->data_off, &err, sizeof(err));
		goto publish;
	}
	if (pos != c->pos && c->seq_known && rec.seq > c->next_seq) {
		lost_ts = PT_LOAD_ACQ(&l->lost_seq) == c->next_seq ?
			  __atomic_load_n(&l->lost_timestamp, __ATOMIC_RELAXED) :
			  rec.timestamp;
		pt_push_marker(h, POSIX_TRACE_OVERFLOW, lost_ts);
		pt_push_marker(h, POSIX_TRACE_RESUME, rec.timestamp);
	}
	p = pt_push(h);
	p->rec = rec;
	if (p->data_off != (uint32_t)(data - h->data))
		memmove(h->data + p->data_off, data, rec.data_len);
	c->pos = pos + rec.size;
	c->next_seq = rec.seq + 1;
	c->seq_known = 1;
publish:
	__atomic_store_n(&pt_consumer(h, i)->tail, c->pos, __ATOMIC_RELEASE);
	return 1;
}

/* Fill the pending queue with the oldest record of all lanes; ties go to
 * the lower lane (deterministic). */
static int pt_fetch(struct pt_handle *h)
{
	unsigned int i, best;
	uint64_t ts, best_ts;

	for (;;) {
		best_ts = 0;
		best = 0;
		for (i = 0; i < h->nr_lanes; i++) {
			ts = pt_peek(h, i);
			if (ts && (!best_ts || ts < best_ts)) {
				best_ts = ts;
				best = i;
			}
		}
		if (!best_ts)
			return 0;
		if (pt_take(h, best))
			return 1;
	}
}

static void pt_to_timespec(const struct pt_handle *h, uint64_t mono,
			   struct timespec *ts)
{
	uint64_t real = h->created_real + (mono - h->created_mono);

	if (mono < h->created_mono)
		real = h->created_real - (h->created_mono - mono);
	ts->tv_sec = (time_t)(real / 1000000000u);
	ts->tv_nsec = (long)(real % 1000000000u);
}

static void pt_deliver(struct pt_handle *h, struct posix_trace_event_info *ev,
		       void *data, size_t num_bytes, size_t *data_len)
{
	struct pt_pending *p = &h->pending[h->pending_head];
	const struct posix_trace_record *r = &p->rec;
	size_t n = r->data_len;

	ev->posix_event_id = r->event_id;
	ev->posix_pid = (pid_t)r->pid;
	ev->posix_prog_address = (void *)(uintptr_t)r->address;
	ev->posix_thread_id = (pthread_t)r->thread;
	pt_to_timespec(h, r->timestamp, &ev->posix_timestamp);
	ev->posix_truncation_status = (r->flags & POSIX_TRACE_REC_TRUNCATED) ?
		POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED;
	if (n > num_bytes) {
		n = num_bytes;
		ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
	}
	if (n)
		memcpy(data, h->data + p->data_off, n);
	*data_len = n;
	h->pending_head = (h->pending_head + 1) % PT_PENDING_MAX;
	h->npending--;
}

/* One attempt without sleeping: 1 = delivered, 0 = nothing, else errno. */
static int pt_try_read(struct pt_handle *h, struct posix_trace_event_info *ev,
		       void *data, size_t num_bytes, size_t *data_len)
{
	int ret = 1;

	pthread_mutex_lock(&h->lock);
	if (h->dead)
		ret = EINVAL;
	else if (!h->npending && !pt_fetch(h))
		ret = 0;
	else
		pt_deliver(h, ev, data, num_bytes, data_len);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

static int pt_wait(trace_id_t trid, const struct timespec *abstime)
{
	struct posix_trace_wait w = { .size = sizeof(w), .trid = (uint32_t)trid };
	int ret, oldtype;

	if (abstime) {
		w.flags = POSIX_TRACE_WAIT_TIMEOUT;
		if (abstime->tv_sec < 0)
			w.abstime = 0;
		else if ((uint64_t)abstime->tv_sec >= UINT64_MAX / 1000000000u)
			w.abstime = UINT64_MAX;	/* beyond any clock: saturate */
		else
			w.abstime = (uint64_t)abstime->tv_sec * 1000000000u +
				    (uint64_t)abstime->tv_nsec;
	}
	/* Only the blocking calls are cancellation points (spec 5.28); the
	 * kernel dequeues nothing while we sleep, so no event is lost. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	ret = pt_ioctl(POSIX_TRACE_IOC_WAIT, &w);
	pthread_setcanceltype(oldtype, &oldtype);
	return ret;
}

static void pt_put_cleanup(void *h)
{
	pt_handle_put(h);
}

/* mode: 0 block, 1 try, 2 timed */
static int pt_getnext(trace_id_t trid, struct posix_trace_event_info *ev,
		      void *data, size_t num_bytes, size_t *data_len,
		      int *unavailable, int mode, const struct timespec *abstime)
{
	struct pt_handle *h;
	int ret = 0;

	if (!ev || !data_len || !unavailable || (num_bytes && !data))
		return EINVAL;
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	pthread_cleanup_push(pt_put_cleanup, h);
	for (;;) {
		ret = pt_try_read(h, ev, data, num_bytes, data_len);
		if (ret == 1) {
			*unavailable = 0;
			ret = 0;
			break;
		}
		if (ret)
			break;
		if (mode == 1) {
			*unavailable = 1;
			break;
		}
		if (mode == 2 && (!abstime || abstime->tv_nsec < 0 ||
				  abstime->tv_nsec >= 1000000000)) {
			ret = EINVAL;
			break;
		}
		ret = pt_wait(trid, mode == 2 ? abstime : NULL);
		if (ret)
			break;
	}
	pthread_cleanup_pop(1);
	return ret;
}

PT_EXPORT int posix_trace_getnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 0, NULL);
}

PT_EXPORT int posix_trace_trygetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 1, NULL);
}

PT_EXPORT int posix_trace_timedgetnext_event(trace_id_t trid,
		struct posix_trace_event_info *restrict event,
		void *restrict data, size_t num_bytes,
		size_t *restrict data_len, int *restrict unavailable,
		const struct timespec *restrict abstime)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, 2, abstime);
}
