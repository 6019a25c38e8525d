// SPDX-License-Identifier: GPL-2.0
/*
 * limits_test - per-user limits (issue 4, "Limits and accounting"): streams
 * per user (EAGAIN), stream memory per user (ENOMEM at create; a writer
 * lane beyond it is not opened and events take the ioctl path), event
 * names per user (the unnamed id, as at TRACE_USER_EVENT_MAX), each at the
 * module's default and, as root, with a lowered parameter; another user's
 * usage does not count against mine; stream memory is charged to the
 * creator's memory cgroup.
 */
#include "pt_selftest.h"

#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define MAX_TRIDS	300
#define UID_A		54321
#define UID_B		54322
#define CGROOT		"/sys/fs/cgroup"
#define CG		CGROOT "/pt_limits"

FIXTURE(limits) {
	int fd;
	trace_id_t trid[MAX_TRIDS];
	int n;
	/* parameters a test lowered, restored by the teardown */
	const char *param[3];
	unsigned long saved[3];
	int nparams;
};

FIXTURE_SETUP(limits)
{
	ST_REQUIRE_MODULE();
	self->fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(limits)
{
	int i;

	for (i = 0; i < self->n; i++)
		posix_trace_shutdown(self->trid[i]);
	for (i = 0; i < self->nparams; i++)
		st_param_write(self->param[i], self->saved[i]);
	if (self->fd >= 0)
		close(self->fd);
}

/* Lower parameter @name to @v until the teardown (root only). */
static int lower(struct _test_data_limits *self, const char *name, unsigned long v)
{
	unsigned long old;

	if (st_param_read(name, &old))
		return -1;
	self->param[self->nparams] = name;
	self->saved[self->nparams++] = old;
	return st_param_write(name, v);
}

static unsigned long param(const char *name)
{
	unsigned long v = 0;

	st_param_read(name, &v);
	return v;
}

/* Create small streams on ourselves until one fails: that error. */
static int create_until_error(struct _test_data_limits *self)
{
	int ret = 0;

	while (self->n < MAX_TRIDS) {
		ret = st_create(0, ST_SMALL_STREAM, 0, 0, &self->trid[self->n]);
		if (ret)
			break;
		self->n++;
	}
	return ret;
}

/* A stream through the raw ioctl, which reports the buffer sizes. */
static int raw_create(int fd, uint64_t size, struct posix_trace_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->stream_policy = POSIX_TRACE_POLICY_LOOP;
	c->stream_size = size;
	c->max_data_size = 64;
	return ioctl(fd, POSIX_TRACE_IOC_CREATE, c) ? errno : 0;
}

static int raw_shutdown(int fd, uint32_t trid)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = trid };

	return ioctl(fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl) ? errno : 0;
}

/* Bytes charged for a stream's own buffers. */
static uint64_t charged(const struct posix_trace_create *c)
{
	return c->ro_size + c->cons_size;
}

/*
 * In a child running as @uid: create small streams until one fails and
 * exit with their number, or 200 + the failure's errno if that is not
 * EAGAIN.  Then hold them until hold[1] closes.
 */
static pid_t streams_as(uid_t uid, int report, const int hold[2])
{
	pid_t pid = fork();
	trace_id_t trid;
	int n = 0, ret;
	char c;

	if (pid)
		return pid;
	close(hold[1]);
	if (st_set_creds(uid, uid, 1))
		_exit(255);
	while (!(ret = st_create(0, ST_SMALL_STREAM, 0, 0, &trid)))
		n++;
	c = ret == EAGAIN ? n : 200 + ret;
	if (write(report, &c, 1) != 1)
		_exit(254);
	if (read(hold[0], &c, 1) < 0)
		_exit(253);
	_exit(0);
}

/* REQ: issue 4 (per-user stream cap: EAGAIN) */
TEST_F(limits, streams_per_user_cap_at_default_gives_eagain_until_one_is_shut_down)
{
	unsigned long cap = param("max_streams_per_user");
	long sys_max = st_trace_sys_max();
	struct posix_trace_stats st;

	ASSERT_LT(0ul, cap);
	if ((long)cap >= sys_max || cap >= MAX_TRIDS)
		ST_SKIP("max_streams_per_user %lu not below TRACE_SYS_MAX %ld", cap, sys_max);
	ASSERT_EQ(EAGAIN, create_until_error(self));
	EXPECT_EQ((int)cap, self->n);
	/* The system still has streams left: the cap is the user's. */
	ASSERT_EQ(0, st_stats(&st));
	EXPECT_GT(sys_max, (long)st.active_streams);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid[--self->n]));
	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &self->trid[self->n]));
	self->n++;
}

