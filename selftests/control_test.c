// SPDX-License-Identifier: GPL-2.0
/*
 * control_test - posix_trace_start/stop/clear/shutdown, the START and STOP
 * events, trid validity (invalid values, shut-down streams, fork children),
 * automatic shutdown when the controller exits, execs or is killed, errno
 * preservation, and the functions of options that are not there yet.
 */
#include "pt_selftest.h"

#include <sys/mman.h>
#include <stdatomic.h>

#define EXEC_HELPER_ARG "--pt-exec-helper"

FIXTURE(control) {
	trace_id_t trid;
	trace_id_t *extra;
	int nextra;
	pid_t child;
};

static void extra_add(FIXTURE_DATA(control) *self, trace_id_t t)
{
	self->extra = realloc(self->extra,
			      (self->nextra + 1) * sizeof(*self->extra));
	if (!self->extra)
		abort();
	self->extra[self->nextra++] = t;
}

FIXTURE_SETUP(control)
{
	self->child = -1;
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid));
}

FIXTURE_TEARDOWN(control)
{
	int i;

	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	for (i = 0; i < self->nextra; i++)
		posix_trace_shutdown(self->extra[i]);
	free(self->extra);
}

static int status_of(trace_id_t trid, struct posix_trace_status_info *st)
{
	memset(st, 0x5a, sizeof(*st));
	return posix_trace_get_status(trid, st);
}

/* REQ: GETSTAT-1 START-1 START-2 HDR-9 RULE-52 MODEL-14 5.21 2.6 */
TEST_F(control, start_records_start_event_with_empty_filter)
{
	struct posix_trace_status_info st;
	uint64_t before, after, ts;
	trace_event_set_t set;
	struct st_ev ev;
	int member;
	trace_event_id_t id;

	before = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_start(self->trid));
	after = st_realtime_ns();
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);

	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, ev.info.posix_event_id)
		TH_LOG("first event is %s", st_id_str(ev.info.posix_event_id));
	EXPECT_EQ(getpid(), ev.info.posix_pid);
	EXPECT_TRUE(pthread_equal(pthread_self(), ev.info.posix_thread_id));
	EXPECT_EQ(POSIX_TRACE_NOT_TRUNCATED, ev.info.posix_truncation_status);
	ts = st_ts_ns(&ev.info.posix_timestamp);
	EXPECT_GE(ts + ST_TS_SLACK_NS, before);
	EXPECT_LE(ts, after + ST_TS_SLACK_NS);

	/* Data: the current filter, a usable (and empty) event set. */
	ASSERT_EQ(sizeof(trace_event_set_t), ev.len);
	memcpy(&set, ev.data, sizeof(set));
	for (id = POSIX_TRACE_ERROR; id <= POSIX_TRACE_FLUSH_STOP; id++) {
		member = -1;
		ASSERT_EQ(0, posix_trace_eventset_ismember(id, &set, &member));
		EXPECT_EQ(0, member) TH_LOG("%s in START filter",
					    st_id_str(id));
	}
	member = -1;
	ASSERT_EQ(0, posix_trace_eventset_ismember(
				POSIX_TRACE_UNNAMED_USEREVENT, &set, &member));
	EXPECT_EQ(0, member);

	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

struct thread_call {
	trace_id_t trid;
	int stop;
	int ret;
	pthread_t self;
};

static void *call_start_stop(void *arg)
{
	struct thread_call *c = arg;

	c->self = pthread_self();
	c->ret = c->stop ? posix_trace_stop(c->trid) :
			   posix_trace_start(c->trid);
	return NULL;
}

