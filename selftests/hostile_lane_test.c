// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_lane_test - a traced process less trusted than its controller
 * (run as root, the traced child becomes nobody; run as nobody, both are)
 * writes what it likes into its own writer lane, at any time, while the
 * controller reads (Documentation/design.md, "Writer lanes", Trust).  The
 * controller's reader must never crash, stall or deliver a record the
 * stream would not have recorded (a filtered type, a time it was not
 * running), and reports losses only as the lane can really have had them,
 * with the lane's pid.  Also the library's own writer: a thread's first
 * event in a signal handler, fork() in a handler that interrupted a lane
 * write, and a first event whose open() of the device fails for a while.
 *
 * Issue 19, items 12, 16 and 17 (library).  The host side of the same
 * reader checks: tests/unit/test_lanes.c, test_writer_signals.c.
 */
#include "pt_selftest.h"
#include "st_lane.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/time.h>

#define U		POSIX_TRACE_UNNAMED_USEREVENT
#define HL_FILTERED	(U + 7)		/* the type the controller filters out */
#define HL_NOBODY	65534
#define HL_MAGIC	0x484c5431u
#define HL_REC		ST_ROUND8(ST_REC_HDR + sizeof(struct hl_pay))
#define HL_WAIT_MS	20000
/* A read returns within its deadline plus the in-flight bound twice
 * (libtrace/inflight.c: 2 s) and slack for a loaded VM. */
#define HL_READ_MAX_NS	(5 * ST_NSEC_PER_SEC)
#define DRAIN_CALLS	100000
/* Tags of the payloads: honest events, forged records the stream would
 * have taken (they may pass), and forged records it would not have. */
#define T_HONEST	0
#define T_MAY		2000
#define T_NEVER		9000

struct hl_pay {
	uint32_t magic;
	uint32_t tag;
};

/* Shared by the controller and its traced child. */
struct hl {
	atomic_int ready;	/* child: credentials dropped */
	atomic_int go;		/* parent: the stream traces the child */
	atomic_int step;	/* parent: the child may do step n */
	atomic_int done;	/* child: step n done */
	atomic_int stop;	/* parent: the child stops */
	uint64_t ts;		/* a time the child took for the parent */
	uint64_t ring;		/* the child's lane: ring bytes */
	int err;
};

FIXTURE(hostile) {
	trace_id_t trid;
	pid_t child;
	struct hl *x;
};

FIXTURE_SETUP(hostile)
{
	ST_REQUIRE_MODULE();
	self->x = st_shared_area(4096);
	ASSERT_NE(NULL, self->x);
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->x)
		munmap(self->x, 4096);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void hl_event(uint32_t tag)
{
	struct hl_pay p = { .magic = HL_MAGIC, .tag = tag };

	posix_trace_event(U, &p, sizeof(p));
}

/* A record a writer might have written, at @pos of lane @l. */
static void hl_put(const struct st_lane *l, uint64_t pos, uint32_t id,
		   uint64_t ts, uint32_t tag)
{
	struct hl_pay p = { .magic = HL_MAGIC, .tag = tag };

	st_lane_record(l, pos, id, ts, &p, sizeof(p));
}

/* Forge a record at the lane's head and commit it. */
static void hl_forge(const struct st_lane *l, uint32_t id, uint64_t ts, uint32_t tag)
{
	struct hl_pay p = { .magic = HL_MAGIC, .tag = tag };

	st_lane_forge(l, id, ts, &p, sizeof(p));
}

/*
 * The traced child: no core dumps, nobody if we are root, then @fn once
 * the stream traces it.  Exit code: @fn's, or 150+ for a setup failure.
 */
static pid_t hl_fork(struct hl *x, int (*fn)(struct hl *))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	st_no_core_dumps();
	if (geteuid() == 0 && st_set_creds(HL_NOBODY, HL_NOBODY, 1))
		_exit(150);
	atomic_store(&x->ready, 1);
	if (!st_wait_flag(&x->go, 1, HL_WAIT_MS))
		_exit(151);
	_exit(fn(x));
}

/* Fork the child and trace it with a started stream (START skipped); the
 * filter, if @filter, is set first. */
static void hl_start(struct __test_metadata *_metadata, FIXTURE_DATA(hostile) *self,
		     int (*fn)(struct hl *), size_t size, int policy, bool filter)
{
	trace_event_set_t set;

	ST_REQUIRE_TRACE_CHILDREN();
	self->child = hl_fork(self->x, fn);
	ASSERT_GT(self->child, 0);
	ASSERT_TRUE(st_wait_flag(&self->x->ready, 1, HL_WAIT_MS));
	ASSERT_EQ(0, st_create(self->child, size, policy, 64, &self->trid));
	if (filter) {
		ASSERT_EQ(0, posix_trace_eventset_empty(&set));
		ASSERT_EQ(0, posix_trace_eventset_add(HL_FILTERED, &set));
		ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
						    POSIX_TRACE_SET_EVENTSET));
	}
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	atomic_store(&self->x->go, 1);
}

