// SPDX-License-Identifier: GPL-2.0
/*
 * create_test - posix_trace_create(): targets (self, child, other users,
 * missing, zombie, kernel thread), attribute validation, TRACE_SYS_MAX,
 * several streams per process and several controllers per process.
 */
#include "pt_selftest.h"

#define MAX_AGENTS 4

FIXTURE(create) {
	trace_id_t *trids;
	int ntrids;
	int cap;
	struct st_agent ag[MAX_AGENTS];
	unsigned long user_cap;	/* max_streams_per_user to restore, or 0 */
};

/*
 * One user may hold only max_streams_per_user streams: let this one reach
 * TRACE_SYS_MAX (root only; false if that is not possible).
 */
static bool lift_user_cap(FIXTURE_DATA(create) *self, long max)
{
	unsigned long cap;

	if (st_param_read("max_streams_per_user", &cap))
		return false;
	if ((long)cap >= max)
		return true;
	if (geteuid() || st_param_write("max_streams_per_user", max))
		return false;
	self->user_cap = cap;
	return true;
}

static void held_add(FIXTURE_DATA(create) *self, trace_id_t trid)
{
	if (self->ntrids == self->cap) {
		self->cap = self->cap ? 2 * self->cap : 64;
		self->trids = realloc(self->trids,
				      self->cap * sizeof(*self->trids));
		if (!self->trids)
			abort();
	}
	self->trids[self->ntrids++] = trid;
}

/* Create small streams on self until one fails; returns that error. */
static int fill_streams(FIXTURE_DATA(create) *self, long limit, int *created)
{
	trace_id_t trid;
	int ret = 0;

	*created = 0;
	while (*created <= limit) {
		ret = st_create(0, ST_SMALL_STREAM, 0, 0, &trid);
		if (ret)
			break;
		held_add(self, trid);
		(*created)++;
	}
	return ret;
}

FIXTURE_SETUP(create)
{
	int i;

	for (i = 0; i < MAX_AGENTS; i++) {
		self->ag[i].pid = -1;
		self->ag[i].fd = -1;
	}
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(create)
{
	int i;

	for (i = 0; i < self->ntrids; i++)
		posix_trace_shutdown(self->trids[i]);
	free(self->trids);
	for (i = 0; i < MAX_AGENTS; i++)
		st_agent_kill(&self->ag[i]);
	if (self->user_cap)
		st_param_write("max_streams_per_user", self->user_cap);
}

/* REQ: CREATE-5 CREATE-7 CREATE-8 CREATE-9 CREATE-14 GETSTAT-5 RULE-30 RULE-37 MODEL-13 */
TEST_F(create, create_self_pid0_is_suspended_empty_not_full)
{
	struct posix_trace_status_info st;
	trace_id_t trid = 0;
	struct st_ev ev;

	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_GT(trid, 0);

	memset(&st, 0xa5, sizeof(st));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	EXPECT_EQ(0, st.posix_stream_flush_error);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_log_full_status);

	/* Nothing is recorded at creation. */
	ASSERT_EQ(0, st_try(trid, &ev));
	ASSERT_NE(0, ev.unavailable);
}

/* REQ: CREATE-5 RULE-84 EVENT-4 */
TEST_F(create, create_own_pid_traces_self)
{
	trace_id_t trid;
	struct st_ev ev;

	ASSERT_EQ(0, st_create(getpid(), ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(0, st_start_and_skip(trid));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "x", 1);
	ASSERT_EQ(0, st_try(trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, ev.info.posix_event_id);
	EXPECT_EQ(getpid(), ev.info.posix_pid);
}

/* REQ: CREATE-2 STRPOL-3 INHERIT-3 GETATTR-2 5.6 */
TEST_F(create, create_null_attr_uses_defaults)
{
	size_t def_stream, def_data, stream, data;
	int policy, inherit;
	trace_attr_t def, a;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_init(&def));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&def, &def_stream));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&def, &def_data));

	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	held_add(self, trid);
	ASSERT_EQ(0, posix_trace_attr_init(&a));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &a));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&a, &policy));
	EXPECT_EQ(POSIX_TRACE_LOOP, policy);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&a, &inherit));
	EXPECT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&a, &data));
	EXPECT_EQ(def_data, data);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&a, &stream));
	/* stream-min-size is a minimum: the effective size is not smaller. */
	EXPECT_GE(stream, def_stream);
	posix_trace_attr_destroy(&a);
	posix_trace_attr_destroy(&def);
}

