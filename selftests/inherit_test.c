// SPDX-License-Identifier: GPL-2.0
/*
 * inherit_test - the Trace Inherit option (spec 3.6, 4.9, RULE-60, RULE-72):
 * children of a process traced into a POSIX_TRACE_INHERITED stream are
 * traced into it from their first event, recursively, whether made by
 * fork() or posix_spawn(), and share the parent's event type ids;
 * POSIX_TRACE_CLOSE_FOR_CHILD children are not traced; a fork bomb stops
 * at the module's max_procs_per_stream.
 */
#include "pt_selftest.h"

#include <spawn.h>
#include <sys/wait.h>

#define SPAWNED_ARG	"--pt-spawned"
#define PROCS_PARAM	"max_procs_per_stream"

extern char **environ;

FIXTURE(inherit) {
	trace_id_t trid;
	trace_event_id_t id;
};

FIXTURE_SETUP(inherit)
{
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, posix_trace_eventid_open("inherit-test", &self->id));
}

FIXTURE_TEARDOWN(inherit)
{
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
}

/* Fork a child whose first act is to record @tag; its pid once it exited
 * with 0, else -1.
 */
static pid_t fork_recording(trace_event_id_t id, char tag)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		posix_trace_event(id, &tag, 1);
		_exit(0);
	}
	return pid > 0 && st_wait_exit(pid) == 0 ? pid : -1;
}

/* REQ: INHERIT-2 RULE-72 4.9 */
TEST_F(inherit, forked_child_is_traced_from_its_first_event)
{
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	pid = fork_recording(self->id, 'c');
	ASSERT_GT(pid, 0);
	posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
}

/* REQ: RULE-72 4.9 (recursively) */
TEST_F(inherit, grandchild_forked_at_once_is_traced_too)
{
	struct st_seen s;
	pid_t pid;
	int p[2];
	pid_t grand = 0;

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pid_t g = fork();	/* before the child recorded anything */

		if (g == 0) {
			posix_trace_event(self->id, "g", 1);
			_exit(0);
		}
		posix_trace_event(self->id, "c", 1);
		if (write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(g > 0 && st_wait_exit(g) == 0 ? 0 : 2);
	}
	close(p[1]);
	ASSERT_EQ((ssize_t)sizeof(grand), read(p[0], &grand, sizeof(grand)));
	close(p[0]);
	ASSERT_EQ(0, st_wait_exit(pid));
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, st_seen_count(&s, grand, self->id, 'g'));
}

/* REQ: INHERIT-2 RULE-72 (CLOSE_FOR_CHILD, the default) */
TEST_F(inherit, close_for_child_child_untraced_parent_still_traced)
{
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD, &self->trid));
	pid = fork_recording(self->id, 'c');
	ASSERT_GT(pid, 0);
	posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(0, st_seen_count(&s, pid, self->id, 0));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
}

/* REQ: MODEL-43 RULE-72 5.19 (posix_spawn children) */
TEST_F(inherit, posix_spawn_child_is_traced)
{
	char *argv[] = { "inherit_test", SPAWNED_ARG, NULL };
	struct st_seen s;
	pid_t pid;
	int i, found = 0;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	ASSERT_EQ(0, posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ));
	ASSERT_EQ(0, st_wait_exit(pid));
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	for (i = 0; i < s.n; i++)
		found += s.pid[i] == pid && s.tag[i] == 's';
	EXPECT_EQ(1, found);
}

/* REQ: RULE-60 5.17 (one mapping for everything one stream traces) */
TEST_F(inherit, ids_registered_after_fork_stay_one_to_one)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t mine, theirs;
	int p[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		trace_event_id_t id;

		if (posix_trace_eventid_open("child-only", &id))
			_exit(1);
		_exit(write(p[1], &id, sizeof(id)) == sizeof(id) ? 0 : 2);
	}
	close(p[1]);
	ASSERT_EQ((ssize_t)sizeof(theirs), read(p[0], &theirs, sizeof(theirs)));
	close(p[0]);
	ASSERT_EQ(0, st_wait_exit(pid));
	ASSERT_EQ(0, posix_trace_eventid_open("parent-only", &mine));
	EXPECT_NE(mine, theirs);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, theirs, name));
	EXPECT_STREQ("child-only", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, mine, name));
	EXPECT_STREQ("parent-only", name);
}

