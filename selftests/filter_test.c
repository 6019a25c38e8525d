// SPDX-License-Identifier: GPL-2.0
/*
 * filter_test - the Trace Event Filter on live streams:
 * posix_trace_set_filter() / posix_trace_get_filter(), SET/ADD/SUB
 * arithmetic, their errors, what a filter keeps out of a stream (and
 * what it never keeps out: the control events), the data of the START and
 * FILTER events, per-stream filters, clear, and filtering user ids that
 * the traced process has not registered yet.
 *
 * The option is implemented: a get_filter that fails (ENOSYS included)
 * fails every test.
 */
#include "pt_selftest.h"

#define SETSZ		sizeof(trace_event_set_t)
#define NR_IDS		((trace_event_id_t)__POSIX_TRACE_ID_NR)
#define MAX_EVS		32

/* Events with room for the data of a FILTER event (two sets). */

FIXTURE(filter) {
	trace_id_t trid;
	trace_id_t trid2;
	pid_t child;
	struct st_agent agent;
};

FIXTURE_SETUP(filter)
{
	trace_event_set_t set;

	self->child = -1;
	self->agent.pid = -1;
	self->agent.fd = -1;
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &set));
}

FIXTURE_TEARDOWN(filter)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	st_agent_kill(&self->agent);
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->trid2 > 0)
		posix_trace_shutdown(self->trid2);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */



/* An empty set plus the @n ids of @ids.  0 or an error. */
static int set_of(trace_event_set_t *s, const trace_event_id_t *ids, int n)
{
	int i, ret = posix_trace_eventset_empty(s);

	for (i = 0; !ret && i < n; i++)
		ret = posix_trace_eventset_add(ids[i], s);
	return ret;
}

#define SET_OF(s, ...) \
	set_of(s, (const trace_event_id_t[]){ __VA_ARGS__ }, \
	       (int)(sizeof((const trace_event_id_t[]){ __VA_ARGS__ }) / \
		     sizeof(trace_event_id_t)))

/* 1 or 0 (membership), or -1 if ismember failed. */
static int member(const trace_event_set_t *s, trace_event_id_t id)
{
	int m = -1;

	if (posix_trace_eventset_ismember(id, s, &m))
		return -1;
	return m ? 1 : 0;
}

/*
 * Compare two sets id by id.  Returns -1 when equal, else the first id
 * that differs (or NR_IDS when ismember failed on one of them).
 */
static long set_diff(const trace_event_set_t *a, const trace_event_set_t *b)
{
	trace_event_id_t id;
	int ma, mb;

	for (id = 0; id < NR_IDS; id++) {
		ma = member(a, id);
		mb = member(b, id);
		if (ma < 0 || mb < 0)
			return NR_IDS;
		if (ma != mb)
			return id;
	}
	return -1;
}

/* Assert that the filter of @trid has exactly the members of @want. */
#define ASSERT_FILTER(trid, want) do {					\
	trace_event_set_t __cur;					\
	long __d;							\
	ASSERT_EQ(0, posix_trace_get_filter(trid, &__cur));		\
	__d = set_diff(&__cur, want);					\
	ASSERT_EQ(-1, __d) TH_LOG("filter differs at id %ld", __d);	\
} while (0)

static void user_event(trace_event_id_t id, int v)
{
	posix_trace_event(id, &v, sizeof(v));
}

static int ev_int(const struct st_ev *ev)
{
	int v;

	if (ev->len != sizeof(int))
		return INT_MIN;
	memcpy(&v, ev->data, sizeof(v));
	return v;
}

/* Two named user events of this process. */
static void two_ids(struct __test_metadata *_metadata, trace_event_id_t *a,
		    trace_event_id_t *b)
{
	ASSERT_EQ(0, posix_trace_eventid_open("filter-test-a", a));
	ASSERT_EQ(0, posix_trace_eventid_open("filter-test-b", b));
	ASSERT_NE(*a, *b);
}

