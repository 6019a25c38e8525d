/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stream the reader (libtrace/getnext.c and the files below it) can read
 * without the module: the read-only region, the consumer region and writer
 * lanes are made here, laid out as the module lays them out, and a handle
 * for them is added to the library's table, so
 * posix_trace_trygetnext_event() reads them.  The tests then play the
 * kernel (records in the kernel lane) and a hostile traced process
 * (anything in a writer lane).  Each writer lane's ring is followed by a
 * PROT_NONE page: a load past its end is a SIGSEGV.
 */
#ifndef LANE_FAKE_H
#define LANE_FAKE_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <trace.h>

#include "handle.h"
#include "rlane.h"

#define LF_PAGE		4096u
#define LF_TRID		77		/* the first stream's; each is new */
#define LF_CAP		4096u		/* stream-min-size: a lane's capacity */
#define LF_KSIZE	8192u		/* kernel ring: capacity + reserve */
#define LF_WSIZE	4096u		/* writer ring: the capacity, page-aligned */
#define LF_MAXDATA	64u
#define LF_WRITERS	2
#define LF_PID		4242u		/* the kernel's word on the writers */
#define LF_HDR		sizeof(struct posix_trace_record)

struct lf_wlane {
	uint8_t *map;			/* ctl page, ring, guard page */
	struct posix_trace_writer_ctl *ctl;
	uint8_t *ring;
	uint64_t seq;
};

struct lf {
	struct pt_handle *h;
	trace_id_t trid;
	struct posix_trace_stream_header *hdr;
	struct posix_trace_lane *kd;
	uint8_t *kring;
	uint64_t kseq;
	struct lf_wlane w[LF_WRITERS];
};

static inline uint64_t lf_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void lf_ring_put(uint8_t *ring, uint64_t size, uint64_t pos,
			       const void *src, size_t len)
{
	uint64_t off = pos % size;
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(ring + off, src, first);
	if (first < len)
		memcpy(ring, (const uint8_t *)src + first, len - first);
}

/* A record of @id of thread @tid stamped @ts with @len bytes of @data at
 * @pos of a ring; returns its size. */
static inline uint32_t lf_rec_put_tid(uint8_t *ring, uint64_t size, uint64_t pos,
				      uint32_t id, uint64_t ts, uint64_t seq, uint32_t tid,
				      const void *data, uint32_t len)
{
	uint8_t buf[LF_HDR + 2 * sizeof(trace_event_set_t) + 8];
	struct posix_trace_record r = {
		.size = (uint32_t)PT_ROUND8(LF_HDR + len), .event_id = id,
		.tid = tid, .data_len = len, .seq = seq, .timestamp = ts,
	};

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &r, sizeof(r));
	if (len)
		memcpy(buf + LF_HDR, data, len);
	lf_ring_put(ring, size, pos, buf, r.size);
	return r.size;
}

/* The same without a thread (tid 0). */
static inline uint32_t lf_rec_put(uint8_t *ring, uint64_t size, uint64_t pos,
				  uint32_t id, uint64_t ts, uint64_t seq,
				  const void *data, uint32_t len)
{
	return lf_rec_put_tid(ring, size, pos, id, ts, seq, 0, data, len);
}

/* The kernel records @id of thread @tid at @ts in its lane (no eviction:
 * tests stay within its capacity). */
static inline void lf_kernel_tid(struct lf *f, uint32_t id, uint64_t ts, uint32_t tid,
				 const void *data, uint32_t len)
{
	uint64_t head = f->kd->head;

	head += lf_rec_put_tid(f->kring, LF_KSIZE, head, id, ts, f->kseq++, tid, data, len);
	__atomic_store_n(&f->kd->head, head, __ATOMIC_RELEASE);
}

static inline void lf_kernel(struct lf *f, uint32_t id, uint64_t ts,
			     const void *data, uint32_t len)
{
	lf_kernel_tid(f, id, ts, 0, data, len);
}

/* START, STOP and FILTER as the module records them. */
static inline void lf_start(struct lf *f, uint64_t ts, const trace_event_set_t *filter)
{
	trace_event_set_t none;

	if (!filter) {
		posix_trace_eventset_empty(&none);
		filter = &none;
	}
	lf_kernel(f, POSIX_TRACE_START, ts, filter, sizeof(*filter));
}

static inline void lf_stop(struct lf *f, uint64_t ts)
{
	int zero = 0;

	lf_kernel(f, POSIX_TRACE_STOP, ts, &zero, sizeof(zero));
}

