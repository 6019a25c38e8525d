// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel events (posix_trace_attr_setkernelclasses_np(3)) in the library,
 * without the module: their names, the type list of a stream that records
 * them, event sets, and their records read from a kernel lane
 * (lane_fake.h plays the module) and from logs (log_writer.h writes them
 * as the module does, and as it did before it named kernel ids).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <trace.h>
#include <linux/posix_trace_kernel.h>

#include "lane_fake.h"
#include "log_writer.h"
#include "pt_test.h"

#define NK	13

/* In increasing order: the type list gives them so. */
static const trace_event_id_t kids[NK] = {
	POSIX_TRACE_SYSCALL_ENTRY_NP, POSIX_TRACE_SYSCALL_EXIT_NP,
	POSIX_TRACE_SIGNAL_GENERATE_NP, POSIX_TRACE_SIGNAL_DELIVER_NP,
	POSIX_TRACE_SCHED_OUT_NP, POSIX_TRACE_SCHED_IN_NP, POSIX_TRACE_SCHED_WAKEUP_NP,
	POSIX_TRACE_FAULT_MAJOR_NP,
	POSIX_TRACE_PROCESS_FORK_NP, POSIX_TRACE_PROCESS_EXEC_NP,
	POSIX_TRACE_PROCESS_EXIT_NP,
	POSIX_TRACE_FAULT_MINOR_NP,
	POSIX_TRACE_SYSCALL_NP,
};
static const char *const knames[NK] = {
	"posix_trace_syscall_entry", "posix_trace_syscall_exit",
	"posix_trace_signal_generate", "posix_trace_signal_deliver",
	"posix_trace_sched_out", "posix_trace_sched_in", "posix_trace_sched_wakeup",
	"posix_trace_fault_major",
	"posix_trace_process_fork", "posix_trace_process_exec",
	"posix_trace_process_exit",
	"posix_trace_fault_minor",
	"posix_trace_syscall",
};
static const unsigned int kclass[NK] = {
	POSIX_TRACE_KERNEL_SYSCALL_NP, POSIX_TRACE_KERNEL_SYSCALL_NP,
	POSIX_TRACE_KERNEL_SIGNAL_NP, POSIX_TRACE_KERNEL_SIGNAL_NP,
	POSIX_TRACE_KERNEL_SCHED_NP, POSIX_TRACE_KERNEL_SCHED_NP, POSIX_TRACE_KERNEL_SCHED_NP,
	POSIX_TRACE_KERNEL_FAULT_NP,
	POSIX_TRACE_KERNEL_PROCESS_NP, POSIX_TRACE_KERNEL_PROCESS_NP,
	POSIX_TRACE_KERNEL_PROCESS_NP,
	POSIX_TRACE_KERNEL_FAULT_NP,
	POSIX_TRACE_KERNEL_SYSCALL_NP,
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
	/* Every class has its ids, every id of the table is one of these. */
	EXPECT_EQ(POSIX_TRACE_SIGNAL_GENERATE_NP, 18);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_DELIVER_NP, 19);
	EXPECT_EQ(POSIX_TRACE_SCHED_OUT_NP, 20);
	EXPECT_EQ(POSIX_TRACE_SCHED_IN_NP, 21);
	EXPECT_EQ(POSIX_TRACE_SCHED_WAKEUP_NP, 22);
	/* The fault class took the id kept for it and the one after the
	 * process class: 23 and 27; a call in one record, 28, is the last. */
	EXPECT_EQ(POSIX_TRACE_FAULT_MAJOR_NP, 23);
	EXPECT_EQ(POSIX_TRACE_FAULT_MINOR_NP, 27);
	EXPECT_EQ(POSIX_TRACE_ID_FAULT_MAJOR, 23);
	EXPECT_EQ(POSIX_TRACE_ID_FAULT_MINOR, 27);
	EXPECT_EQ(POSIX_TRACE_SYSCALL_NP, 28);
	EXPECT_EQ(POSIX_TRACE_ID_SYSCALL, 28);
	EXPECT_EQ(POSIX_TRACE_ID_KERNEL_LAST, 28);
	EXPECT(strcmp(uapi[28 - POSIX_TRACE_ID_KERNEL_FIRST], "posix_trace_syscall") == 0);
	EXPECT_EQ(uapi_class[28 - POSIX_TRACE_ID_KERNEL_FIRST], POSIX_TRACE_KERNEL_SYSCALL_NP);
	EXPECT(strcmp(uapi[23 - POSIX_TRACE_ID_KERNEL_FIRST], "posix_trace_fault_major") == 0);
	EXPECT(strcmp(uapi[27 - POSIX_TRACE_ID_KERNEL_FIRST], "posix_trace_fault_minor") == 0);
	EXPECT_EQ(uapi_class[23 - POSIX_TRACE_ID_KERNEL_FIRST], POSIX_TRACE_KERNEL_FAULT_NP);
	EXPECT_EQ(uapi_class[27 - POSIX_TRACE_ID_KERNEL_FIRST], POSIX_TRACE_KERNEL_FAULT_NP);
	EXPECT_EQ(sizeof(uapi) / sizeof(uapi[0]),
		  POSIX_TRACE_ID_KERNEL_LAST - POSIX_TRACE_ID_KERNEL_FIRST + 1);
	EXPECT_EQ(sizeof(uapi_class) / sizeof(uapi_class[0]),
		  POSIX_TRACE_ID_KERNEL_LAST - POSIX_TRACE_ID_KERNEL_FIRST + 1);
	for (i = POSIX_TRACE_ID_KERNEL_FIRST; i <= POSIX_TRACE_ID_KERNEL_LAST; i++) {
		EXPECT(!uapi[i - POSIX_TRACE_ID_KERNEL_FIRST] == !is_kernel_id(i));
		EXPECT(!uapi_class[i - POSIX_TRACE_ID_KERNEL_FIRST] == !is_kernel_id(i));
	}
}

