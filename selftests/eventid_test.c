// SPDX-License-Identifier: GPL-2.0
/*
 * eventid_test - event names and ids: posix_trace_eventid_open(),
 * posix_trace_trid_eventid_open(), posix_trace_eventid_get_name(),
 * posix_trace_eventid_equal(), the event type list and its limits.
 */
#include "pt_selftest.h"

#define NAMEBUF (TRACE_EVENT_NAME_MAX + 1)

FIXTURE(eventid) {
	trace_id_t trid;
	trace_id_t trid2;
	struct st_agent child;
};

FIXTURE_SETUP(eventid)
{
	self->child.pid = -1;
	self->child.fd = -1;
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(eventid)
{
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->trid2 > 0)
		posix_trace_shutdown(self->trid2);
	st_agent_kill(&self->child);
}

static const struct {
	trace_event_id_t id;
	const char *name;
} system_events[] = {
	{ POSIX_TRACE_ERROR, "posix_trace_error" },
	{ POSIX_TRACE_START, "posix_trace_start" },
	{ POSIX_TRACE_STOP, "posix_trace_stop" },
	{ POSIX_TRACE_FILTER, "posix_trace_filter" },
	{ POSIX_TRACE_OVERFLOW, "posix_trace_overflow" },
	{ POSIX_TRACE_RESUME, "posix_trace_resume" },
	{ POSIX_TRACE_FLUSH_START, "posix_trace_flush_start" },
	{ POSIX_TRACE_FLUSH_STOP, "posix_trace_flush_stop" },
	{ POSIX_TRACE_DETACHED, "posix_trace_detached" },
	{ POSIX_TRACE_UNNAMED_USEREVENT, "posix_trace_unnamed_userevent" },
};
#define NR_SYSTEM_EVENTS (int)(sizeof(system_events) / sizeof(system_events[0]))

/* REQ: MODEL-25 EVOPEN-1 EVOPEN-4 RULE-56 RULE-57 MODEL-24 */
TEST_F(eventid, eventid_open_same_name_same_id_distinct_names_distinct_ids)
{
	trace_event_id_t a1, a2, b, c;

	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &a1));
	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &a2));
	ASSERT_EQ(0, posix_trace_eventid_open("beta", &b));
	ASSERT_EQ(0, posix_trace_eventid_open("gamma", &c));
	ASSERT_EQ(a1, a2);
	ASSERT_NE(a1, b);
	ASSERT_NE(a1, c);
	ASSERT_NE(b, c);
	/* User ids are neither system ids nor the unnamed id. */
	ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, a1);
	ASSERT_GT(a1, POSIX_TRACE_FLUSH_STOP);
}

/*
 * Two trace points of one name (two libraries that chose the same name),
 * each a small function whose call site we know; the empty asm keeps the
 * call from becoming a tail call.
 */
