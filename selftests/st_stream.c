// SPDX-License-Identifier: GPL-2.0
/*
 * st_stream.c - attributes, streams and events for the selftests
 * (declared in st_stream.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "st_stream.h"
#include "st_system.h"

int st_attr_make(trace_attr_t *a, size_t streamsize, int policy, size_t maxdata)
{
	int ret = posix_trace_attr_init(a);

	if (ret)
		return ret;
	if (streamsize) {
		ret = posix_trace_attr_setstreamsize(a, streamsize);
		if (ret)
			return ret;
	}
	if (policy) {
		ret = posix_trace_attr_setstreamfullpolicy(a, policy);
		if (ret)
			return ret;
	}
	if (maxdata) {
		ret = posix_trace_attr_setmaxdatasize(a, maxdata);
		if (ret)
			return ret;
	}
	return 0;
}

int st_create(pid_t pid, size_t streamsize, int policy, size_t maxdata,
	      trace_id_t *trid)
{
	trace_attr_t a;
	int ret = st_attr_make(&a, streamsize, policy, maxdata);

	if (ret)
		return ret;
	ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

int st_stream_sizes(trace_id_t trid, size_t data_len, struct st_sizes *s)
{
	trace_attr_t a;
	int ret;

	ret = posix_trace_attr_init(&a);
	if (ret)
		return ret;
	ret = posix_trace_get_attr(trid, &a);
	if (!ret)
		ret = posix_trace_attr_getstreamsize(&a, &s->stream);
	if (!ret)
		ret = posix_trace_attr_getmaxdatasize(&a, &s->maxdata);
	if (!ret)
		ret = posix_trace_attr_getmaxsystemeventsize(&a, &s->sysev);
	if (!ret)
		ret = posix_trace_attr_getmaxusereventsize(&a, data_len,
							    &s->userev);
	posix_trace_attr_destroy(&a);
	return ret;
}

int st_create_inherit(pid_t pid, int inherit, trace_id_t *trid)
{
	trace_attr_t a;
	int ret = st_attr_make(&a, 1 << 20, 0, 0);

	if (!ret)
		ret = posix_trace_attr_setinherited(&a, inherit);
	if (!ret)
		ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

int st_create_self_started(int inherit, trace_id_t *trid)
{
	int ret = st_create_inherit(0, inherit, trid);

	return ret ? ret : st_start_and_skip(*trid);
}

int st_create_probe(pid_t pid)
{
	trace_id_t trid;
	int ret = st_create(pid, ST_SMALL_STREAM, 0, 0, &trid);

	if (!ret)
		posix_trace_shutdown(trid);
	return ret;
}

int st_start_and_skip(trace_id_t trid)
{
	struct st_ev ev;
	int ret = posix_trace_start(trid);

	if (ret)
		return ret;
	ret = st_try(trid, &ev);
	if (ret)
		return ret;
	if (ev.unavailable || !st_is(&ev, POSIX_TRACE_START))
		return -1;
	return 0;
}

int st_try(trace_id_t trid, struct st_ev *ev)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_trygetnext_event(trid, &ev->info, ev->data,
					    sizeof(ev->data), &ev->len,
					    &ev->unavailable);
}

int st_get(trace_id_t trid, struct st_ev *ev)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_getnext_event(trid, &ev->info, ev->data,
					 sizeof(ev->data), &ev->len,
					 &ev->unavailable);
}

int st_timed(trace_id_t trid, struct st_ev *ev, const struct timespec *abstime)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_timedgetnext_event(trid, &ev->info, ev->data,
					      sizeof(ev->data), &ev->len,
					      &ev->unavailable, abstime);
}

int st_timed_ms(trace_id_t trid, struct st_ev *ev, unsigned int ms)
{
	struct timespec abs = st_ns_ts(st_realtime_ns() +
				       (uint64_t)ms * 1000000ULL);

	return st_timed(trid, ev, &abs);
}

int st_drain(trace_id_t trid, struct st_ev *evs, int max, int *n)
{
	int ret;

	*n = 0;
	while (*n < max) {
		ret = st_try(trid, &evs[*n]);
		if (ret)
			return ret;
		if (evs[*n].unavailable)
			return 0;
		(*n)++;
	}
	return 0;
}

int st_count_available(trace_id_t trid, int *count)
{
	struct st_ev ev;
	int ret;

	*count = 0;
	for (;;) {
		ret = st_try(trid, &ev);
		if (ret)
			return ret;
		if (ev.unavailable)
			return 0;
		(*count)++;
	}
}

const char *st_id_str(trace_event_id_t id)
{
	static __thread char buf[32];

	switch (id) {
	case POSIX_TRACE_ERROR: return "ERROR";
	case POSIX_TRACE_START: return "START";
	case POSIX_TRACE_STOP: return "STOP";
	case POSIX_TRACE_FILTER: return "FILTER";
	case POSIX_TRACE_OVERFLOW: return "OVERFLOW";
	case POSIX_TRACE_RESUME: return "RESUME";
	case POSIX_TRACE_FLUSH_START: return "FLUSH_START";
	case POSIX_TRACE_FLUSH_STOP: return "FLUSH_STOP";
	case POSIX_TRACE_UNNAMED_USEREVENT: return "UNNAMED_USEREVENT";
	}
	snprintf(buf, sizeof(buf), "id %u", id);
	return buf;
}

int st_stop_auto(const struct st_ev *ev)
{
	int v;

	if (ev->len != sizeof(int))
		return INT_MIN;
	memcpy(&v, ev->data, sizeof(v));
	return v;
}

int st_seen_drain(trace_id_t trid, struct st_seen *s)
{
	struct st_ev ev;
	int ret;

	s->n = 0;
	for (;;) {
		ret = st_try(trid, &ev);
		if (ret || ev.unavailable)
			return ret;
		if (s->n == ST_SEEN_MAX)
			return E2BIG;
		s->pid[s->n] = ev.info.posix_pid;
		s->id[s->n] = ev.info.posix_event_id;
		s->thread[s->n] = ev.info.posix_thread_id;
		s->tag[s->n] = ev.len ? (char)ev.data[0] : 0;
		s->err[s->n] = 0;
		if (ev.info.posix_event_id == POSIX_TRACE_ERROR && ev.len >= sizeof(int))
			memcpy(&s->err[s->n], ev.data, sizeof(int));
		s->n++;
	}
}

int st_seen_count(const struct st_seen *s, pid_t pid, trace_event_id_t id,
		  char tag)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->pid[i] == pid && (!id || s->id[i] == id) &&
		     (!tag || s->tag[i] == tag);
	return n;
}

void st_record_seq(uint64_t first, uint64_t n)
{
	uint64_t i;

	for (i = first; i < first + n; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
}

uint64_t st_seq_of(const struct st_ev *ev)
{
	uint64_t v;

	memcpy(&v, ev->data, sizeof(v));
	return v;
}

const char *st_trid_fn_name(int i)
{
	static const char *const names[] = {
		"start", "stop", "clear", "get_attr", "get_status", "getnext",
		"timedgetnext", "trygetnext", "eventid_get_name",
		"trid_eventid_open", "eventtypelist_getnext_id",
		"eventtypelist_rewind", "get_filter", "set_filter", "shutdown",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) == ST_NR_TRID_FNS,
		       "one name per function");
	return i >= 0 && i < ST_NR_TRID_FNS ? names[i] : "?";
}

void st_call_all_trid_functions(trace_id_t t, int res[ST_NR_TRID_FNS])
{
	struct timespec abs = st_ns_ts(st_realtime_ns() + 100000000ULL);
	struct posix_trace_status_info st;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_set_t set;
	trace_event_id_t id;
	trace_attr_t a;
	struct st_ev ev;
	int i = 0, unav;

	posix_trace_attr_init(&a);
	posix_trace_eventset_empty(&set);
	res[i++] = posix_trace_start(t);
	res[i++] = posix_trace_stop(t);
	res[i++] = posix_trace_clear(t);
	res[i++] = posix_trace_get_attr(t, &a);
	res[i++] = posix_trace_get_status(t, &st);
	res[i++] = st_get(t, &ev);
	res[i++] = st_timed(t, &ev, &abs);
	res[i++] = st_try(t, &ev);
	res[i++] = posix_trace_eventid_get_name(t, POSIX_TRACE_START, name);
	res[i++] = posix_trace_trid_eventid_open(t, "x", &id);
	res[i++] = posix_trace_eventtypelist_getnext_id(t, &id, &unav);
	res[i++] = posix_trace_eventtypelist_rewind(t);
	res[i++] = posix_trace_get_filter(t, &set);
	res[i++] = posix_trace_set_filter(t, &set, POSIX_TRACE_SET_EVENTSET);
	res[i++] = posix_trace_shutdown(t);
	posix_trace_attr_destroy(&a);
}
