// SPDX-License-Identifier: GPL-2.0
/*
 * The log flusher's gate on writer lanes (design.md §4 "Trust", §10).
 * The kernel records into its own lanes only while the stream runs and
 * only the types its filter lets through; a writer lane is written by the
 * traced process, which may write anything.  So a writer-lane record of
 * type @id stamped @ts reaches the log only if @ts is not later than the
 * flush's clock, not before the last clear, and the stream was running at
 * @ts with @id not filtered out: the rule of the library's reader
 * (libtrace/gate.c), for the reader the kernel is for a stream with log.
 *
 * "At @ts" comes from two timelines, and both must agree:
 *  - @seen, built from the START (which carries the filter), STOP and
 *    FILTER records the flusher takes from the kernel lanes, automatic
 *    ones included, with their own timestamps.  The merge is in timestamp
 *    order, and the snapshot of a flush holds every kernel record stamped
 *    before its clock, so when a writer record is judged every control
 *    record stamped before it has been seen, or is known lost: where a
 *    kernel lane lost records (LOOP) or the lanes were cleared, @seen does
 *    not know the state until the next control record after the loss.
 *  - @cmd, the flush's copy of @set: the state and filter after each
 *    change made under pt_ctl_lock (start, stop, set_filter, the restart
 *    of an auto-stopped stream, clear), stamped by pt_log_state_changed()
 *    before the traced processes' pages learn it.  No loss can hide one;
 *    it does not know an auto-stop, which happens on the record path (its
 *    STOP(auto) is in @seen).
 * A record passes if neither forbids it and one of them knows; where
 * neither knows (more than PT_GATE_ERAS changes ago), it does not.
 */
#include <linux/ktime.h>
#include <linux/string.h>
#include "log.h"

enum { PT_GATE_NO, PT_GATE_YES, PT_GATE_UNKNOWN };

/* Bit of user id @id in an era's filter. */
static bool pt_era_filters(const struct pt_era *e, u32 id)
{
	u32 bit = id - POSIX_TRACE_ID_UNNAMED;

	return (e->filter[bit / 64] >> (bit % 64)) & 1;
}

static int pt_era_allows(const struct pt_era *e, u32 id)
{
	if (e->state == PT_ERA_UNKNOWN)
		return PT_GATE_UNKNOWN;
	if (e->state != PT_ERA_RUNNING || pt_era_filters(e, id))
		return PT_GATE_NO;
	return PT_GATE_YES;
}

/* The newest era that began at or before @ts, or -1. */
static int pt_eras_find(const struct pt_eras *s, u64 ts)
{
	int i;

	for (i = (int)s->n - 1; i >= 0; i--) {
		if (s->e[i].lo <= ts)
			return i;
	}
	return -1;
}

static int pt_eras_allow(const struct pt_eras *s, u64 ts, u32 id)
{
	int i = pt_eras_find(s, ts);

	if (i < 0)
		return s->complete ? PT_GATE_NO : PT_GATE_UNKNOWN;
	return pt_era_allows(&s->e[i], id);
}

static void pt_eras_remove(struct pt_eras *s, unsigned int i)
{
	memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof(s->e[0]));
	s->n--;
}

/* @e in time order, after the eras that began at the same time; the
 * oldest is forgotten when there is no room.  Returns its index.
 */
static unsigned int pt_eras_insert(struct pt_eras *s, const struct pt_era *e)
{
	unsigned int i;

	if (s->n == PT_GATE_ERAS) {
		pt_eras_remove(s, 0);
		s->complete = false;
	}
	i = pt_eras_find(s, e->lo) + 1;
	memmove(&s->e[i + 1], &s->e[i], (s->n - i) * sizeof(s->e[0]));
	s->e[i] = *e;
	s->n++;
	return i;
}

/* A stream is created stopped, with nothing filtered out. */
static void pt_eras_init(struct pt_eras *s)
{
	memset(s, 0, sizeof(*s));
	s->e[0].state = PT_ERA_STOPPED;
	s->n = 1;
	s->complete = true;
}