/* REQ: 4.9 (a traced child that exits leaves the stream running) */
TEST_F(inherit, inherited_child_exit_leaves_stream_running)
{
	struct posix_trace_status_info st;
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	pid = fork_recording(self->id, 'c');
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
}

/* REQ: 4.9 (a fork bomb is bounded by the limits) */
TEST_F(inherit, fork_bomb_stops_at_max_procs_per_stream_with_error_event)
{
	unsigned long old;
	pid_t kids[8];
	struct st_seen s;
	int i, p[2], traced = 0, refused = 0;
	char c;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, st_param_read(PROCS_PARAM, &old));
	ASSERT_EQ(0, st_param_write(PROCS_PARAM, 4));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	fflush(NULL);
	for (i = 0; i < 8; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			posix_trace_event(self->id, "k", 1);
			if (write(p[1], "k", 1) != 1)
				_exit(1);
			pause();	/* stay traced: hold the place */
			_exit(0);
		}
	}
	/* Every child has recorded, or been refused, by now. */
	for (i = 0; i < 8; i++)
		if (kids[i] > 0)
			ASSERT_EQ(1, read(p[0], &c, 1));
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	for (i = 0; i < 8; i++) {
		if (kids[i] > 0) {
			traced += st_seen_count(&s, kids[i], self->id, 'k');
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	}
	for (i = 0; i < s.n; i++)
		refused += s.id[i] == POSIX_TRACE_ERROR && s.err[i] == EAGAIN;
	EXPECT_EQ(0, st_param_write(PROCS_PARAM, old));
	EXPECT_EQ(3, traced);	/* 4 processes: the parent and 3 children */
	EXPECT_EQ(5, refused);
}

/* Ask the child behind @to/@from for the id of @name (it answers with
 * posix_trace_eventid_open()); -1 on a broken pipe. */
static long child_open(int to, int from, const char *name)
{
	char buf[64] = "";
	trace_event_id_t id;

	snprintf(buf, sizeof(buf), "%s", name);
	if (write(to, buf, sizeof(buf)) != sizeof(buf) ||
	    read(from, &id, sizeof(id)) != sizeof(id))
		return -1;
	return (long)id;
}

/*
 * Every process an INHERITED stream traces shares one name -> id
 * mapping: a name registered by one of them, or by the controller through
 * the stream, has that id for all; at TRACE_USER_EVENT_MAX names every
 * new name, wherever it is opened, is POSIX_TRACE_UNNAMED_USEREVENT.
 */
/* REQ: EVOPEN-5 TRIDOPEN-5 RULE-60 */
TEST_F(inherit, one_mapping_for_every_process_of_an_inherited_stream)
{
	trace_event_id_t mine, via_trid, id;
	int to[2], from[2], i;
	char name[64];
	pid_t pid;

	ASSERT_EQ(0, pipe(to));
	ASSERT_EQ(0, pipe(from));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char buf[64];

		close(to[1]);
		close(from[0]);
		while (read(to[0], buf, sizeof(buf)) == sizeof(buf)) {
			if (posix_trace_eventid_open(buf, &id) ||
			    write(from[1], &id, sizeof(id)) != sizeof(id))
				_exit(1);
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	/* A name of the child, then of the parent, then of the controller
	 * through the stream: the same id everywhere. */
	id = (trace_event_id_t)child_open(to[1], from[0], "first-in-child");
	ASSERT_EQ(0, posix_trace_eventid_open("first-in-child", &mine));
	EXPECT_EQ(id, mine);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "first-in-child",
						   &via_trid));
	EXPECT_EQ(id, via_trid);
	ASSERT_EQ(0, posix_trace_eventid_open("first-in-parent", &mine));
	EXPECT_EQ((long)mine, child_open(to[1], from[0], "first-in-parent"));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "first-via-trid",
						   &via_trid));
	EXPECT_EQ((long)via_trid, child_open(to[1], from[0], "first-via-trid"));
	/* Fill the mapping up to TRACE_USER_EVENT_MAX. */
	for (i = 0; i < TRACE_USER_EVENT_MAX; i++) {
		snprintf(name, sizeof(name), "filler-%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &mine));
		if (mine == POSIX_TRACE_UNNAMED_USEREVENT)
			break;
	}
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, mine);
	EXPECT_EQ((long)POSIX_TRACE_UNNAMED_USEREVENT,
		  child_open(to[1], from[0], "one-too-many-in-child"));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "one-too-many-via-trid",
						   &via_trid));
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, via_trid);
	/* Names registered before the limit keep their ids. */
	EXPECT_EQ((long)id, child_open(to[1], from[0], "first-in-child"));
	close(to[1]);
	EXPECT_EQ(0, st_wait_exit(pid));
	close(from[0]);
}