/* REQ: CREATE-5 CREATE-6 CREATE-10 RULE-85 */
TEST_F(create, create_child_pid_succeeds)
{
	struct posix_trace_status_info st;
	trace_id_t trid;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(&self->ag[0]));
	ASSERT_EQ(0, st_create(self->ag[0].pid, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
}

/* The last thread of a group whose leader is already a zombie: it leaves
 * with exit(), not exit_group(), so the kernel never flags a group exit.
 */
static void *exit_last_thread(void *arg)
{
	(void)arg;
	usleep(2000);
	syscall(SYS_exit, 0);
	return NULL;
}

static void exiting_child(int how)
{
	pthread_t th;

	if (how && !pthread_create(&th, NULL, exit_last_thread, NULL))
		pthread_exit(NULL);
	_exit(0);
}

/*
 * Streams created for a process while it exits, until it is gone: failing
 * ones (a log descriptor not open for writing) and successful ones, shut
 * down at once.  Whatever the order of the create and the exit, the module
 * must forget the process once it is reaped (regression: an entry made
 * after the exit hook had looked stayed forever).
 */
TEST_F_TIMEOUT(create, create_racing_the_targets_exit_leaves_nothing_behind, 300)
{
	struct posix_trace_stats base, now;
	int fd, rofd, i, ret, ok = 0;
	unsigned int waited;
	trace_id_t trid;
	pid_t pid;

	fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	rofd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, rofd);
	/* This process's own entry (it controls streams) stays until it exits. */
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_TRUE(st_stats_quiet(&base));
	for (i = 0; i < 200; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			exiting_child(i & 1);
		do {
			struct posix_trace_create c = {
				.size = sizeof(c),
				.pid = pid,
				.stream_policy = POSIX_TRACE_POLICY_LOOP,
				.stream_size = ST_SMALL_STREAM,
			};
			struct posix_trace_ctl ctl = { .size = sizeof(ctl) };

			if (i & 2) {
				c.flags = POSIX_TRACE_CREATE_LOG;
				c.log_fd = rofd;
				c.log_policy = POSIX_TRACE_LOG_APPEND;
			}
			ret = ioctl(fd, POSIX_TRACE_IOC_CREATE, &c) ? errno : 0;
			if (!ret) {
				ok++;
				ctl.trid = c.trid;
				ASSERT_EQ(0, ioctl(fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl));
			}
		} while (ret == 0 || ret == EBADF);
		ASSERT_EQ(ESRCH, ret);
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	}
	close(rofd);
	close(fd);
	ASSERT_TRUE(st_stats_settle(&base, &now, 30000, &waited)) {
		TH_LOG("procs %u -> %u, maps %u -> %u, streams %u -> %u (%d creates)",
		       base.procs, now.procs, base.maps, now.maps,
		       base.streams, now.streams, ok);
	}
}

/* REQ: CREATE-6 RULE-85 5.16 */
TEST_F(create, create_nonexistent_pid_is_esrch)
{
	trace_id_t trid;
	pid_t gone = st_unused_pid();
	long pid_max = 0;
	FILE *f;

	ASSERT_GT(gone, 0);
	ASSERT_EQ(ESRCH, st_create(gone, ST_SMALL_STREAM, 0, 0, &trid));

	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 0;
		fclose(f);
	}
	/* pids are always below pid_max. */
	if (pid_max > 0 && pid_max <= INT_MAX) {
		ASSERT_EQ(ESRCH, st_create((pid_t)pid_max, ST_SMALL_STREAM,
					   0, 0, &trid));
	}
	ASSERT_EQ(ESRCH, st_create(INT_MAX, ST_SMALL_STREAM, 0, 0, &trid));
}

/* REQ: CREATE-6 RULE-85 5.16 */
TEST_F(create, create_negative_pid_is_esrch)
{
	trace_id_t trid;

	ASSERT_EQ(ESRCH, st_create(-1, ST_SMALL_STREAM, 0, 0, &trid));
	ASSERT_EQ(ESRCH, st_create(-getpid(), ST_SMALL_STREAM, 0, 0, &trid));
	ASSERT_EQ(ESRCH, st_create(INT_MIN, ST_SMALL_STREAM, 0, 0, &trid));
}

