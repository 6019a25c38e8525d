/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copy-out: where the caller of getnext wants the event, and how a record
 * fills its posix_trace_event_info.  Inline: every event delivered goes
 * through pt_fill_info().
 */
#ifndef PT_OUT_H
#define PT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "handle.h"

/* Where the caller of getnext wants the event. */
struct pt_out {
	struct posix_trace_event_info *ev;
	void *data;
	size_t num_bytes;
	size_t *data_len;
};

static inline void pt_to_timespec(const struct pt_handle *h, uint64_t mono,
			   struct timespec *ts)
{
	uint64_t real = h->created_real + (mono - h->created_mono);

	if (mono < h->created_mono)
		real = h->created_real - (h->created_mono - mono);
	ts->tv_sec = (time_t)(real / 1000000000u);
	ts->tv_nsec = (long)(real % 1000000000u);
}

/* h->last_tid holds an event's tid: a tid of 0 (none) is still an event. */
#define PT_LAST_EVENT	(1ull << 32)

/* Under h->lock, for an event that goes to the caller: its tid is kept
 * for posix_trace_event_tid_np() (one store: this is every event's path). */
static inline void pt_fill_info(struct pt_handle *h, const struct posix_trace_record *r,
			 struct posix_trace_event_info *ev)
{
	h->last_tid = PT_LAST_EVENT | r->tid;
	ev->posix_event_id = r->event_id;
	ev->posix_pid = (pid_t)r->pid;
	ev->posix_prog_address = (void *)(uintptr_t)r->address;
	ev->posix_thread_id = (pthread_t)r->thread;
	pt_to_timespec(h, r->timestamp, &ev->posix_timestamp);
	ev->posix_truncation_status = (r->flags & POSIX_TRACE_REC_TRUNCATED) ?
		POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED;
}

#endif /* PT_OUT_H */
