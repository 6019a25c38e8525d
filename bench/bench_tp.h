/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST tracepoint of the LTTng rows: bench:event, whose one field
 * is a sequence of the payload bytes, so that it records what
 * posix_trace_event() records.  Included by lttng.c (the caller) and
 * bench_tp.c (the probe provider, built as libbench_tp.so).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	bench, event,
	LTTNG_UST_TP_ARGS(const unsigned char *, data, unsigned int, len),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_sequence(unsigned char, payload, data, unsigned int, len)
	)
)

#endif /* BENCH_TP_H */

#include <lttng/tracepoint-event.h>