/* REQ: START-2 STOP-2 FN-4 5.21 */
TEST_F(control, start_and_stop_record_the_calling_thread)
{
	struct thread_call c = { .trid = self->trid };
	pthread_t th;
	struct st_ev ev;

	ASSERT_EQ(0, pthread_create(&th, NULL, call_start_stop, &c));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, c.ret);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	EXPECT_TRUE(pthread_equal(c.self, ev.info.posix_thread_id));
	EXPECT_EQ(getpid(), ev.info.posix_pid);

	c.stop = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, call_start_stop, &c));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, c.ret);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_STOP, ev.info.posix_event_id);
	EXPECT_TRUE(pthread_equal(c.self, ev.info.posix_thread_id));
	EXPECT_EQ(getpid(), ev.info.posix_pid);
}

/* REQ: GETSTAT-1 STOP-1 STOP-2 HDR-8 MODEL-15 5.21 */
TEST_F(control, stop_records_stop_event_with_auto_zero)
{
	struct posix_trace_status_info st;
	uint64_t before, after, ts;
	struct st_ev ev;

	ASSERT_EQ(0, st_start_and_skip(self->trid));
	before = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	after = st_realtime_ns();
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);

	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_STOP, ev.info.posix_event_id);
	ASSERT_EQ(sizeof(int), ev.len);
	EXPECT_EQ(0, st_stop_auto(&ev));
	EXPECT_EQ(getpid(), ev.info.posix_pid);
	EXPECT_TRUE(pthread_equal(pthread_self(), ev.info.posix_thread_id));
	ts = st_ts_ns(&ev.info.posix_timestamp);
	EXPECT_GE(ts + ST_TS_SLACK_NS, before);
	EXPECT_LE(ts, after + ST_TS_SLACK_NS);
}

/* REQ: START-3 STOP-3 */
TEST_F(control, start_twice_and_stop_twice_record_one_event_each)
{
	struct posix_trace_status_info st;
	struct st_ev ev[8];
	int n;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);

	ASSERT_EQ(0, st_drain(self->trid, ev, 8, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(POSIX_TRACE_START, ev[0].info.posix_event_id);
	EXPECT_EQ(POSIX_TRACE_STOP, ev[1].info.posix_event_id);
}

/* REQ: STOP-3 CREATE-14 */
TEST_F(control, stop_of_never_started_stream_records_nothing)
{
	struct st_ev ev;

	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: START-2 STOP-2 STOP-5 RULE-10 RULE-6 MODEL-15 */
TEST_F(control, start_stop_start_sequence_keeps_events_readable)
{
	static const trace_event_id_t want[] = {
		POSIX_TRACE_START, POSIX_TRACE_UNNAMED_USEREVENT,
		POSIX_TRACE_STOP, POSIX_TRACE_START,
		POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_STOP,
	};
	struct st_ev ev[8];
	uint64_t prev = 0;
	int i, n;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "a", 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "lost", 4);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "b", 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));

	ASSERT_EQ(0, st_drain(self->trid, ev, 8, &n));
	ASSERT_EQ(6, n);
	for (i = 0; i < n; i++) {
		uint64_t ts = st_ts_ns(&ev[i].info.posix_timestamp);

		EXPECT_EQ(want[i], ev[i].info.posix_event_id)
			TH_LOG("event %d is %s", i,
			       st_id_str(ev[i].info.posix_event_id));
		EXPECT_GE(ts, prev);
		prev = ts;
	}
	EXPECT_EQ(0, memcmp(ev[1].data, "a", 1));
	EXPECT_EQ(0, memcmp(ev[4].data, "b", 1));
}

/* REQ: CLEAR-1 CLEAR-2 CLEAR-3 5.9 */
TEST_F(control, clear_discards_events_and_keeps_running)
{
	struct posix_trace_status_info st;
	struct st_ev ev;
	int i;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 5; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	ASSERT_EQ(0, posix_trace_clear(self->trid));

	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);

	/* Everything before the clear is gone, the clear records nothing. */
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable) TH_LOG("got %s after clear",
					    st_id_str(ev.info.posix_event_id));

	/* Still running: new events are recorded. */
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "new", 3);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	ASSERT_EQ(3u, ev.len);
	ASSERT_EQ(0, memcmp("new", ev.data, 3));
}

