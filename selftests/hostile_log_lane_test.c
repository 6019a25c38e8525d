// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_log_lane_test - a traced process less trusted than its
 * controller (run as root, the traced child becomes nobody; run as
 * nobody, both are) writes what it likes into its own writer lane of a
 * stream with a log.  The module's flusher is then the lane's only reader
 * (kmod/drain.c), and what it copies into the log must follow the rule
 * the library's reader follows (Documentation/design.md, "Writer lanes",
 * Trust): no record of a type filtered out at its time, none stamped
 * while the stream was not running or later than the flush, and losses
 * only as the lane can really have had them, with the lane's pid.
 *
 * Issue 19, item 16, the kernel side (the reader's side is
 * hostile_lane_test).  Each test reads the log back after the shutdown
 * with posix_trace_open() and getnext.
 */
#include "pt_selftest.h"
#include "st_lane.h"

#include <stdatomic.h>

#define U		POSIX_TRACE_UNNAMED_USEREVENT
#define HG_FILTERED	(U + 7)		/* the type the controller filters out */
#define HG_NOBODY	65534
#define HG_MAGIC	0x484c4f47u
#define HG_REC		ST_ROUND8(ST_REC_HDR + sizeof(struct hg_pay))
#define HG_WAIT_MS	20000
#define HG_STREAM	65536
#define DRAIN_CALLS	100000
/* Tags of the payloads: honest events, events through the ioctl path
 * (kernel lanes), forged records the stream would have taken (they may
 * reach the log), and forged records it would not have (they must not). */
#define T_HONEST	0
#define T_FLOOD		1000
#define T_MAY		2000
#define T_NEVER		9000

struct hg_pay {
	uint32_t magic;
	uint32_t tag;
};

/* Shared by the controller and its traced child. */
struct hg {
	atomic_int ready;	/* child: credentials dropped */
	atomic_int go;		/* parent: the stream traces the child */
	atomic_int step;	/* parent: the child may do step n */
	atomic_int done;	/* child: step n done */
	atomic_int stop;	/* parent: the child stops */
};

FIXTURE(hlog) {
	trace_id_t trid;
	pid_t child;
	pid_t pid;		/* the child's, after it is reaped too */
	int fd;
	struct hg *x;
};

FIXTURE_SETUP(hlog)
{
	char path[] = "/tmp/pt-hostile-log-XXXXXX";

	ST_REQUIRE_MODULE();
	self->x = st_shared_area(4096);
	ASSERT_NE(NULL, self->x);
	self->fd = mkstemp(path);
	ASSERT_LE(0, self->fd);
	unlink(path);
}

FIXTURE_TEARDOWN(hlog)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->fd >= 0)
		close(self->fd);
	if (self->x)
		munmap(self->x, 4096);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uint64_t hg_now(void)
{
	return st_now_ns(CLOCK_MONOTONIC);
}

static void hg_event(uint32_t tag)
{
	struct hg_pay p = { .magic = HG_MAGIC, .tag = tag };

	posix_trace_event(U, &p, sizeof(p));
}

/* Forge a record at the lane's head, as a writer might have written it,
 * and commit it. */
static void hg_forge(const struct st_lane *l, uint32_t id, uint64_t ts, uint32_t tag)
{
	struct hg_pay p = { .magic = HG_MAGIC, .tag = tag };

	st_lane_forge(l, id, ts, &p, sizeof(p));
}

/* The traced child: no core dumps, nobody if we are root, then @fn once
 * the stream traces it.  Exit code: @fn's, or 150+ for a setup failure. */
static pid_t hg_fork(struct hg *x, int (*fn)(struct hg *))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	st_no_core_dumps();
	if (geteuid() == 0 && st_set_creds(HG_NOBODY, HG_NOBODY, 1))
		_exit(150);
	atomic_store(&x->ready, 1);
	if (!st_wait_flag(&x->go, 1, HG_WAIT_MS))
		_exit(151);
	_exit(fn(x));
}

