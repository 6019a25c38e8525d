// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reader's gate on writer lanes (gate.h).  A record of type @id
 * stamped @ts from a writer lane is delivered only if
 *   - @ts is not later than the reader's clock (a writer stamps a record
 *     before it commits it, on the same clock), and
 *   - the stream was running at @ts and did not filter @id out,
 * which is what the kernel checks before it records into its own lanes:
 * a traced process can then write records of its own, with times of its
 * choosing, only for times when the stream took its events.
 *
 * "At @ts" comes from two timelines of eras.  The first is built from the
 * control events the reader consumed from the kernel lanes: START (which
 * carries the filter), STOP and FILTER (the old and the new filter),
 * automatic ones included, with the kernel's timestamps.  The merge
 * delivers in timestamp order and the kernel stamps and commits a lane
 * record under its lock, so when a writer-lane record is the oldest one
 * left, every control event stamped before it has been consumed: the
 * record is judged exactly, by the state at its own time, also when it
 * comes late.  Where the kernel lanes lost records (LOOP) or the
 * controller cleared them, a control event may be missing: from the last
 * record the reader had of that lane to the first it has again, and on
 * until the next control event, this timeline does not know.  Then the
 * second one decides: this process's own posix_trace_start(), _stop() and
 * _set_filter() calls, each between a clock read before and after it (the
 * kernel stamps its control event in between), which no loss can hide but
 * which knows no automatic stop.  Where a change is only known within
 * [lo, hi], a record stamped there passes if either side of the change
 * lets it (an event racing with the call may see either state, SETFILT-6).
 * Where neither knows (more than PT_ERAS changes ago), nothing passes.
 */
#include <stddef.h>
#include <string.h>
#include <time.h>
#include "gate.h"

enum { PT_NO, PT_YES, PT_UNKNOWN };

uint64_t pt_gate_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int pt_era_allows(const struct pt_era *e, uint32_t id)
{
	if (e->state == PT_ERA_UNKNOWN)
		return PT_UNKNOWN;
	if (e->state != PT_ERA_RUNNING)
		return PT_NO;
	return (e->filter[id / 64] >> (id % 64)) & 1 ? PT_NO : PT_YES;
}

/* The newest era that began at or before @ts, or -1. */
static int pt_eras_find(const struct pt_eras *s, uint64_t ts)
{
	int i;

	for (i = (int)s->n - 1; i >= 0; i--) {
		if (s->e[i].lo <= ts)
			return i;
	}
	return -1;
}

/* Before the first era: nothing, if the first is the creation's. */
static int pt_eras_before(const struct pt_eras *s, int i, uint32_t id)
{
	if (i >= 0)
		return pt_era_allows(&s->e[i], id);
	return s->complete ? PT_NO : PT_UNKNOWN;
}

static int pt_eras_allow(const struct pt_eras *s, uint64_t ts, uint32_t id)
{
	int i = pt_eras_find(s, ts), now, before;

	if (i < 0)
		return pt_eras_before(s, i, id);
	now = pt_era_allows(&s->e[i], id);
	if (now != PT_NO || ts >= s->e[i].hi)
		return now;
	/* Within the change's bracket: what held before it counts too. */
	before = pt_eras_before(s, i - 1, id);
	if (before == PT_YES)
		return PT_YES;
	return before == PT_UNKNOWN ? PT_UNKNOWN : PT_NO;
}

static void pt_eras_remove(struct pt_eras *s, unsigned int i)
{
	memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof(s->e[0]));
	s->n--;
}

/* @e in time order, after the eras that began at the same time; the
 * oldest era goes when there is no room. */
static int pt_eras_insert(struct pt_eras *s, const struct pt_era *e)
{
	int i;

	if (s->n == PT_ERAS) {
		pt_eras_remove(s, 0);
		s->complete = 0;
	}
	i = pt_eras_find(s, e->lo) + 1;
	memmove(&s->e[i + 1], &s->e[i], (s->n - (unsigned int)i) * sizeof(s->e[0]));
	s->e[i] = *e;
	s->n++;
	return i;
}

static void pt_eras_init(struct pt_eras *s)
{
	memset(s, 0, sizeof(*s));
	s->e[0].state = PT_ERA_STOPPED;
	s->n = 1;
	s->complete = 1;
}

void pt_gate_init(struct pt_gate *g)
{
	memset(g, 0, sizeof(*g));
	pt_eras_init(&g->seen);
	pt_eras_init(&g->cmd);
}

int pt_gate_pass(struct pt_gate *g, uint64_t ts, uint32_t id)
{
	int r;

	if (ts > g->clock) {
		g->clock = pt_gate_clock();
		if (ts > g->clock)
			return 0;
	}
	r = pt_eras_allow(&g->seen, ts, id);
	if (r == PT_UNKNOWN)
		r = pt_eras_allow(&g->cmd, ts, id);
	return r == PT_YES;
}

void pt_gate_control(struct pt_gate *g, uint32_t id, uint64_t ts,
		     const void *data, uint32_t len)
{
	const size_t set = sizeof(struct posix_trace_event_set);
	const size_t bits = offsetof(struct posix_trace_event_set, bits);
	struct pt_era e = { .lo = ts, .hi = ts, .state = PT_ERA_RUNNING };
	int i = pt_eras_find(&g->seen, ts);

	/* Inside a gap: what came after this event may be lost too. */
	if (i >= 0 && g->seen.e[i].state == PT_ERA_UNKNOWN && ts < g->seen.e[i].hi)
		return;
	if (id == POSIX_TRACE_ID_START && len >= set) {
		memcpy(e.filter, (const char *)data + bits, sizeof(e.filter));
	} else if (id == POSIX_TRACE_ID_FILTER && len >= 2 * set) {
		memcpy(e.filter, (const char *)data + set + bits, sizeof(e.filter));
	} else if (id == POSIX_TRACE_ID_STOP) {
		e.state = PT_ERA_STOPPED;
		if (i >= 0)
			memcpy(e.filter, g->seen.e[i].filter, sizeof(e.filter));
	} else {
		return;
	}
	pt_eras_insert(&g->seen, &e);
}

void pt_gate_gap(struct pt_gate *g, uint64_t from, uint64_t until)
{
	struct pt_eras *s = &g->seen;
	struct pt_era e = { .lo = from, .hi = until, .state = PT_ERA_UNKNOWN };
	int i = pt_eras_find(s, from);

	if (i >= 0 && s->e[i].state == PT_ERA_UNKNOWN && s->e[i].hi >= from) {
		if (until > s->e[i].hi)
			s->e[i].hi = until;
	} else {
		i = pt_eras_insert(s, &e);
	}
	/* An era that began inside the gap holds only until a change the
	 * gap may have hidden: it cannot be believed. */
	while ((unsigned int)i + 1 < s->n && s->e[i + 1].lo < s->e[i].hi)
		pt_eras_remove(s, (unsigned int)i + 1);
}

void pt_gate_command(struct pt_gate *g, int cmd, const uint64_t *filter,
		     uint64_t lo, uint64_t hi)
{
	struct pt_eras *s = &g->cmd;
	struct pt_era e = s->e[s->n - 1];

	e.lo = lo;
	e.hi = hi;
	if (cmd == PT_CMD_START)
		e.state = PT_ERA_RUNNING;
	else if (cmd == PT_CMD_STOP)
		e.state = PT_ERA_STOPPED;
	else
		memcpy(e.filter, filter, sizeof(e.filter));
	pt_eras_insert(s, &e);
}
