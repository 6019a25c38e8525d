// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel events (posix_trace_attr_setkernelclasses_np(3)) in the library,
 * without the module: their names, the type list of a stream that records
 * them, event sets, and their records read from a kernel lane
 * (lane_fake.h plays the module).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace.h>
#include <linux/posix_trace_kernel.h>

#include "lane_fake.h"
#include "pt_test.h"

#define NK	5

static const trace_event_id_t kids[NK] = {
	POSIX_TRACE_SYSCALL_ENTRY_NP, POSIX_TRACE_SYSCALL_EXIT_NP,
	POSIX_TRACE_PROCESS_FORK_NP, POSIX_TRACE_PROCESS_EXEC_NP,
	POSIX_TRACE_PROCESS_EXIT_NP,
};
static const char *const knames[NK] = {
	"posix_trace_syscall_entry", "posix_trace_syscall_exit",
	"posix_trace_process_fork", "posix_trace_process_exec",
	"posix_trace_process_exit",
};
static const unsigned int kclass[NK] = {
	POSIX_TRACE_KERNEL_SYSCALL_NP, POSIX_TRACE_KERNEL_SYSCALL_NP,
	POSIX_TRACE_KERNEL_PROCESS_NP, POSIX_TRACE_KERNEL_PROCESS_NP,
	POSIX_TRACE_KERNEL_PROCESS_NP,
};

static int is_kernel_id(trace_event_id_t id)
{
	unsigned int i;

	for (i = 0; i < NK; i++)
		if (kids[i] == id)
			return 1;
	return 0;
}

/* The ids, names and classes are the uapi's (<linux/posix_trace.h>). */
static void test_ids_are_the_uapi_ones(void)
{
	static const char *const uapi[] = POSIX_TRACE_KERNEL_NAMES;
	static const unsigned int uapi_class[] = POSIX_TRACE_KERNEL_CLASSES;
	unsigned int i;

	for (i = 0; i < NK; i++) {
		EXPECT(kids[i] >= POSIX_TRACE_ID_KERNEL_FIRST &&
		       kids[i] <= POSIX_TRACE_ID_KERNEL_LAST);
		EXPECT(strcmp(uapi[kids[i] - POSIX_TRACE_ID_KERNEL_FIRST], knames[i]) == 0);
		EXPECT_EQ(uapi_class[kids[i] - POSIX_TRACE_ID_KERNEL_FIRST], kclass[i]);
	}
}

/* A fake active stream recording @classes. */
static int setup(struct lf *f, unsigned int classes)
{
	if (lf_setup(f, POSIX_TRACE_LOOP))
		return -1;
	return posix_trace_attr_setkernelclasses_np(&f->h->attr, classes);
}

/*
 * get_name names each kernel id on an active stream, whatever its
 * classes, from the library's table (no module needed); ids kept for
 * later classes and the POSIX ones keep their answers.
 */
static void test_get_name_active(void)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	unsigned int i, c;
	struct lf f;

	for (c = 0; c <= POSIX_TRACE_KERNEL_ALL_NP; c += POSIX_TRACE_KERNEL_ALL_NP) {
		if (setup(&f, c)) {
			PT_FAIL("setup");
			return;
		}
		for (i = 0; i < NK; i++) {
			strcpy(name, "canary");
			EXPECT_RC(posix_trace_eventid_get_name(f.trid, kids[i], name), 0);
			EXPECT(strcmp(name, knames[i]) == 0);
		}
		/* 10 .. 15, 18 .. 23 and 27 .. 255 name no type: the module's
		 * word (EINVAL, or ENOSYS here without it), never a name. */
		for (id = 10; id < 256; id++) {
			if (is_kernel_id(id))
				continue;
			strcpy(name, "canary");
			EXPECT(posix_trace_eventid_get_name(f.trid, id, name) != 0);
			EXPECT(strcmp(name, "canary") == 0);
		}
		EXPECT_RC(posix_trace_eventid_get_name(f.trid, POSIX_TRACE_DETACHED, name), 0);
		EXPECT(strcmp(name, "posix_trace_detached") == 0);
		EXPECT_RC(posix_trace_eventid_get_name(f.trid, POSIX_TRACE_ERROR, name), 0);
		EXPECT(strcmp(name, "posix_trace_error") == 0);
		lf_teardown(&f);
	}
}