static __attribute__((noinline)) void point_a(trace_event_id_t id)
{
	posix_trace_event(id, "a", 1);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void point_b(trace_event_id_t id)
{
	posix_trace_event(id, "b", 1);
	__asm__ volatile("" ::: "memory");
}

/* The next event that is not a FILTER event; @ev.unavailable if none. */
static int next_not_filter(trace_id_t trid, struct st_ev *ev)
{
	int ret;

	do
		ret = st_try(trid, ev);
	while (!ret && !ev->unavailable &&
	       ev->info.posix_event_id == POSIX_TRACE_FILTER);
	return ret;
}

/*
 * They share one id, so one filter keeps both out and lets both in again;
 * posix_prog_address tells the events of one from the other's.
 */
/* REQ: MODEL-27 */
TEST_F(eventid, trace_points_sharing_a_name_are_filtered_together_and_told_apart_by_address)
{
	uintptr_t fa = (uintptr_t)point_a, fb = (uintptr_t)point_b, addr[2];
	trace_event_id_t ida, idb;
	trace_event_set_t set;
	struct st_ev ev;
	int i;

	ASSERT_EQ(0, posix_trace_eventid_open("shared-point", &ida));
	ASSERT_EQ(0, posix_trace_eventid_open("shared-point", &idb));
	ASSERT_EQ(ida, idb);
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));

	/* Filtered: neither point is recorded. */
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(ida, &set));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	point_a(ida);
	point_b(idb);
	ASSERT_EQ(0, next_not_filter(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable)
		TH_LOG("%s recorded through the filter", st_id_str(ev.info.posix_event_id));

	/* Let in again: both are, told apart by their addresses. */
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	point_a(ida);
	point_b(idb);
	for (i = 0; i < 2; i++) {
		uintptr_t fn = i ? fb : fa;

		ASSERT_EQ(0, next_not_filter(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable) TH_LOG("event %d missing", i);
		ASSERT_EQ(ida, ev.info.posix_event_id);
		ASSERT_EQ(1u, ev.len);
		ASSERT_EQ(i ? 'b' : 'a', ((const char *)ev.data)[0]);
		addr[i] = (uintptr_t)ev.info.posix_prog_address;
		EXPECT_GT(addr[i], fn) TH_LOG("event %d address %p, its point at %p",
					      i, ev.info.posix_prog_address, (void *)fn);
		EXPECT_LT(addr[i], fn + 256);
	}
	/* Each inside its own function, not the other (they may be close). */
	EXPECT_NE(addr[0], addr[1]);
	EXPECT_LT(fa < fb ? addr[0] : addr[1], fa < fb ? fb : fa);
	ASSERT_EQ(0, next_not_filter(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: EVOPEN-2 EVNAME-1 EVNAME-2 5.4 */
TEST_F(eventid, eventid_open_accepts_name_of_trace_event_name_max_chars)
{
	char name[TRACE_EVENT_NAME_MAX + 1], got[NAMEBUF + 8];
	trace_event_id_t id;

	memset(name, 'm', TRACE_EVENT_NAME_MAX);
	name[TRACE_EVENT_NAME_MAX] = '\0';
	ASSERT_EQ(0, posix_trace_eventid_open(name, &id));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	memset(got, 'x', sizeof(got));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ(name, got);
	/* TRACE_EVENT_NAME_MAX + 1 bytes suffice. */
	ASSERT_EQ('x', got[NAMEBUF]);
}

/* REQ: EVOPEN-2 TRIDOPEN-2 5.4 */
TEST_F(eventid, name_longer_than_trace_event_name_max_is_enametoolong)
{
	char name[TRACE_EVENT_NAME_MAX + 2];
	trace_event_id_t id;

	memset(name, 'l', TRACE_EVENT_NAME_MAX + 1);
	name[TRACE_EVENT_NAME_MAX + 1] = '\0';
	ASSERT_EQ(ENAMETOOLONG, posix_trace_eventid_open(name, &id));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(ENAMETOOLONG,
		  posix_trace_trid_eventid_open(self->trid, name, &id));
}

/* REQ: EVOPEN-1 5.4 */
TEST_F(eventid, empty_name_is_a_valid_name)
{
	char got[NAMEBUF];
	trace_event_id_t id, id2;

	ASSERT_EQ(0, posix_trace_eventid_open("", &id));
	ASSERT_EQ(0, posix_trace_eventid_open("", &id2));
	ASSERT_EQ(id, id2);
	ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, id);
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	memset(got, 'x', sizeof(got));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ("", got);
}

/* REQ: EVOPEN-3 EVOPEN-4 TRIDOPEN-3 TRIDOPEN-4 RULE-58 MODEL-33 */
TEST_F(eventid, user_event_max_includes_unnamed_then_unnamed_is_returned)
{
	trace_event_id_t *ids, id;
	char name[32], got[NAMEBUF];
	int i, j, named = TRACE_USER_EVENT_MAX - 1;

	ASSERT_GE(TRACE_USER_EVENT_MAX, _POSIX_TRACE_USER_EVENT_MAX);
	ids = calloc(named, sizeof(*ids));
	ASSERT_NE(NULL, ids);
	for (i = 0; i < named; i++) {
		snprintf(name, sizeof(name), "limit-%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &ids[i]));
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, ids[i])
			TH_LOG("name %d got the unnamed id", i);
	}
	/* All distinct (ids are small integers: check with a bitmap). */
	{
		unsigned char *seen = calloc(1u << 16, 1);

		ASSERT_NE(NULL, seen);
		for (i = 0; i < named; i++) {
			ASSERT_LT(ids[i], 1u << 16);
			ASSERT_EQ(0, seen[ids[i]]) TH_LOG("duplicate id %u",
							  ids[i]);
			seen[ids[i]] = 1;
		}
		free(seen);
	}
	/* The next new name: the unnamed event id, not an error. */
	ASSERT_EQ(0, posix_trace_eventid_open("one-too-many", &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
	ASSERT_EQ(0, posix_trace_eventid_open("two-too-many", &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
	/* Names registered before the limit keep their ids. */
	for (i = 0; i < named; i += 97) {
		snprintf(name, sizeof(name), "limit-%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &id));
		ASSERT_EQ(ids[i], id);
	}
	/* The controller side has the same limit for this process. */
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "ctl-new",
						   &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "limit-5",
						   &id));
	ASSERT_EQ(ids[5], id);
	j = named - 1;
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, ids[j], got));
	snprintf(name, sizeof(name), "limit-%d", j);
	ASSERT_STREQ(name, got);
	free(ids);
}

/* REQ: HDR-12 EVNAME-1 EVNAME-4 HDR-6 RULE-59 RULE-64 2.4.10 */
TEST_F(eventid, get_name_of_system_events_and_unnamed_event)
{
	char got[NAMEBUF];
	int i;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	for (i = 0; i < NR_SYSTEM_EVENTS; i++) {
		memset(got, 0, sizeof(got));
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid,
							  system_events[i].id,
							  got));
		EXPECT_STREQ(system_events[i].name, got);
	}
}

/* REQ: EVNAME-1 EVNAME-3 EVNAME-4 */
TEST_F(eventid, get_name_returns_the_registered_name_repeatedly)
{
	char got[NAMEBUF];
	trace_event_id_t id;
	int i;

	ASSERT_EQ(0, posix_trace_eventid_open("repeat-me", &id));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	for (i = 0; i < 3; i++) {
		memset(got, 0, sizeof(got));
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
		ASSERT_STREQ("repeat-me", got);
	}
}

/* REQ: EVNAME-1 (EINVAL: id not associated with a name) */
TEST_F(eventid, get_name_of_unknown_id_is_einval)
{
	static const trace_event_id_t unknown[] = {
		0, 10, 100, 255, 999, POSIX_TRACE_UNNAMED_USEREVENT + 500,
		256 + TRACE_USER_EVENT_MAX, 0xffffffffu,
	};
	char got[NAMEBUF];
	unsigned int i;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid,
							       unknown[i], got))
			TH_LOG("id %u", unknown[i]);
	}
}