/* Fork the child and trace it with a started stream with log; the
 * filter, if @filter, is set first. */
static void hg_start(struct __test_metadata *_metadata, FIXTURE_DATA(hlog) *self,
		     int (*fn)(struct hg *), bool filter)
{
	trace_event_set_t set;
	trace_attr_t a;

	ST_REQUIRE_TRACE_CHILDREN();
	self->child = hg_fork(self->x, fn);
	ASSERT_GT(self->child, 0);
	self->pid = self->child;
	ASSERT_TRUE(st_wait_flag(&self->x->ready, 1, HG_WAIT_MS));
	ASSERT_EQ(0, st_attr_make(&a, HG_STREAM, POSIX_TRACE_LOOP, 64));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(self->child, &a, self->fd,
						&self->trid));
	posix_trace_attr_destroy(&a);
	if (filter) {
		ASSERT_EQ(0, posix_trace_eventset_empty(&set));
		ASSERT_EQ(0, posix_trace_eventset_add(HG_FILTERED, &set));
		ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
						    POSIX_TRACE_SET_EVENTSET));
	}
	ASSERT_EQ(0, posix_trace_start(self->trid));
	atomic_store(&self->x->go, 1);
}

/* Let the child do step @n and wait until it did. */
static bool hg_step(struct hg *x, int n)
{
	atomic_store(&x->step, n);
	return st_wait_flag(&x->done, n, HG_WAIT_MS);
}

static int hg_child_exit(FIXTURE_DATA(hlog) *self)
{
	int code;

	atomic_store(&self->x->stop, 1);
	code = st_wait_child(self->child);
	self->child = -1;
	return code;
}

/* What the log held. */
struct hg_seen {
	int honest, flood, may, never, other_user;
	int error, overflow, resume, start, stop, filter, flush;
	int bad_pid;		/* user, ERROR, OVERFLOW, RESUME not the child's */
	int pid0_loss;		/* OVERFLOW or RESUME with pid 0 */
	int bad;		/* anything else */
	int calls;
	bool ended;
	char first_bad[128];
};

static void hg_count(struct hg_seen *s, const struct st_ev *ev, pid_t child)
{
	trace_event_id_t id = ev->info.posix_event_id;
	struct hg_pay p = { 0 };
	bool mine = ev->info.posix_pid == child;

	switch (id) {
	case POSIX_TRACE_START:
	case POSIX_TRACE_STOP:
	case POSIX_TRACE_FILTER:
	case POSIX_TRACE_FLUSH_START:
	case POSIX_TRACE_FLUSH_STOP:
		s->start += id == POSIX_TRACE_START;
		s->stop += id == POSIX_TRACE_STOP;
		s->filter += id == POSIX_TRACE_FILTER;
		s->flush += id != POSIX_TRACE_START && id != POSIX_TRACE_STOP &&
			    id != POSIX_TRACE_FILTER;
		return;
	case POSIX_TRACE_ERROR:
	case POSIX_TRACE_OVERFLOW:
	case POSIX_TRACE_RESUME:
		s->error += id == POSIX_TRACE_ERROR;
		s->overflow += id == POSIX_TRACE_OVERFLOW;
		s->resume += id == POSIX_TRACE_RESUME;
		s->pid0_loss += id != POSIX_TRACE_ERROR && !ev->info.posix_pid;
		s->bad_pid += !mine;
		return;
	}
	if (id < U) {
		if (!s->bad++)
			snprintf(s->first_bad, sizeof(s->first_bad), "%s", st_ev_desc(ev));
		return;
	}
	s->bad_pid += !mine;
	if (ev->len == sizeof(p))
		memcpy(&p, ev->data, sizeof(p));
	if (p.magic != HG_MAGIC)
		s->other_user++;
	else if (p.tag >= T_NEVER || id == HG_FILTERED)
		s->never++;
	else if (p.tag >= T_MAY)
		s->may++;
	else if (p.tag >= T_FLOOD)
		s->flood++;
	else
		s->honest++;
}