/* REQ: CREATE-6 RULE-85 5.16 */
TEST_F(create, create_zombie_pid_is_esrch)
{
	trace_id_t trid;
	siginfo_t si;
	pid_t pid;
	int ret;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Wait until it is a zombie, without reaping it. */
	memset(&si, 0, sizeof(si));
	ASSERT_EQ(0, waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	ASSERT_EQ(pid, si.si_pid);
	ret = st_create(pid, ST_SMALL_STREAM, 0, 0, &trid);
	if (!ret)
		held_add(self, trid);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(ESRCH, ret);
}

/* REQ: CREATE-6 RULE-85 5.16 */
TEST_F(create, create_other_uid_is_eperm)
{
	trace_id_t trid;
	int ret;

	if (geteuid() != 0) {
		/* pid 1 is root's init. */
		ret = st_create(1, ST_SMALL_STREAM, 0, 0, &trid);
		if (!ret)
			held_add(self, trid);
		ASSERT_EQ(EPERM, ret);
		return;
	}
	/* As root: a tracer of uid 12345 and a target of uid 12346. */
	ASSERT_EQ(0, st_agent_start(&self->ag[0]));
	ASSERT_EQ(0, st_agent_op(&self->ag[0], STA_SETCREDS, 12346, 12346, 1,
				 NULL));
	ASSERT_EQ(0, st_agent_start(&self->ag[1]));
	ASSERT_EQ(0, st_agent_op(&self->ag[1], STA_SETCREDS, 12345, 12345, 1,
				 NULL));
	ASSERT_EQ(EPERM, st_agent_op(&self->ag[1], STA_CREATE_PROBE,
				     self->ag[0].pid, 0, 0, NULL));
	/* The same tracer may still trace itself. */
	ASSERT_EQ(0, st_agent_op(&self->ag[1], STA_CREATE_PROBE, 0, 0, 0,
				 NULL));
}

static bool is_kernel_thread(pid_t pid)
{
	char path[64], buf[1024], *p, *save = NULL;
	unsigned long flags = 0;
	int field = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return false;
	/* Fields after "(comm)": state ppid pgrp session tty tpgid flags */
	for (p = strtok_r(p + 1, " ", &save); p; p = strtok_r(NULL, " ", &save))
		if (++field == 7) {
			flags = strtoul(p, NULL, 10);
			break;
		}
	return flags & 0x00200000;	/* PF_KTHREAD */
}

/* REQ: CREATE-6 5.16 */
TEST_F(create, create_kernel_thread_is_eperm)
{
	trace_id_t trid;
	int ret;

	if (!is_kernel_thread(2))
		ST_SKIP("pid 2 is not a kernel thread here");
	ret = st_create(2, ST_SMALL_STREAM, 0, 0, &trid);
	if (!ret)
		held_add(self, trid);
	ASSERT_EQ(EPERM, ret);
}

/* REQ: CREATE-12 RULE-29 STRPOL-2 5.6 */
TEST_F(create, create_flush_policy_is_einval)
{
	trace_attr_t a;
	trace_id_t trid;
	int ret;

	ASSERT_EQ(0, posix_trace_attr_init(&a));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&a, ST_SMALL_STREAM));
	/* Accepted by the attribute object ... */
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&a,
							   POSIX_TRACE_FLUSH));
	/* ... but invalid for a stream without log. */
	ret = posix_trace_create(0, &a, &trid);
	if (!ret)
		held_add(self, trid);
	ASSERT_EQ(EINVAL, ret);
	posix_trace_attr_destroy(&a);
}

/* REQ: CREATE-2 (implementation: uninitialised attributes are invalid) */
TEST_F(create, create_uninitialized_attr_is_einval)
{
	trace_attr_t a;
	trace_id_t trid;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = posix_trace_create(0, &a, &trid);
	if (!ret)
		held_add(self, trid);
	ASSERT_EQ(EINVAL, ret);
}