/*
 * The signal events' data: fixed layouts of 32-bit fields (and the
 * deliver record's 64-bit handler address), the same on every ABI, and
 * the constants their comments give.
 */
static void test_signal_layouts(void)
{
	EXPECT_EQ(sizeof(struct posix_trace_signal_generate), 24);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, signo), 0);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, code), 4);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, sender_pid), 8);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, result), 12);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, flags), 16);
	EXPECT_EQ(offsetof(struct posix_trace_signal_generate, reserved), 20);
	EXPECT_EQ(sizeof(struct posix_trace_signal_deliver), 32);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, signo), 0);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, code), 4);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, sender_pid), 8);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, action), 12);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, handler), 16);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, sa_flags), 24);
	EXPECT_EQ(offsetof(struct posix_trace_signal_deliver, reserved), 28);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_DELIVERED, 0);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_IGNORED, 1);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_ALREADY_PENDING, 2);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_OVERFLOW_FAIL, 3);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_LOSE_INFO, 4);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_GROUP, 1);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_HANDLER, 0);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_IGNORE, 1);
	EXPECT_EQ(POSIX_TRACE_SIGNAL_DEFAULT, 2);
}

/*
 * The sched events' data: 32-bit fields only, the same on every ABI, and
 * the constants their comments give.
 */
static void test_sched_layouts(void)
{
	EXPECT_EQ(sizeof(struct posix_trace_sched_out), 8);
	EXPECT_EQ(offsetof(struct posix_trace_sched_out, reason), 0);
	EXPECT_EQ(offsetof(struct posix_trace_sched_out, cpu), 4);
	EXPECT_EQ(sizeof(struct posix_trace_sched_in), 8);
	EXPECT_EQ(offsetof(struct posix_trace_sched_in, cpu), 0);
	EXPECT_EQ(offsetof(struct posix_trace_sched_in, reserved), 4);
	EXPECT_EQ(sizeof(struct posix_trace_sched_wakeup), 16);
	EXPECT_EQ(offsetof(struct posix_trace_sched_wakeup, waker_pid), 0);
	EXPECT_EQ(offsetof(struct posix_trace_sched_wakeup, waker_tid), 4);
	EXPECT_EQ(offsetof(struct posix_trace_sched_wakeup, flags), 8);
	EXPECT_EQ(offsetof(struct posix_trace_sched_wakeup, reserved), 12);
	EXPECT_EQ(POSIX_TRACE_SCHED_PREEMPTED, 0);
	EXPECT_EQ(POSIX_TRACE_SCHED_SLEEPING, 1);
	EXPECT_EQ(POSIX_TRACE_SCHED_BLOCKED, 2);
	EXPECT_EQ(POSIX_TRACE_SCHED_STOPPED, 3);
	EXPECT_EQ(POSIX_TRACE_SCHED_EXITING, 4);
	EXPECT_EQ(POSIX_TRACE_SCHED_WAKER_IRQ, 1);
}

/*
 * The fault events' data: two 64-bit addresses, then 32-bit fields, the
 * same on every ABI.
 */
