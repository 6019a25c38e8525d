// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host benchmark hooks (bench_fake.h): a stream faked on both sides of the
 * record path, the status page (event.c) and the writer lanes (pool.c),
 * so this sits above both.  Not exported from the shared library.
 */
#include <stdatomic.h>
#include <string.h>
#include "bench_fake.h"
#include "event.h"
#include "wlane.h"

#define PT_FAKE_TRID	1

int pt_bench_fake_stream(uint32_t policy, uint64_t capacity, uint32_t max_data)
{
	struct posix_trace_proc_page *pg = pt_status_fake();

	pt_fake = 1;
	pt_fake_capacity = capacity;
	memset(pg->slots, 0, sizeof(pg->slots));
	pg->nr_ids = 16;
	pg->slots[0].trid = PT_FAKE_TRID;
	pg->slots[0].policy = policy;
	pg->slots[0].max_data = max_data;
	pg->slots[0].state = POSIX_TRACE_SLOT_RECORD;
	memset(pg->wanted, 0xff, sizeof(pg->wanted));
	pg->nr_slots = 1;
	pg->generation++;
	PT_STORE_REL(&pg->active, 1);
	return 0;
}

void pt_bench_fake_filter(trace_event_id_t id, int filtered)
{
	struct posix_trace_proc_page *pg = pt_status_fake();
	uint64_t bit = (uint64_t)1 << (id % 64);

	if (filtered) {
		pg->slots[0].filter[id / 64] |= bit;
		pg->wanted[id / 64] &= ~bit;
	} else {
		pg->slots[0].filter[id / 64] &= ~bit;
		pg->wanted[id / 64] |= bit;
	}
}

void pt_bench_fake_drain(void)
{
	size_t i;

	for (i = 0; i < PT_POOL_MAX; i++) {
		int state = atomic_load(&pt_pool[i].state);

		if ((state == PT_W_FREE || state == PT_W_CLAIMED) && pt_pool[i].ctl)
			PT_STORE_REL(&pt_pool[i].ctl->tail,
				     PT_LOAD(&pt_pool[i].ctl->head));
	}
}

void pt_bench_fake_untrace(void)
{
	struct posix_trace_proc_page *pg = pt_status_fake();

	memset(pg->wanted, 0, sizeof(pg->wanted));
	PT_STORE_REL(&pg->active, 0);
}
