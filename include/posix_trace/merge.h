/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The order in which a stream's records leave its lanes, the same for
 * both readers of lanes: the library's (libtrace/merge.c, pt_pick(), for
 * posix_trace_getnext_event()) and the module's log worker (kmod/drain.c,
 * pt_drain(), for a stream with log).
 *
 * Lanes are numbered kernel lanes first, then writer lanes in the order
 * they were published.  A reader scans them in that order and keeps the
 * first lane whose next record is older than the best so far: the oldest
 * stamp goes first, and of equal stamps the lower lane.  Each lane's own
 * records leave in the order it holds them.
 *
 * The two merges stay two, because what they may consider differs by
 * design (Documentation/design.md, "Order across lanes"): the library
 * holds back the record of a writer still stamping one, per lane, for a
 * bounded time; the worker takes a horizon once per flush and moves whole
 * runs of a writer's records.  The rule they order by is this one, and
 * selftests/merge_order_test.c feeds both the same forged lanes, ties
 * included, and requires the same order.  Not installed.
 */
#ifndef _POSIX_TRACE_MERGE_H
#define _POSIX_TRACE_MERGE_H

#include <linux/types.h>

/* Does a record stamped @ts go before the best one so far, stamped
 * @best_ts, which a lane scanned earlier holds?
 */
static inline int pt_merge_before(__u64 ts, __u64 best_ts)
{
	return ts < best_ts;
}

#endif /* _POSIX_TRACE_MERGE_H */