/* Shut the stream down and read its whole log. */
static int hg_read_log(FIXTURE_DATA(hlog) *self, struct hg_seen *s)
{
	trace_id_t ltrid;
	struct st_ev ev;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = posix_trace_shutdown(self->trid);
	self->trid = 0;
	if (ret)
		return ret;
	ret = posix_trace_open(self->fd, &ltrid);
	if (ret)
		return ret;
	while (s->calls < DRAIN_CALLS) {
		s->calls++;
		ret = st_get(ltrid, &ev);
		if (ret)
			break;
		if (ev.unavailable) {
			s->ended = true;
			break;
		}
		hg_count(s, &ev, self->pid);
	}
	posix_trace_close(ltrid);
	return ret;
}

#define HG_LOG(s)							\
	TH_LOG("%d honest, %d flood, %d may, %d never, %d other, %d ERROR, " \
	       "%d OVERFLOW, %d RESUME (%d with pid 0), %d START, %d STOP, " \
	       "%d FILTER, %d bad pid, %d bad%s%s, %d calls%s",		\
	       (s)->honest, (s)->flood, (s)->may, (s)->never, (s)->other_user, \
	       (s)->error,						\
	       (s)->overflow, (s)->resume, (s)->pid0_loss, (s)->start,	\
	       (s)->stop, (s)->filter, (s)->bad_pid, (s)->bad,		\
	       (s)->bad ? ": " : "", (s)->first_bad, (s)->calls,	\
	       (s)->ended ? "" : ", NOT ENDED")

/* ------------------------------------------------------------------ */
/* Filtered types                                                      */
/* ------------------------------------------------------------------ */

#define HG_FORGED	20

static int hg_filter_child(struct hg *x)
{
	struct st_lane l;
	uint64_t before;
	uint32_t i;

	for (i = 0; i < 5; i++)
		hg_event(T_HONEST + i);
	if (!st_find_the_lane(&l))
		return 160;
	for (i = 0; i < HG_FORGED; i++)
		hg_forge(&l, i % 2 ? HG_FILTERED : U, hg_now(),
			 (i % 2 ? T_NEVER : T_MAY) + i);
	/* A time before the controller filters U + 8 out too. */
	before = hg_now();
	atomic_store(&x->done, 1);
	if (!st_wait_flag(&x->step, 2, HG_WAIT_MS))
		return 161;
	hg_forge(&l, HG_FILTERED + 1, before, T_MAY + 100);
	hg_forge(&l, HG_FILTERED + 1, hg_now(), T_NEVER + 100);
	/* Of a type the stream takes, but from a time still to come. */
	hg_forge(&l, U, hg_now() + 30 * ST_NSEC_PER_SEC, T_NEVER + 101);
	atomic_store(&x->done, 2);
	return st_wait_flag(&x->stop, 1, HG_WAIT_MS) ? 0 : 162;
}

/* REQ: EVENT-1 EVENT-3 SETFILT-6 (the filter holds for records a writer forges) */
TEST_F(hlog, records_of_filtered_types_forged_into_a_lane_never_reach_the_log)
{
	trace_event_set_t set;
	struct hg_seen s;

	hg_start(_metadata, self, hg_filter_child, true);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HG_WAIT_MS));
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(HG_FILTERED + 1, &set));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_TRUE(hg_step(self->x, 2));
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	EXPECT_EQ(0, hg_child_exit(self));
	ASSERT_EQ(0, hg_read_log(self, &s));
	EXPECT_TRUE(s.ended) HG_LOG(&s);
	/* Before the fix: the 10 forged records of the filtered type, the
	 * one of the type filtered out later, and the one from the future,
	 * 12 in all. */
	EXPECT_EQ(0, s.never) HG_LOG(&s);
	EXPECT_EQ(5, s.honest) HG_LOG(&s);
	/* Stamped before the filter changed: the filter of that time lets
	 * it in. */
	EXPECT_EQ(HG_FORGED / 2 + 1, s.may) HG_LOG(&s);
	EXPECT_EQ(1, s.filter) HG_LOG(&s);
	EXPECT_EQ(0, s.bad + s.bad_pid + s.other_user) HG_LOG(&s);
}