/*
 * The type list of an active stream: the nine system ids, then the
 * kernel ids of its classes in increasing order, then (from the module)
 * the user ids; without the module the list stops with an error there.
 */
static void typelist_case(unsigned int classes)
{
	trace_event_id_t want[9 + NK], id;
	unsigned int n = 0, i, round;
	int unavailable;
	struct lf f;

	for (i = 1; i <= 9; i++)
		want[n++] = i;
	for (i = 0; i < NK; i++)
		if (kclass[i] & classes)
			want[n++] = kids[i];
	if (setup(&f, classes)) {
		PT_FAIL("setup");
		return;
	}
	for (round = 0; round < 2; round++) {
		for (i = 0; i < n; i++) {
			id = 0;
			unavailable = 1;
			EXPECT_RC(posix_trace_eventtypelist_getnext_id(f.trid, &id, &unavailable), 0);
			EXPECT_EQ(unavailable, 0);
			if (id != want[i])
				PT_FAIL("classes %#x: entry %u is %u, expected %u", classes, i,
					id, want[i]);
		}
		/* The user ids: the module's (ENOSYS here), or some. */
		id = 0;
		if (!posix_trace_eventtypelist_getnext_id(f.trid, &id, &unavailable) &&
		    !unavailable)
			EXPECT(id >= POSIX_TRACE_UNNAMED_USEREVENT);
		EXPECT_RC(posix_trace_eventtypelist_rewind(f.trid), 0);
	}
	lf_teardown(&f);
}

static void test_typelist_active(void)
{
	typelist_case(0);
	typelist_case(POSIX_TRACE_KERNEL_SYSCALL_NP);
	typelist_case(POSIX_TRACE_KERNEL_PROCESS_NP);
	typelist_case(POSIX_TRACE_KERNEL_ALL_NP);
}

/* get_attr of an active stream gives the classes it was created with. */
static void test_get_attr_active(void)
{
	trace_attr_t a;
	unsigned int v = 0;
	struct lf f;

	if (setup(&f, POSIX_TRACE_KERNEL_PROCESS_NP)) {
		PT_FAIL("setup");
		return;
	}
	EXPECT_RC(posix_trace_get_attr(f.trid, &a), 0);
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(&a, &v), 0);
	EXPECT_EQ(v, POSIX_TRACE_KERNEL_PROCESS_NP);
	lf_teardown(&f);
}

/*
 * fill: the kernel event types are system events (every class this
 * library knows, whatever a stream records) that name a process; ids
 * kept for later classes are not event types.
 */