/* REQ: EVNAME-1 (EINVAL: invalid trid) */
TEST_F(eventid, get_name_with_invalid_trid_is_einval)
{
	char got[NAMEBUF];

	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(0, POSIX_TRACE_START,
						       got));
	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(-3, POSIX_TRACE_START,
						       got));
}

/* REQ: EVOPEN-6 CREATE-13 RULE-62 */
TEST_F(eventid, names_registered_before_create_are_in_stream_mapping)
{
	char got[NAMEBUF];
	trace_event_id_t id;

	ASSERT_EQ(0, posix_trace_eventid_open("early-bird", &id));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ("early-bird", got);
}

/* REQ: EVOPEN-7 MODEL-21 */
TEST_F(eventid, names_registered_after_create_are_in_stream_mapping)
{
	char got[NAMEBUF];
	trace_event_id_t id;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, posix_trace_eventid_open("late-comer", &id));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ("late-comer", got);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid2, id, got));
	ASSERT_STREQ("late-comer", got);
}

/* REQ: EVEQ-1 EVEQ-2 */
TEST_F(eventid, eventid_equal_compares_ids)
{
	trace_event_id_t a, a2, b;

	ASSERT_EQ(0, posix_trace_eventid_open("eq-a", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("eq-a", &a2));
	ASSERT_EQ(0, posix_trace_eventid_open("eq-b", &b));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	EXPECT_NE(0, posix_trace_eventid_equal(self->trid, a, a2));
	EXPECT_EQ(0, posix_trace_eventid_equal(self->trid, a, b));
	EXPECT_NE(0, posix_trace_eventid_equal(self->trid, POSIX_TRACE_START,
					       POSIX_TRACE_START));
	EXPECT_EQ(0, posix_trace_eventid_equal(self->trid, POSIX_TRACE_START,
					       POSIX_TRACE_STOP));
}

/* REQ: TRIDOPEN-1 TRIDOPEN-4 TRIDOPEN-6 RULE-57 MODEL-22 */
TEST_F(eventid, trid_eventid_open_and_eventid_open_agree_on_self)
{
	trace_event_id_t c1, c2, p1, p2;
	char got[NAMEBUF];

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	/* Controller first, then the traced process. */
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "ctl-first",
						   &c1));
	ASSERT_EQ(0, posix_trace_eventid_open("ctl-first", &p1));
	ASSERT_EQ(c1, p1);
	/* Traced process first, then the controller. */
	ASSERT_EQ(0, posix_trace_eventid_open("proc-first", &p2));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "proc-first",
						   &c2));
	ASSERT_EQ(p2, c2);
	ASSERT_NE(c1, c2);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, c1, got));
	ASSERT_STREQ("ctl-first", got);
}