/* REQ: CREATE-10 5.2 */
TEST_F(create, create_beyond_trace_sys_max_is_eagain)
{
	long max = st_trace_sys_max();
	trace_id_t trid;
	int created, ret;

	ASSERT_GE(max, _POSIX_TRACE_SYS_MAX);
	if (!lift_user_cap(self, max))
		ST_SKIP("max_streams_per_user is below TRACE_SYS_MAX");
	/* One stream already held counts against the limit. */
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ret = fill_streams(self, max, &created);
	ASSERT_EQ(EAGAIN, ret) TH_LOG("after %d streams", created + 1);
	ASSERT_EQ(max, created + 1);

	/* A shut-down stream frees its slot, exactly one. */
	ASSERT_EQ(0, posix_trace_shutdown(self->trids[--self->ntrids]));
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(EAGAIN, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
}

/* REQ: CREATE-10 5.2 RULE-78 SHUT-8 */
TEST_F(create, trace_sys_max_counts_streams_of_all_processes)
{
	long max = st_trace_sys_max();
	trace_id_t trid;
	int created, other;

	ASSERT_GE(max, _POSIX_TRACE_SYS_MAX);
	if (!lift_user_cap(self, max))
		ST_SKIP("max_streams_per_user is below TRACE_SYS_MAX");
	ASSERT_EQ(0, st_agent_start(&self->ag[0]));
	ASSERT_EQ(0, st_agent_op(&self->ag[0], STA_CREATE, 0, ST_SMALL_STREAM,
				 0, &other));
	ASSERT_EQ(EAGAIN, fill_streams(self, max, &created));
	ASSERT_EQ(max - 1, created);
	/* The other controller exits: its stream is shut down. */
	st_agent_kill(&self->ag[0]);
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(EAGAIN, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
}

/* REQ: CREATE-1 STRSIZE-1 (ENOMEM/EINVAL for an impossible size) */
TEST_F(create, create_impossible_stream_size_fails_cleanly)
{
	trace_attr_t a;
	trace_id_t trid;
	int ret;

	ASSERT_EQ(0, posix_trace_attr_init(&a));
	ret = posix_trace_attr_setstreamsize(&a, SIZE_MAX / 2);
	if (ret == 0) {
		ret = posix_trace_create(0, &a, &trid);
		if (!ret)
			held_add(self, trid);
		ASSERT_TRUE(ret == ENOMEM || ret == EINVAL)
			TH_LOG("create with SIZE_MAX/2 returned %d", ret);
	} else {
		ASSERT_EQ(EINVAL, ret);
	}
	posix_trace_attr_destroy(&a);
	/* Nothing leaked: a normal stream can still be created. */
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &trid));
	held_add(self, trid);
}

/* REQ: CREATE-7 5.5 RULE-83 */
TEST_F(create, create_trids_are_positive_and_distinct)
{
	trace_id_t t[8];
	int i, j;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &t[i]));
		held_add(self, t[i]);
		ASSERT_GT(t[i], 0);
		for (j = 0; j < i; j++) {
			ASSERT_NE(t[j], t[i]);
		}
	}
}

/* REQ: SHUT-4 RULE-81 RULE-83 */
TEST_F(create, shut_down_trid_is_not_reissued)
{
	trace_id_t old, t;
	struct posix_trace_status_info st;
	int i;

	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &old));
	ASSERT_EQ(0, posix_trace_shutdown(old));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &t));
		held_add(self, t);
		ASSERT_NE(old, t);
	}
	ASSERT_EQ(EINVAL, posix_trace_get_status(old, &st));
}

/* REQ: MODEL-2 EVENT-1 CREATE-10 RULE-1 */
TEST_F(create, multiple_streams_on_self_each_receive_all_events)
{
	trace_id_t t[3];
	struct st_ev ev;
	uint32_t i;
	int s;

	for (s = 0; s < 3; s++) {
		ASSERT_EQ(0, st_create(0, 65536, 0, 0, &t[s]));
		held_add(self, t[s]);
		ASSERT_EQ(0, st_start_and_skip(t[s]));
	}
	for (i = 0; i < 10; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
	for (s = 0; s < 3; s++) {
		for (i = 0; i < 10; i++) {
			uint32_t v;

			ASSERT_EQ(0, st_try(t[s], &ev));
			ASSERT_EQ(0, ev.unavailable)
				TH_LOG("stream %d lacks event %u", s, i);
			ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT,
				  ev.info.posix_event_id);
			ASSERT_EQ(sizeof(v), ev.len);
			memcpy(&v, ev.data, sizeof(v));
			ASSERT_EQ(i, v);
		}
		ASSERT_EQ(0, st_try(t[s], &ev));
		ASSERT_NE(0, ev.unavailable);
	}
}