static void test_eventset_fill(void)
{
	trace_event_set_t sys, wopid, all;
	trace_event_id_t id;
	int in_sys, in_wopid, in_all, bad = 0;

	EXPECT_RC(posix_trace_eventset_fill(&sys, POSIX_TRACE_SYSTEM_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_fill(&wopid, POSIX_TRACE_WOPID_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_fill(&all, POSIX_TRACE_ALL_EVENTS), 0);
	for (id = 0; id < POSIX_TRACE_UNNAMED_USEREVENT; id++) {
		EXPECT_RC(posix_trace_eventset_ismember(id, &sys, &in_sys), 0);
		EXPECT_RC(posix_trace_eventset_ismember(id, &wopid, &in_wopid), 0);
		EXPECT_RC(posix_trace_eventset_ismember(id, &all, &in_all), 0);
		if (!in_sys != !((id >= 1 && id <= 9) || is_kernel_id(id)) || in_wopid ||
		    !in_all) {
			PT_FAIL("id %u: system %d, wopid %d, all %d", id, in_sys, in_wopid,
				in_all);
			bad++;
		}
	}
	EXPECT_EQ(bad, 0);
	/* add, del and ismember take them as any id. */
	EXPECT_RC(posix_trace_eventset_empty(&sys), 0);
	EXPECT_RC(posix_trace_eventset_add(POSIX_TRACE_SYSCALL_EXIT_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_EXIT_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_del(POSIX_TRACE_SYSCALL_EXIT_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_EXIT_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
}

/*
 * The module's kernel event records in a kernel lane come out as any
 * system event: id, data and pid as recorded, thread and address 0, in
 * timestamp order with the writer lanes' user events.
 */
static void test_records_read_from_a_kernel_lane(void)
{
	struct {
		struct posix_trace_syscall_entry e;
		char path[16];
	} entry = { .e = { .nr = 257, .flags = POSIX_TRACE_SYSCALL_PATH,
			   .args = { (uint64_t)-100, 0x7f0000001000ull, 0, 0, 0, 0 },
			   .path_arg = 1, .path_len = 10 },
		    .path = "/etc/hosts" };
	struct posix_trace_syscall_exit x = { .nr = 257, .ret = (uint64_t)-2 };
	struct posix_trace_process_exit pe = { .status = 3 << 8 };
	uint32_t want[] = { POSIX_TRACE_START, POSIX_TRACE_SYSCALL_ENTRY_NP,
			    POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_SYSCALL_EXIT_NP,
			    POSIX_TRACE_PROCESS_EXIT_NP };
	uint64_t ts = lf_now();
	struct lf_ev ev;
	unsigned int n = 0;
	struct lf f;

	if (setup(&f, POSIX_TRACE_KERNEL_ALL_NP)) {
		PT_FAIL("setup");
		return;
	}
	lf_start(&f, ts, NULL);
	lf_kernel(&f, POSIX_TRACE_SYSCALL_ENTRY_NP, ts + 1, &entry,
		  (uint32_t)(sizeof(entry.e) + entry.e.path_len));
	lf_write(&f, 0, POSIX_TRACE_UNNAMED_USEREVENT, ts + 2, 7);
	lf_kernel(&f, POSIX_TRACE_SYSCALL_EXIT_NP, ts + 3, &x, sizeof(x));
	lf_kernel(&f, POSIX_TRACE_PROCESS_EXIT_NP, ts + 4, &pe, sizeof(pe));
	while (!lf_read(&f, &ev) && !ev.unavailable && n < 16) {
		if (n < sizeof(want) / sizeof(want[0]) && ev.info.posix_event_id != want[n])
			PT_FAIL("event %u: id %u, expected %u", n, ev.info.posix_event_id,
				want[n]);
		if (ev.info.posix_event_id == POSIX_TRACE_SYSCALL_ENTRY_NP) {
			EXPECT_EQ(ev.len, sizeof(entry.e) + 10);
			EXPECT(memcmp(ev.data, &entry, ev.len) == 0);
			EXPECT(ev.info.posix_thread_id == 0);
			EXPECT(ev.info.posix_prog_address == NULL);
			EXPECT_EQ(ev.info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
		} else if (ev.info.posix_event_id == POSIX_TRACE_SYSCALL_EXIT_NP) {
			EXPECT_EQ(ev.len, sizeof(x));
			EXPECT(memcmp(ev.data, &x, sizeof(x)) == 0);
		} else if (ev.info.posix_event_id == POSIX_TRACE_PROCESS_EXIT_NP) {
			EXPECT_EQ(ev.len, sizeof(pe));
			EXPECT(memcmp(ev.data, &pe, sizeof(pe)) == 0);
		}
		n++;
	}
	EXPECT_EQ(ev.ret, 0);
	EXPECT_EQ(n, sizeof(want) / sizeof(want[0]));
	lf_teardown(&f);
}

int main(void)
{
	PT_RUN(test_ids_are_the_uapi_ones, "kernel ids, names and classes are the uapi's");
	PT_RUN(test_get_name_active, "get_name names every kernel id of an active stream");
	PT_RUN(test_typelist_active, "type list: system ids, the classes' kernel ids, then user ids");
	PT_RUN(test_get_attr_active, "get_attr of an active stream gives its kernel classes");
	PT_RUN(test_eventset_fill, "fill: kernel ids are system events, not WOPID ones");
	PT_RUN(test_records_read_from_a_kernel_lane,
	       "kernel event records read from a kernel lane, in order, data intact");
	return pt_test_done();
}