/* Let the child do step @n and wait until it did. */
static bool hl_step(struct hl *x, int n)
{
	atomic_store(&x->step, n);
	return st_wait_flag(&x->done, n, HL_WAIT_MS);
}

static int hl_child_exit(FIXTURE_DATA(hostile) *self)
{
	int code;

	atomic_store(&self->x->stop, 1);
	code = st_wait_child(self->child);
	self->child = -1;
	return code;
}

/* What a drain of the child's stream saw. */
struct hl_seen {
	int honest, may, never, other_user;
	int filtered;		/* of the type the controller filters out */
	int error, overflow, resume, start, stop, filter;
	int bad_pid;		/* user, ERROR, OVERFLOW, RESUME not the child's */
	int bad;		/* anything else */
	int calls;
	bool ended;
	char first_bad[128];
};

static void hl_count(struct hl_seen *s, const struct st_ev *ev, pid_t child)
{
	trace_event_id_t id = ev->info.posix_event_id;
	struct hl_pay p = { 0 };
	bool mine = ev->info.posix_pid == child;

	if (id == POSIX_TRACE_START || id == POSIX_TRACE_STOP ||
	    id == POSIX_TRACE_FILTER) {
		s->start += id == POSIX_TRACE_START;
		s->stop += id == POSIX_TRACE_STOP;
		s->filter += id == POSIX_TRACE_FILTER;
		return;
	}
	if (id == POSIX_TRACE_ERROR || id == POSIX_TRACE_OVERFLOW ||
	    id == POSIX_TRACE_RESUME) {
		s->error += id == POSIX_TRACE_ERROR;
		s->overflow += id == POSIX_TRACE_OVERFLOW;
		s->resume += id == POSIX_TRACE_RESUME;
		s->bad_pid += !mine;
		return;
	}
	if (id < U) {
		if (!s->bad++)
			snprintf(s->first_bad, sizeof(s->first_bad), "%s", st_ev_desc(ev));
		return;
	}
	s->bad_pid += !mine;
	s->filtered += id == HL_FILTERED;
	if (ev->len == sizeof(p))
		memcpy(&p, ev->data, sizeof(p));
	if (p.magic != HL_MAGIC)
		s->other_user++;
	else if (p.tag >= T_NEVER || id == HL_FILTERED)
		s->never++;
	else if (p.tag >= T_MAY)
		s->may++;
	else
		s->honest++;
}

/* trygetnext until "unavailable", at most DRAIN_CALLS calls. */
static int hl_drain(trace_id_t trid, pid_t child, struct hl_seen *s)
{
	struct st_ev ev;
	int ret;

	memset(s, 0, sizeof(*s));
	while (s->calls < DRAIN_CALLS) {
		s->calls++;
		ret = st_try(trid, &ev);
		if (ret)
			return ret;
		if (ev.unavailable) {
			s->ended = true;
			return 0;
		}
		hl_count(s, &ev, child);
	}
	return 0;
}

#define HL_LOG(s)							\
	TH_LOG("%d honest, %d may, %d never, %d other, %d ERROR, %d OVERFLOW, " \
	       "%d RESUME, %d START, %d STOP, %d bad pid, %d bad%s%s, %d calls%s", \
	       (s)->honest, (s)->may, (s)->never, (s)->other_user, (s)->error, \
	       (s)->overflow, (s)->resume, (s)->start, (s)->stop, (s)->bad_pid, \
	       (s)->bad, (s)->bad ? ": " : "", (s)->first_bad, (s)->calls, \
	       (s)->ended ? "" : ", NOT ENDED")

/* ------------------------------------------------------------------ */
/* 1. Positions off the 8-byte grid (item 12)                          */
/* ------------------------------------------------------------------ */

/* oldest and head, as offsets from the ring size S: the case
 * first (today's reader then loads 8 bytes at ring + S - 1), then other
 * positions whose record or timestamp would cross the end of the ring.
 * Each case is in a lap of its own (4 S apart), so that its oldest is
 * past wherever the reader stopped before. */
static const struct { int64_t oldest, head; } hl_grid[] = {
	{ -33, -1 }, { -128, -39 }, { -100, -33 }, { -41, 130 }, { -44, 20 },
	{ -47, 64 + 9 }, { -108, 64 }, { -4, 4 }, { 3, 131 }, { -1, 7 },
};
#define HL_GRID ((int)(sizeof(hl_grid) / sizeof(hl_grid[0])))

