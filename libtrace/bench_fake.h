/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host benchmark hooks of bench_fake.c (bench/fake.h declares them weak).
 */
#ifndef PT_BENCH_FAKE_H
#define PT_BENCH_FAKE_H

#include <stdint.h>
#include <trace.h>

/*
 * Host benchmark only: make this process look traced by one running stream
 * whose writer lanes are anonymous memory laid out exactly like the
 * module's; no module involved.  Not exported from the shared library.
 */
int pt_bench_fake_stream(uint32_t policy, uint64_t capacity, uint32_t max_data);
void pt_bench_fake_filter(trace_event_id_t id, int filtered);
void pt_bench_fake_drain(void);
void pt_bench_fake_untrace(void);

#endif /* PT_BENCH_FAKE_H */
