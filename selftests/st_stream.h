/* SPDX-License-Identifier: GPL-2.0 */
/*
 * st_stream.h - the selftests' helpers around the trace interface:
 * attributes, streams, reading events, recording numbered events.
 * Defined in st_stream.c.  Functions returning int give 0 or the error
 * number of the trace function that failed.
 */
#ifndef ST_STREAM_H
#define ST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>
#include <sys/types.h>

#include <trace.h>

#define ST_SMALL_STREAM		4096
/* Room for the largest system event, FILTER: two trace_event_set_t. */
#define ST_EV_DATA_MAX		512
/* Slack allowed when comparing event timestamps with clock_gettime(). */
#define ST_TS_SLACK_NS		(5 * 1000 * 1000ULL)

/* Attributes and streams */

/* Initialise @a; 0 arguments keep the defaults. */
int st_attr_make(trace_attr_t *a, size_t streamsize, int policy, size_t maxdata);

/* A stream on @pid (0: the caller) with st_attr_make()'s attributes. */
int st_create(pid_t pid, size_t streamsize, int policy, size_t maxdata,
	      trace_id_t *trid);

/* A stream on @pid with inheritance @inherit, not started. */
int st_create_inherit(pid_t pid, int inherit, trace_id_t *trid);

/* A stream on the caller with inheritance @inherit, started, its START
 * consumed. */
int st_create_self_started(int inherit, trace_id_t *trid);

/* Create + shutdown a small stream on @pid: 0 or the create error. */
int st_create_probe(pid_t pid);

/* Start @trid and consume the START event it records (-1 if it did not). */
int st_start_and_skip(trace_id_t trid);

/* Effective sizes of a stream, from posix_trace_get_attr(). */
struct st_sizes {
	size_t stream;		/* stream-min-size */
	size_t maxdata;		/* max-data-size */
	size_t sysev;		/* getmaxsystemeventsize */
	size_t userev;		/* getmaxusereventsize(data_len) */
};

int st_stream_sizes(trace_id_t trid, size_t data_len, struct st_sizes *s);

/* Reading events */

struct st_ev {
	struct posix_trace_event_info info;
	size_t len;
	int unavailable;
	unsigned char data[ST_EV_DATA_MAX];
};

/* trygetnext, getnext and timedgetnext into @ev; len and unavailable
 * start at values no call returns. */
int st_try(trace_id_t trid, struct st_ev *ev);
int st_get(trace_id_t trid, struct st_ev *ev);
int st_timed(trace_id_t trid, struct st_ev *ev, const struct timespec *abstime);

/* timedgetnext with a deadline @ms milliseconds from now. */
int st_timed_ms(trace_id_t trid, struct st_ev *ev, unsigned int ms);

/*
 * Read every immediately available event with trygetnext into @evs (at most
 * @max).  Returns 0 or the first error; *n is the number read.  Reading stops
 * at @max even if more are available.
 */
int st_drain(trace_id_t trid, struct st_ev *evs, int max, int *n);

/* Number of events available now (consumes them). */
int st_count_available(trace_id_t trid, int *count);

static inline bool st_is(const struct st_ev *ev, trace_event_id_t id)
{
	return ev->info.posix_event_id == id;
}

/* The name of a system event id, else "id <n>" (a per-thread buffer). */
const char *st_id_str(trace_event_id_t id);

/* Value of the `int auto` data of a STOP event, or INT_MIN if malformed. */
int st_stop_auto(const struct st_ev *ev);

/* Every event of a stream until none is left: pid, id, first data byte
 * and, for POSIX_TRACE_ERROR, the error number it carries. */
#define ST_SEEN_MAX	256

struct st_seen {
	pid_t pid[ST_SEEN_MAX];
	trace_event_id_t id[ST_SEEN_MAX];
	pthread_t thread[ST_SEEN_MAX];
	char tag[ST_SEEN_MAX];
	int err[ST_SEEN_MAX];
	int n;
};

/* Fill @s with trygetnext; E2BIG if more than ST_SEEN_MAX events. */
int st_seen_drain(trace_id_t trid, struct st_seen *s);

/* Events of @pid with id @id (0: any) and first data byte @tag (0: any). */
int st_seen_count(const struct st_seen *s, pid_t pid, trace_event_id_t id,
		  char tag);

/* Record the unnamed event n times carrying first, first + 1, ... */
void st_record_seq(uint64_t first, uint64_t n);

/* The number st_record_seq() put into @ev. */
uint64_t st_seq_of(const struct st_ev *ev);

/* Every function taking a trid: st_call_all_trid_functions() stores the
 * result of function i in res[i], st_trid_fn_name(i) names it. */
#define ST_NR_TRID_FNS	15

const char *st_trid_fn_name(int i);

/* The blocking functions would wait 100 ms at most. */
void st_call_all_trid_functions(trace_id_t t, int res[ST_NR_TRID_FNS]);

#endif /* ST_STREAM_H */