/* ------------------------------------------------------------------ */
/* The filter object                                                   */
/* ------------------------------------------------------------------ */

/* REQ: EVSET-0a GETFILT-1 GETFILT-2 MODEL-13 RULE-48 SETFILT-2 */
TEST_F(filter, new_stream_filter_is_initialized_and_empty)
{
	trace_event_set_t set;
	trace_event_id_t id;
	int n = 0;

	memset(&set, 0, sizeof(set));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &set));
	/* Usable without empty/fill: ismember, add, del succeed. */
	for (id = 0; id < NR_IDS; id++) {
		int m = member(&set, id);

		if (m != 0) {
			ASSERT_EQ(0, m) TH_LOG("id %u: ismember %d", id, m);
		}
		n++;
	}
	EXPECT_EQ((int)NR_IDS, n);
	ASSERT_EQ(0, posix_trace_eventset_add(POSIX_TRACE_ERROR, &set));
	EXPECT_EQ(1, member(&set, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, posix_trace_eventset_del(POSIX_TRACE_ERROR, &set));
	EXPECT_EQ(0, member(&set, POSIX_TRACE_ERROR));
	/* The copy is the caller's: the stream's filter is still empty. */
	ASSERT_EQ(0, posix_trace_eventset_add(POSIX_TRACE_UNNAMED_USEREVENT,
					      &set));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &set));
	EXPECT_EQ(0, member(&set, POSIX_TRACE_UNNAMED_USEREVENT));
}

/* REQ: 1.9 5.1 (the option is advertised once it works) */
TEST_F(filter, sysconf_reports_the_event_filter_option)
{
	EXPECT_EQ(200809L, sysconf(_SC_TRACE_EVENT_FILTER));
}

/* REQ: SETFILT-1 SETFILT-3 RULE-50 GETFILT-1 App.B-16 */
TEST_F(filter, set_add_sub_arithmetic_verified_with_get_filter)
{
	trace_event_id_t a, b, c, d;
	trace_event_set_t s, want;
	trace_event_id_t id;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, posix_trace_eventid_open("filter-test-c", &c));
	ASSERT_EQ(0, posix_trace_eventid_open("filter-test-d", &d));

	/* SET: new = set. */
	ASSERT_EQ(0, SET_OF(&s, a, b, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);

	/* ADD: new = current + set (b already in: no error). */
	ASSERT_EQ(0, SET_OF(&s, b, c));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, SET_OF(&want, a, b, c, POSIX_TRACE_ERROR));
	ASSERT_FILTER(self->trid, &want);

	/* SUB: new = current - set (d was not in: no error). */
	ASSERT_EQ(0, SET_OF(&s, a, d));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, SET_OF(&want, b, c, POSIX_TRACE_ERROR));
	ASSERT_FILTER(self->trid, &want);

	/* SET replaces, it does not merge. */
	ASSERT_EQ(0, SET_OF(&s, d));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);

	/* ADD everything, then SUB the system events: the user ids remain,
	 * including ids nobody registered. */
	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_FILTER(self->trid, &s);
	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_SYSTEM_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &want));
	for (id = POSIX_TRACE_ERROR; id <= POSIX_TRACE_FLUSH_STOP; id++) {
		EXPECT_EQ(0, member(&want, id)) TH_LOG("%s", st_id_str(id));
	}
	EXPECT_EQ(1, member(&want, POSIX_TRACE_UNNAMED_USEREVENT));
	EXPECT_EQ(1, member(&want, a));
	EXPECT_EQ(1, member(&want, NR_IDS - 1));

	/* SET of an empty set: back to nothing filtered. */
	ASSERT_EQ(0, posix_trace_eventset_empty(&s));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);
}

/* REQ: SETFILT-1 RULE-50 (changed while stopped, seen by get_filter) */
TEST_F(filter, filter_can_be_changed_before_start_while_running_and_stopped)
{
	trace_event_id_t a, b;
	trace_event_set_t s;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, SET_OF(&s, b));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, SET_OF(&s, a, b));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* REQ: GETFILT-1 SETFILT-1 RULE-80 RULE-82 FN-5 3.0.1 (EINVAL trid) */
