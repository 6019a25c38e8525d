/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of eventset.c for the rest of libposixtrace (filters).  Nothing
 * here is exported.
 */
#ifndef PT_EVENTSET_H
#define PT_EVENTSET_H

#include <trace.h>

/* Number of event type ids a trace_event_set_t can hold (spec 5.5). */
#define PT_EVSET_NR_IDS		__POSIX_TRACE_ID_NR

/*
 * Non-zero if @set is non-NULL and was initialized by
 * posix_trace_eventset_empty() or posix_trace_eventset_fill() (EVSET-0b);
 * 0 otherwise.
 */
int pt_evset_valid(const trace_event_set_t *set);

#endif /* PT_EVENTSET_H */