static void test_fault_layouts(void)
{
	EXPECT_EQ(sizeof(struct posix_trace_fault), 24);
	EXPECT_EQ(offsetof(struct posix_trace_fault, address), 0);
	EXPECT_EQ(offsetof(struct posix_trace_fault, ip), 8);
	EXPECT_EQ(offsetof(struct posix_trace_fault, flags), 16);
	EXPECT_EQ(offsetof(struct posix_trace_fault, reserved), 20);
	EXPECT_EQ(POSIX_TRACE_FAULT_USER, 1);
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
		/* 10 .. 15 and 28 .. 255 name no type: the module's word
		 * (EINVAL, or ENOSYS here without it), never a name. */
		for (id = 10; id < 256; id++) {
			if (is_kernel_id(id))
				continue;
			EXPECT((id >= 10 && id <= 15) || id >= 28);
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
	typelist_case(POSIX_TRACE_KERNEL_SIGNAL_NP);
	typelist_case(POSIX_TRACE_KERNEL_PROCESS_NP);
	typelist_case(POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP);
	typelist_case(POSIX_TRACE_KERNEL_SIGNAL_NP | POSIX_TRACE_KERNEL_PROCESS_NP);
	typelist_case(POSIX_TRACE_KERNEL_SCHED_NP);
	typelist_case(POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SCHED_NP);
	typelist_case(POSIX_TRACE_KERNEL_SIGNAL_NP | POSIX_TRACE_KERNEL_SCHED_NP);
	typelist_case(POSIX_TRACE_KERNEL_SCHED_NP | POSIX_TRACE_KERNEL_PROCESS_NP);
	typelist_case(POSIX_TRACE_KERNEL_ALL_NP & ~POSIX_TRACE_KERNEL_SCHED_NP);
	typelist_case(POSIX_TRACE_KERNEL_FAULT_NP);
	typelist_case(POSIX_TRACE_KERNEL_FAULT_NP | POSIX_TRACE_KERNEL_SCHED_NP);
	typelist_case(POSIX_TRACE_KERNEL_FAULT_NP | POSIX_TRACE_KERNEL_PROCESS_NP);
	typelist_case(POSIX_TRACE_KERNEL_FAULT_NP | POSIX_TRACE_KERNEL_SYSCALL_NP);
	typelist_case(POSIX_TRACE_KERNEL_ALL_NP & ~POSIX_TRACE_KERNEL_FAULT_NP);
	typelist_case(POSIX_TRACE_KERNEL_ALL_NP);
}

/*
 * A stream with only one class lists exactly @want (@n ids) among the
 * ids above the system ones and below the user ids (not from the tables
 * above: the library's own answer, against the numbers).
 */
static void typelist_only(unsigned int classes, const trace_event_id_t *want,
			  unsigned int n)
{
	trace_event_id_t got[8], id;
	unsigned int m = 0, steps = 0, i;
	int unavailable = 0;
	struct lf f;

	if (setup(&f, classes)) {
		PT_FAIL("setup");
		return;
	}
	while (steps++ < 1024) {
		id = 0;
		if (posix_trace_eventtypelist_getnext_id(f.trid, &id, &unavailable) ||
		    unavailable)
			break;
		if (id > POSIX_TRACE_DETACHED && id < POSIX_TRACE_UNNAMED_USEREVENT) {
			if (m < 8)
				got[m] = id;
			m++;
		}
	}
	EXPECT_EQ(m, n);
	for (i = 0; i < m && i < n; i++)
		if (got[i] != want[i])
			PT_FAIL("classes %#x: kernel id %u is %u, expected %u", classes, i,
				got[i], want[i]);
	lf_teardown(&f);
}

/* Signal only: ids 18 and 19. */
static void test_typelist_signal_only(void)
{
	static const trace_event_id_t want[] = { 18, 19 };

	typelist_only(POSIX_TRACE_KERNEL_SIGNAL_NP, want, 2);
}

/* Sched only: ids 20, 21 and 22 (not 23, the fault class's). */
static void test_typelist_sched_only(void)
{
	static const trace_event_id_t want[] = { 20, 21, 22 };

	typelist_only(POSIX_TRACE_KERNEL_SCHED_NP, want, 3);
}

/* Fault only: ids 23 and 27, not the process ids between them. */
static void test_typelist_fault_only(void)
{
	static const trace_event_id_t want[] = { 23, 27 };

	typelist_only(POSIX_TRACE_KERNEL_FAULT_NP, want, 2);
}

/* System calls only: ids 16, 17 and 28 (a call in one record). */
static void test_typelist_syscall_only(void)
{
	static const trace_event_id_t want[] = { 16, 17, 28 };

	typelist_only(POSIX_TRACE_KERNEL_SYSCALL_NP, want, 3);
}

/* Process only: ids 24, 25 and 26 (not 27, the fault class's). */
static void test_typelist_process_only(void)
{
	static const trace_event_id_t want[] = { 24, 25, 26 };

	typelist_only(POSIX_TRACE_KERNEL_PROCESS_NP, want, 3);
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
 * no class has are not event types.
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
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SIGNAL_GENERATE_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SIGNAL_DELIVER_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	for (id = POSIX_TRACE_SCHED_OUT_NP; id <= POSIX_TRACE_SCHED_WAKEUP_NP; id++) {
		EXPECT_RC(posix_trace_eventset_ismember(id, &sys, &in_sys), 0);
		EXPECT_EQ(in_sys, 1);
		EXPECT_RC(posix_trace_eventset_ismember(id, &wopid, &in_wopid), 0);
		EXPECT_EQ(in_wopid, 0);
	}
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_FAULT_MAJOR_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_FAULT_MINOR_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_FAULT_MINOR_NP, &wopid, &in_wopid), 0);
	EXPECT_EQ(in_wopid, 0);
	for (id = 10; id <= 15; id++) {
		EXPECT_RC(posix_trace_eventset_ismember(id, &sys, &in_sys), 0);
		EXPECT_EQ(in_sys, 0);
	}
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_NP, &wopid, &in_wopid), 0);
	EXPECT_EQ(in_wopid, 0);
	for (id = 29; id < POSIX_TRACE_UNNAMED_USEREVENT; id++) {
		EXPECT_RC(posix_trace_eventset_ismember(id, &sys, &in_sys), 0);
		EXPECT_EQ(in_sys, 0);
	}
	/* add, del and ismember take them as any id. */
	EXPECT_RC(posix_trace_eventset_empty(&sys), 0);
	EXPECT_RC(posix_trace_eventset_add(POSIX_TRACE_SYSCALL_EXIT_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_EXIT_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_del(POSIX_TRACE_SYSCALL_EXIT_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SYSCALL_EXIT_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
	EXPECT_RC(posix_trace_eventset_add(POSIX_TRACE_SIGNAL_DELIVER_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SIGNAL_DELIVER_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SIGNAL_GENERATE_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
	EXPECT_RC(posix_trace_eventset_del(POSIX_TRACE_SIGNAL_DELIVER_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SIGNAL_DELIVER_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
	EXPECT_RC(posix_trace_eventset_add(POSIX_TRACE_SCHED_WAKEUP_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SCHED_WAKEUP_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 1);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SCHED_IN_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SCHED_OUT_NP, &sys, &in_sys), 0);
	EXPECT_EQ(in_sys, 0);
	EXPECT_RC(posix_trace_eventset_del(POSIX_TRACE_SCHED_WAKEUP_NP, &sys), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_SCHED_WAKEUP_NP, &sys, &in_sys), 0);
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
	struct posix_trace_signal_generate sg = {
		.signo = SIGUSR1, .code = (uint32_t)SI_TKILL, .sender_pid = 4242,
		.result = POSIX_TRACE_SIGNAL_DELIVERED };
	struct posix_trace_signal_deliver sd = {
		.signo = SIGUSR1, .code = (uint32_t)SI_TKILL, .sender_pid = 4242,
		.action = POSIX_TRACE_SIGNAL_HANDLER, .handler = 0x7f0000402000ull,
		.sa_flags = SA_SIGINFO | SA_RESTART };
	struct posix_trace_sched_out so = { .reason = POSIX_TRACE_SCHED_SLEEPING, .cpu = 3 };
	struct posix_trace_sched_wakeup sw = { .waker_pid = 4000, .waker_tid = 4001 };
	struct posix_trace_sched_in si = { .cpu = 1 };
	struct posix_trace_fault fmaj = { .address = 0x7f0000403010ull,
					  .ip = 0x55d0c0de1234ull,
					  .flags = POSIX_TRACE_FAULT_USER };
	struct posix_trace_fault fmin = { .address = 0x7ffd00001ff8ull };
	struct posix_trace_process_exit pe = { .status = 3 << 8 };
	uint32_t want[] = { POSIX_TRACE_START, POSIX_TRACE_SYSCALL_ENTRY_NP,
			    POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_SYSCALL_EXIT_NP,
			    POSIX_TRACE_SIGNAL_GENERATE_NP, POSIX_TRACE_SIGNAL_DELIVER_NP,
			    POSIX_TRACE_SCHED_OUT_NP, POSIX_TRACE_SCHED_WAKEUP_NP,
			    POSIX_TRACE_SCHED_IN_NP, POSIX_TRACE_FAULT_MAJOR_NP,
			    POSIX_TRACE_FAULT_MINOR_NP, POSIX_TRACE_PROCESS_EXIT_NP };
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
	lf_kernel(&f, POSIX_TRACE_SIGNAL_GENERATE_NP, ts + 4, &sg, sizeof(sg));
	lf_kernel(&f, POSIX_TRACE_SIGNAL_DELIVER_NP, ts + 5, &sd, sizeof(sd));
	lf_kernel(&f, POSIX_TRACE_SCHED_OUT_NP, ts + 6, &so, sizeof(so));
	lf_kernel(&f, POSIX_TRACE_SCHED_WAKEUP_NP, ts + 7, &sw, sizeof(sw));
	lf_kernel(&f, POSIX_TRACE_SCHED_IN_NP, ts + 8, &si, sizeof(si));
	lf_kernel(&f, POSIX_TRACE_FAULT_MAJOR_NP, ts + 9, &fmaj, sizeof(fmaj));
	lf_kernel(&f, POSIX_TRACE_FAULT_MINOR_NP, ts + 10, &fmin, sizeof(fmin));
	lf_kernel(&f, POSIX_TRACE_PROCESS_EXIT_NP, ts + 11, &pe, sizeof(pe));
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
		} else if (ev.info.posix_event_id == POSIX_TRACE_SIGNAL_GENERATE_NP) {
			EXPECT_EQ(ev.len, sizeof(sg));
			EXPECT(memcmp(ev.data, &sg, sizeof(sg)) == 0);
			EXPECT(ev.info.posix_thread_id == 0);
			EXPECT(ev.info.posix_prog_address == NULL);
		} else if (ev.info.posix_event_id == POSIX_TRACE_SIGNAL_DELIVER_NP) {
			EXPECT_EQ(ev.len, sizeof(sd));
			EXPECT(memcmp(ev.data, &sd, sizeof(sd)) == 0);
		} else if (ev.info.posix_event_id == POSIX_TRACE_SCHED_OUT_NP) {
			EXPECT_EQ(ev.len, sizeof(so));
			EXPECT(memcmp(ev.data, &so, sizeof(so)) == 0);
			EXPECT(ev.info.posix_thread_id == 0);
			EXPECT(ev.info.posix_prog_address == NULL);
		} else if (ev.info.posix_event_id == POSIX_TRACE_SCHED_WAKEUP_NP) {
			EXPECT_EQ(ev.len, sizeof(sw));
			EXPECT(memcmp(ev.data, &sw, sizeof(sw)) == 0);
		} else if (ev.info.posix_event_id == POSIX_TRACE_SCHED_IN_NP) {
			EXPECT_EQ(ev.len, sizeof(si));
			EXPECT(memcmp(ev.data, &si, sizeof(si)) == 0);
		} else if (ev.info.posix_event_id == POSIX_TRACE_FAULT_MAJOR_NP) {
			EXPECT_EQ(ev.len, sizeof(fmaj));
			EXPECT(memcmp(ev.data, &fmaj, sizeof(fmaj)) == 0);
			EXPECT(ev.info.posix_thread_id == 0);
			EXPECT(ev.info.posix_prog_address == NULL);
		} else if (ev.info.posix_event_id == POSIX_TRACE_FAULT_MINOR_NP) {
			EXPECT_EQ(ev.len, sizeof(fmin));
			EXPECT(memcmp(ev.data, &fmin, sizeof(fmin)) == 0);
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

/* ------------------------------------------------------------------ */
/* Logs                                                                */
/* ------------------------------------------------------------------ */

static int open_log(const struct lw_log *w, trace_id_t *trid)
{
	int fd = lw_memfd(w->buf, w->end), ret;

	if (fd < 0)
		return -1;
	ret = posix_trace_open(fd, trid);
	close(fd);
	return ret;
}

/* The whole type list of a log. */
static unsigned int log_types(trace_id_t trid, trace_event_id_t *ids, unsigned int max)
{
	unsigned int n = 0;
	trace_event_id_t id;
	int unavailable;

	EXPECT_RC(posix_trace_eventtypelist_rewind(trid), 0);
	while (n < max) {
		EXPECT_RC(posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable), 0);
		if (unavailable)
			break;
		ids[n++] = id;
	}
	return n;
}

static void expect_list(trace_id_t trid, const trace_event_id_t *want, unsigned int n)
{
	trace_event_id_t got[64];
	unsigned int m = log_types(trid, got, 64), i;

	EXPECT_EQ(m, n);
	for (i = 0; i < m && i < n; i++)
		if (got[i] != want[i])
			PT_FAIL("list entry %u: %u, expected %u", i, got[i], want[i]);
}

static unsigned int log_classes(trace_id_t trid)
{
	unsigned int v = ~0u;
	trace_attr_t a;

	EXPECT_RC(posix_trace_get_attr(trid, &a), 0);
	EXPECT_RC(posix_trace_attr_getkernelclasses_np(&a, &v), 0);
	return v;
}

static void expect_name(trace_id_t trid, trace_event_id_t id, const char *want)
{
	char name[TRACE_EVENT_NAME_MAX + 1] = "canary";

	EXPECT_RC(posix_trace_eventid_get_name(trid, id, name), 0);
	if (strcmp(name, want))
		PT_FAIL("id %u: name '%s', expected '%s'", id, name, want);
}

/* The kernel events of a sample: an entry with a path, its exit, a signal
 * sent to it and its delivery, a switch off its CPU to sleep, the
 * wake-up from an interrupt and its switch back on, a major fault, a
 * fork, an exec, a minor fault and an exit, of pid 4242, between user
 * events. */
static struct {
	struct posix_trace_syscall_entry e;
	char path[16];
} s_entry = { .e = { .nr = 2, .flags = POSIX_TRACE_SYSCALL_PATH, .args = { 0x1000, 0x42 },
		     .path_len = 11 }, .path = "/etc/passwd" };
static const struct posix_trace_syscall_exit s_exit = { .nr = 2, .ret = 3 };
static const struct posix_trace_signal_generate s_generate = {
	.signo = SIGTERM, .code = SI_USER, .sender_pid = 4000,
	.result = POSIX_TRACE_SIGNAL_DELIVERED, .flags = POSIX_TRACE_SIGNAL_GROUP };
static const struct posix_trace_signal_deliver s_deliver = {
	.signo = SIGTERM, .code = SI_USER, .sender_pid = 4000,
	.action = POSIX_TRACE_SIGNAL_HANDLER, .handler = 0x55d0c0de1230ull,
	.sa_flags = SA_SIGINFO };
static const struct posix_trace_sched_out s_out = {
	.reason = POSIX_TRACE_SCHED_BLOCKED, .cpu = 2 };
static const struct posix_trace_sched_wakeup s_wakeup = {
	.waker_pid = 0, .waker_tid = 0, .flags = POSIX_TRACE_SCHED_WAKER_IRQ };
static const struct posix_trace_sched_in s_in = { .cpu = 5 };
static const struct posix_trace_process_fork s_fork = { .child_pid = 4243, .child_tid = 4243 };
static struct {
	struct posix_trace_process_exec x;
	char name[8];
} s_exec = { .x = { .old_tid = 4242, .name_len = 7 }, .name = "/bin/ls" };
static const struct posix_trace_process_exit s_pexit = { .status = 0 };
static const struct posix_trace_fault s_major = {
	.address = 0x7f0000403010ull, .ip = 0x55d0c0de1234ull,
	.flags = POSIX_TRACE_FAULT_USER };
static const struct posix_trace_fault s_minor = { .address = 0x7ffd00001ff8ull };

#define NS	15

static void sample_events(struct lw_event *ev)
{
	static const uint32_t ids[NS] = { 2,  256, 16, 17, 18,  19, 20, 22,
					  21, 23,  24, 25, 256, 27, 26 };
	const void *data[NS] = { NULL, "u", &s_entry, &s_exit, &s_generate, &s_deliver,
				 &s_out, &s_wakeup, &s_in, &s_major, &s_fork, &s_exec,
				 "v", &s_minor, &s_pexit };
	const uint32_t len[NS] = { 0, 1, sizeof(s_entry.e) + 11, sizeof(s_exit),
				   sizeof(s_generate), sizeof(s_deliver), sizeof(s_out),
				   sizeof(s_wakeup), sizeof(s_in), sizeof(s_major),
				   sizeof(s_fork), sizeof(s_exec.x) + 7, 1, sizeof(s_minor),
				   sizeof(s_pexit) };
	unsigned int i;

	for (i = 0; i < NS; i++)
		ev[i] = (struct lw_event){ .id = ids[i], .pid = 4242, .tid = 4242,
					   .ts = 5000000000ull + 1000 * i,
					   .flags = ids[i] < 256 ? POSIX_TRACE_REC_AUTO : 0,
					   .data = data[i], .data_len = len[i] };
}

/* Every event of the sample, read back with its id, pid and data. */
static void expect_sample_events(trace_id_t trid, unsigned int rounds)
{
	struct posix_trace_event_info info;
	struct lw_event want[NS];
	unsigned char data[512];
	unsigned int n = 0;
	size_t len;
	int unavailable;

	sample_events(want);
	for (;;) {
		EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
						    &unavailable), 0);
		if (unavailable || n >= rounds * NS)
			break;
		EXPECT_EQ(info.posix_event_id, want[n % NS].id);
		EXPECT_EQ(info.posix_pid, 4242);
		EXPECT_EQ(len, want[n % NS].data_len);
		if (len == want[n % NS].data_len && len)
			EXPECT(memcmp(data, want[n % NS].data, len) == 0);
		n++;
	}
	EXPECT_EQ(n, rounds * NS);
}

/*
 * A log of a stream with every class, as the module writes it: its
 * TYPES block names the system ids and the kernel ids of the classes.
 * Events in a 1.0 EVENTS block and in a packed one read back whole; the
 * names are the log's; the list has the kernel ids between the system
 * and the user ids; get_attr gives the classes.
 */
static void test_log_with_kernel_events(void)
{
	static const trace_event_id_t ids[] = { 1,  2,  3,  9,  16, 17, 18, 19, 20,
						21, 22, 23, 24, 25, 26, 27, 28, 256 };
	static const char *const names[] = {
		"posix_trace_error", "posix_trace_start", "posix_trace_stop",
		"posix_trace_detached", "posix_trace_syscall_entry",
		"posix_trace_syscall_exit", "posix_trace_signal_generate",
		"posix_trace_signal_deliver", "posix_trace_sched_out",
		"posix_trace_sched_in", "posix_trace_sched_wakeup", "posix_trace_fault_major",
		"posix_trace_process_fork", "posix_trace_process_exec",
		"posix_trace_process_exit", "posix_trace_fault_minor",
		"posix_trace_syscall", "posix_trace_unnamed_userevent",
	};
	const unsigned int nids = sizeof(ids) / sizeof(ids[0]);
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;
	unsigned int i;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "kernel", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, nids);
	lw_events(&w, ev, NS);
	lw_events_packed(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 2);
	for (i = 0; i < nids; i++)
		expect_name(trid, ids[i], names[i]);
	expect_list(trid, ids, nids);
	EXPECT_EQ(log_classes(trid), POSIX_TRACE_KERNEL_ALL_NP);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/*
 * A log whose TYPES lack a kernel name (lost, or never written): an id of
 * a class named in the log brings the class's other ids into the list,
 * each named by the library; a kernel event of a class the log names no
 * id of is still named, but not listed.  A log's own name wins.
 */
static void test_log_kernel_names_fall_back(void)
{
	static const trace_event_id_t ids[] = { 2, 16, 256 };
	static const char *const names[] = { "posix_trace_start", "my_entry", "u" };
	static const trace_event_id_t list[] = { 2, 16, 17, 28, 256 };
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "partial", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 3);
	lw_events(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 1);
	expect_name(trid, 16, "my_entry");
	expect_name(trid, 17, "posix_trace_syscall_exit");
	expect_name(trid, 18, "posix_trace_signal_generate");
	expect_name(trid, 19, "posix_trace_signal_deliver");
	expect_name(trid, 20, "posix_trace_sched_out");
	expect_name(trid, 21, "posix_trace_sched_in");
	expect_name(trid, 22, "posix_trace_sched_wakeup");
	expect_name(trid, 23, "posix_trace_fault_major");
	expect_name(trid, 24, "posix_trace_process_fork");
	expect_name(trid, 26, "posix_trace_process_exit");
	expect_name(trid, 27, "posix_trace_fault_minor");
	expect_name(trid, 28, "posix_trace_syscall");
	expect_list(trid, list, 5);
	EXPECT_EQ(log_classes(trid), POSIX_TRACE_KERNEL_SYSCALL_NP);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/* The same with the signal class: a log naming only 19 lists 18 too. */
static void test_log_signal_names_fall_back(void)
{
	static const trace_event_id_t ids[] = { 2, 19, 256 };
	static const char *const names[] = { "posix_trace_start", "my_deliver", "u" };
	static const trace_event_id_t list[] = { 2, 18, 19, 256 };
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "signal", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 3);
	lw_events_packed(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 1);
	expect_name(trid, 18, "posix_trace_signal_generate");
	expect_name(trid, 19, "my_deliver");
	expect_name(trid, 16, "posix_trace_syscall_entry");
	expect_name(trid, 25, "posix_trace_process_exec");
	expect_list(trid, list, 4);
	EXPECT_EQ(log_classes(trid), POSIX_TRACE_KERNEL_SIGNAL_NP);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/* The same with the sched class: a log naming only 21 lists 20 and 22
 * too, not 23 (the fault class's: named, not listed); ids of no class
 * stay unnamed. */
static void test_log_sched_names_fall_back(void)
{
	static const trace_event_id_t ids[] = { 2, 21, 256 };
	static const char *const names[] = { "posix_trace_start", "my_sched_in", "u" };
	static const trace_event_id_t list[] = { 2, 20, 21, 22, 256 };
	char name[TRACE_EVENT_NAME_MAX + 1] = "canary";
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "sched", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 3);
	lw_events_packed(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 1);
	expect_name(trid, 20, "posix_trace_sched_out");
	expect_name(trid, 21, "my_sched_in");
	expect_name(trid, 22, "posix_trace_sched_wakeup");
	expect_name(trid, 18, "posix_trace_signal_generate");
	expect_name(trid, 26, "posix_trace_process_exit");
	expect_name(trid, 23, "posix_trace_fault_major");
	expect_name(trid, 27, "posix_trace_fault_minor");
	expect_name(trid, 28, "posix_trace_syscall");
	EXPECT_RC(posix_trace_eventid_get_name(trid, 15, name), EINVAL);
	EXPECT_RC(posix_trace_eventid_get_name(trid, 29, name), EINVAL);
	EXPECT(strcmp(name, "canary") == 0);
	expect_list(trid, list, 5);
	EXPECT_EQ(log_classes(trid), POSIX_TRACE_KERNEL_SCHED_NP);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/* The same with the fault class: a log naming only 27 lists 23 too,
 * and none of the process ids between them. */
static void test_log_fault_names_fall_back(void)
{
	static const trace_event_id_t ids[] = { 2, 27, 256 };
	static const char *const names[] = { "posix_trace_start", "my_minor", "u" };
	static const trace_event_id_t list[] = { 2, 23, 27, 256 };
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "fault", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 3);
	lw_events_packed(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 1);
	expect_name(trid, 23, "posix_trace_fault_major");
	expect_name(trid, 27, "my_minor");
	expect_name(trid, 24, "posix_trace_process_fork");
	expect_name(trid, 20, "posix_trace_sched_out");
	expect_list(trid, list, 4);
	EXPECT_EQ(log_classes(trid), POSIX_TRACE_KERNEL_FAULT_NP);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/*
 * A log from before kernel events (no kernel id anywhere) reads as it
 * did: its events, its names, its list exactly the ids it names, no
 * classes.  Ids of no class stay unnamed.
 */
static void test_old_log_reads_as_before(void)
{
	static const trace_event_id_t ids[] = { 1, 2, 3, 256, 257 };
	static const char *const names[] = { "posix_trace_error", "posix_trace_start",
					     "posix_trace_stop", "unnamed", "first" };
	char name[TRACE_EVENT_NAME_MAX + 1] = "canary";
	struct posix_trace_event_info info;
	struct lw_event ev[4];
	unsigned char data[64];
	struct lw_log w;
	trace_id_t trid;
	unsigned int i, n = 0;
	size_t len;
	int unavailable;

	for (i = 0; i < 4; i++)
		ev[i] = (struct lw_event){ .id = i == 0 ? 2 : 256 + (i & 1), .pid = 7,
					   .ts = 5000000000ull + i, .data = "abc",
					   .data_len = i };
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "old", POSIX_TRACE_LOOP, POSIX_TRACE_LOOP);
	lw_types(&w, ids, names, 5);
	lw_events(&w, ev, 4);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	while (!posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavailable) &&
	       !unavailable && n < 8) {
		EXPECT_EQ(info.posix_event_id, ev[n].id);
		EXPECT_EQ(len, ev[n].data_len);
		n++;
	}
	EXPECT_EQ(n, 4);
	for (i = 0; i < 5; i++)
		expect_name(trid, ids[i], names[i]);
	expect_list(trid, ids, 5);
	EXPECT_EQ(log_classes(trid), 0);
	for (i = 10; i <= 15; i++)
		EXPECT_RC(posix_trace_eventid_get_name(trid, i, name), EINVAL);
	for (i = 29; i < 256; i++)
		EXPECT_RC(posix_trace_eventid_get_name(trid, i, name), EINVAL);
	EXPECT(strcmp(name, "canary") == 0);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/*
 * The log of a module that recorded kernel events before it named them
 * in TYPES: the events read, each named; the list and the classes are
 * those of a log without kernel events (nothing says which classes).
 */
static void test_log_with_unnamed_kernel_events(void)
{
	static const trace_event_id_t ids[] = { 1, 2, 3, 9, 256 };
	static const char *const names[] = { "posix_trace_error", "posix_trace_start",
					     "posix_trace_stop", "posix_trace_detached", "u" };
	struct lw_event ev[NS];
	struct lw_log w;
	trace_id_t trid;
	unsigned int i;

	sample_events(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "unnamed", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 5);
	lw_events_packed(&w, ev, NS);
	if (open_log(&w, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_sample_events(trid, 1);
	for (i = 0; i < NK; i++)
		expect_name(trid, kids[i], knames[i]);
	expect_list(trid, ids, 5);
	EXPECT_EQ(log_classes(trid), 0);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

int main(void)
{
	PT_RUN(test_ids_are_the_uapi_ones, "kernel ids, names and classes are the uapi's");
	PT_RUN(test_signal_layouts, "signal events' data layouts and constants");
	PT_RUN(test_sched_layouts, "sched events' data layouts and constants");
	PT_RUN(test_fault_layouts, "fault events' data layout and constant");
	PT_RUN(test_get_name_active, "get_name names every kernel id of an active stream");
	PT_RUN(test_typelist_active, "type list: system ids, the classes' kernel ids, then user ids");
	PT_RUN(test_typelist_signal_only, "type list of a signal-only stream: kernel ids 18 and 19");
	PT_RUN(test_typelist_sched_only, "type list of a sched-only stream: kernel ids 20, 21 and 22");
	PT_RUN(test_typelist_fault_only, "type list of a fault-only stream: kernel ids 23 and 27");
	PT_RUN(test_typelist_syscall_only, "type list of a syscall-only stream: kernel ids 16, 17 and 28");
	PT_RUN(test_typelist_process_only,
	       "type list of a process-only stream: kernel ids 24, 25 and 26");
	PT_RUN(test_get_attr_active, "get_attr of an active stream gives its kernel classes");
	PT_RUN(test_eventset_fill, "fill: kernel ids are system events, not WOPID ones");
	PT_RUN(test_records_read_from_a_kernel_lane,
	       "kernel event records read from a kernel lane, in order, data intact");
	PT_RUN(test_log_with_kernel_events,
	       "log with kernel events: events, names, list, classes");
	PT_RUN(test_log_kernel_names_fall_back,
	       "log lacking kernel names: a named class is listed whole, names fall back");
	PT_RUN(test_log_signal_names_fall_back,
	       "log naming one signal id: the signal class is listed whole");
	PT_RUN(test_log_sched_names_fall_back,
	       "log naming one sched id: the sched class is listed whole, not id 23");
	PT_RUN(test_log_fault_names_fall_back,
	       "log naming one fault id: the fault class (23, 27) is listed whole");
	PT_RUN(test_old_log_reads_as_before, "log without kernel events reads as before");
	PT_RUN(test_log_with_unnamed_kernel_events,
	       "log with kernel events it does not name: read and named, not listed");
	return pt_test_done();
}
