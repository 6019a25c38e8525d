/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The controller side of the posix-trace rows (pt_stream.c): the event id,
 * streams in the VM, and draining them to count what was recorded.
 */
#ifndef BENCH_PT_STREAM_H
#define BENCH_PT_STREAM_H

#include <stdint.h>
#include <trace.h>

/* The event type every posix-trace row records. */
extern trace_event_id_t pt_id;

/* Sets pt_id: 0, or -1 with @why ("n/a (...)") if the rows cannot run. */
int pt_setup(char *why);
/* VM: a running stream tracing this process, @policy, 4 MiB, max data
 * 256, with pt_id filtered out if @filtered; its START already read. */
int pt_open(int policy, int filtered, trace_id_t *trid, char *why);
void pt_close(trace_id_t trid);
/* Events of @len data bytes per writer that fit in a lane of @trid (0: the
 * fake stream) with a tenth to spare, split among @nthreads writers. */
uint64_t pt_fit(trace_id_t trid, uint32_t len, int nthreads);
/* Reads every event available: *ours counts pt_id events with @len data
 * bytes intact, *bad other pt_id events.  0 or an error number. */
int pt_drain(trace_id_t trid, uint32_t len, uint64_t *ours, uint64_t *bad);

#endif /* BENCH_PT_STREAM_H */
