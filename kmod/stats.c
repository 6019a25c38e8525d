// SPDX-License-Identifier: GPL-2.0
/*
 * Counts of live objects, for POSIX_TRACE_IOC_STATS: a test that ends with
 * every process reaped can check that nothing leaked.  Each counter moves
 * where its object is allocated and where it is freed.
 */
#include "base.h"

atomic_t pt_stats[PT_STAT_NR];