TEST_F(filter, invalid_trid_is_einval)
{
	trace_id_t bad[] = {
		0, -1, INT_MIN, INT_MAX, self->trid + 1000, -self->trid,
	};
	trace_event_set_t s, want;
	trace_id_t dead;
	unsigned int i;

	ASSERT_EQ(0, SET_OF(&want, POSIX_TRACE_UNNAMED_USEREVENT));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &want,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_eventset_empty(&s));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(EINVAL, posix_trace_set_filter(bad[i], &s,
						POSIX_TRACE_SET_EVENTSET))
			TH_LOG("set_filter(trid %d)", bad[i]);
		EXPECT_EQ(EINVAL, posix_trace_get_filter(bad[i], &s))
			TH_LOG("get_filter(trid %d)", bad[i]);
	}

	/* A stream that was shut down. */
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &dead));
	ASSERT_EQ(0, posix_trace_shutdown(dead));
	EXPECT_EQ(EINVAL, posix_trace_set_filter(dead, &s,
						 POSIX_TRACE_SET_EVENTSET));
	EXPECT_EQ(EINVAL, posix_trace_get_filter(dead, &s));

	/* The real stream's filter is untouched. */
	ASSERT_FILTER(self->trid, &want);
}

/* REQ: CREATE-11 RULE-80 MODEL-4 FN-5 5.20 (fork child's trid) */
TEST_F(filter, fork_child_trid_is_einval_and_parent_filter_unchanged)
{
	struct st_ev evs[MAX_EVS];
	trace_event_set_t want;
	int res[4], pipefd[2], n, status;
	pid_t pid;

	ASSERT_EQ(0, SET_OF(&want, POSIX_TRACE_UNNAMED_USEREVENT));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &want,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, pipe(pipefd));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		trace_event_set_t s;

		close(pipefd[0]);
		st_watchdog(5);
		posix_trace_eventset_empty(&s);
		res[0] = posix_trace_get_filter(self->trid, &s);
		res[1] = posix_trace_set_filter(self->trid, &s,
						POSIX_TRACE_SET_EVENTSET);
		posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS);
		res[2] = posix_trace_set_filter(self->trid, &s,
						POSIX_TRACE_ADD_EVENTSET);
		res[3] = posix_trace_set_filter(self->trid, &s,
						POSIX_TRACE_SUB_EVENTSET);
		if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	self->child = pid;
	close(pipefd[1]);
	n = read(pipefd[0], res, sizeof(res));
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
	ASSERT_EQ((int)sizeof(res), n);
	EXPECT_EQ(EINVAL, res[0]) TH_LOG("get_filter in fork child");
	EXPECT_EQ(EINVAL, res[1]) TH_LOG("set_filter SET in fork child");
	EXPECT_EQ(EINVAL, res[2]) TH_LOG("set_filter ADD in fork child");
	EXPECT_EQ(EINVAL, res[3]) TH_LOG("set_filter SUB in fork child");

	ASSERT_FILTER(self->trid, &want);
	/* No FILTER event either: only START is in the stream. */
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
}

