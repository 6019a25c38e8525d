/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-flight hold policy (inflight.c): may the oldest record of all be
 * delivered, or is an older one still being written into a writer lane?
 */
#ifndef PT_INFLIGHT_H
#define PT_INFLIGHT_H

#include "rlane.h"

/* What pt_inflight() says of the record pt_pick() found. */
enum { PT_GO, PT_REPICK, PT_HOLD };

/* May the record stamped @ts of lane @best be delivered now?  Sets
 * h->safe_ts on PT_GO. */
int pt_inflight(struct pt_handle *h, unsigned int best, uint64_t ts);

#endif /* PT_INFLIGHT_H */
