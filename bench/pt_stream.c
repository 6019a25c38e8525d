// SPDX-License-Identifier: GPL-2.0
/*
 * The controller side of the posix-trace rows.  ptbench traces itself
 * (posix_trace_create with pid 0): the controller and the traced process
 * are one, as for an application that keeps a flight recorder.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "fake.h"
#include "pt_stream.h"

trace_event_id_t pt_id = POSIX_TRACE_UNNAMED_USEREVENT;

int pt_setup(char *why)
{
	trace_event_id_t id;
	int err = posix_trace_eventid_open("bench", &id);

	if (bench_cfg.env == BENCH_VM) {
		if (err) {
			snprintf(why, BENCH_WHY, "n/a (posix_trace_eventid_open: %s)",
				 strerror(err));
			return -1;
		}
		pt_id = id;
		return 0;
	}
	/* The fake stream records the ids 256..271; a library that names
	 * events without the module may hand one out. */
	if (!err && id >= POSIX_TRACE_UNNAMED_USEREVENT &&
	    id < POSIX_TRACE_UNNAMED_USEREVENT + 16)
		pt_id = id;
	if (!bench_have_fake()) {
		snprintf(why, BENCH_WHY, "n/a (no fake hook)");
		return -1;
	}
	return 0;
}

int pt_open(int policy, int filtered, trace_id_t *trid, char *why)
{
	trace_attr_t attr;
	trace_event_set_t set;
	uint64_t ours, bad;
	int err;

	posix_trace_attr_init(&attr);
	posix_trace_attr_setstreamsize(&attr, BENCH_STREAM_SIZE);
	posix_trace_attr_setmaxdatasize(&attr, BENCH_PAYLOAD_MAX);
	posix_trace_attr_setstreamfullpolicy(&attr, policy);
	err = posix_trace_create(0, &attr, trid);
	posix_trace_attr_destroy(&attr);
	if (err) {
		snprintf(why, BENCH_WHY, "n/a (posix_trace_create: %s)", strerror(err));
		return -1;
	}
	if (filtered) {
		posix_trace_eventset_empty(&set);
		posix_trace_eventset_add(pt_id, &set);
		err = posix_trace_set_filter(*trid, &set, POSIX_TRACE_SET_EVENTSET);
		if (err) {
			snprintf(why, BENCH_WHY, "n/a (posix_trace_set_filter: %s)",
				 strerror(err));
			goto fail;
		}
	}
	err = posix_trace_start(*trid);
	if (!err)
		err = pt_drain(*trid, 0, &ours, &bad);	/* START, FILTER */
	if (err) {
		snprintf(why, BENCH_WHY, "n/a (posix_trace_start: %s)", strerror(err));
		goto fail;
	}
	return 0;
fail:
	posix_trace_shutdown(*trid);
	return -1;
}

void pt_close(trace_id_t trid)
{
	posix_trace_shutdown(trid);
}

uint64_t pt_fit(trace_id_t trid, uint32_t len, int nthreads)
{
	trace_attr_t attr;
	size_t cap = BENCH_STREAM_SIZE, rec = 0;

	posix_trace_attr_init(&attr);
	posix_trace_attr_setmaxdatasize(&attr, BENCH_PAYLOAD_MAX);
	/* The stream's own attributes say what it really got. */
	if (trid && posix_trace_get_attr(trid, &attr) == 0)
		posix_trace_attr_getstreamsize(&attr, &cap);
	posix_trace_attr_getmaxusereventsize(&attr, len, &rec);
	posix_trace_attr_destroy(&attr);
	if (!rec)
		rec = 64;
	return (uint64_t)cap * 9 / 10 / rec / (uint64_t)nthreads;
}

int pt_drain(trace_id_t trid, uint32_t len, uint64_t *ours, uint64_t *bad)
{
	struct posix_trace_event_info ev;
	unsigned char buf[BENCH_PAYLOAD_MAX];
	size_t got;
	int unavailable, err;

	*ours = *bad = 0;
	for (;;) {
		err = posix_trace_trygetnext_event(trid, &ev, buf, sizeof(buf), &got,
						   &unavailable);
		if (err || unavailable)
			return err;
		if (ev.posix_event_id != pt_id)
			continue;
		if (got == len && ev.posix_truncation_status == POSIX_TRACE_NOT_TRUNCATED &&
		    memcmp(buf, bench_payload, len) == 0)
			(*ours)++;
		else
			(*bad)++;
	}
}