void pt_gate_init(struct pt_gate *g)
{
	memset(g, 0, sizeof(*g));
	spin_lock_init(&g->lock);
	pt_eras_init(&g->set);
	pt_eras_init(&g->seen);
	pt_eras_init(&g->cmd);
}

/* The user part of a trace_event_set_t's bits (the data of START and
 * FILTER records), or of the stream's filter.
 */
static void pt_era_set_filter(struct pt_era *e, const u64 *bits)
{
	memcpy(e->filter, bits + POSIX_TRACE_ID_UNNAMED / 64, sizeof(e->filter));
}

/*
 * The state or the filter of @s changed (stream.c, under pt_ctl_lock,
 * before the traced processes' pages are updated): a writer that follows
 * its page stamps what it writes after this.
 */
void pt_log_state_changed(struct pt_stream *s)
{
	u64 bits[POSIX_TRACE_ID_NR / 64];
	struct pt_gate *g;
	struct pt_era e = {};

	lockdep_assert_held(&pt_ctl_lock);
	if (!s->log || !s->log->gate)
		return;
	g = s->log->gate;
	if (atomic_read(&s->state) == PT_RUNNING)
		e.state = PT_ERA_RUNNING;
	e.full = atomic_read(&s->state) == PT_AUTOSTOPPED;
	bitmap_to_arr64(bits, s->filter, POSIX_TRACE_ID_NR);
	pt_era_set_filter(&e, bits);
	spin_lock(&g->lock);
	/* Stamped under the lock: pt_gate_begin() sees every change
	 * stamped before its clock.
	 */
	e.lo = ktime_get_ns();
	e.hi = e.lo;
	pt_eras_insert(&g->set, &e);
	spin_unlock(&g->lock);
}

/* A flush whose clock is @now begins (any record stamped later is from
 * the future): its copy of the changes made so far.
 */
void pt_gate_begin(struct pt_gate *g, u64 now)
{
	g->span_ok = false;
	g->now = now;
	spin_lock(&g->lock);
	g->cmd = g->set;
	spin_unlock(&g->lock);
}

/* The rule on what the two timelines say: neither forbids, one knows. */
static bool pt_gate_agree(int seen, int cmd)
{
	if (seen == PT_GATE_NO || cmd == PT_GATE_NO)
		return false;
	return seen == PT_GATE_YES || cmd == PT_GATE_YES;
}

/* What timeline @s says of every time in [*@lo, *@hi) that @ts is in:
 * one era's (returned), or, before the first, @none.
 */
static const struct pt_era *pt_eras_span(const struct pt_eras *s, u64 ts,
					 u64 *lo, u64 *hi, u8 *none)
{
	int i = pt_eras_find(s, ts);

	/* eras in @lo order: the next one begins after @ts (pt_eras_find()) */
	if (i + 1 < (int)s->n)
		*hi = min(*hi, s->e[i + 1].lo);
	*none = s->complete ? PT_GATE_NO : PT_GATE_UNKNOWN;
	if (i < 0)
		return NULL;
	*lo = max(*lo, s->e[i].lo);
	return &s->e[i];
}

/*
 * The span of the flush's timeline around @ts over which pt_gate_pass()
 * reads the same two eras: its answer there depends on the type alone,
 * which pt_gate_span_pass() gives without searching the eras.
 * False if @ts itself is refused whatever its type (future, or before
 * the last clear).  Valid until the gate changes (pt_gate_control(),
 * pt_gate_gap(), pt_gate_clear(), pt_gate_begin()), which also clear the
 * copy kept for the next call.
 */
bool pt_gate_span_at(struct pt_gate *g, u64 ts, struct pt_gate_span *sp)
{
	if (g->span_ok && ts >= g->span.lo && ts < g->span.hi) {
		*sp = g->span;	/* within [floor, now]: see below */
		return true;
	}
	if (ts > g->now || ts < g->floor)
		return false;
	sp->lo = g->floor;
	sp->hi = g->now + 1;
	sp->seen = pt_eras_span(&g->seen, ts, &sp->lo, &sp->hi, &sp->seen_none);
	sp->cmd = pt_eras_span(&g->cmd, ts, &sp->lo, &sp->hi, &sp->cmd_none);
	g->span = *sp;
	g->span_ok = true;
	return true;
}