TEST_F(limits, lowered_streams_per_user_cap_gives_eagain)
{
	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, lower(self, "max_streams_per_user", 3));
	ASSERT_EQ(EAGAIN, create_until_error(self));
	EXPECT_EQ(3, self->n);
}

/* REQ: issue 4 (limits are per user) */
TEST_F(limits, another_users_streams_do_not_count_against_mine)
{
	int report[2], hold[2], status;
	pid_t a, b;
	char na, nb;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, lower(self, "max_streams_per_user", 2));
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	a = streams_as(UID_A, report[1], hold);
	ASSERT_LT(0, a);
	ASSERT_EQ(1, read(report[0], &na, 1));
	/* A holds its two streams while B and root create theirs. */
	b = streams_as(UID_B, report[1], hold);
	ASSERT_LT(0, b);
	ASSERT_EQ(1, read(report[0], &nb, 1));
	EXPECT_EQ(EAGAIN, create_until_error(self));
	close(hold[1]);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_EQ(b, waitpid(b, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(2, na);
	EXPECT_EQ(2, nb);
	EXPECT_EQ(2, self->n);
	close(report[0]);
	close(report[1]);
	close(hold[0]);
}

/*
 * REQ: issue 4 (per-user memory cap: ENOMEM).  Streams of the largest size
 * until one fails: exactly as many as fit in max_user_memory.
 */
TEST_F(limits, memory_per_user_cap_at_default_gives_enomem_at_create)
{
	struct posix_trace_query q = { .size = sizeof(q) };
	unsigned long cap = param("max_user_memory");
	struct posix_trace_create c[64];
	uint64_t per = 0;
	int i, n = 0, ret = 0;

	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_QUERY, &q));
	ASSERT_LT(0ul, cap);
	if (cap / (q.max_stream_size * q.nr_lanes) > 16)
		ST_SKIP("max_user_memory %lu is more than 16 streams", cap);
	while (n < 64 && !(ret = raw_create(self->fd, q.max_stream_size, &c[n]))) {
		per = charged(&c[n]);
		n++;
	}
	for (i = 0; i < n; i++)
		raw_shutdown(self->fd, c[i].trid);
	EXPECT_EQ(ENOMEM, ret);
	ASSERT_LT(0u, per);
	EXPECT_EQ((int)(cap / per), n);
}

TEST_F(limits, lowered_memory_cap_gives_enomem_and_shutdown_gives_it_back)
{
	struct posix_trace_create c, big;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	ASSERT_EQ(0, raw_shutdown(self->fd, c.trid));
	/* Room for one small stream and no more. */
	ASSERT_EQ(0, lower(self, "max_user_memory", charged(&c) + charged(&c) / 2));
	EXPECT_EQ(ENOMEM, raw_create(self->fd, 1 << 20, &big));
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	EXPECT_EQ(ENOMEM, raw_create(self->fd, 4096, &big));
	/* Shut down and unmapped: the memory is the user's again. */
	ASSERT_EQ(0, raw_shutdown(self->fd, c.trid));
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	EXPECT_EQ(0, raw_shutdown(self->fd, c.trid));
}

/*
 * A stream with log holds two log blocks (64 KiB each by default, up to
 * 16 MiB) besides its own buffers: they count against max_user_memory
 * too.  Before the fix a cap with room for the stream alone let the
 * stream with log be created (issue 19, item 6).
 */