static inline void lf_filter(struct lf *f, uint64_t ts, const trace_event_set_t *old,
			     const trace_event_set_t *new)
{
	trace_event_set_t sets[2] = { *old, *new };

	lf_kernel(f, POSIX_TRACE_FILTER, ts, sets, sizeof(sets));
}

/* An honest write by thread @tid into writer lane @i: the record at its
 * head, committed. */
static inline void lf_write_tid(struct lf *f, int i, uint32_t id, uint64_t ts,
				uint32_t tid, uint32_t payload)
{
	struct lf_wlane *w = &f->w[i];
	uint64_t head = w->ctl->head;

	head += lf_rec_put_tid(w->ring, LF_WSIZE, head, id, ts, w->seq++, tid, &payload,
			       sizeof(payload));
	__atomic_store_n(&w->ctl->head, head, __ATOMIC_RELEASE);
}

static inline void lf_write(struct lf *f, int i, uint32_t id, uint64_t ts,
			    uint32_t payload)
{
	lf_write_tid(f, i, id, ts, 0, payload);
}

static inline void *lf_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The read-only region: header, one kernel lane, the writer descriptors,
 * the kernel ring. */
static inline void *lf_ro(struct lf *f)
{
	uint8_t *ro = lf_map(LF_PAGE + LF_KSIZE);
	struct posix_trace_writer_desc *wd;
	unsigned int i;

	if (!ro)
		return NULL;
	f->hdr = (void *)ro;
	f->hdr->size = sizeof(*f->hdr);
	f->hdr->nr_lanes = 1;
	f->hdr->lane_offset = 128;
	f->hdr->lane_stride = 64;
	f->hdr->capacity = LF_CAP;
	f->hdr->writer_offset = 256;
	f->hdr->writer_stride = 64;
	f->hdr->max_writers = LF_WRITERS;
	f->kd = (void *)(ro + 128);
	f->kd->data_offset = LF_PAGE;
	f->kd->data_size = LF_KSIZE;
	f->kring = ro + LF_PAGE;
	for (i = 0; i < LF_WRITERS; i++) {
		wd = (void *)(ro + 256 + 64 * i);
		wd->mmap_size = LF_PAGE + LF_WSIZE;
		wd->data_offset = LF_PAGE;
		wd->data_size = LF_WSIZE;
		wd->pid = LF_PID + i;
	}
	return ro;
}

/* As the module's, trids are never reused: a thread's cached handle of
 * the previous stream is then never taken for the next one. */
static trace_id_t lf_trid = LF_TRID;

static inline struct pt_handle *lf_handle(void)
{
	struct pt_handle *h = calloc(1, sizeof(*h));
	uint64_t now = lf_now();

	if (!h)
		return NULL;
	atomic_init(&h->refs, 1);
	h->trid = lf_trid++;
	h->owner = pt_self();
	posix_trace_attr_init(&h->attr);
	h->attr.__stream_policy = POSIX_TRACE_LOOP;
	h->attr.__max_data_size = LF_MAXDATA;
	h->attr.__stream_size = LF_CAP;
	h->created_mono = now;
	h->created_real = now;
	h->data_cap = PT_ROUND8(LF_MAXDATA + 2 * sizeof(trace_event_set_t)) *
		      PT_PENDING_MAX;
	h->data = malloc(h->data_cap);
	h->cons_stride = 64;
	h->cons_size = LF_PAGE;
	h->cons = lf_map(LF_PAGE);
	h->ro_size = LF_PAGE + LF_KSIZE;
	return h;
}

/* A writer lane: its control page, its ring and a guard page. */
static inline int lf_wlane(struct lf_wlane *w)
{
	w->map = lf_map(2 * LF_PAGE + LF_WSIZE);
	if (!w->map || mprotect(w->map + LF_PAGE + LF_WSIZE, LF_PAGE, PROT_NONE))
		return -1;
	w->ctl = (void *)w->map;
	w->ring = w->map + LF_PAGE;
	w->seq = 0;
	return 0;
}

/* A fresh stream of policy @policy, created (not started), its writer
 * lanes published and mapped by the reader. */
