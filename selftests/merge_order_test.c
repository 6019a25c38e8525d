// SPDX-License-Identifier: GPL-2.0
/*
 * merge_order_test - the two merges of lanes order alike.
 *
 * A stream's records leave its lanes through one of two merges: the
 * library's, for posix_trace_getnext_event() on a live stream
 * (libtrace/merge.c), and the module's log worker, for a stream with log
 * (kmod/drain.c).  They stay two implementations, since what each may
 * consider differs by design (in-flight records, runs), but they order by
 * one rule (include/posix_trace/merge.h): the oldest stamp first, of equal
 * stamps the lower lane, and each lane in its own order.
 *
 * The traced child writes the same records, stamps chosen to interleave
 * and to tie, into its two writer lanes of each of two streams: one read
 * live, one with log.  Both must give them back in the one order the rule
 * allows.
 */
#include "pt_selftest.h"
#include "st_lane.h"

#include <pthread.h>
#include <stdatomic.h>

#define U		POSIX_TRACE_UNNAMED_USEREVENT
#define MO_MAGIC	0x4d4f5244u
#define MO_WAIT_MS	20000
#define MO_STREAM	65536
#define MO_MAX		64
#define DRAIN_CALLS	100000
/* The mmap offset of a writer lane names its stream and index (uapi:
 * pt_writer_offset() in the module): pages (trid << 10 | index) << 2 | 3.
 */
#define MO_INDEX_BITS	10

struct mo_pay {
	uint32_t magic;
	uint32_t tag;		/* lane * 1000 + stamp offset; honest: 9000 + lane */
};

/* Shared by the controller and its traced child. */
struct mo {
	atomic_int go;		/* parent: both streams trace the child */
	atomic_int done;	/* child: 1 lanes written, -n failed at step n */
	atomic_int stop;	/* parent: the child may exit */
	trace_id_t trid[2];	/* live, with log */
};

/*
 * The stamps each lane gets, as offsets from one base: ties across the
 * lanes at 20, 30 and 80, runs of one lane (50..80) that the other's next
 * record must cut.
 */
static const uint32_t mo_stamps[2][10] = {
	{ 10, 20, 30, 40, 50, 60, 70, 80, 100, 110 },
	{ 5, 20, 30, 45, 80, 90, 95, 100, 105, 120 },
};

FIXTURE(mo) {
	trace_id_t trid[2];
	pid_t child;
	int fd;
	struct mo *x;
};

FIXTURE_SETUP(mo)
{
	char path[] = "/tmp/pt-merge-order-XXXXXX";

	ST_REQUIRE_MODULE();
	self->x = st_shared_area(4096);
	ASSERT_NE(NULL, self->x);
	self->fd = mkstemp(path);
	ASSERT_LE(0, self->fd);
	unlink(path);
}

FIXTURE_TEARDOWN(mo)
{
	int i;

	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	for (i = 0; i < 2; i++)
		if (self->trid[i] > 0)
			posix_trace_shutdown(self->trid[i]);
	if (self->fd >= 0)
		close(self->fd);
	if (self->x)
		munmap(self->x, 4096);
}

static void mo_event(uint32_t tag)
{
	struct mo_pay p = { .magic = MO_MAGIC, .tag = tag };

	posix_trace_event(U, &p, sizeof(p));
}

/* A record as a writer writes it, at the lane's head, committed. */
static void mo_forge(const struct st_lane *l, uint64_t ts, uint32_t tag)
{
	struct mo_pay p = { .magic = MO_MAGIC, .tag = tag };

	st_lane_forge(l, U, ts, &p, sizeof(p));
}

/* The second thread's one honest event: its lanes are index 1. */
static void *mo_thread(void *arg)
{
	struct mo *x = arg;

	mo_event(9001);
	st_wait_flag(&x->stop, 1, MO_WAIT_MS);
	return NULL;
}

/* Writer lane @index of stream @trid among the child's lanes, or NULL. */
static const struct st_lane *mo_lane(const struct st_lane *l, int n,
				     trace_id_t trid, unsigned int index)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long long x = l[i].offset / 4096 >> 2;

		if ((x & ((1u << MO_INDEX_BITS) - 1)) == index &&
		    (x >> MO_INDEX_BITS) == (unsigned long long)trid)
			return &l[i];
	}
	return NULL;
}

/* The traced child: one honest event per thread opens lane 0 (this
 * thread) and lane 1 of each stream, then the same stamps go into both
 * streams' lanes.
 */