/* REQ: SETFILT-1 GETFILT-1 EVSET-0b 3.5.8 (EINVAL set/how; no change) */
TEST_F(filter, invalid_set_or_how_is_einval_and_changes_nothing)
{
	int bad_how[] = { 0, 4, -1, INT_MAX, INT_MIN };
	trace_event_set_t want, zero, good;
	struct st_ev evs[MAX_EVS];
	unsigned int i;
	int how, n;

	ASSERT_EQ(0, SET_OF(&want, POSIX_TRACE_ERROR,
			    POSIX_TRACE_UNNAMED_USEREVENT));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &want,
					    POSIX_TRACE_SET_EVENTSET));
	/* Running: a failed call must not record a FILTER event either. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	ASSERT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);

	memset(&zero, 0, sizeof(zero));
	ASSERT_EQ(0, posix_trace_eventset_fill(&good, POSIX_TRACE_ALL_EVENTS));
	for (how = POSIX_TRACE_SET_EVENTSET; how <= POSIX_TRACE_SUB_EVENTSET;
	     how++) {
		EXPECT_EQ(EINVAL, posix_trace_set_filter(self->trid, NULL, how))
			TH_LOG("NULL set, how %d", how);
		EXPECT_EQ(EINVAL, posix_trace_set_filter(self->trid, &zero,
							 how))
			TH_LOG("uninitialized (zeroed) set, how %d", how);
	}
	for (i = 0; i < sizeof(bad_how) / sizeof(bad_how[0]); i++) {
		EXPECT_EQ(EINVAL, posix_trace_set_filter(self->trid, &good,
							 bad_how[i]))
			TH_LOG("how %d", bad_how[i]);
	}
	EXPECT_EQ(EINVAL, posix_trace_get_filter(self->trid, NULL));

	ASSERT_FILTER(self->trid, &want);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	EXPECT_EQ(0, n) TH_LOG("failed set_filter recorded %s",
			       st_id_str(evs[0].info.posix_event_id));
}

/* ------------------------------------------------------------------ */
/* What is recorded                                                    */
/* ------------------------------------------------------------------ */

/* REQ: RULE-49 RULE-55 4.1 */
TEST_F(filter, filtered_user_event_is_not_recorded)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(a, 1);
	user_event(b, 2);
	user_event(a, 3);
	user_event(b, 4);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(3, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(b, evs[1].info.posix_event_id);
	EXPECT_EQ(2, ev_int(&evs[1]));
	EXPECT_EQ(b, evs[2].info.posix_event_id);
	EXPECT_EQ(4, ev_int(&evs[2]));
}

/* REQ: RULE-49 (filtering is per stream) */
TEST_F(filter, filter_is_per_stream)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, SET_OF(&s, b));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid2, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid2));
	user_event(a, 1);
	user_event(b, 2);

	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(b, evs[1].info.posix_event_id);
	EXPECT_EQ(2, ev_int(&evs[1]));

	ASSERT_EQ(0, st_drain(self->trid2, evs, MAX_EVS, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(a, evs[1].info.posix_event_id);
	EXPECT_EQ(1, ev_int(&evs[1]));

	/* Each stream's get_filter reports its own filter. */
	ASSERT_FILTER(self->trid2, &s);
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_FILTER(self->trid, &s);
}

/* REQ: RULE-49 4.7 (POSIX_TRACE_UNNAMED_USEREVENT is filterable) */
TEST_F(filter, unnamed_userevent_can_be_filtered)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, SET_OF(&s, POSIX_TRACE_UNNAMED_USEREVENT));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(POSIX_TRACE_UNNAMED_USEREVENT, 1);
	user_event(a, 2);
	user_event(POSIX_TRACE_UNNAMED_USEREVENT, 3);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(a, evs[1].info.posix_event_id);
	EXPECT_EQ(2, ev_int(&evs[1]));
}

/*
 * POSIX_TRACE_ERROR is not a control event: the filter applies (5.10).
 * Unreadable event data makes the module record ERROR(EFAULT) (5.24).
 */
/* REQ: 5.10 5.24 RULE-49 RULE-55 HDR-11 */
TEST_F(filter, error_event_can_be_filtered_per_stream)
{
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n, err;

	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, SET_OF(&s, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid2));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, (void *)16, 8);
	user_event(POSIX_TRACE_UNNAMED_USEREVENT, 7);

	/* Unfiltered stream: ERROR(EFAULT), then the good event. */
	ASSERT_EQ(0, st_drain(self->trid2, evs, MAX_EVS, &n));
	ASSERT_EQ(2, n);
	ASSERT_EQ(POSIX_TRACE_ERROR, evs[0].info.posix_event_id);
	ASSERT_EQ(sizeof(int), evs[0].len);
	memcpy(&err, evs[0].data, sizeof(err));
	EXPECT_EQ(EFAULT, err);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, evs[1].info.posix_event_id);

	/* Filtering stream: only the good event. */
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, evs[0].info.posix_event_id);
	EXPECT_EQ(7, ev_int(&evs[0]));
}

