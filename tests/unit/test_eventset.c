// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of the posix_trace_eventset_* functions (spec 3.5.1-3.5.6,
 * 5.5, 5.25).  Every call goes through EXPECT_RC, which also checks that
 * errno is left alone (FN-1).
 */
#include <limits.h>
#include <string.h>
#include <trace.h>

#include "internal.h"
#include "eventset.h"
#include "pt_test.h"

#define NR	((trace_event_id_t)__POSIX_TRACE_ID_NR)

/* POSIX's, POSIX_TRACE_DETACHED, and the kernel events of every class. */
static int is_system(trace_event_id_t id)
{
	return (id >= POSIX_TRACE_ERROR && id <= POSIX_TRACE_DETACHED) ||
	       id == POSIX_TRACE_SYSCALL_ENTRY_NP || id == POSIX_TRACE_SYSCALL_EXIT_NP ||
	       id == POSIX_TRACE_SIGNAL_GENERATE_NP || id == POSIX_TRACE_SIGNAL_DELIVER_NP ||
	       id == POSIX_TRACE_SCHED_OUT_NP || id == POSIX_TRACE_SCHED_IN_NP ||
	       id == POSIX_TRACE_SCHED_WAKEUP_NP ||
	       id == POSIX_TRACE_FAULT_MAJOR_NP || id == POSIX_TRACE_FAULT_MINOR_NP ||
	       id == POSIX_TRACE_PROCESS_FORK_NP || id == POSIX_TRACE_PROCESS_EXEC_NP ||
	       id == POSIX_TRACE_PROCESS_EXIT_NP || id == POSIX_TRACE_SYSCALL_NP;
}

/* The members of @set are exactly the ids for which @want(id) != 0. */
static void expect_members(const trace_event_set_t *set,
			   int (*want)(trace_event_id_t))
{
	trace_event_id_t id;
	int bad = 0;

	for (id = 0; id < NR; id++) {
		int m = -1;

		EXPECT_RC(posix_trace_eventset_ismember(id, set, &m), 0);
		if ((m != 0) != (want(id) != 0) || m == -1) {
			if (bad++ < 5)
				PT_FAIL("id %u: ismember %d, expected %d",
					id, m, want(id));
		}
	}
	EXPECT_EQ(bad, 0);
}

static int none(trace_event_id_t id)
{
	(void)id;
	return 0;
}

static int all(trace_event_id_t id)
{
	(void)id;
	return 1;
}

/* REQ: EVSETEMPTY-1 */
static void test_empty(void)
{
	trace_event_set_t set;

	memset(&set, 0xa5, sizeof(set));
	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	EXPECT(pt_evset_valid(&set));
	expect_members(&set, none);
}

/* REQ: EVSETFILL-1 5.25 */
static void test_fill_wopid(void)
{
	trace_event_set_t set;

	memset(&set, 0xa5, sizeof(set));
	/* The implementation-defined system events, POSIX_TRACE_DETACHED
	 * and the kernel events, all name a process (5.25). */
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_WOPID_EVENTS), 0);
	EXPECT(pt_evset_valid(&set));
	expect_members(&set, none);
}

/* REQ: EVSETFILL-1 */
static void test_fill_system(void)
{
	trace_event_set_t set;

	memset(&set, 0xa5, sizeof(set));
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	EXPECT(pt_evset_valid(&set));
	/* Exactly ERROR..DETACHED and the kernel ids: not 0, not reserved
	 * ids, no user ids. */
	expect_members(&set, is_system);
}

/* REQ: EVSETFILL-1 */
static void test_fill_all(void)
{
	trace_event_set_t set;

	memset(&set, 0, sizeof(set));
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
	EXPECT(pt_evset_valid(&set));
	/* Every representable id, allocated or not (EVSETFILL-1). */
	expect_members(&set, all);
}

