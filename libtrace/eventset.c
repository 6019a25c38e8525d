// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event type sets (spec 3.5.1-3.5.6).
 *
 * A set is a bitmap over ids 0 .. __POSIX_TRACE_ID_NR-1 plus a magic word
 * written by empty/fill, so that add/del/ismember can reject a set that
 * was never initialized (EVSET-0b) instead of using garbage.  No pointers:
 * sets may be copied by assignment.  These functions only touch the
 * caller's object, never a stream's filter (EVSET-0a).  They return 0 or
 * EINVAL, leave errno alone (FN-1) and write outputs only on success.
 */
#include <errno.h>
#include <stddef.h>

#include "internal.h"
#include "eventset.h"
#include "kevent.h"

#define PT_EVSET_WORDS	(PT_EVSET_NR_IDS / 64)

_Static_assert(PT_EVSET_NR_IDS % 64 == 0, "bitmap is made of whole words");
_Static_assert(sizeof(((trace_event_set_t *)0)->__bits) ==
	       PT_EVSET_WORDS * sizeof(unsigned long long),
	       "trace_event_set_t bitmap size");
/* The module interprets the same bitmap (filters). */
_Static_assert(PT_EVSET_NR_IDS == POSIX_TRACE_ID_NR,
	       "<trace.h> and <linux/posix_trace.h> disagree on the id range");

int pt_evset_valid(const trace_event_set_t *set)
{
	return set && set->__magic == PT_EVSET_MAGIC;
}

/* Initialize @set with every bitmap word equal to @word. */
static void pt_evset_init(trace_event_set_t *set, unsigned long long word)
{
	size_t i;

	set->__magic = PT_EVSET_MAGIC;
	set->__pad = 0;
	for (i = 0; i < PT_EVSET_WORDS; i++)
		set->__bits[i] = word;
}

static unsigned long long pt_evset_mask(trace_event_id_t id)
{
	return 1ULL << (id % 64);
}

/* EINVAL unless @set is initialized and @id is representable in it. */
static int pt_evset_check(const trace_event_set_t *set, trace_event_id_t id)
{
	if (!pt_evset_valid(set) || id >= PT_EVSET_NR_IDS)
		return EINVAL;
	return 0;
}

PT_EXPORT int posix_trace_eventset_empty(trace_event_set_t *set)
{
	if (!set)
		return EINVAL;
	pt_evset_init(set, 0);
	return 0;
}

PT_EXPORT int posix_trace_eventset_fill(trace_event_set_t *set, int what)
{
	trace_event_id_t id;

	if (!set)
		return EINVAL;
	switch (what) {
	case POSIX_TRACE_WOPID_EVENTS:
		/*
		 * The implementation-defined system events,
		 * POSIX_TRACE_DETACHED and the kernel events, each name a
		 * process (5.25).
		 */
		pt_evset_init(set, 0);
		return 0;
	case POSIX_TRACE_SYSTEM_EVENTS:
		/*
		 * POSIX's and ours: POSIX_TRACE_DETACHED and the kernel
		 * events of every class, whatever a stream records, as
		 * ALL_EVENTS holds user ids no stream has.  Reserved ids are
		 * not event types.
		 */
		pt_evset_init(set, 0);
		for (id = POSIX_TRACE_ID_ERROR; id <= POSIX_TRACE_ID_DETACHED; id++)
			set->__bits[id / 64] |= pt_evset_mask(id);
		for (id = 0; (id = pt_kernel_next(POSIX_TRACE_KCLASS_ALL, id)); )
			set->__bits[id / 64] |= pt_evset_mask(id);
		return 0;
	case POSIX_TRACE_ALL_EVENTS:
		/* Includes user ids not allocated yet (EVSETFILL-1, 5.25). */
		pt_evset_init(set, ~0ULL);
		return 0;
	}
	return EINVAL;
}

PT_EXPORT int posix_trace_eventset_add(trace_event_id_t event_id,
				       trace_event_set_t *set)
{
	if (pt_evset_check(set, event_id))
		return EINVAL;
	set->__bits[event_id / 64] |= pt_evset_mask(event_id);
	return 0;
}

PT_EXPORT int posix_trace_eventset_del(trace_event_id_t event_id,
				       trace_event_set_t *set)
{
	if (pt_evset_check(set, event_id))
		return EINVAL;
	set->__bits[event_id / 64] &= ~pt_evset_mask(event_id);
	return 0;
}

PT_EXPORT int posix_trace_eventset_ismember(trace_event_id_t event_id,
					    const trace_event_set_t *__restrict set,
					    int *__restrict ismember)
{
	if (pt_evset_check(set, event_id) || !ismember)
		return EINVAL;
	*ismember = !!(set->__bits[event_id / 64] & pt_evset_mask(event_id));
	return 0;
}