/* Step 2k + 1: case k; step 2k + 2: the head moves on 3 S. */
static int hl_grid_child(struct hl *x)
{
	struct st_lane l;
	uint64_t s, base, o, ts;
	int k;

	hl_event(T_HONEST);
	if (!st_find_the_lane(&l))
		return 160;
	s = l.size;
	atomic_store(&x->done, 1);
	for (k = 0; k < HL_GRID; k++) {
		if (!st_wait_flag(&x->step, 2 * k + 2, HL_WAIT_MS))
			return 161;
		base = 4 * s * (uint64_t)(k + 1);
		o = base + s + (uint64_t)hl_grid[k].oldest;
		ts = st_now_ns(CLOCK_MONOTONIC);
		/* Two records that look right from the claimed oldest on. */
		hl_put(&l, o, U, ts, T_MAY + (uint32_t)k);
		hl_put(&l, o + HL_REC, U, ts, T_MAY + (uint32_t)k);
		__atomic_store_n(&l.ctl->oldest, o, __ATOMIC_RELEASE);
		__atomic_store_n(&l.ctl->head, base + s + (uint64_t)hl_grid[k].head,
				 __ATOMIC_RELEASE);
		atomic_store(&x->done, 2 * k + 2);
		if (!st_wait_flag(&x->step, 2 * k + 3, HL_WAIT_MS))
			return 162;
		__atomic_store_n(&l.ctl->head, base + 3 * s, __ATOMIC_RELEASE);
		atomic_store(&x->done, 2 * k + 3);
	}
	return st_wait_flag(&x->stop, 1, HL_WAIT_MS) ? 0 : 163;
}

/*
 * A PROT_NONE page right after the reader's mapping of the child's lane,
 * so that a load past the end of its ring faults instead of reading the
 * next mapping unseen.  The kernel places a new mapping at the top of the
 * highest hole it fits in: every hole between the mappings is filled for
 * the time of the read that maps the lane (hl_fill()), the guard goes to
 * the top of what is left, and the lane right below it.
 */
#define HL_FILLS	128

struct hl_fill {
	void *at[HL_FILLS];
	size_t len[HL_FILLS];
	int n;
	void *guard;
};

/* Fill the holes between the mappings above the heap (below the stack). */
static void hl_fill(struct hl_fill *f)
{
	unsigned long start, end, prev = 0;
	char line[512];
	FILE *m = fopen("/proc/self/maps", "re");
	void *p;

	f->n = 0;
	while (m && fgets(line, sizeof(line), m) && f->n < HL_FILLS) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		if (strstr(line, "[stack]"))
			break;
		if (prev && start > prev && !strstr(line, "[heap]")) {
			p = mmap((void *)prev, start - prev, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p != MAP_FAILED) {
				f->at[f->n] = p;
				f->len[f->n++] = start - prev;
			}
		}
		/* Holes above the heap only: below it is the program. */
		prev = strstr(line, "[heap]") || prev ? end : 0;
	}
	if (m)
		fclose(m);
	f->guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void hl_unfill(struct hl_fill *f)
{
	while (f->n--)
		munmap(f->at[f->n], f->len[f->n]);
}

/* Is the page after the reader's mapping of the lane the guard? */
static bool hl_guarded(const struct hl_fill *f)
{
	struct st_lane l;

	return st_find_the_lane(&l) && l.ring + l.size == (const uint8_t *)f->guard;
}

