// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Order across lanes (Documentation/design.md): before the merge lets the
 * oldest record it found go out, the writer lanes' in-flight stamps say
 * whether an older one is still being written (pt_inflight()), and how
 * long a lane may hold the others back.
 */
#include <stdbool.h>
#include "inflight.h"

/*
 * A writer lane's in-flight stamp (ctl->inflight_ts) holds back records of
 * other lanes that are later; the value is the writer's to write, so:
 * a stamp holds only while it is at most PT_INFLIGHT_NS old (the writer
 * has been stopped that long: dead, or too slow to wait for), a clock
 * marker only for PT_INFLIGHT_NS from its first sighting with the lane's
 * head where it is, a value found stuck is remembered and costs nothing
 * more, and a lane whose writes held one record back for more than
 * 2 * PT_INFLIGHT_NS in all (pt_held_too_long()) holds nothing for
 * PT_HOLD_OFF_NS.  A write stopped for less than PT_INFLIGHT_NS is never
 * overtaken; the bound is long enough for a thread or vCPU descheduled on
 * a loaded machine.
 */
#define PT_INFLIGHT_NS	1000000000u
#define PT_HOLD_OFF_NS	5000000000u
/* Loads of a set in-flight stamp before the record counts as not yet
 * available; a writer running on another CPU commits within these. */
#define PT_INFLIGHT_SPINS	256

static inline void pt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Lane @l's writer is reading the clock for its next record (marker
 * POSIX_TRACE_INFLIGHT_CLOCK): its stamp will be no older than the
 * marker, which may be older than any record, so it holds them all, for
 * PT_INFLIGHT_NS from when we first saw it with the lane's head where it
 * is (a commit starts a new marker; a stuck one counts from its first
 * sighting and then holds nothing).  @head was loaded before the marker:
 * loaded after it, the head of a write that committed in between would
 * charge the next write's marker with this sighting's time.
 */
static int pt_clock_holds(struct pt_rlane *l, uint64_t head, uint64_t now)
{
	if (!l->clock_since || head != l->clock_head) {
		l->clock_since = now;
		l->clock_head = head;
	}
	return now - l->clock_since <= PT_INFLIGHT_NS;
}

/*
 * Lane @l holds back the record at @pos of lane @best once more: has it
 * held that record longer than an honest lane can?  Only the lane's own
 * writes count, each from its first to its last sighting (the lane's head
 * does not move until the write commits), so neither other lanes' holds
 * nor the reader's own stalls are charged to it.  An honest lane holds one
 * record with at most two writes: the one in flight when the record was
 * seen and, if that one is older and so delivered first, the next one
 * until its clock read (its stamp is later, and once committed it keeps
 * the lane from holding anything older).  Each holds no longer than its
 * call, so past 2 * PT_INFLIGHT_NS in all one call took longer than
 * PT_INFLIGHT_NS, or the lane is not honest: it then holds nothing for
 * PT_HOLD_OFF_NS.
 */
static bool pt_held_too_long(struct pt_rlane *l, unsigned int best, uint64_t pos,
			     uint64_t head, uint64_t now)
{
	if (l->held_lane != best || l->held_pos != pos || !l->held_first) {
		l->held_lane = best;
		l->held_pos = pos;
		l->held_ns = 0;
		l->held_head = head;
		l->held_first = now;
	} else if (head != l->held_head) {
		l->held_ns += l->held_last - l->held_first;
		l->held_head = head;
		l->held_first = now;
	}
	l->held_last = now;
	if (l->held_ns + (now - l->held_first) <= 2ull * PT_INFLIGHT_NS)
		return false;
	l->held_first = 0;
	return true;
}

/*
 * May the record @ts of lane @best, which pt_pick() found the oldest, be
 * delivered?  A writer lane that was empty at the pick may since have
 * committed an older record (PT_REPICK), or be writing one: its
 * inflight_ts, set from just before its clock read (a marker) until its
 * head is released, is older (PT_HOLD: the record is not available yet).
 * A lane that holds records needs no look for @ts: its next record is
 * never newer than the one being written after it.  Order: pt_pick()
 * loaded the heads; here the clock, the lane count, then each in-flight
 * value (acquire), then the head again, whatever the value: a write that
 * committed since the pick and a next one already under way (its marker or
 * stamp is what we load) must not hide the committed record.
 *
 * A clean pass also proves that every record stamped before h->safe_ts
 * (the clock at its start, or an older stamp in flight) is already
 * visible: a lane that was idle stamps after its in-flight value was
 * loaded, a lane published since stamps after its publication.  Records
 * older than that need no pass (pt_fetch()), so a drain of what is
 * already there costs one compare per event.  Bounds: PT_INFLIGHT_NS.
 */
__attribute__((noinline)) int pt_inflight(struct pt_handle *h, unsigned int best,
						 uint64_t ts)
{
	uint64_t now = pt_mono_now(), safe = now, v, t2, head;
	unsigned int i, spins = 0;
	int empty;

	/* A lane opened since the pick may hold, or be writing, an older
	 * record; one opened after this load stamps after @now. */
	if (pt_rlanes_discover(h))
		return PT_REPICK;
	/* Kernel lanes too: see pt_rlanes_init(). */
	for (i = 0; i < h->nr_rlanes; i++) {
		struct pt_rlane *l = &h->lanes[i];

		if (l->broken)
			continue;
		empty = i != best && !l->cur.peek_ts;
again:
		/* Loaded before @v: the write @v belongs to is at this head or
		 * a later one, never an earlier one, so a write is never
		 * charged with the time of the one before it. */
		head = PT_LOAD_ACQ(l->head);
		v = PT_LOAD_ACQ(l->inflight);
		/* Whatever @v is, the write before it may have committed since
		 * the pick (or while we spun): its record may be the older. */
		if (empty && PT_LOAD_ACQ(l->head) != l->cur.pos) {
			t2 = pt_peek(h, l);
			if (t2 && (t2 < ts || (t2 == ts && i < best)))
				return PT_REPICK;
			empty = 0;	/* its next write is later still */
		}
		if (!v)
			continue;
		if (v == POSIX_TRACE_INFLIGHT_CLOCK) {
			if (!pt_clock_holds(l, head, now))
				continue;	/* stuck */
			safe = 0;
		} else {
			if (v == l->inflight_stale)
				continue;
			if ((int64_t)(now - v) > PT_INFLIGHT_NS) {
				l->inflight_stale = v;	/* stuck, or garbage */
				continue;
			}
			if (v < safe)
				safe = v;
			if (v > ts || (v == ts && i > best))
				continue;
		}
		if (!empty)
			continue;
		if (spins++ < PT_INFLIGHT_SPINS) {
			pt_cpu_relax();
			goto again;
		}
		if ((int64_t)(l->hold_off_until - now) > 0)
			continue;
		if (pt_held_too_long(l, best, h->lanes[best].cur.pos, head, now)) {
			l->hold_off_until = now + PT_HOLD_OFF_NS;
			continue;
		}
		return PT_HOLD;
	}
	h->safe_ts = safe;
	return PT_GO;
}