/* ------------------------------------------------------------------ */
/* Records outside a run                                               */
/* ------------------------------------------------------------------ */

static int hg_stop_child(struct hg *x)
{
	uint64_t t_run, t_stopped;
	struct st_lane l;
	uint32_t i;

	for (i = 0; i < 3; i++)
		hg_event(T_HONEST + i);
	if (!st_find_the_lane(&l))
		return 160;
	t_run = hg_now();
	atomic_store(&x->done, 1);
	/* The controller stopped the stream. */
	if (!st_wait_flag(&x->step, 2, HG_WAIT_MS))
		return 161;
	for (i = 0; i < 5; i++)
		hg_forge(&l, U, hg_now(), T_NEVER + i);
	for (i = 0; i < 2; i++)
		hg_forge(&l, U, t_run, T_MAY + i);	/* late, from the run */
	t_stopped = hg_now();
	atomic_store(&x->done, 2);
	/* The controller flushed and started it again. */
	if (!st_wait_flag(&x->step, 3, HG_WAIT_MS))
		return 162;
	for (i = 0; i < 3; i++)
		hg_forge(&l, U, t_stopped, T_NEVER + 10 + i);
	for (i = 0; i < 2; i++)
		hg_forge(&l, U, hg_now(), T_MAY + 10 + i);
	atomic_store(&x->done, 3);
	/* The controller stopped it again, without a flush since. */
	if (!st_wait_flag(&x->step, 4, HG_WAIT_MS))
		return 163;
	for (i = 0; i < 4; i++)
		hg_forge(&l, U, hg_now(), T_NEVER + 20 + i);
	atomic_store(&x->done, 4);
	return st_wait_flag(&x->stop, 1, HG_WAIT_MS) ? 0 : 164;
}

/* REQ: EVENT-3 RULE-10 (a stopped stream takes nothing from a lane) */
TEST_F(hlog, records_forged_into_a_lane_while_the_stream_is_stopped_never_reach_the_log)
{
	struct hg_seen s;

	hg_start(_metadata, self, hg_stop_child, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HG_WAIT_MS));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_TRUE(hg_step(self->x, 2));
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_TRUE(hg_step(self->x, 3));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_TRUE(hg_step(self->x, 4));
	EXPECT_EQ(0, hg_child_exit(self));
	/* The rest goes to the log with the shutdown's final flush. */
	ASSERT_EQ(0, hg_read_log(self, &s));
	EXPECT_TRUE(s.ended) HG_LOG(&s);
	/* Before the fix: all 12 records stamped while stopped. */
	EXPECT_EQ(0, s.never) HG_LOG(&s);
	EXPECT_EQ(3, s.honest) HG_LOG(&s);
	/* Written late but stamped while running: taken. */
	EXPECT_EQ(4, s.may) HG_LOG(&s);
	EXPECT_EQ(2, s.start) HG_LOG(&s);
	EXPECT_EQ(2, s.stop) HG_LOG(&s);
	EXPECT_EQ(0, s.bad + s.bad_pid + s.other_user) HG_LOG(&s);
}

/* ------------------------------------------------------------------ */
/* A stop the kernel lanes lost                                        */
/* ------------------------------------------------------------------ */

/* Events through the ioctl path, from every CPU in turn, until each
 * kernel lane went round three times: the control records they held
 * (START, STOP) are overwritten before any flush.  False on a failure. */