/* REQ: CLEAR-1 CLEAR-2 5.9 */
TEST_F(control, clear_of_suspended_stream_keeps_it_suspended)
{
	struct posix_trace_status_info st;
	struct st_ev ev;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "a", 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "b", 1);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/*
 * A running stream that recorded events with a registered name: the clear
 * loses the events, keeps the stream running and the name's id, and the
 * next event with that id is recorded and reads back under its name.
 */
/* REQ: CLEAR-1 CLEAR-2 MODEL-10 */
TEST_F(control, clear_keeps_event_name_mapping)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_status_info st;
	trace_event_id_t id, id2;
	struct st_ev ev;

	ASSERT_EQ(0, posix_trace_eventid_open("kept-across-clear", &id));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	posix_trace_event(id, "before", 6);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable) TH_LOG("an event recorded before the clear");
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, name));
	ASSERT_STREQ("kept-across-clear", name);
	ASSERT_EQ(0, posix_trace_eventid_open("kept-across-clear", &id2));
	ASSERT_EQ(id, id2);
	posix_trace_event(id, "after", 5);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(id, ev.info.posix_event_id);
	ASSERT_EQ(5u, ev.len);
	EXPECT_EQ(0, memcmp(ev.data, "after", 5));
}

/* REQ: SHUT-2 SHUT-4 RULE-81 MODEL-16 */
TEST_F(control, shutdown_invalidates_trid_for_every_function)
{
	struct posix_trace_status_info st;
	struct timespec abs = { 0, 0 };
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	trace_id_t t = self->trid;
	trace_attr_t a;
	struct st_ev ev;
	int unav;

	ASSERT_EQ(0, posix_trace_start(t));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "unread", 6);
	/* Unread events do not prevent the shutdown. */
	ASSERT_EQ(0, posix_trace_shutdown(t));
	self->trid = 0;

	st_watchdog(5);
	ASSERT_EQ(0, posix_trace_attr_init(&a));
	EXPECT_EQ(EINVAL, posix_trace_start(t));
	EXPECT_EQ(EINVAL, posix_trace_stop(t));
	EXPECT_EQ(EINVAL, posix_trace_clear(t));
	EXPECT_EQ(EINVAL, posix_trace_shutdown(t));
	EXPECT_EQ(EINVAL, posix_trace_get_attr(t, &a));
	EXPECT_EQ(EINVAL, posix_trace_get_status(t, &st));
	EXPECT_EQ(EINVAL, st_get(t, &ev));
	EXPECT_EQ(EINVAL, st_timed(t, &ev, &abs));
	EXPECT_EQ(EINVAL, st_try(t, &ev));
	EXPECT_EQ(EINVAL, posix_trace_eventid_get_name(t, POSIX_TRACE_START,
						       name));
	EXPECT_EQ(EINVAL, posix_trace_trid_eventid_open(t, "x", &id));
	EXPECT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(t, &id, &unav));
	EXPECT_EQ(EINVAL, posix_trace_eventtypelist_rewind(t));
	alarm(0);
	posix_trace_attr_destroy(&a);
}

/* REQ: RULE-80 RULE-82 RULE-83 FN-5 5.5 5.20 */
TEST_F(control, invalid_trid_values_are_einval_for_every_function)
{
	trace_id_t bad[] = {
		0, -1, INT_MIN, INT_MAX, (1 << 30) - 1, 1 << 30,
		self->trid + 1000, -self->trid,
	};
	int res[ST_NR_TRID_FNS];
	unsigned int b;
	int i;

	st_watchdog(10);
	for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		st_call_all_trid_functions(bad[b], res);
		for (i = 0; i < ST_NR_TRID_FNS; i++) {
			EXPECT_EQ(EINVAL, res[i])
				TH_LOG("%s(trid %d)", st_trid_fn_name(i), bad[b]);
		}
	}
	alarm(0);
	/* The real stream is untouched. */
	ASSERT_EQ(0, st_start_and_skip(self->trid));
}