/* empty/fill ignore what the set held before (EVSETFILL-1). */
/* REQ: EVSETFILL-1 EVSETEMPTY-1 */
static void test_reinit(void)
{
	trace_event_set_t set;

	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	expect_members(&set, is_system);
	EXPECT_RC(posix_trace_eventset_add(POSIX_TRACE_UNNAMED_USEREVENT, &set), 0);
	EXPECT_RC(posix_trace_eventset_add(NR - 1, &set), 0);
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_WOPID_EVENTS), 0);
	expect_members(&set, none);
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	expect_members(&set, none);
}

/* An unknown selector fails and leaves the set alone. */
static void test_fill_bad_what(void)
{
	static const int bad[] = { 0, 4, -1, INT_MAX, INT_MIN };
	trace_event_set_t set, before;
	size_t i;

	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_add(300, &set), 0);
	before = set;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_eventset_fill(&set, bad[i]), EINVAL);
		EXPECT(memcmp(&set, &before, sizeof(set)) == 0);
	}
	/* A failed fill does not initialize a set either. */
	memset(&set, 0, sizeof(set));
	EXPECT_RC(posix_trace_eventset_fill(&set, 0), EINVAL);
	EXPECT(!pt_evset_valid(&set));
	EXPECT_RC(posix_trace_eventset_add(1, &set), EINVAL);
}

static int ismember(trace_event_id_t id, const trace_event_set_t *set)
{
	int m = -1;

	EXPECT_RC(posix_trace_eventset_ismember(id, set, &m), 0);
	EXPECT(m != -1);
	return m;
}

/* REQ: EVSETADD-1 EVSETADD-2 EVSETDEL-1 EVSETDEL-2 */
static void test_add_del(void)
{
	static const trace_event_id_t ids[] = {
		0, 1, 8, 9, 63, 64, 65, 255, 256, 300, 511, 512, NR - 2, NR - 1,
	};
	trace_event_set_t set;
	size_t i;

	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		trace_event_id_t id = ids[i];

		EXPECT(!ismember(id, &set));
		EXPECT_RC(posix_trace_eventset_add(id, &set), 0);
		EXPECT(ismember(id, &set));
		/* Adding a member again is not an error (EVSETADD-2). */
		EXPECT_RC(posix_trace_eventset_add(id, &set), 0);
		EXPECT(ismember(id, &set));
		EXPECT_RC(posix_trace_eventset_del(id, &set), 0);
		EXPECT(!ismember(id, &set));
		/* Removing a non-member is not an error (EVSETDEL-2). */
		EXPECT_RC(posix_trace_eventset_del(id, &set), 0);
		EXPECT(!ismember(id, &set));
	}
	expect_members(&set, none);
}

static int is_300(trace_event_id_t id)
{
	return id == 300;
}

static int all_but_300(trace_event_id_t id)
{
	return id != 300;
}

/* add/del touch one id only. */
/* REQ: EVSETADD-1 EVSETDEL-1 */
static void test_neighbours(void)
{
	trace_event_set_t set;

	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	EXPECT_RC(posix_trace_eventset_add(300, &set), 0);
	expect_members(&set, is_300);
	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_del(300, &set), 0);
	expect_members(&set, all_but_300);
}

/* REQ: EVSETISM-1 */
static void test_ismember_value(void)
{
	trace_event_set_t set;
	int m = 42;

	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_START, &set, &m), 0);
	EXPECT(m != 0);
	m = 42;
	EXPECT_RC(posix_trace_eventset_ismember(POSIX_TRACE_UNNAMED_USER_EVENT,
						&set, &m), 0);
	EXPECT_EQ(m, 0);
}

/* Ids outside the bitmap are rejected; the set is not modified. */
static void test_bad_id(void)
{
	static const trace_event_id_t bad[] = { NR, NR + 1, NR + 64, UINT_MAX };
	trace_event_set_t set, before;
	size_t i;
	int m;

	EXPECT_RC(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	before = set;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = 42;
		EXPECT_RC(posix_trace_eventset_add(bad[i], &set), EINVAL);
		EXPECT_RC(posix_trace_eventset_del(bad[i], &set), EINVAL);
		EXPECT_RC(posix_trace_eventset_ismember(bad[i], &set, &m), EINVAL);
		EXPECT_EQ(m, 42);
	}
	EXPECT(memcmp(&set, &before, sizeof(set)) == 0);
}