static bool hg_flood_kernel_lanes(void)
{
	struct hg_pay p = { .magic = HG_MAGIC, .tag = T_FLOOD };
	struct posix_trace_event_req req = {
		.size = sizeof(req), .event_id = U,
		.data_ptr = (uintptr_t)&p, .data_len = sizeof(p),
	};
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), cpu, i;
	bool ok = fd >= 0;

	for (cpu = 0; ok && !st_pin_nth_cpu(cpu, NULL); cpu++)
		for (i = 0; ok && i < (int)(3 * HG_STREAM / HG_REC); i++)
			ok = !ioctl(fd, POSIX_TRACE_IOC_EVENT, &req);
	if (fd >= 0)
		close(fd);
	return ok && cpu > 0;
}

static int hg_lost_stop_child(struct hg *x)
{
	struct st_lane l;
	uint32_t i;

	for (i = 0; i < 3; i++)
		hg_event(T_HONEST + i);
	if (!st_find_the_lane(&l))
		return 160;
	atomic_store(&x->done, 1);
	/* The controller stopped the stream. */
	if (!st_wait_flag(&x->step, 2, HG_WAIT_MS))
		return 161;
	for (i = 0; i < 5; i++)
		hg_forge(&l, U, hg_now(), T_NEVER + i);
	atomic_store(&x->done, 2);
	/* The controller started it again. */
	if (!st_wait_flag(&x->step, 3, HG_WAIT_MS))
		return 162;
	if (!hg_flood_kernel_lanes())
		return 163;
	/* Forged too (the library's writer would write over the forged
	 * records: it keeps its own head), but stamped while running. */
	for (i = 0; i < 3; i++)
		hg_forge(&l, U, hg_now(), T_MAY + i);
	atomic_store(&x->done, 3);
	return st_wait_flag(&x->stop, 1, HG_WAIT_MS) ? 0 : 164;
}

/*
 * A LOOP stream's kernel lanes overwrite their START and STOP records
 * before the first flush: the flusher cannot learn from them when the
 * stream was stopped.  It still keeps out what the lane forged while it
 * was, and still takes the events stamped before and after.
 *
 * REQ: EVENT-3 RULE-10
 */
TEST_F_TIMEOUT(hlog, a_stop_the_kernel_lanes_lost_still_keeps_forged_records_out, 300)
{
	struct hg_seen s;

	hg_start(_metadata, self, hg_lost_stop_child, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HG_WAIT_MS));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_TRUE(hg_step(self->x, 2));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_TRUE(hg_step(self->x, 3));
	EXPECT_EQ(0, hg_child_exit(self));
	ASSERT_EQ(0, hg_read_log(self, &s));
	EXPECT_TRUE(s.ended) HG_LOG(&s);
	/* The kernel lanes lost records, the STOP among them. */
	EXPECT_LE(1, s.overflow) HG_LOG(&s);
	EXPECT_LT(0, s.flood) HG_LOG(&s);
	/* Before the fix: the 5 records stamped while stopped. */
	EXPECT_EQ(0, s.never) HG_LOG(&s);
	EXPECT_EQ(3, s.honest) HG_LOG(&s);
	EXPECT_EQ(3, s.may) HG_LOG(&s);
	EXPECT_EQ(0, s.bad + s.other_user) HG_LOG(&s);
}

/* ------------------------------------------------------------------ */
/* Losses                                                              */
/* ------------------------------------------------------------------ */

#define HG_CLAIMS	60

/* The lane is far from full; before each flush it writes two events and
 * claims that the first of them, the next record the flusher would read,
 * was lost, at a time of its choosing. */
