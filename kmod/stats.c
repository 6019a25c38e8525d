// SPDX-License-Identifier: GPL-2.0
/*
 * Counts of live objects, for POSIX_TRACE_IOC_STATS: a test that ends with
 * every process reaped can check that nothing leaked.  Each counter moves
 * where its object is allocated and where it is freed.
 */
#include "pt.h"

atomic_t pt_stats[PT_STAT_NR];

void pt_stats_read(struct posix_trace_stats *st)
{
	st->streams = atomic_read(&pt_stats[PT_STAT_STREAMS]);
	st->active_streams = pt_nr_active_streams();
	st->procs = atomic_read(&pt_stats[PT_STAT_PROCS]);
	st->attaches = atomic_read(&pt_stats[PT_STAT_ATTACHES]);
	st->writers = atomic_read(&pt_stats[PT_STAT_WRITERS]);
	st->mappings = atomic_read(&pt_stats[PT_STAT_MAPPINGS]);
	st->maps = atomic_read(&pt_stats[PT_STAT_MAPS]);
	st->users = atomic_read(&pt_stats[PT_STAT_USERS]);
	pt_kits_read(&st->fork_kits, &st->fork_misses);
}