/* REQ: MODEL-2 CREATE-10 EVENT-1 EVENT-4 */
TEST_F(create, several_controllers_trace_one_process)
{
	struct st_agent *target = &self->ag[0];
	int ctl_trid[2], tpid, matches, all, bad, c, i;
	trace_event_id_t id;
	trace_id_t trid;
	struct st_ev ev;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(target));
	/* Let sibling controllers attach under Yama ptrace_scope 1. */
	st_agent_set_ptracer(target, PR_SET_PTRACER_ANY);
	ASSERT_EQ(0, st_agent_op(target, STA_GETPID, 0, 0, 0, &tpid));
	ASSERT_EQ(target->pid, tpid);

	ASSERT_EQ(0, st_create(tpid, 65536, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(0, st_start_and_skip(trid));
	for (c = 0; c < 2; c++) {
		struct st_agent *ctl = &self->ag[1 + c];

		ASSERT_EQ(0, st_agent_start(ctl));
		ASSERT_EQ(0, st_agent_op(ctl, STA_CREATE, tpid, 65536, 0,
					 &ctl_trid[c]));
		ASSERT_EQ(0, st_agent_op(ctl, STA_START, ctl_trid[c], 0, 0,
					 NULL));
	}

	ASSERT_EQ(0, st_agent_eventid_open(target, "several-controllers",
					   &id));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, st_agent_event(target, id, i, NULL));
	}

	for (i = 0; i < 5; i++) {
		char want[16];

		snprintf(want, sizeof(want), "ev%d", i);
		ASSERT_EQ(0, st_try(trid, &ev));
		ASSERT_EQ(0, ev.unavailable);
		ASSERT_TRUE(posix_trace_eventid_equal(trid, id,
						      ev.info.posix_event_id));
		ASSERT_EQ(tpid, ev.info.posix_pid);
		ASSERT_EQ(strlen(want), ev.len);
		ASSERT_EQ(0, memcmp(want, ev.data, ev.len));
	}
	ASSERT_EQ(0, st_try(trid, &ev));
	ASSERT_NE(0, ev.unavailable);

	for (c = 0; c < 2; c++) {
		ASSERT_EQ(0, st_agent_drain_call(&self->ag[1 + c], ctl_trid[c],
						 id, tpid, &matches, &all,
						 &bad));
		EXPECT_EQ(5, matches) TH_LOG("controller %d", c);
		EXPECT_EQ(0, bad) TH_LOG("controller %d", c);
		/* The controller's own START plus the five events. */
		EXPECT_EQ(6, all) TH_LOG("controller %d", c);
	}
}

static int cmp_trid(const void *a, const void *b)
{
	trace_id_t x = *(const trace_id_t *)a, y = *(const trace_id_t *)b;

	return x < y ? -1 : x > y;
}

/* 1000 creates: minutes on the KASAN kernel under TCG. */
/* REQ: RULE-81 RULE-83 5.20 */
TEST_F_TIMEOUT(create, trids_are_not_reused_over_many_create_shutdown_cycles, 300)
{
	enum { CYCLES = 1000 };
	trace_id_t *t = calloc(CYCLES, sizeof(*t));
	int i;

	ASSERT_NE(NULL, t);
	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &t[i]));
		ASSERT_EQ(0, posix_trace_shutdown(t[i]));
	}
	qsort(t, CYCLES, sizeof(*t), cmp_trid);
	for (i = 1; i < CYCLES; i++) {
		ASSERT_NE(t[i - 1], t[i]) TH_LOG("trid %d issued twice", t[i]);
	}
	free(t);
}

/* REQ: CREATE-6 EVENT-4 5.16 (pids as seen from the controller) */
TEST_F(create, posix_pid_is_the_pid_in_the_controllers_pid_namespace)
{
	struct st_agent *inner = &self->ag[0];
	int inner_pid, inner_trid, matches, all, bad;
	trace_id_t trid;
	struct st_ev ev;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	/* The next child is pid 1 of a new pid namespace. */
	ASSERT_EQ(0, st_agent_start(inner));
	ASSERT_EQ(0, st_agent_op(inner, STA_GETPID, 0, 0, 0, &inner_pid));
	ASSERT_EQ(1, inner_pid);

	ASSERT_EQ(0, st_create(inner->pid, 65536, 0, 0, &trid));
	held_add(self, trid);
	ASSERT_EQ(0, st_start_and_skip(trid));
	/* The inner process traces itself too. */
	ASSERT_EQ(0, st_agent_op(inner, STA_CREATE, 0, 65536, 0, &inner_trid));
	ASSERT_EQ(0, st_agent_op(inner, STA_START, inner_trid, 0, 0, NULL));
	ASSERT_EQ(0, st_agent_event(inner, POSIX_TRACE_UNNAMED_USEREVENT, 0,
				    NULL));

	/* Outside: the pid we know it by. */
	ASSERT_EQ(0, st_try(trid, &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(inner->pid, ev.info.posix_pid);
	/* Inside: pid 1, for its own event and its own START. */
	ASSERT_EQ(0, st_agent_drain_call(inner, inner_trid,
					 POSIX_TRACE_UNNAMED_USEREVENT, 1,
					 &matches, &all, &bad));
	EXPECT_EQ(1, matches);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(2, all);
	/* From inside, our pid names no process. */
	if (getpid() > 1) {
		EXPECT_EQ(ESRCH, st_agent_op(inner, STA_CREATE_PROBE, getpid(),
					     0, 0, NULL));
	}
}

TEST_HARNESS_MAIN