static int hg_claim_child(struct hg *x)
{
	struct st_lane l;
	uint64_t tail;
	int k;

	for (k = 0; k < 10; k++)
		hg_event(T_HONEST + (uint32_t)k);
	if (!st_find_the_lane(&l))
		return 160;
	atomic_store(&x->done, 1);
	for (k = 0; k < HG_CLAIMS; k++) {
		if (!st_wait_flag(&x->step, k + 2, HG_WAIT_MS))
			return 161;
		tail = __atomic_load_n(&l.ctl->tail, __ATOMIC_ACQUIRE);
		hg_event(T_HONEST + 10 + 2 * (uint32_t)k);
		hg_event(T_HONEST + 11 + 2 * (uint32_t)k);
		__atomic_store_n(&l.ctl->lost_timestamp, 12345 + (uint64_t)k,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&l.ctl->lost_seq, tail / HG_REC, __ATOMIC_RELEASE);
		__atomic_store_n(&l.ctl->oldest, tail + HG_REC, __ATOMIC_RELEASE);
		atomic_store(&x->done, k + 2);
	}
	return st_wait_flag(&x->stop, 1, HG_WAIT_MS) ? 0 : 162;
}

/* REQ: RULE-17 5.24 (losses a lane cannot have had are not reported) */
TEST_F_TIMEOUT(hlog, a_lane_cannot_make_the_log_report_losses_at_will, 300)
{
	uint64_t t0 = hg_now();
	struct hg_seen s;
	int k;

	hg_start(_metadata, self, hg_claim_child, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HG_WAIT_MS));
	/* Each flush publishes a tail for the child to claim from. */
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	for (k = 0; k < HG_CLAIMS; k++) {
		ASSERT_TRUE(hg_step(self->x, k + 2));
		ASSERT_EQ(0, posix_trace_flush(self->trid));
	}
	EXPECT_EQ(0, hg_child_exit(self));
	ASSERT_EQ(0, hg_read_log(self, &s));
	EXPECT_TRUE(s.ended) HG_LOG(&s);
	/* Before the fix: an OVERFLOW/RESUME pair with pid 0 per claim. */
	EXPECT_EQ(0, s.overflow) HG_LOG(&s);
	EXPECT_EQ(0, s.resume) HG_LOG(&s);
	/* One ERROR a second at most, with the writer's pid. */
	EXPECT_GE(1 + (int)((hg_now() - t0) / ST_NSEC_PER_SEC), s.error) HG_LOG(&s);
	EXPECT_LE(1, s.error) HG_LOG(&s);
	/* The records the lane said it lost are gone, the others are not. */
	EXPECT_EQ(10 + HG_CLAIMS, s.honest) HG_LOG(&s);
	EXPECT_EQ(0, s.never + s.bad + s.bad_pid + s.other_user) HG_LOG(&s);
}

/* A LOOP writer laps the flusher three times over. */
static int hg_lap_child(struct hg *x)
{
	uint32_t i;

	for (i = 0; i < 3 * HG_STREAM / HG_REC; i++)
		hg_event(T_HONEST + i % 1000);
	atomic_store(&x->done, 1);
	return st_wait_flag(&x->stop, 1, HG_WAIT_MS) ? 0 : 162;
}

/* REQ: RULE-8 RULE-9 RULE-17 */
TEST_F(hlog, a_real_loss_of_a_lane_reaches_the_log_once_with_the_writer_pid)
{
	struct hg_seen s;

	hg_start(_metadata, self, hg_lap_child, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HG_WAIT_MS));
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	EXPECT_EQ(0, hg_child_exit(self));
	ASSERT_EQ(0, hg_read_log(self, &s));
	EXPECT_TRUE(s.ended) HG_LOG(&s);
	EXPECT_EQ(1, s.overflow) HG_LOG(&s);
	EXPECT_EQ(1, s.resume) HG_LOG(&s);
	/* Before the fix: pid 0. */
	EXPECT_EQ(0, s.pid0_loss) HG_LOG(&s);
	EXPECT_EQ(0, s.bad_pid) HG_LOG(&s);
	EXPECT_LT(0, s.honest) HG_LOG(&s);
	EXPECT_EQ(0, s.error + s.never + s.bad + s.other_user) HG_LOG(&s);
}

TEST_HARNESS_MAIN