TEST_F(limits, a_log_s_block_buffers_count_against_the_memory_cap)
{
	char path[] = "/tmp/pt-limits-log-XXXXXX";
	struct posix_trace_create c, withlog;
	int logfd;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	ASSERT_EQ(0, raw_shutdown(self->fd, c.trid));
	/* Room for the stream's buffers, not for two 64 KiB blocks more. */
	ASSERT_EQ(0, lower(self, "max_user_memory", charged(&c) + 65536));
	logfd = mkstemp(path);
	ASSERT_LE(0, logfd);
	unlink(path);
	memset(&withlog, 0, sizeof(withlog));
	withlog.size = sizeof(withlog);
	withlog.flags = POSIX_TRACE_CREATE_LOG;
	withlog.stream_policy = POSIX_TRACE_POLICY_LOOP;
	withlog.stream_size = 4096;
	withlog.max_data_size = 64;
	withlog.log_fd = logfd;
	withlog.log_policy = POSIX_TRACE_LOG_APPEND;
	if (!ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &withlog)) {
		raw_shutdown(self->fd, withlog.trid);
		close(logfd);
		ASSERT_TRUE(false) TH_LOG("a stream with log fit in %llu bytes",
					  (unsigned long long)(charged(&c) + 65536));
	}
	EXPECT_EQ(ENOMEM, errno);
	close(logfd);
	/* The stream alone still fits, and the failure gave back its charge. */
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	EXPECT_EQ(0, raw_shutdown(self->fd, c.trid));
}

/* A mapping keeps the memory charged until munmap(). */
TEST_F(limits, mapped_shut_down_stream_stays_charged_until_unmapped)
{
	struct posix_trace_create c, again;
	void *p;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, raw_create(self->fd, 4096, &c));
	ASSERT_EQ(0, lower(self, "max_user_memory", charged(&c) + charged(&c) / 2));
	p = mmap(NULL, c.ro_size, PROT_READ, MAP_SHARED, self->fd, c.ro_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, raw_shutdown(self->fd, c.trid));
	EXPECT_EQ(ENOMEM, raw_create(self->fd, 4096, &again));
	ASSERT_EQ(0, munmap(p, c.ro_size));
	ASSERT_EQ(0, raw_create(self->fd, 4096, &again));
	EXPECT_EQ(0, raw_shutdown(self->fd, again.trid));
}

/*
 * REQ: issue 4 (a writer lane beyond the memory cap is not opened).  The
 * raw ioctl says ENOMEM; the library records through the kernel instead,
 * so no event is lost.
 */
TEST_F(limits, writer_lane_over_memory_cap_is_refused_and_events_still_recorded)
{
	struct posix_trace_writer w = { .size = sizeof(w) };
	struct posix_trace_stats before, after;
	struct st_ev ev;
	trace_id_t trid;
	uint64_t i;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, st_create(0, 64 << 10, 0, 0, &trid));
	self->trid[self->n++] = trid;
	/* Charges already made stay; any new one is refused. */
	ASSERT_EQ(0, lower(self, "max_user_memory", 1));
	w.trid = trid;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_WRITER_OPEN, &w));
	EXPECT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, st_stats(&before));
	ASSERT_EQ(0, st_start_and_skip(trid));
	st_record_seq(0, 100);
	ASSERT_EQ(0, st_stats(&after));
	EXPECT_EQ(before.writers, after.writers);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, st_try(trid, &ev));
		ASSERT_TRUE(st_is(&ev, POSIX_TRACE_UNNAMED_USEREVENT));
		EXPECT_EQ(i, st_seq_of(&ev));
	}
	/* With room again, the next lane opens. */
	ASSERT_EQ(0, st_param_write("max_user_memory", self->saved[0]));
	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.trid = trid;
	EXPECT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_WRITER_OPEN, &w));
}

/*
 * In a child running as @uid (or as we are, @uid 0): register names
 * "<tag>-<i>" for i < @n; exit with 0 if all got their own id, else 1 +
 * the index of the first that got the unnamed id (at most 250).  Then,
 * holding the names, wait for hold[1] to close when @hold is not NULL.
 */
static pid_t names_as(uid_t uid, const char *tag, int n, int report,
		      const int *hold)
{
	pid_t pid = fork();
	trace_event_id_t id, again;
	char name[64], c = 0;
	int i;

	if (pid)
		return pid;
	if (hold)
		close(hold[1]);
	if (uid && st_set_creds(uid, uid, 1))
		_exit(255);
	for (i = 0; i < n && !c; i++) {
		snprintf(name, sizeof(name), "%s-%d", tag, i);
		if (posix_trace_eventid_open(name, &id))
			_exit(254);
		if (id == POSIX_TRACE_UNNAMED_USEREVENT)
			c = i < 249 ? i + 1 : 250;
	}
	/* A name registered before the limit keeps its id. */
	snprintf(name, sizeof(name), "%s-0", tag);
	if (n && (posix_trace_eventid_open(name, &again) ||
		  (c != 1 && again == POSIX_TRACE_UNNAMED_USEREVENT)))
		_exit(252);
	if (write(report, &c, 1) != 1)
		_exit(251);
	if (hold && read(hold[0], &c, 1) < 0)
		_exit(250);
	_exit(0);
}