/* REQ: 5.10 RULE-55 SETFILT-4 START-1 STOP-1 EVSETFILL-1 */
TEST_F(filter, control_events_are_recorded_even_when_filtered)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t all, s;
	int n, i;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, posix_trace_eventset_fill(&all, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &all,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(a, 1);
	user_event(POSIX_TRACE_UNNAMED_USEREVENT, 2);
	/* FILTER is in the filter too, and still recorded (5.10). */
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	user_event(b, 3);
	ASSERT_EQ(0, posix_trace_stop(self->trid));

	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	for (i = 0; i < n; i++)
		TH_LOG("event %d: %s", i, st_id_str(evs[i].info.posix_event_id));
	ASSERT_EQ(3, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(SETSZ, evs[0].len);
	EXPECT_EQ(POSIX_TRACE_FILTER, evs[1].info.posix_event_id);
	EXPECT_EQ(2 * SETSZ, evs[1].len);
	EXPECT_EQ(POSIX_TRACE_STOP, evs[2].info.posix_event_id);
	EXPECT_EQ(0, ev_int(&evs[2]));

	/* Started again with the (still almost full) filter: START again. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(b, 4);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
}

/* REQ: RULE-52 HDR-9 START-1 2.6 */
TEST_F(filter, start_event_carries_the_filter_in_effect)
{
	trace_event_set_t s, cur, got;
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, SET_OF(&s, a, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &cur));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	ASSERT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	ASSERT_EQ(SETSZ, evs[0].len);
	EXPECT_EQ(0, memcmp(evs[0].data, &cur, SETSZ))
		TH_LOG("START data is not get_filter's set");
	memcpy(&got, evs[0].data, SETSZ);
	EXPECT_EQ(1, member(&got, a));
	EXPECT_EQ(1, member(&got, POSIX_TRACE_ERROR));
	EXPECT_EQ(0, member(&got, b));
	EXPECT_EQ(0, member(&got, POSIX_TRACE_UNNAMED_USEREVENT));
	EXPECT_EQ(-1, set_diff(&got, &s));

	/* Changed while stopped: the next START carries the new filter. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, SET_OF(&s, b));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &cur));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_STOP, evs[0].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_START, evs[1].info.posix_event_id);
	ASSERT_EQ(SETSZ, evs[1].len);
	EXPECT_EQ(0, memcmp(evs[1].data, &cur, SETSZ))
		TH_LOG("START data is not get_filter's set");
	memcpy(&got, evs[1].data, SETSZ);
	EXPECT_EQ(1, member(&got, a));
	EXPECT_EQ(1, member(&got, b));
	EXPECT_EQ(1, member(&got, POSIX_TRACE_ERROR));
	EXPECT_EQ(0, member(&got, POSIX_TRACE_UNNAMED_USEREVENT));
}

struct filter_call {
	trace_id_t trid;
	const trace_event_set_t *set;
	int how;
	int ret;
	pthread_t self;
};

static void *call_set_filter(void *arg)
{
	struct filter_call *c = arg;

	c->self = pthread_self();
	c->ret = posix_trace_set_filter(c->trid, c->set, c->how);
	return NULL;
}

/* Check a FILTER event: data (old, new), the caller's pid and thread. */
static void check_filter_event(struct __test_metadata *_metadata,
			       const struct st_ev *ev,
			       const trace_event_set_t *old_want,
			       const trace_event_set_t *new_want,
			       pthread_t thread)
{
	trace_event_set_t old_got, new_got;
	long d;

	ASSERT_EQ(POSIX_TRACE_FILTER, ev->info.posix_event_id)
		TH_LOG("got %s", st_id_str(ev->info.posix_event_id));
	ASSERT_EQ(2 * SETSZ, ev->len);
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev->info.posix_truncation_status);
	EXPECT_EQ(getpid(), ev->info.posix_pid);
	EXPECT_TRUE(pthread_equal(thread, ev->info.posix_thread_id));
	memcpy(&old_got, ev->data, SETSZ);
	memcpy(&new_got, ev->data + SETSZ, SETSZ);
	d = set_diff(&old_got, old_want);
	EXPECT_EQ(-1, d) TH_LOG("old filter differs at id %ld", d);
	d = set_diff(&new_got, new_want);
	EXPECT_EQ(-1, d) TH_LOG("new filter differs at id %ld", d);
}

/* REQ: RULE-70 SETFILT-4 RULE-51 HDR-10 2.6 FN-4 App.B-16 */
TEST_F(filter, set_filter_while_running_records_filter_event)
{
	trace_event_set_t empty, s1, add, s2, sub, s3;
	struct filter_call c = { 0 };
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	uint64_t before, after, ts;
	pthread_t th;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, posix_trace_eventset_empty(&empty));
	ASSERT_EQ(0, st_start_and_skip(self->trid));

	/* SET {a}: old empty, new {a}. */
	ASSERT_EQ(0, SET_OF(&s1, a));
	before = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s1,
					    POSIX_TRACE_SET_EVENTSET));
	after = st_realtime_ns();
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	check_filter_event(_metadata, &evs[0], &empty, &s1, pthread_self());
	ts = st_ts_ns(&evs[0].info.posix_timestamp);
	EXPECT_GE(ts + ST_TS_SLACK_NS, before);
	EXPECT_LE(ts, after + ST_TS_SLACK_NS);

	/* ADD {b, ERROR} from another thread: old {a}, new {a, b, ERROR}. */
	ASSERT_EQ(0, SET_OF(&add, b, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, SET_OF(&s2, a, b, POSIX_TRACE_ERROR));
	c.trid = self->trid;
	c.set = &add;
	c.how = POSIX_TRACE_ADD_EVENTSET;
	ASSERT_EQ(0, pthread_create(&th, NULL, call_set_filter, &c));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, c.ret);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	check_filter_event(_metadata, &evs[0], &s1, &s2, c.self);

	/* SUB {a}: old {a, b, ERROR}, new {b, ERROR}. */
	ASSERT_EQ(0, SET_OF(&sub, a));
	ASSERT_EQ(0, SET_OF(&s3, b, POSIX_TRACE_ERROR));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sub,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	check_filter_event(_metadata, &evs[0], &s2, &s3, pthread_self());
	/* Both halves also say so through ismember directly. */
	{
		trace_event_set_t o, nw;

		memcpy(&o, evs[0].data, SETSZ);
		memcpy(&nw, evs[0].data + SETSZ, SETSZ);
		EXPECT_EQ(1, member(&o, a));
		EXPECT_EQ(0, member(&nw, a));
		EXPECT_EQ(1, member(&o, b));
		EXPECT_EQ(1, member(&nw, b));
	}

	/* A change that changes nothing while running: still an event. */
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s3,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	check_filter_event(_metadata, &evs[0], &s3, &s3, pthread_self());
}

