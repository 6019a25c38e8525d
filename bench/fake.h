/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library's host-benchmark hook (libtrace/writer.h): a fake stream
 * whose writer lanes are plain memory laid out as the module lays them
 * out, so that the posix_trace_event() hot path can be timed natively,
 * without the module.
 *
 * Declared weak: ptbench links the whole static archive, so the hook is
 * there if the library has it and NULL if not, and the rows then say
 * "n/a (no fake hook)" instead of the build failing.
 */
#ifndef BENCH_FAKE_H
#define BENCH_FAKE_H

#include <stdint.h>
#include <trace.h>

#if defined(__has_include)
#if __has_include("../libtrace/bench_fake.h")
/* The library's own declarations, so that a change of them shows here. */
#include "../libtrace/bench_fake.h"
#endif
#endif

/* Make this process look traced by one running stream; returns 0. */
int pt_bench_fake_stream(uint32_t policy, uint64_t capacity, uint32_t max_data)
	__attribute__((weak));
/* Filter event type @id out of (filtered != 0) or back into the stream. */
void pt_bench_fake_filter(trace_event_id_t id, int filtered) __attribute__((weak));
/* Mark everything written to the fake lanes as consumed. */
void pt_bench_fake_drain(void) __attribute__((weak));
/* Back to "not traced". */
void pt_bench_fake_untrace(void) __attribute__((weak));

/* All four are there. */
static inline int bench_have_fake(void)
{
	return pt_bench_fake_stream && pt_bench_fake_filter &&
	       pt_bench_fake_drain && pt_bench_fake_untrace;
}

#endif /* BENCH_FAKE_H */