static void expect_uninit_einval(trace_event_set_t *set)
{
	trace_event_set_t before = *set;
	int m = 42;

	EXPECT(!pt_evset_valid(set));
	EXPECT_RC(posix_trace_eventset_add(1, set), EINVAL);
	EXPECT_RC(posix_trace_eventset_del(1, set), EINVAL);
	EXPECT_RC(posix_trace_eventset_ismember(1, set, &m), EINVAL);
	EXPECT_EQ(m, 42);
	EXPECT(memcmp(set, &before, sizeof(before)) == 0);
}

/* EVSET-0b: sets never passed to empty/fill are detected. */
/* REQ: EVSET-0b */
static void test_uninitialized(void)
{
	trace_event_set_t set;

	memset(&set, 0, sizeof(set));
	expect_uninit_einval(&set);
	memset(&set, 0xff, sizeof(set));
	expect_uninit_einval(&set);
	/* empty and fill initialize whatever the memory held. */
	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	EXPECT_RC(posix_trace_eventset_add(1, &set), 0);
}

static void test_null(void)
{
	trace_event_set_t set;

	EXPECT_RC(posix_trace_eventset_empty(NULL), EINVAL);
	EXPECT_RC(posix_trace_eventset_fill(NULL, POSIX_TRACE_ALL_EVENTS), EINVAL);
	EXPECT_RC(posix_trace_eventset_fill(NULL, 0), EINVAL);
	EXPECT_RC(posix_trace_eventset_add(1, NULL), EINVAL);
	EXPECT_RC(posix_trace_eventset_del(1, NULL), EINVAL);
	EXPECT_RC(posix_trace_eventset_ismember(1, NULL, NULL), EINVAL);
	EXPECT_RC(posix_trace_eventset_empty(&set), 0);
	EXPECT_RC(posix_trace_eventset_ismember(1, &set, NULL), EINVAL);
	EXPECT(!pt_evset_valid(NULL));
}

/* Sets contain no pointers: assignment gives an independent copy (5.5). */
/* REQ: 5.5 */
static void test_copy(void)
{
	trace_event_set_t a, b;

	EXPECT_RC(posix_trace_eventset_fill(&a, POSIX_TRACE_SYSTEM_EVENTS), 0);
	b = a;
	EXPECT(pt_evset_valid(&b));
	EXPECT(ismember(POSIX_TRACE_STOP, &b));
	EXPECT_RC(posix_trace_eventset_del(POSIX_TRACE_STOP, &b), 0);
	EXPECT(ismember(POSIX_TRACE_STOP, &a));
	EXPECT(!ismember(POSIX_TRACE_STOP, &b));
}

int main(void)
{
	PT_RUN(test_empty, "EVSETEMPTY-1 empty set has no member");
	PT_RUN(test_fill_wopid, "EVSETFILL-1 WOPID_EVENTS is empty (5.25)");
	PT_RUN(test_fill_system, "EVSETFILL-1 SYSTEM_EVENTS is ids 1..9 and the kernel ids");
	PT_RUN(test_fill_all, "EVSETFILL-1 ALL_EVENTS has every id");
	PT_RUN(test_reinit, "EVSETFILL-1 empty/fill discard previous contents");
	PT_RUN(test_fill_bad_what, "EVSETFILL EINVAL for an unknown selector");
	PT_RUN(test_add_del, "EVSETADD-1/2 EVSETDEL-1/2 idempotent add/del");
	PT_RUN(test_neighbours, "EVSETADD-1 EVSETDEL-1 touch one id only");
	PT_RUN(test_ismember_value, "EVSETISM-1 ismember result");
	PT_RUN(test_bad_id, "EINVAL for ids outside the set");
	PT_RUN(test_uninitialized, "EVSET-0b EINVAL for uninitialized sets");
	PT_RUN(test_null, "EINVAL for NULL pointers");
	PT_RUN(test_copy, "5.5 sets are copied by assignment");
	return pt_test_done();
}