/* pt_gate_pass() of a type within a span (the same rule). */
bool pt_gate_span_pass(const struct pt_gate_span *sp, u32 id)
{
	return pt_gate_agree(sp->seen ? pt_era_allows(sp->seen, id) : sp->seen_none,
			     sp->cmd ? pt_era_allows(sp->cmd, id) : sp->cmd_none);
}

bool pt_gate_pass(struct pt_gate *g, u64 ts, u32 id)
{
	int seen, cmd;

	if (ts > g->now || ts < g->floor)
		return false;
	seen = pt_eras_allow(&g->seen, ts, id);
	cmd = pt_eras_allow(&g->cmd, ts, id);
	return pt_gate_agree(seen, cmd);
}

/*
 * Was the stream stopped at @ts because it had filled, as far as the
 * flush knows?  A record the gate refused then was a loss (the LOSS
 * block counts it), not a pause of the controller's.
 */
bool pt_gate_full(struct pt_gate *g, u64 ts)
{
	int seen = pt_eras_find(&g->seen, ts), cmd = pt_eras_find(&g->cmd, ts);

	return (seen >= 0 && g->seen.e[seen].full) ||
	       (cmd >= 0 && g->cmd.e[cmd].full);
}

/*
 * A control record @id stamped @ts, with @len bytes of @data, taken from
 * a kernel lane (only the kernel writes those: the data is its own).
 */
void pt_gate_control(struct pt_gate *g, u32 id, u64 ts, const void *data,
		     u32 len)
{
	const size_t set = sizeof(struct posix_trace_event_set);
	const struct posix_trace_event_set *sets = data;
	struct pt_era e = { .lo = ts, .hi = ts, .state = PT_ERA_RUNNING };
	int i;

	if (id == POSIX_TRACE_ID_START && len >= set)
		pt_era_set_filter(&e, sets[0].bits);
	else if (id == POSIX_TRACE_ID_FILTER && len >= 2 * set)
		pt_era_set_filter(&e, sets[1].bits);
	else if (id == POSIX_TRACE_ID_STOP)
		e.state = PT_ERA_STOPPED;
	else
		return;		/* the common case: not a change */
	/* STOP with data 1: the stream filled (record.c, pt_autostop()) */
	e.full = id == POSIX_TRACE_ID_STOP && len >= sizeof(int) &&
		 *(const int *)data == 1;
	i = pt_eras_find(&g->seen, ts);
	/* Inside a loss: a change right after this one may be lost too. */
	if (i >= 0 && g->seen.e[i].state == PT_ERA_UNKNOWN && ts < g->seen.e[i].hi)
		return;
	g->span_ok = false;	/* the eras move */
	pt_eras_insert(&g->seen, &e);
}

/*
 * A kernel lane lost the records stamped from @from to @until (a LOOP
 * lane overwrote them before the flush), or the lanes were cleared:
 * control records among them are not known, so @seen does not know the
 * state from @from until a control record stamped after @until.
 */
void pt_gate_gap(struct pt_gate *g, u64 from, u64 until)
{
	struct pt_eras *s = &g->seen;
	struct pt_era e = { .lo = from, .hi = until, .state = PT_ERA_UNKNOWN };
	int i = pt_eras_find(s, from);

	g->span_ok = false;
	if (i >= 0 && s->e[i].state == PT_ERA_UNKNOWN && s->e[i].hi >= from)
		s->e[i].hi = max(s->e[i].hi, until);
	else
		i = pt_eras_insert(s, &e);
	/* An era that began inside the loss holds only until a change the
	 * loss may have hidden: it cannot be believed.
	 */
	while ((unsigned int)i + 1 < s->n && s->e[i + 1].lo < s->e[i].hi)
		pt_eras_remove(s, (unsigned int)i + 1);
}

/* posix_trace_clear() at @when: nothing stamped before it reaches the
 * log, and what the lanes held of the control records is gone.
 */
void pt_gate_clear(struct pt_gate *g, u64 when, u64 done)
{
	g->span_ok = false;
	g->floor = when;
	pt_gate_gap(g, when, done);
}