static inline int lf_setup(struct lf *f, int policy)
{
	struct pt_handle *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = f->h = lf_handle();
	if (!h || !h->data || !h->cons)
		return -1;
	f->trid = h->trid;
	h->attr.__stream_policy = policy;
	h->ro = lf_ro(f);
	if (!h->ro || pt_rlanes_init(h))
		return -1;
	pt_cursors_reset(h);
	for (i = 0; i < LF_WRITERS; i++) {
		if (lf_wlane(&f->w[i]))
			return -1;
		pt_rlane_attach_writer(h, i, f->w[i].map);
	}
	f->hdr->nr_writers = LF_WRITERS;
	h->nr_writers_seen = LF_WRITERS;
	h->nr_rlanes = h->nr_lanes + LF_WRITERS;
	return pt_handle_add(h);
}

/* The handle goes as at shutdown (it unmaps the rings it knows); the
 * guard pages too. */
static inline void lf_teardown(struct lf *f)
{
	unsigned int i;

	if (f->h) {
		pt_lock(&f->h->lock);
		f->h->dead = 1;
		pt_handle_release_buffers(f->h);
		pt_unlock(&f->h->lock);
		pt_handle_remove(f->h);
	}
	f->h = NULL;
	for (i = 0; i < LF_WRITERS; i++)
		if (f->w[i].map)
			munmap(f->w[i].map + LF_PAGE + LF_WSIZE, LF_PAGE);
}

struct lf_ev {
	struct posix_trace_event_info info;
	uint8_t data[2 * sizeof(trace_event_set_t)];
	size_t len;
	int unavailable;
	int ret;
};

static inline int lf_read(const struct lf *f, struct lf_ev *ev)
{
	ev->ret = posix_trace_trygetnext_event(f->trid, &ev->info, ev->data,
					       sizeof(ev->data), &ev->len,
					       &ev->unavailable);
	return ev->ret;
}

static inline uint64_t lf_ev_ts(const struct lf_ev *ev)
{
	return (uint64_t)ev->info.posix_timestamp.tv_sec * 1000000000u +
	       (uint64_t)ev->info.posix_timestamp.tv_nsec;
}

/* What a drain saw. */
struct lf_drain {
	int user, error, overflow, resume, start, stop, filter, other;
	int calls;
	int ended;
	int user_bad_pid, sys_bad_pid;	/* OVERFLOW/RESUME/ERROR of a lane */
	uint32_t ids[64];		/* payloads of the user events, in order */
	uint64_t overflow_ts[8], resume_ts[8];
};

static inline void lf_note(struct lf_drain *d, const struct lf_ev *ev, uint32_t pid)
{
	uint32_t v = 0;

	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_ERROR:
		d->error++;
		break;
	case POSIX_TRACE_OVERFLOW:
		if (d->overflow < 8)
			d->overflow_ts[d->overflow] = lf_ev_ts(ev);
		d->overflow++;
		d->sys_bad_pid += pid && (uint32_t)ev->info.posix_pid != pid;
		break;
	case POSIX_TRACE_RESUME:
		if (d->resume < 8)
			d->resume_ts[d->resume] = lf_ev_ts(ev);
		d->resume++;
		d->sys_bad_pid += pid && (uint32_t)ev->info.posix_pid != pid;
		break;
	case POSIX_TRACE_START:
		d->start++;
		break;
	case POSIX_TRACE_STOP:
		d->stop++;
		break;
	case POSIX_TRACE_FILTER:
		d->filter++;
		break;
	default:
		if (ev->info.posix_event_id < POSIX_TRACE_UNNAMED_USEREVENT) {
			d->other++;
			break;
		}
		if (ev->len == sizeof(v))
			memcpy(&v, ev->data, sizeof(v));
		if (d->user < 64)
			d->ids[d->user] = v;
		d->user++;
		d->user_bad_pid += (ev->info.posix_pid < (pid_t)LF_PID ||
				    ev->info.posix_pid >= (pid_t)(LF_PID + LF_WRITERS));
	}
}

/* Read until the reader says "unavailable", at most @max calls; @pid: the
 * pid OVERFLOW/RESUME must carry (0: not checked). */
static inline void lf_drain(const struct lf *f, struct lf_drain *d, int max,
			    uint32_t pid)
{
	struct lf_ev ev;

	memset(d, 0, sizeof(*d));
	while (d->calls < max) {
		d->calls++;
		if (lf_read(f, &ev) || ev.unavailable) {
			d->ended = !ev.ret;
			return;
		}
		lf_note(d, &ev, pid);
	}
}

#endif /* LANE_FAKE_H */