/* REQ: TRIDOPEN-6 (rationale: same id through different trids) */
TEST_F(eventid, trid_eventid_open_same_id_through_two_streams)
{
	trace_event_id_t a, b;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "shared", &a));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid2, "shared", &b));
	ASSERT_EQ(a, b);
}

/* REQ: TRIDOPEN-1 (EINVAL: invalid trid) */
TEST_F(eventid, trid_eventid_open_with_invalid_trid_is_einval)
{
	trace_event_id_t id;

	ASSERT_EQ(EINVAL, posix_trace_trid_eventid_open(0, "x", &id));
	ASSERT_EQ(EINVAL, posix_trace_trid_eventid_open(-1, "x", &id));
	ASSERT_EQ(EINVAL, posix_trace_trid_eventid_open(INT_MAX, "x", &id));
}

/* REQ: TRIDOPEN-6 EVOPEN-7 EVENT-4 MODEL-20 MODEL-21 MODEL-22 */
TEST_F(eventid, trid_eventid_open_before_traced_child_registers)
{
	trace_event_id_t pre, child_id, other;
	char got[NAMEBUF];
	struct st_ev ev;
	int cpid;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "pre-registered",
						   &pre));
	ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, pre);

	/* The traced child registers the same name later: same id. */
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "pre-registered",
					   &child_id));
	ASSERT_EQ(pre, child_id);

	/* A name only the child knows appears in the stream's mapping. */
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "child-only", &other));
	ASSERT_NE(pre, other);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, other, got));
	ASSERT_STREQ("child-only", got);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, pre, got));
	ASSERT_STREQ("pre-registered", got);

	/* Events of the child carry that id. */
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(0, st_agent_event(&self->child, child_id, 0, NULL));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(pre, ev.info.posix_event_id);
	ASSERT_EQ(cpid, ev.info.posix_pid);
}

/* REQ: RULE-56 MODEL-24 (mappings are per traced process) */
TEST_F(eventid, traced_child_mapping_is_independent_of_controller_mapping)
{
	trace_event_id_t mine, childs;
	char got[NAMEBUF];
	int cpid;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	/* Registered in the controller after the fork. */
	ASSERT_EQ(0, posix_trace_eventid_open("controller-private", &mine));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "child-first",
					   &childs));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, childs, got));
	ASSERT_STREQ("child-first", got);
	/* The controller's own name is not in the child's mapping unless
	 * the child got the same id for a different name: never both. */
	if (mine == childs) {
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, mine,
							  got));
		ASSERT_STREQ("child-first", got);
	} else {
		ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid,
							       mine, got));
	}
}

/* Collect the whole type list of @trid. */
static int type_list(trace_id_t trid, trace_event_id_t *ids, int max, int *n)
{
	int unav, ret;

	*n = 0;
	for (;;) {
		trace_event_id_t id = 0;

		unav = -1;
		ret = posix_trace_eventtypelist_getnext_id(trid, &id, &unav);
		if (ret)
			return ret;
		if (unav)
			return 0;
		if (*n == max)
			return -1;
		ids[(*n)++] = id;
	}
}