/* REQ: issue 4 (per-user name cap), EVOPEN-4 (the unnamed id at a limit) */
TEST_F(limits, lowered_names_per_user_cap_gives_unnamed_id_other_user_unaffected)
{
	int report[2], status;
	pid_t a, b;
	char ra, rb;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, lower(self, "max_names_per_user", 10));
	ASSERT_EQ(0, pipe(report));
	a = names_as(UID_A, "a", 20, report[1], NULL);
	ASSERT_LT(0, a);
	ASSERT_EQ(1, read(report[0], &ra, 1));
	b = names_as(UID_B, "b", 10, report[1], NULL);
	ASSERT_LT(0, b);
	ASSERT_EQ(1, read(report[0], &rb, 1));
	ASSERT_EQ(a, waitpid(a, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_EQ(b, waitpid(b, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(11, ra);	/* the 11th new name got the unnamed id */
	EXPECT_EQ(0, rb);	/* B's ten names all got ids */
	close(report[0]);
	close(report[1]);
}

/*
 * At the default: processes of ours each register 1000 names (below
 * TRACE_USER_EVENT_MAX) and hold them; some process must get the unnamed
 * id before its 1000th name once the user holds max_names_per_user.
 */
TEST_F(limits, names_per_user_cap_at_default_gives_unnamed_id)
{
	unsigned long cap = param("max_names_per_user");
	int report[2], hold[2], i, nproc, total = 0, limited = 0;
	pid_t pids[64];
	char r;

	ASSERT_LT(0ul, cap);
	nproc = cap / 1000 + 1;
	if (nproc > 64)
		ST_SKIP("max_names_per_user %lu too large to reach", cap);
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(hold));
	for (i = 0; i < nproc; i++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "p%d", i);
		pids[i] = names_as(0, tag, 1000, report[1], hold);
		ASSERT_LT(0, pids[i]);
		ASSERT_EQ(1, read(report[0], &r, 1));
		if (r) {
			limited++;
			total += r - 1;
		} else {
			total += 1000;
		}
	}
	close(hold[1]);
	for (i = 0; i < nproc; i++)
		waitpid(pids[i], NULL, 0);
	EXPECT_EQ(1, limited);
	EXPECT_GE((int)cap, total);
	close(report[0]);
	close(report[1]);
	close(hold[0]);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = errno;
	close(fd);
	return ret;
}

/*
 * REQ: issue 4 (memory charged to the creator's memory cgroup).  In a
 * cgroup with memory.max 32 MiB, a stream of 2 x 64 MiB lanes fails with
 * ENOMEM (not the OOM killer); outside it the same stream is created.
 */
TEST_F(limits, stream_memory_is_charged_to_the_creators_memory_cgroup)
{
	struct posix_trace_query q = { .size = sizeof(q) };
	struct posix_trace_create c;
	int status, ret;
	char buf[32];
	pid_t pid;

	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_QUERY, &q));
	if (q.max_stream_size * q.nr_lanes < (64ULL << 20))
		ST_SKIP("max_stream_size too small to pass 32 MiB");
	if (access(CGROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROOT, "cgroup2", 0, NULL))
		ST_SKIP("no cgroup2: %s", strerror(errno));
	if (write_file(CGROOT "/cgroup.subtree_control", "+memory"))
		ST_SKIP("no memory controller");
	if (mkdir(CG, 0755) && errno != EEXIST)
		ST_SKIP("mkdir %s: %s", CG, strerror(errno));
	ASSERT_EQ(0, write_file(CG "/memory.max", "32M"));
	ASSERT_EQ(0, raw_create(self->fd, q.max_stream_size, &c));
	ASSERT_EQ(0, raw_shutdown(self->fd, c.trid));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		snprintf(buf, sizeof(buf), "%d", getpid());
		if (write_file(CG "/cgroup.procs", buf))
			_exit(1);
		ret = raw_create(self->fd, q.max_stream_size, &c);
		if (!ret)
			raw_shutdown(self->fd, c.trid);
		_exit(ret == ENOMEM ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	rmdir(CG);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