/* The decision is per stream (RULE-73): a child of a process traced by an
 * INHERITED and a CLOSE_FOR_CHILD stream is traced by the first only. */
/* REQ: RULE-73 INHERIT-2 */
TEST_F(inherit, child_joins_the_inherited_stream_only)
{
	trace_id_t closed = 0;
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD, &closed));
	pid = fork_recording(self->id, 'c');
	ASSERT_GT(pid, 0);
	posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	ASSERT_EQ(0, st_seen_drain(closed, &s));
	EXPECT_EQ(0, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(0, posix_trace_shutdown(closed));
}

#define STORM_THREADS	8
#define STORM_FORKS	12

struct storm {
	trace_event_id_t id;
	pid_t kids[STORM_FORKS];
	int failed;
};

static void *storm_thread(void *arg)
{
	struct storm *st = arg;
	int i;

	for (i = 0; i < STORM_FORKS; i++) {
		st->kids[i] = fork_recording(st->id, 's');
		st->failed += st->kids[i] < 0;
	}
	return NULL;
}

/*
 * Threads forking at once: every child is traced from its first event,
 * and the fork probe took what it needed from the fork kits, which the
 * forking threads refilled before fork() returned (design.md §3: nothing
 * is allocated in the probe, PREEMPT_RT).
 */
/* REQ: RULE-72 4.9 */
TEST_F(inherit, children_forked_by_many_threads_at_once_are_all_traced)
{
	struct posix_trace_stats before, after;
	struct storm st[STORM_THREADS];
	pthread_t th[STORM_THREADS];
	struct st_seen s;
	int i, j, traced = 0, failed = 0;

	ASSERT_EQ(0, st_stats(&before));
	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	for (i = 0; i < STORM_THREADS; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].id = self->id;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, storm_thread, &st[i]));
	}
	for (i = 0; i < STORM_THREADS; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	for (i = 0; i < STORM_THREADS; i++) {
		failed += st[i].failed;
		for (j = 0; j < STORM_FORKS; j++)
			if (st[i].kids[j] > 0)
				traced += st_seen_count(&s, st[i].kids[j], self->id, 's');
	}
	EXPECT_EQ(0, failed);
	EXPECT_EQ(STORM_THREADS * STORM_FORKS, traced);
	ASSERT_EQ(0, st_stats(&after));
	EXPECT_EQ(before.fork_misses, after.fork_misses);
	EXPECT_EQ(before.fork_kits, after.fork_kits);
	EXPECT_LT(0u, after.fork_kits);
}

int main(int argc, char **argv)
{
	/* The image posix_spawn_child_is_traced starts. */
	if (argc == 2 && !strcmp(argv[1], SPAWNED_ARG)) {
		trace_event_id_t id;

		if (posix_trace_eventid_open("spawned", &id))
			return 1;
		posix_trace_event(id, "s", 1);
		return 0;
	}
	return test_harness_run(argc, argv);
}