/* REQ: CREATE-11 RULE-80 MODEL-4 MODEL-42 RULE-76 FN-5 5.20 */
TEST_F(control, fork_child_gets_einval_for_every_trid_function)
{
	struct posix_trace_status_info st;
	int res[ST_NR_TRID_FNS], pipefd[2];
	struct st_ev ev;
	int i, n, status;
	pid_t pid;

	/* Events sit in the (inherited) mapping while the child tries. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 3; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));

	ASSERT_EQ(0, pipe(pipefd));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		st_watchdog(5);
		st_call_all_trid_functions(self->trid, res);
		if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	self->child = pid;
	close(pipefd[1]);
	n = read(pipefd[0], res, sizeof(res));
	close(pipefd[0]);
	ASSERT_EQ(0, waitpid(pid, &status, 0) == pid ? 0 : -1);
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
	ASSERT_EQ((int)sizeof(res), n);
	for (i = 0; i < ST_NR_TRID_FNS; i++) {
		EXPECT_EQ(EINVAL, res[i]) TH_LOG("%s in fork child",
						 st_trid_fn_name(i));
	}

	/* The parent's stream is unaffected: running, events all there. */
	ASSERT_EQ(0, status_of(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	for (i = 0; i < 3; i++) {
		int v;

		ASSERT_EQ(0, st_try(self->trid, &ev));
		ASSERT_EQ(0, ev.unavailable) TH_LOG("event %d lost", i);
		ASSERT_EQ(sizeof(v), ev.len);
		memcpy(&v, ev.data, sizeof(v));
		ASSERT_EQ(i, v);
	}
	ASSERT_EQ(0, st_try(self->trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/*
 * Fill TRACE_SYS_MAX with streams of this process, then free exactly one
 * slot.  Returns 0 on success.
 */
static int fill_all_but_one(FIXTURE_DATA(control) *self)
{
	long max = st_trace_sys_max();
	trace_id_t t;
	long n;
	int ret;

	for (n = 0; n <= max; n++) {
		ret = st_create(0, ST_SMALL_STREAM, 0, 0, &t);
		if (ret == EAGAIN)
			break;
		if (ret)
			return ret;
		extra_add(self, t);
	}
	if (n > max || self->nextra == 0)
		return -1;
	ret = posix_trace_shutdown(self->extra[--self->nextra]);
	return ret;
}

enum ctl_end { END_EXIT, END_SIGKILL, END_EXEC };

/*
 * A forked controller takes the last free stream slot and then exits, is
 * killed, or execs.  Afterwards its stream must be gone: the slot is free.
 */
static void controller_end_frees_stream(struct __test_metadata *_metadata,
					FIXTURE_DATA(control) *self,
					enum ctl_end how)
{
	int go[2], done[2], status;
	trace_id_t t;
	char c;
	pid_t pid;

	ASSERT_EQ(0, fill_all_but_one(self));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe2(done, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char fdarg[16];

		close(go[1]);
		close(done[0]);
		if (st_create(0, ST_SMALL_STREAM, 0, 0, &t))
			_exit(10);
		if (posix_trace_start(t))
			_exit(11);
		if (write(done[1], "c", 1) != 1)
			_exit(12);
		/* Wait for the go (a byte, or EOF), then end as told. */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		if (how == END_EXEC) {
			snprintf(fdarg, sizeof(fdarg), "%d", go[0]);
			execl("/proc/self/exe", "control_test",
			      EXEC_HELPER_ARG, fdarg, (char *)NULL);
			_exit(13);
		}
		_exit(0);
	}
	self->child = pid;
	close(go[0]);
	close(done[1]);
	/* The child holds the last slot. */
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(EAGAIN, st_create(0, ST_SMALL_STREAM, 0, 0, &t));

	switch (how) {
	case END_EXIT:
		close(go[1]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		self->child = -1;
		break;
	case END_SIGKILL:
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		self->child = -1;
		close(go[1]);
		break;
	case END_EXEC:
		ASSERT_EQ(1, write(go[1], "g", 1));
		/* EOF on the O_CLOEXEC pipe: the exec has happened. */
		ASSERT_EQ(0, read(done[0], &c, 1));
		/* The new image is alive, blocked on go[0]. */
		ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
		break;
	}
	close(done[0]);
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &t))
		TH_LOG("the ended controller's stream still exists");
	extra_add(self, t);
	if (how == END_EXEC) {
		close(go[1]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		self->child = -1;
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("exec helper status 0x%x", status);
	}
}

/* REQ: SHUT-8 RULE-78 MODEL-46 */
TEST_F(control, controller_exit_shuts_down_its_streams)
{
	controller_end_frees_stream(_metadata, self, END_EXIT);
}

/* REQ: SHUT-8 RULE-78 MODEL-46 */
TEST_F(control, controller_sigkill_shuts_down_its_streams)
{
	controller_end_frees_stream(_metadata, self, END_SIGKILL);
}

/* REQ: SHUT-8 RULE-78 MODEL-45 */
TEST_F(control, controller_exec_shuts_down_its_streams)
{
	controller_end_frees_stream(_metadata, self, END_EXEC);
}

/* REQ: FN-1 */
TEST_F(control, functions_do_not_modify_errno)
{
	struct posix_trace_status_info st;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	trace_attr_t a;
	struct st_ev ev;
	trace_id_t t2;
	int unav;

#define NO_ERRNO(call) do {						\
	errno = 4242;							\
	(void)(call);							\
	EXPECT_EQ(4242, errno) TH_LOG("%s changed errno", #call);	\
} while (0)

	NO_ERRNO(posix_trace_attr_init(&a));
	NO_ERRNO(st_create(0, ST_SMALL_STREAM, 0, 0, &t2));
	NO_ERRNO(posix_trace_create(-1, NULL, &t2));		/* ESRCH */
	NO_ERRNO(posix_trace_start(self->trid));
	NO_ERRNO(posix_trace_start(-5));			/* EINVAL */
	NO_ERRNO(posix_trace_eventid_open("errno-test", &id));
	NO_ERRNO(posix_trace_event(id, "x", 1));
	NO_ERRNO(posix_trace_get_status(self->trid, &st));
	NO_ERRNO(posix_trace_get_attr(self->trid, &a));
	NO_ERRNO(posix_trace_eventid_get_name(self->trid, id, name));
	NO_ERRNO(posix_trace_eventid_get_name(self->trid, 999, name));
	NO_ERRNO(posix_trace_eventtypelist_getnext_id(self->trid, &id, &unav));
	NO_ERRNO(st_try(self->trid, &ev));
	NO_ERRNO(st_get(self->trid, &ev));
	NO_ERRNO(st_try(self->trid, &ev));			/* empty */
	NO_ERRNO(st_timed(self->trid, &ev, &(struct timespec){ 0, 0 }));
	NO_ERRNO(posix_trace_stop(self->trid));
	NO_ERRNO(posix_trace_clear(self->trid));
	NO_ERRNO(posix_trace_shutdown(t2));
	NO_ERRNO(posix_trace_shutdown(t2));			/* EINVAL */
	posix_trace_attr_destroy(&a);
#undef NO_ERRNO
}

/*
 * The Trace Log and Trace Event Filter functions, while their options are
 * reported absent by sysconf(), fail and create nothing.  Whatever the
 * options, flush needs a stream with a log, and rewind/close a
 * pre-recorded one.
 */
/* REQ: FLUSH-2 CLOSE-2 3.0.1 5.26 */
TEST_F(control, log_and_filter_functions_fail_without_their_option_and_create_nothing)
{
	bool no_log = sysconf(_SC_TRACE_LOG) == -1;
	bool no_filter = sysconf(_SC_TRACE_EVENT_FILTER) == -1;
	trace_event_set_t set;
	int member = -1;
	trace_attr_t a;
	trace_id_t t = -12345;
	char path[] = "/tmp/pt-selftest-XXXXXX";
	int fd, ret;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	unlink(path);
	ASSERT_EQ(0, fill_all_but_one(self));

	if (no_log) {
		ASSERT_EQ(0, posix_trace_attr_init(&a));
		ret = posix_trace_create_withlog(0, &a, fd, &t);
		if (ret == 0)
			extra_add(self, t);
		EXPECT_NE(0, ret);
		posix_trace_attr_destroy(&a);
		ret = posix_trace_open(fd, &t);
		EXPECT_NE(0, ret);
		if (ret == 0)
			posix_trace_close(t);
	}
	/* A stream without log cannot be flushed (FLUSH-2: EINVAL); an
	 * active stream is no trace log to rewind or close (EINVAL, which
	 * those two may return and we always do).
	 */
	EXPECT_EQ(EINVAL, posix_trace_flush(self->trid));
	EXPECT_EQ(EINVAL, posix_trace_rewind(self->trid));
	EXPECT_EQ(EINVAL, posix_trace_close(self->trid));
	if (no_filter) {
		ASSERT_EQ(0, posix_trace_eventset_empty(&set));
		EXPECT_NE(0, posix_trace_set_filter(self->trid, &set,
						    POSIX_TRACE_SET_EVENTSET));
	}
	/* get_filter reports the empty filter. */
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &set));
	ASSERT_EQ(0, posix_trace_eventset_ismember(POSIX_TRACE_ERROR, &set,
						   &member));
	EXPECT_EQ(0, member);
	/* The stream is still valid and the free slot was not taken. */
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &t));
	extra_add(self, t);
	close(fd);
}

struct race {
	trace_id_t trid;
	atomic_int stop;
	int ret;
};

static void *race_writer(void *p)
{
	struct race *r = p;
	uint32_t i = 0;

	while (!atomic_load(&r->stop)) {
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
		i++;
	}
	return NULL;
}

static void *race_reader(void *p)
{
	struct race *r = p;
	struct st_ev ev;

	do {
		r->ret = st_get(r->trid, &ev);
	} while (r->ret == 0);
	return NULL;
}

/* REQ: SHUT-2 SHUT-3 SHUT-5 RULE-89 RULE-94 FN-4 */
TEST_F(control, shutdown_races_with_writers_and_blocked_readers)
{
	struct race w, rd[2];
	pthread_t wt[3], rt[2];
	struct timespec deadline;
	int round, i;

	for (round = 0; round < 12; round++) {
		trace_id_t t;

		ASSERT_EQ(0, st_create(0, 65536, 0, 0, &t));
		ASSERT_EQ(0, posix_trace_start(t));
		memset(&w, 0, sizeof(w));
		w.trid = t;
		for (i = 0; i < 2; i++) {
			memset(&rd[i], 0, sizeof(rd[i]));
			rd[i].trid = t;
			ASSERT_EQ(0, pthread_create(&rt[i], NULL, race_reader,
						    &rd[i]));
		}
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(0, pthread_create(&wt[i], NULL, race_writer,
						    &w));
		}
		st_sleep_ms(2 + round % 5);
		ASSERT_EQ(0, posix_trace_shutdown(t));
		deadline = st_ns_ts(st_realtime_ns() + 5 * ST_NSEC_PER_SEC);
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, pthread_timedjoin_np(rt[i], NULL,
							  &deadline))
				TH_LOG("round %d: reader %d not woken", round,
				       i);
			EXPECT_EQ(EINVAL, rd[i].ret) TH_LOG("round %d", round);
		}
		atomic_store(&w.stop, 1);
		for (i = 0; i < 3; i++)
			pthread_join(wt[i], NULL);
		ASSERT_EQ(EINVAL, posix_trace_start(t));
	}
}