/* REQ: RULE-51 SETFILT-1 MODEL-13 4.1 App.B-16 (suspended: nothing) */
TEST_F(filter, set_filter_while_suspended_records_nothing)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n, i;

	two_ids(_metadata, &a, &b);
	/* Never started. */
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(0, n);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	for (i = 0; i < n; i++)
		TH_LOG("event %d: %s", i, st_id_str(evs[i].info.posix_event_id));
	ASSERT_EQ(1, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);

	/* Stopped. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, SET_OF(&s, b));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	for (i = 0; i < n; i++)
		TH_LOG("event %d: %s", i, st_id_str(evs[i].info.posix_event_id));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_STOP, evs[0].info.posix_event_id);
	EXPECT_EQ(POSIX_TRACE_START, evs[1].info.posix_event_id);
}

/* REQ: SETFILT-6 RULE-49 (applies to events generated after the call) */
TEST_F(filter, filter_applies_to_events_after_set_filter)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	user_event(a, 1);
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	user_event(a, 2);
	user_event(b, 3);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	user_event(a, 4);

	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(5, n);
	/* Recorded before the filter: still read back. */
	EXPECT_EQ(a, evs[0].info.posix_event_id);
	EXPECT_EQ(1, ev_int(&evs[0]));
	EXPECT_EQ(POSIX_TRACE_FILTER, evs[1].info.posix_event_id);
	EXPECT_EQ(b, evs[2].info.posix_event_id);
	EXPECT_EQ(3, ev_int(&evs[2]));
	EXPECT_EQ(POSIX_TRACE_FILTER, evs[3].info.posix_event_id);
	/* Removed from the filter: recorded again. */
	EXPECT_EQ(a, evs[4].info.posix_event_id);
	EXPECT_EQ(4, ev_int(&evs[4]));
}