/* REQ: 5.24 (a traced process cannot crash its controller) */
TEST_F_TIMEOUT(hostile, a_lane_position_off_the_8_byte_grid_never_crashes_its_controller, 300)
{
	struct hl_fill fill;
	struct hl_seen s;
	struct st_ev ev;
	uint64_t t;
	int k;

	hl_start(_metadata, self, hl_grid_child, 16384, POSIX_TRACE_LOOP, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	hl_fill(&fill);
	ASSERT_NE(MAP_FAILED, fill.guard);
	/* The reader maps the lane here. */
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	hl_unfill(&fill);
	EXPECT_EQ(1, s.honest) HL_LOG(&s);
	TH_LOG("guard page after the lane: %s", hl_guarded(&fill) ? "yes" :
	       "no, an overread would go unseen");
	for (k = 0; k < 2 * HL_GRID; k++) {
		ASSERT_TRUE(hl_step(self->x, k + 2));
		/* Today's reader took SIGSEGV here, at the first case. */
		ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
		EXPECT_TRUE(s.ended) HL_LOG(&s);
		EXPECT_EQ(0, s.bad) HL_LOG(&s);
		EXPECT_EQ(0, s.bad_pid) HL_LOG(&s);
	}
	/* Nothing is left that looks like data: a timed read times out. */
	t = st_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(ETIMEDOUT, st_timed_ms(self->trid, &ev, 100)) TH_LOG("%s", st_ev_desc(&ev));
	EXPECT_GT(HL_READ_MAX_NS, st_now_ns(CLOCK_MONOTONIC) - t);
	EXPECT_EQ(0, hl_child_exit(self));
	munmap(fill.guard, 4096);
}

/* ------------------------------------------------------------------ */
/* 2. Filtered types (item 16)                                         */
/* ------------------------------------------------------------------ */

#define HL_FORGED	20

static int hl_filter_child(struct hl *x)
{
	struct st_lane l;
	uint64_t before;
	uint32_t i;

	for (i = 0; i < 5; i++)
		hl_event(T_HONEST + i);
	if (!st_find_the_lane(&l))
		return 160;
	for (i = 0; i < HL_FORGED; i++)
		hl_forge(&l, i % 2 ? HL_FILTERED : U, st_now_ns(CLOCK_MONOTONIC),
			 (i % 2 ? T_NEVER : T_MAY) + i);
	/* A time before the controller filters U + 8 out too. */
	before = st_now_ns(CLOCK_MONOTONIC);
	atomic_store(&x->done, 1);
	if (!st_wait_flag(&x->step, 2, HL_WAIT_MS))
		return 161;
	hl_forge(&l, HL_FILTERED + 1, before, T_MAY + 100);
	hl_forge(&l, HL_FILTERED + 1, st_now_ns(CLOCK_MONOTONIC), T_NEVER + 100);
	atomic_store(&x->done, 2);
	return st_wait_flag(&x->stop, 1, HL_WAIT_MS) ? 0 : 162;
}

/* REQ: EVENT-1 EVENT-3 SETFILT-6 (the filter holds for records a writer forges) */
TEST_F(hostile, records_of_filtered_types_forged_into_a_lane_are_not_delivered)
{
	trace_event_set_t set;
	struct hl_seen s;

	hl_start(_metadata, self, hl_filter_child, 65536, POSIX_TRACE_LOOP, true);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	/* Today's reader: the 10 forged records of the filtered type too. */
	EXPECT_EQ(0, s.never) HL_LOG(&s);
	EXPECT_EQ(5, s.honest) HL_LOG(&s);
	EXPECT_EQ(HL_FORGED / 2, s.may) HL_LOG(&s);
	EXPECT_EQ(0, s.bad + s.bad_pid) HL_LOG(&s);

	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(HL_FILTERED + 1, &set));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_TRUE(hl_step(self->x, 2));
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	/* Stamped before the change: the filter of that time lets it in. */
	EXPECT_EQ(1, s.filter) HL_LOG(&s);
	EXPECT_EQ(1, s.may) HL_LOG(&s);
	EXPECT_EQ(0, s.never) HL_LOG(&s);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* ------------------------------------------------------------------ */
/* 3. Records outside a run (item 16)                                  */
/* ------------------------------------------------------------------ */

static int hl_stop_child(struct hl *x)
{
	uint64_t t_run, t_stopped;
	struct st_lane l;
	uint32_t i;

	for (i = 0; i < 3; i++)
		hl_event(T_HONEST + i);
	if (!st_find_the_lane(&l))
		return 160;
	t_run = st_now_ns(CLOCK_MONOTONIC);
	atomic_store(&x->done, 1);
	/* The controller stopped the stream. */
	if (!st_wait_flag(&x->step, 2, HL_WAIT_MS))
		return 161;
	for (i = 0; i < 5; i++)
		hl_forge(&l, U, st_now_ns(CLOCK_MONOTONIC), T_NEVER + i);
	for (i = 0; i < 2; i++)
		hl_forge(&l, U, t_run, T_MAY + i);	/* late, from the run */
	t_stopped = st_now_ns(CLOCK_MONOTONIC);
	atomic_store(&x->done, 2);
	/* The controller started it again. */
	if (!st_wait_flag(&x->step, 3, HL_WAIT_MS))
		return 162;
	for (i = 0; i < 3; i++)
		hl_forge(&l, U, t_stopped, T_NEVER + 10 + i);
	for (i = 0; i < 2; i++)
		hl_forge(&l, U, st_now_ns(CLOCK_MONOTONIC), T_MAY + 10 + i);
	atomic_store(&x->done, 3);
	return st_wait_flag(&x->stop, 1, HL_WAIT_MS) ? 0 : 163;
}

/* REQ: EVENT-3 RULE-10 (a stopped stream takes nothing from a lane) */
TEST_F(hostile, records_forged_into_a_lane_while_the_stream_is_stopped_are_not_delivered)
{
	struct hl_seen s;

	hl_start(_metadata, self, hl_stop_child, 65536, POSIX_TRACE_LOOP, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_TRUE(hl_step(self->x, 2));
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	/* Today's reader: the 5 records stamped after STOP too. */
	EXPECT_EQ(1, s.stop) HL_LOG(&s);
	EXPECT_EQ(3, s.honest) HL_LOG(&s);
	EXPECT_EQ(2, s.may) HL_LOG(&s);
	EXPECT_EQ(0, s.never) HL_LOG(&s);

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_TRUE(hl_step(self->x, 3));
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	/* Written while running, stamped while stopped: not taken either. */
	EXPECT_EQ(1, s.start) HL_LOG(&s);
	EXPECT_EQ(2, s.may) HL_LOG(&s);
	EXPECT_EQ(0, s.never) HL_LOG(&s);
	EXPECT_EQ(0, s.bad + s.bad_pid) HL_LOG(&s);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* ------------------------------------------------------------------ */
/* 4. Losses (item 16)                                                 */
/* ------------------------------------------------------------------ */

#define HL_CLAIMS	90

/* The lane is far from full; it claims, again and again, that the next
 * record the reader would read was lost, at a time of its choosing. */
static int hl_claim_child(struct hl *x)
{
	struct st_lane l;
	uint64_t tail;
	int k;

	for (k = 0; k < 2 * HL_CLAIMS + 10; k++)
		hl_event(T_HONEST + (uint32_t)k);
	if (!st_find_the_lane(&l))
		return 160;
	atomic_store(&x->done, 1);
	for (k = 0; k < HL_CLAIMS; k++) {
		if (!st_wait_flag(&x->step, k + 2, HL_WAIT_MS))
			return 161;
		tail = __atomic_load_n(&l.ctl->tail, __ATOMIC_ACQUIRE);
		__atomic_store_n(&l.ctl->lost_timestamp, 12345 + (uint64_t)k,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&l.ctl->lost_seq, tail / HL_REC, __ATOMIC_RELEASE);
		__atomic_store_n(&l.ctl->oldest, tail + HL_REC, __ATOMIC_RELEASE);
		atomic_store(&x->done, k + 2);
	}
	return st_wait_flag(&x->stop, 1, HL_WAIT_MS) ? 0 : 162;
}

/* REQ: RULE-17 5.24 (losses a lane cannot have had are not reported) */
TEST_F(hostile, a_lane_cannot_make_its_controller_report_losses_at_will)
{
	struct hl_seen s, all = { 0 };
	uint64_t t0 = st_now_ns(CLOCK_MONOTONIC);
	struct st_ev ev;
	int k;

	hl_start(_metadata, self, hl_claim_child, 65536, POSIX_TRACE_LOOP, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	for (k = 0; k < HL_CLAIMS; k++) {
		ASSERT_TRUE(hl_step(self->x, k + 2));
		memset(&s, 0, sizeof(s));
		ASSERT_EQ(0, st_try(self->trid, &ev));
		if (!ev.unavailable)
			hl_count(&s, &ev, self->child);
		all.overflow += s.overflow;
		all.resume += s.resume;
		all.error += s.error;
		all.bad_pid += s.bad_pid;
		all.bad += s.bad;
	}
	ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
	all.overflow += s.overflow;
	all.resume += s.resume;
	all.error += s.error;
	/* Today's reader: one OVERFLOW/RESUME pair, pid 0, per claim. */
	EXPECT_EQ(0, all.overflow) HL_LOG(&all);
	EXPECT_EQ(0, all.resume) HL_LOG(&all);
	/* One ERROR a second at most, with the writer's pid. */
	EXPECT_GE(1 + (int)((st_now_ns(CLOCK_MONOTONIC) - t0) / ST_NSEC_PER_SEC),
		  all.error) HL_LOG(&all);
	EXPECT_EQ(0, all.bad_pid + all.bad) HL_LOG(&all);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* A LOOP writer laps its reader three times over. */
static int hl_lap_child(struct hl *x)
{
	uint32_t i;

	for (i = 0; i < 3 * 65536 / HL_REC; i++)
		hl_event(T_HONEST + i);
	atomic_store(&x->done, 1);
	return st_wait_flag(&x->stop, 1, HL_WAIT_MS) ? 0 : 162;
}

/* REQ: RULE-8 RULE-9 RULE-17 */
TEST_F(hostile, a_real_loss_of_a_lane_is_reported_once_with_the_writer_pid)
{
	struct st_ev ev;
	int calls, overflow = 0, resume = 0, user = 0;

	hl_start(_metadata, self, hl_lap_child, 65536, POSIX_TRACE_LOOP, false);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	for (calls = 0; calls < DRAIN_CALLS; calls++) {
		ASSERT_EQ(0, st_try(self->trid, &ev));
		if (ev.unavailable)
			break;
		if (st_is(&ev, POSIX_TRACE_OVERFLOW) || st_is(&ev, POSIX_TRACE_RESUME)) {
			overflow += st_is(&ev, POSIX_TRACE_OVERFLOW);
			resume += st_is(&ev, POSIX_TRACE_RESUME);
			/* Today's reader: pid 0. */
			EXPECT_EQ(self->child, ev.info.posix_pid) TH_LOG("%s", st_ev_desc(&ev));
			continue;
		}
		ASSERT_TRUE(st_is(&ev, U)) TH_LOG("%s", st_ev_desc(&ev));
		user++;
	}
	EXPECT_EQ(1, overflow);
	EXPECT_EQ(1, resume);
	EXPECT_LT(0, user);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* ------------------------------------------------------------------ */
/* 5. A forger rewriting its lane over time (fuzz)                     */
/* ------------------------------------------------------------------ */

#define HL_FUZZ_NS	(5 * ST_NSEC_PER_SEC)
#define HL_RUN_MS	100		/* the controller stops and starts */
#define HL_WINDOWS	128
#define HL_READ_MS	100

static uint64_t hl_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Near the reader's position, often off the 8-byte grid. */
static uint64_t hl_fuzz_pos(const struct st_lane *l, uint64_t r)
{
	uint64_t tail = __atomic_load_n(&l->ctl->tail, __ATOMIC_ACQUIRE);

	switch (r % 5) {
	case 0:
		return tail + (r >> 8) % (2 * l->size);
	case 1:
		return tail - (r >> 8) % 256;
	case 2:
		return (tail + (r >> 8) % l->size) & ~(uint64_t)7;
	case 3:
		return ((tail / l->size + 1) * l->size) - (r >> 8) % 128;
	default:
		return r >> 3;
	}
}

/* One hostile step on lane @l. */
static void hl_fuzz_step(const struct st_lane *l, uint64_t *seed)
{
	uint64_t r = hl_rand(seed), now = st_now_ns(CLOCK_MONOTONIC);
	uint64_t ts = now - (r >> 16) % 50000000u;
	uint32_t id = r & 16 ? HL_FILTERED : U;

	switch (r % 8) {
	case 0:
	case 1:
		hl_forge(l, id, r % 11 ? ts : now + ST_NSEC_PER_SEC,
			 id == HL_FILTERED ? T_NEVER : T_MAY);
		break;
	case 2:
		__atomic_store_n(&l->ctl->head, hl_fuzz_pos(l, r >> 3), __ATOMIC_RELEASE);
		break;
	case 3:
		__atomic_store_n(&l->ctl->oldest, hl_fuzz_pos(l, r >> 3), __ATOMIC_RELEASE);
		break;
	case 4:
		__atomic_store_n(&l->ctl->inflight_ts, r % 3 ? now : r >> 20,
				 __ATOMIC_RELEASE);
		break;
	case 5:
		l->ring[(r >> 8) % l->size] = (uint8_t)(r >> 32);
		break;
	case 6:
		__atomic_store_n(&l->ctl->lost_seq, r >> 40, __ATOMIC_RELAXED);
		__atomic_store_n(&l->ctl->lost_timestamp, r % 2 ? ts : r >> 1,
				 __ATOMIC_RELEASE);
		break;
	default:
		__atomic_store_n(&l->ctl->tail, hl_fuzz_pos(l, r >> 3), __ATOMIC_RELEASE);
	}
}

/* An honest thread of the traced child: events in a lane of its own. */
static void *hl_honest(void *p)
{
	struct hl *x = p;
	uint32_t i = 1;

	while (!atomic_load(&x->stop)) {
		hl_event(T_HONEST + i % T_MAY);
		i++;
		usleep(200);
	}
	return NULL;
}

/* The forger: this thread's lane, rewritten at random until told to
 * stop, while another thread records honestly. */
static int hl_fuzz_child(struct hl *x)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid(), steps = 0;
	struct st_lane l;
	pthread_t th;

	hl_event(T_HONEST);
	if (!st_find_the_lane(&l))
		return 160;
	if (pthread_create(&th, NULL, hl_honest, x))
		return 161;
	atomic_store(&x->done, 1);
	while (!atomic_load(&x->stop)) {
		hl_fuzz_step(&l, &seed);
		if (!(++steps % 64))
			sched_yield();
	}
	pthread_join(th, NULL);
	return 0;
}

/* Run windows of the stream, from its START and STOP events. */
struct hl_runs {
	uint64_t on[HL_WINDOWS], off[HL_WINDOWS];
	int n;
};

static void hl_runs_note(struct hl_runs *w, const struct st_ev *ev)
{
	uint64_t ts = st_ts_ns(&ev->info.posix_timestamp);

	if (st_is(ev, POSIX_TRACE_START) && w->n < HL_WINDOWS)
		w->on[w->n++] = ts;
	else if (st_is(ev, POSIX_TRACE_STOP) && w->n)
		w->off[w->n - 1] = ts;
}

/* Was the stream running at @ts, give or take ST_TS_SLACK_NS at a STOP
 * (a record stamped just after it, read before it was visible, is taken
 * as the kernel's own lanes may take one racing a stop)? */
static bool hl_runs_has(const struct hl_runs *w, uint64_t ts)
{
	int k;

	for (k = 0; k < w->n; k++) {
		if (ts >= w->on[k] && (!w->off[k] || ts < w->off[k] + ST_TS_SLACK_NS))
			return true;
	}
	return false;
}

/* REQ: EVENT-1 EVENT-3 RULE-10 5.24 (a lane rewritten while read) */
TEST_F_TIMEOUT(hostile, a_forger_rewriting_its_lane_over_time_gets_nothing_through_and_stalls_nothing, 300)
{
	struct hl_runs runs = { .n = 1 };
	uint64_t t0, last, t, call, slowest = 0, user_ts[4096];
	int nuser = 0, outside = 0, k, ret, running = 1;
	struct hl_seen s = { 0 };
	struct st_ev ev;

	hl_start(_metadata, self, hl_fuzz_child, 16384, POSIX_TRACE_LOOP, true);
	runs.on[0] = 0;		/* the skipped START: running from the start */
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	t0 = last = st_now_ns(CLOCK_MONOTONIC);
	while ((t = st_now_ns(CLOCK_MONOTONIC)) - t0 < HL_FUZZ_NS) {
		if (t - last >= HL_RUN_MS * 1000000ULL) {
			ASSERT_EQ(0, running ? posix_trace_stop(self->trid) :
					       posix_trace_start(self->trid));
			running = !running;
			last = t;
		}
		ret = st_timed_ms(self->trid, &ev, HL_READ_MS);
		call = st_now_ns(CLOCK_MONOTONIC) - t;
		if (call > slowest)
			slowest = call;
		if (ret == ETIMEDOUT)
			continue;
		ASSERT_EQ(0, ret);
		hl_runs_note(&runs, &ev);
		hl_count(&s, &ev, self->child);
		if (ev.info.posix_event_id >= U && nuser < 4096)
			user_ts[nuser++] = st_ts_ns(&ev.info.posix_timestamp);
	}
	TH_LOG("%d windows; slowest read %llu ms", runs.n,
	       (unsigned long long)(slowest / 1000000));
	HL_LOG(&s);
	for (k = 0; k < nuser; k++)
		outside += !hl_runs_has(&runs, user_ts[k]);
	/* Today's reader: SIGSEGV, or filtered and stopped-time records.
	 * (Random bytes may turn any record into another of its own.) */
	EXPECT_EQ(0, s.filtered);
	EXPECT_LT(0, s.honest);
	EXPECT_EQ(0, outside);
	EXPECT_EQ(0, s.bad + s.bad_pid);
	EXPECT_GT(HL_READ_MAX_NS, slowest);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* ------------------------------------------------------------------ */
/* 6. fork() in a handler that interrupted a lane write (item 17)      */
/* ------------------------------------------------------------------ */

#define FK_CHILDREN	40

static volatile sig_atomic_t fk_is_child, fk_n;
static volatile pid_t fk_pid[FK_CHILDREN];

/* The child returns into whatever the signal interrupted. */
static void fk_handler(int sig)
{
	pid_t pid;

	(void)sig;
	if (fk_is_child || fk_n >= FK_CHILDREN)
		return;
	pid = fork();
	if (pid == 0)
		fk_is_child = 1;
	else if (pid > 0)
		fk_pid[fk_n++] = pid;
}

/* REQ: EVENT-6 RULE-95 (fork() in a handler: the child writes no lane of its parent's) */
TEST_F_TIMEOUT(hostile, fork_in_a_handler_that_interrupted_a_lane_write_leaves_a_working_child, 120)
{
	struct itimerval it = { { 0, 700 }, { 0, 700 } }, off = { { 0, 0 }, { 0, 0 } };
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) + 60 * ST_NSEC_PER_SEC;
	struct sigaction sa;
	uint8_t data[2048];
	int i, code, bad = 0;

	/* Long writes, and a timer of user time: the signal comes while the
	 * library runs, mostly in the middle of a lane write. */
	memset(data, 'x', sizeof(data));
	ASSERT_EQ(0, st_create(0, 1 << 20, POSIX_TRACE_LOOP, 4096, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fk_handler;
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGVTALRM, &sa, NULL));
	st_no_core_dumps();
	ASSERT_EQ(0, setitimer(ITIMER_VIRTUAL, &it, NULL));
	while (fk_n < FK_CHILDREN && st_now_ns(CLOCK_MONOTONIC) < end) {
		posix_trace_event(U, data, sizeof(data));
		if (fk_is_child) {
			/* It runs on: more events, then out. */
			for (i = 0; i < 100; i++)
				posix_trace_event(U, data, sizeof(data));
			_exit(0);
		}
	}
	setitimer(ITIMER_VIRTUAL, &off, NULL);
	signal(SIGVTALRM, SIG_DFL);
	for (i = 0; i < fk_n; i++) {
		code = st_wait_child(fk_pid[i]);
		if (code && !bad++)
			TH_LOG("child %d: %s %d", i, code >= 1000 ? "signal" : "exit",
			       code >= 1000 ? code - 1000 : code);
	}
	TH_LOG("%d children forked in a handler", (int)fk_n);
	EXPECT_LT(0, fk_n);
	/* Today's library: some die of SIGSEGV in their parent's lane. */
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------------------------ */
/* 7. The first event's open() failing for a while (item 17)           */
/* ------------------------------------------------------------------ */

static int hl_emfile_child(struct hl *x)
{
	struct rlimit saved, rl;
	int fd, n = 0;

	/* The child's first event, with no descriptor left. */
	if (getrlimit(RLIMIT_NOFILE, &saved))
		return 160;
	fd = dup(0);
	rl = saved;
	rl.rlim_cur = fd >= 0 ? (rlim_t)fd : 3;
	if (fd >= 0)
		close(fd);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 161;
	hl_event(T_HONEST);
	if (setrlimit(RLIMIT_NOFILE, &saved))
		return 162;
	atomic_store(&x->done, 1);
	if (!st_wait_flag(&x->step, 2, HL_WAIT_MS))
		return 163;
	/* Traced now: the events must get through, sooner or later. */
	while (!atomic_load(&x->stop) && n < 20000) {
		hl_event(T_HONEST + 1 + (uint32_t)(n % 1000));
		usleep(1000);
		n++;
	}
	return 0;
}

/* REQ: EVENT-1 (a passing open() failure is not "untraced" for life) */
TEST_F_TIMEOUT(hostile, an_open_failing_with_emfile_on_the_first_event_is_tried_again, 120)
{
	struct hl_seen s;
	int k, got = 0;

	ST_REQUIRE_TRACE_CHILDREN();
	/* The child must open the device itself: fork before we do. */
	self->child = hl_fork(self->x, hl_emfile_child);
	ASSERT_GT(self->child, 0);
	ASSERT_TRUE(st_wait_flag(&self->x->ready, 1, HL_WAIT_MS));
	atomic_store(&self->x->go, 1);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, HL_WAIT_MS));
	ASSERT_EQ(0, st_create(self->child, 65536, POSIX_TRACE_LOOP, 64, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	atomic_store(&self->x->step, 2);
	for (k = 0; k < 300 && !got; k++) {
		st_sleep_ms(10);
		ASSERT_EQ(0, hl_drain(self->trid, self->child, &s));
		got += s.honest;
	}
	/* Today's library: none, ever (the process counts as untraced). */
	EXPECT_LT(0, got);
	EXPECT_EQ(0, hl_child_exit(self));
}

/* ------------------------------------------------------------------ */
/* 8. A thread's first event in a signal handler (item 17)             */
/* ------------------------------------------------------------------ */

/*
 * selftests/hostile_first_event: makes 40 pthread keys, then dlopen()s
 * the library, so the library's key is past the 32 glibc keeps in a
 * thread's descriptor; a new thread's first event is then recorded from
 * a signal handler.  Its exit code is the number of calloc() calls made
 * inside the handler (its own calloc() sees glibc's too).
 */
static void hl_helper_path(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = '\0';
	slash = strrchr(buf, '/');
	if (slash && (size_t)(slash - buf) + 1 + strlen(name) < len)
		strcpy(slash + 1, name);
}

/* REQ: EVENT-6 MODEL-47 RULE-95 (posix_trace_event() is async-signal-safe) */
TEST_F_TIMEOUT(hostile, a_thread_s_first_event_in_a_signal_handler_allocates_nothing, 120)
{
	char helper[PATH_MAX], lib[PATH_MAX], go_fd[16];
	int p[2], code;
	struct hl_seen s;
	char c;

	ST_REQUIRE_TRACE_CHILDREN();
	hl_helper_path(helper, sizeof(helper), "hostile_first_event");
	hl_helper_path(lib, sizeof(lib), "../libtrace/libposixtrace.so.1");
	ASSERT_EQ(0, access(helper, X_OK)) TH_LOG("%s", helper);
	ASSERT_EQ(0, pipe(p));
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (!self->child) {
		close(p[1]);
		snprintf(go_fd, sizeof(go_fd), "%d", p[0]);
		if (geteuid() == 0 && st_set_creds(HL_NOBODY, HL_NOBODY, 1))
			_exit(150);
		execl(helper, helper, lib, go_fd, (char *)NULL);
		_exit(151);
	}
	close(p[0]);
	/* Traced before it loads the library: it then writes a lane. */
	st_sleep_ms(100);
	ASSERT_EQ(0, st_create(self->child, 65536, POSIX_TRACE_LOOP, 64, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	c = 'g';
	ASSERT_EQ(1, write(p[1], &c, 1));
	close(p[1]);
	code = st_wait_child(self->child);
	self->child = -1;
	/* Today's library: 1 (pthread_setspecific() allocated). */
	EXPECT_EQ(0, code) TH_LOG("exit code %d: calloc() calls in the handler, or 150+", code);
	ASSERT_EQ(0, hl_drain(self->trid, 0, &s));
	EXPECT_EQ(1, s.other_user) HL_LOG(&s);
}

TEST_HARNESS_MAIN