static int mo_child(struct mo *x)
{
	const struct st_lane *w[2][2];
	struct st_lane lanes[8];
	uint64_t base;
	pthread_t th;
	int n, s, k, i;

	st_no_core_dumps();
	if (!st_wait_flag(&x->go, 1, MO_WAIT_MS))
		return 150;
	mo_event(9000);
	if (pthread_create(&th, NULL, mo_thread, x))
		return 151;
	n = st_find_lanes(lanes, 8);
	for (i = 0; i < 100 && n < 4; i++) {	/* the thread's, soon */
		usleep(10000);
		n = st_find_lanes(lanes, 8);
	}
	if (n != 4) {
		atomic_store(&x->done, -1);
		return 152;
	}
	for (s = 0; s < 2; s++)
		for (k = 0; k < 2; k++) {
			w[s][k] = mo_lane(lanes, n, x->trid[s], k);
			if (!w[s][k]) {
				atomic_store(&x->done, -2);
				return 153;
			}
		}
	/* After both honest events: every forged stamp is later. */
	base = st_now_ns(CLOCK_MONOTONIC) + 1000;
	for (s = 0; s < 2; s++)
		for (k = 0; k < 2; k++)
			for (i = 0; i < 10; i++)
				mo_forge(w[s][k], base + mo_stamps[k][i],
					 k * 1000 + mo_stamps[k][i]);
	atomic_store(&x->done, 1);
	st_wait_flag(&x->stop, 1, MO_WAIT_MS);
	pthread_join(th, NULL);
	return 0;
}

/*
 * The order the rule gives: by stamp, of equal stamps lane 0 first, each
 * lane in its order; the honest events (stamped before) first, lane 0's
 * before lane 1's.
 */
static int mo_expected(uint32_t *tags)
{
	int i = 0, a = 0, b = 0;

	tags[i++] = 9000;
	tags[i++] = 9001;
	while (a < 10 || b < 10) {
		if (b == 10 || (a < 10 && mo_stamps[0][a] <= mo_stamps[1][b]))
			tags[i++] = mo_stamps[0][a++];
		else
			tags[i++] = 1000 + mo_stamps[1][b++];
	}
	return i;
}

/* The tags of this test's events as @trid gives them, until it ends
 * (a log) or has none left (a live stream).
 */
static int mo_read(trace_id_t trid, bool live, uint32_t *tags, int max)
{
	struct st_ev ev;
	struct mo_pay p;
	int n = 0, calls;

	for (calls = 0; calls < DRAIN_CALLS && n < max; calls++) {
		if ((live ? st_try(trid, &ev) : st_get(trid, &ev)) || ev.unavailable)
			break;
		if (ev.info.posix_event_id != U || ev.len != sizeof(p))
			continue;
		memcpy(&p, ev.data, sizeof(p));
		if (p.magic == MO_MAGIC)
			tags[n++] = p.tag;
	}
	return n;
}

static void mo_show(struct __test_metadata *_metadata, const char *what,
		    const uint32_t *tags, int n)
{
	char buf[512];
	int i, len = 0;

	for (i = 0; i < n && len < (int)sizeof(buf) - 12; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %u", tags[i]);
	TH_LOG("%s (%d):%s", what, n, buf);
}

TEST_F(mo, the_live_reader_and_the_log_worker_merge_forged_lanes_ties_included_in_one_order)
{
	uint32_t want[MO_MAX], live[MO_MAX], logged[MO_MAX];
	int nwant, nlive, nlog, i;
	trace_id_t ltrid;
	trace_attr_t a;
	pid_t pid;

	ST_REQUIRE_TRACE_CHILDREN();
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(mo_child(self->x));
	self->child = pid;
	ASSERT_EQ(0, st_create(pid, MO_STREAM, POSIX_TRACE_LOOP, 64, &self->trid[0]));
	ASSERT_EQ(0, st_attr_make(&a, MO_STREAM, POSIX_TRACE_LOOP, 64));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(pid, &a, self->fd, &self->trid[1]));
	posix_trace_attr_destroy(&a);
	ASSERT_EQ(0, st_start_and_skip(self->trid[0]));
	ASSERT_EQ(0, posix_trace_start(self->trid[1]));
	self->x->trid[0] = self->trid[0];
	self->x->trid[1] = self->trid[1];
	atomic_store(&self->x->go, 1);
	ASSERT_TRUE(st_wait_flag(&self->x->done, 1, MO_WAIT_MS)) {
		TH_LOG("the child did not write its lanes (step %d)",
		       atomic_load(&self->x->done));
	}

	nwant = mo_expected(want);
	nlive = mo_read(self->trid[0], true, live, MO_MAX);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid[1]));
	self->trid[1] = 0;
	ASSERT_EQ(0, posix_trace_open(self->fd, &ltrid));
	nlog = mo_read(ltrid, false, logged, MO_MAX);
	posix_trace_close(ltrid);
	atomic_store(&self->x->stop, 1);
	EXPECT_EQ(0, st_wait_child(self->child));
	self->child = -1;

	mo_show(_metadata, "the rule", want, nwant);
	mo_show(_metadata, "the live reader", live, nlive);
	mo_show(_metadata, "the log", logged, nlog);
	ASSERT_EQ(nwant, nlive);
	ASSERT_EQ(nwant, nlog);
	for (i = 0; i < nwant; i++) {
		EXPECT_EQ(want[i], live[i]) TH_LOG("live reader, event %d", i);
		EXPECT_EQ(want[i], logged[i]) TH_LOG("log, event %d", i);
	}
}

TEST_HARNESS_MAIN