/* REQ: 5.9 CLEAR-1 CLEAR-10 RULE-50 (clear keeps the filter) */
TEST_F(filter, clear_keeps_the_filter)
{
	trace_event_id_t a, b;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s, got;
	int n;

	two_ids(_metadata, &a, &b);
	ASSERT_EQ(0, SET_OF(&s, a));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(b, 1);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_FILTER(self->trid, &s);
	user_event(a, 2);
	user_event(b, 3);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(b, evs[0].info.posix_event_id);
	EXPECT_EQ(3, ev_int(&evs[0]));

	/* Also when cleared while suspended. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_FILTER(self->trid, &s);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	user_event(a, 4);
	ASSERT_EQ(0, st_drain(self->trid, evs, MAX_EVS, &n));
	ASSERT_EQ(1, n);
	ASSERT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	ASSERT_EQ(SETSZ, evs[0].len);
	memcpy(&got, evs[0].data, SETSZ);
	EXPECT_EQ(1, member(&got, a));
}

/* REQ: RULE-54 TRIDOPEN-6 RULE-49 (user id filtered before it exists) */
TEST_F(filter, traced_child_event_filtered_before_the_child_registers_it)
{
	trace_event_id_t pre, child_pre, other;
	struct st_ev evs[MAX_EVS];
	trace_event_set_t s;
	int cpid, n, i;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->agent));
	ASSERT_EQ(0, st_agent_op(&self->agent, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_create(cpid, 65536, 0, 0, &self->trid2));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid2,
						   "filter-pre-registered",
						   &pre));
	ASSERT_EQ(0, SET_OF(&s, pre));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid2, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid2));

	/* The child registers the name now: the same id, filtered. */
	ASSERT_EQ(0, st_agent_eventid_open(&self->agent,
					   "filter-pre-registered",
					   &child_pre));
	ASSERT_EQ(pre, child_pre);
	ASSERT_EQ(0, st_agent_eventid_open(&self->agent, "filter-child-other",
					   &other));
	ASSERT_NE(pre, other);
	ASSERT_EQ(0, st_agent_event(&self->agent, child_pre, 0, NULL));
	ASSERT_EQ(0, st_agent_event(&self->agent, other, 1, NULL));
	ASSERT_EQ(0, st_agent_event(&self->agent, child_pre, 2, NULL));

	ASSERT_EQ(0, st_drain(self->trid2, evs, MAX_EVS, &n));
	for (i = 0; i < n; i++)
		TH_LOG("event %d: %s", i, st_id_str(evs[i].info.posix_event_id));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_START, evs[0].info.posix_event_id);
	EXPECT_EQ(other, evs[1].info.posix_event_id);
	EXPECT_EQ(cpid, evs[1].info.posix_pid);
	ASSERT_EQ(3U, evs[1].len);
	EXPECT_EQ(0, memcmp(evs[1].data, "ev1", 3));
	ASSERT_FILTER(self->trid2, &s);
}

TEST_HARNESS_MAIN