/* REQ: RULE-78 RULE-79 SHUT-8 (killing a controller mid-burst) */
TEST_F(control, controller_killed_while_traced_process_writes)
{
	struct st_agent target = { -1, -1 }, ctl = { -1, -1 };
	struct st_msg m;
	struct st_reply r;
	int tpid, trid, status;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&target));
	st_agent_set_ptracer(&target, PR_SET_PTRACER_ANY);
	ASSERT_EQ(0, st_agent_op(&target, STA_GETPID, 0, 0, 0, &tpid));
	ASSERT_EQ(0, st_agent_start(&ctl));
	ASSERT_EQ(0, st_agent_op(&ctl, STA_CREATE, tpid, 65536, 0, &trid));
	ASSERT_EQ(0, st_agent_op(&ctl, STA_START, trid, 0, 0, NULL));

	memset(&m, 0, sizeof(m));
	m.op = STA_EVENT_BURST;
	m.a = (int)POSIX_TRACE_UNNAMED_USEREVENT;
	m.b = 20000;
	ASSERT_EQ(0, st_agent_send(&target, &m));
	st_sleep_ms(5);
	kill(ctl.pid, SIGKILL);
	ASSERT_EQ(ctl.pid, waitpid(ctl.pid, &status, 0));
	ctl.pid = -1;
	/* The traced process finishes its burst and lives on. */
	ASSERT_EQ(0, st_agent_recv(&target, &r));
	ASSERT_EQ(20000, r.v[0]);
	ASSERT_EQ(0, st_agent_event(&target, POSIX_TRACE_UNNAMED_USEREVENT, 0,
				    NULL));
	ASSERT_EQ(0, st_agent_op(&target, STA_GETPID, 0, 0, 0, &tpid));
	st_agent_kill(&ctl);
	st_agent_kill(&target);
}