/* REQ: EVLIST-1 EVLIST-2 EVLIST-3 EVREW-1 MODEL-21 RULE-59 */
TEST_F(eventid, type_list_has_system_ids_unnamed_then_user_ids_in_order)
{
	trace_event_id_t user[3], list[64];
	int n, i, unav;
	trace_event_id_t id;

	ASSERT_EQ(0, posix_trace_eventid_open("first", &user[0]));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_eventid_open("second", &user[1]));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "third",
						   &user[2]));

	ASSERT_EQ(0, type_list(self->trid, list, 64, &n));
	ASSERT_EQ(9 + 1 + 3, n);
	for (i = 0; i < 9; i++) {
		EXPECT_EQ((trace_event_id_t)(i + 1), list[i]);
	}
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, list[9]);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(user[i], list[10 + i]);
	}

	/* Past the end it keeps reporting unavailable. */
	unav = 0;
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unav));
	ASSERT_NE(0, unav);

	/* Rewind restarts at the first id. */
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(self->trid));
	unav = -1;
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(POSIX_TRACE_ERROR, id);
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(self->trid));
	ASSERT_EQ(0, type_list(self->trid, list, 64, &n));
	ASSERT_EQ(13, n);
}

/* REQ: EVLIST-3 (names appended during an iteration appear) */
TEST_F(eventid, type_list_shows_names_registered_during_iteration)
{
	trace_event_id_t list[64], late;
	trace_event_id_t id;
	int i, n, unav;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid,
								  &id, &unav));
	}
	ASSERT_EQ(0, posix_trace_eventid_open("during-iteration", &late));
	ASSERT_EQ(0, type_list(self->trid, list, 64, &n));
	ASSERT_EQ(7, n);
	ASSERT_EQ(late, list[6]);
}

/* REQ: EVLIST-4 (one cursor per trid) */
TEST_F(eventid, type_list_cursors_are_per_stream)
{
	trace_event_id_t id;
	int i, unav;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid,
								  &id, &unav));
	}
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid2, &id,
							  &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ(POSIX_TRACE_ERROR, id);
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unav));
	ASSERT_EQ(0, unav);
	ASSERT_EQ((trace_event_id_t)4, id);
}

/* REQ: EVLIST-1 EVREW-1 (EINVAL: invalid trid) */
TEST_F(eventid, type_list_with_invalid_trid_is_einval)
{
	trace_event_id_t id;
	int unav;

	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(0, &id, &unav));
	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(-2, &id,
							       &unav));
	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_rewind(0));
	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_rewind(INT_MAX));
}

/* REQ: EVLIST-3 TRIDOPEN-6 (child's names are listed for its stream) */
TEST_F(eventid, type_list_of_child_stream_lists_child_names)
{
	trace_event_id_t list[64], a, b;
	int cpid, n;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "ctl-listed",
						   &a));
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "child-listed", &b));
	ASSERT_EQ(0, type_list(self->trid, list, 64, &n));
	ASSERT_EQ(12, n);
	ASSERT_EQ(a, list[10]);
	ASSERT_EQ(b, list[11]);
}

#define RACERS 8
#define RACE_NAMES 40

struct name_racer {
	int idx;
	trace_event_id_t ids[RACE_NAMES];
	int err;
	pthread_barrier_t *bar;
};

static void *race_names(void *p)
{
	struct name_racer *r = p;
	char name[32];
	int i, ret;

	/* Steps coprime with RACE_NAMES: each thread visits every name. */
	static const int step[RACERS] = { 1, 3, 7, 9, 11, 13, 17, 19 };

	pthread_barrier_wait(r->bar);
	for (i = 0; i < RACE_NAMES; i++) {
		/* Everybody registers the same names, in different orders. */
		int n = (i * step[r->idx] + r->idx) % RACE_NAMES;

		snprintf(name, sizeof(name), "race-%d", n);
		ret = posix_trace_eventid_open(name, &r->ids[n]);
		if (ret)
			r->err = ret;
	}
	return NULL;
}