/* ---------------------------------------------------------------- */

#define EXEC_RECORD_ARG "--pt-exec-record"

/*
 * The image a traced child execs: registers "after-exec", records it and
 * an unnamed event, sends the id over @wfd, waits for EOF on @rfd.
 */
static int exec_record_main(int rfd, int wfd)
{
	trace_event_id_t id;
	char c;

	if (posix_trace_eventid_open("after-exec", &id))
		return 20;
	posix_trace_event(id, "new", 3);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "img", 3);
	if (write(wfd, &id, sizeof(id)) != sizeof(id))
		return 21;
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

/* REQ: MODEL-44 RULE-61 RULE-75 5.17 (traced across exec) */
TEST_F(control, traced_process_stays_traced_across_exec)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	int go[2], back[2], status;
	trace_event_id_t before, after;
	trace_id_t t;
	struct st_ev ev;
	pid_t pid;
	char c;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char r[16], w[16];

		close(go[1]);
		close(back[0]);
		if (posix_trace_eventid_open("before-exec", &before))
			_exit(10);
		if (write(back[1], &before, sizeof(before)) != sizeof(before))
			_exit(11);
		/* Wait until traced, record, then exec. */
		if (read(go[0], &c, 1) != 1)
			_exit(12);
		posix_trace_event(before, "old", 3);
		snprintf(r, sizeof(r), "%d", go[0]);
		snprintf(w, sizeof(w), "%d", back[1]);
		execl("/proc/self/exe", "control_test", EXEC_RECORD_ARG, r, w,
		      (char *)NULL);
		_exit(13);
	}
	self->child = pid;
	close(go[0]);
	close(back[1]);
	ASSERT_EQ((ssize_t)sizeof(before), read(back[0], &before,
						sizeof(before)));
	ASSERT_EQ(0, st_create(pid, 65536, 0, 0, &t));
	extra_add(self, t);
	ASSERT_EQ(0, st_start_and_skip(t));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ((ssize_t)sizeof(after), read(back[0], &after, sizeof(after)));

	/* Old image's event, then the new image's two: same pid. */
	ASSERT_EQ(0, st_try(t, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(before, ev.info.posix_event_id);
	ASSERT_EQ(pid, ev.info.posix_pid);
	ASSERT_EQ(0, st_try(t, &ev));
	ASSERT_EQ(0, ev.unavailable) TH_LOG("not traced after exec");
	ASSERT_EQ(after, ev.info.posix_event_id);
	ASSERT_EQ(pid, ev.info.posix_pid);
	ASSERT_EQ(0, memcmp("new", ev.data, 3));
	ASSERT_EQ(0, st_try(t, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	/* One id per name in the stream, old and new names both known. */
	ASSERT_NE(before, after);
	ASSERT_EQ(0, posix_trace_eventid_get_name(t, before, name));
	ASSERT_STREQ("before-exec", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(t, after, name));
	ASSERT_STREQ("after-exec", name);

	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	self->child = -1;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("exec'd image status 0x%x", status);
	close(back[0]);
}

struct busy {
	atomic_int stop;
	trace_id_t trid;
};

static void *busy_library_user(void *p)
{
	struct busy *b = p;
	struct posix_trace_status_info st;
	trace_event_id_t id;
	struct st_ev ev;
	char name[32];
	unsigned int i = 0;

	while (!atomic_load(&b->stop)) {
		snprintf(name, sizeof(name), "busy-%u", i++ % 50);
		posix_trace_eventid_open(name, &id);
		posix_trace_event(id, &i, sizeof(i));
		posix_trace_get_status(b->trid, &st);
		st_try(b->trid, &ev);
	}
	return NULL;
}

/* REQ: FN-4 RULE-94 CREATE-11 (library usable in a child forked mid-call) */
TEST_F(control, fork_while_other_threads_use_the_library_leaves_child_usable)
{
	static struct busy b;
	pthread_t th[2];
	int i, k, status;

	memset(&b, 0, sizeof(b));
	b.trid = self->trid;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, busy_library_user,
					    &b));
	for (k = 0; k < 20; k++) {
		pid_t pid;

		fflush(NULL);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			struct posix_trace_status_info st;
			trace_event_id_t id;
			struct st_ev ev;
			trace_id_t t;

			alarm(10);	/* default action: a hang kills us */
			posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "c", 1);
			if (posix_trace_eventid_open("in-child", &id))
				_exit(2);
			if (st_create(0, ST_SMALL_STREAM, 0, 0, &t))
				_exit(3);
			if (st_start_and_skip(t))
				_exit(4);
			posix_trace_event(id, "c", 1);
			if (st_try(t, &ev) || ev.unavailable ||
			    ev.info.posix_event_id != id)
				_exit(5);
			if (posix_trace_get_status(self->trid, &st) != EINVAL ||
			    st_try(self->trid, &ev) != EINVAL)
				_exit(6);
			if (posix_trace_shutdown(t))
				_exit(7);
			_exit(0);
		}
		self->child = pid;
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		self->child = -1;
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("child %d: status 0x%x", k, status);
	}
	atomic_store(&b.stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
	char c;

	if (argc == 4 && !strcmp(argv[1], EXEC_RECORD_ARG))
		return exec_record_main(atoi(argv[2]), atoi(argv[3]));
	/* Image exec'ed by controller_exec_shuts_down_its_streams. */
	if (argc == 3 && !strcmp(argv[1], EXEC_HELPER_ARG)) {
		int fd = atoi(argv[2]);

		while (read(fd, &c, 1) < 0 && errno == EINTR)
			;
		return 0;
	}
	return test_harness_run(argc, argv);
}