/* REQ: RULE-56 RULE-57 MODEL-24 FN-4 (one name, one id, under races) */
TEST_F(eventid, concurrent_eventid_open_gives_one_id_per_name)
{
	static struct name_racer r[RACERS];
	pthread_barrier_t bar;
	pthread_t th[RACERS];
	char got[NAMEBUF], want[32];
	int i, n;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, RACERS));
	for (i = 0; i < RACERS; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].idx = i;
		r[i].bar = &bar;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race_names, &r[i]));
	}
	for (i = 0; i < RACERS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < RACERS; i++)
		ASSERT_EQ(0, r[i].err);
	for (n = 0; n < RACE_NAMES; n++) {
		for (i = 1; i < RACERS; i++) {
			ASSERT_EQ(r[0].ids[n], r[i].ids[n])
				TH_LOG("name %d: thread %d got another id", n,
				       i);
		}
		for (i = 0; i < n; i++) {
			ASSERT_NE(r[0].ids[i], r[0].ids[n]);
		}
		snprintf(want, sizeof(want), "race-%d", n);
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid,
							  r[0].ids[n], got));
		ASSERT_STREQ(want, got);
	}
	pthread_barrier_destroy(&bar);
}

/* REQ: TRIDOPEN-6 RULE-57 FN-4 (controller and traced process race) */
TEST_F(eventid, controller_and_traced_child_racing_on_names_get_one_id)
{
	trace_event_id_t mine, theirs;
	struct st_reply rep;
	struct st_msg m;
	int cpid, i;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid));
	for (i = 0; i < 30; i++) {
		memset(&m, 0, sizeof(m));
		m.op = STA_EVENTID_OPEN;
		snprintf(m.s, sizeof(m.s), "contended-%d", i);
		ASSERT_EQ(0, st_agent_send(&self->child, &m));
		ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, m.s,
							   &mine));
		ASSERT_EQ(0, st_agent_recv(&self->child, &rep));
		ASSERT_EQ(0, rep.ret);
		theirs = (trace_event_id_t)rep.v[0];
		ASSERT_EQ(mine, theirs) TH_LOG("name %s", m.s);
	}
}

/* REQ: MODEL-20 EVLIST-3 EVOPEN-1 5.17 5.22 (fork copies, not shares) */
TEST_F(eventid, names_a_forked_child_registers_stay_out_of_the_parents_mapping)
{
	trace_event_id_t child_id, list[64];
	char got[NAMEBUF];
	struct st_ev ev;
	int n;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_eventid_open(&self->child, "child-private",
					   &child_id));
	/* Not a name of this process: not in this process's stream. */
	EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid, child_id,
						       got))
		TH_LOG("parent's stream knows \"%s\"", got);
	ASSERT_EQ(0, type_list(self->trid, list, 64, &n));
	EXPECT_EQ(10, n);
	/* Nor an id this process may record. */
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	posix_trace_event(child_id, "p", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	EXPECT_NE(0, ev.unavailable);
}

/* REQ: EVOPEN-3 EVOPEN-4 RULE-58 MODEL-33 5.17 (the limit is per process) */
TEST_F(eventid, user_event_limit_is_not_shared_with_a_forked_child)
{
	int named = TRACE_USER_EVENT_MAX - 1, i;
	trace_event_id_t id;
	struct st_msg m;
	struct st_reply r;
	char name[32];

	/* This process has a mapping before the fork. */
	ASSERT_EQ(0, posix_trace_eventid_open("parent-0", &id));
	ASSERT_EQ(0, st_agent_start(&self->child));
	/* The child uses up most of its own ids ... */
	for (i = 0; i < named - 10; i++) {
		memset(&m, 0, sizeof(m));
		m.op = STA_EVENTID_OPEN;
		snprintf(m.s, sizeof(m.s), "child-%d", i);
		ASSERT_EQ(0, st_agent_call(&self->child, &m, &r));
		ASSERT_EQ(0, r.ret);
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT,
			  (trace_event_id_t)r.v[0]) TH_LOG("child name %d", i);
	}
	/* ... which leaves this process's all to itself. */
	for (i = 0; i < named; i++) {
		snprintf(name, sizeof(name), "parent-%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &id));
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, id)
			TH_LOG("parent ran out of ids after %d names", i);
	}
	ASSERT_EQ(0, posix_trace_eventid_open("parent-one-too-many", &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
}

TEST_HARNESS_MAIN
