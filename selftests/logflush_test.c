// SPDX-License-Identifier: GPL-2.0
/*
 * logflush_test - the module's log flusher against writer lanes that
 * their traced process changes while the flusher reads them (issue 19,
 * item 2).  The process owning a lane can write its positions at any
 * time; a flush, the shutdown's final flush and a controller's exit must
 * still end, bounded by what the lanes held when they began.
 *
 * Before the fix, a head flipped between 0 and its real end moved the
 * flusher's position backwards, so it read the same records again; with
 * lanes taking turns at 0 a flush went on while any lane had a record,
 * and once an UNTIL_FULL log was full it did no I/O and never yielded
 * (the review saw "watchdog: BUG: soft lockup" in pt_drain).  Here the old
 * module moved a lane's position back 801 times in 5 s, with flushes of
 * up to 570 ms where an honest one takes 20.
 */
#include "pt_selftest.h"
#include "st_lane.h"

#include <stdatomic.h>

#define STREAM_SIZE	65536
#define LOG_SIZE	16384
#define PAYLOAD		32
#define FLIP_SECONDS	5
/* Far above an honest flush of these lanes, even on the debug kernel. */
#define FLUSH_BOUND_MS	10000ULL

static void record_many(trace_event_id_t id, int n)
{
	char data[PAYLOAD] = "logflush";
	int i;

	for (i = 0; i < n; i++)
		posix_trace_event(id, data, sizeof(data));
}

/*
 * Lanes whose heads take turns at 0, one at a time: the old flusher went
 * back to 0 in the lane that said 0 and read it again while the others
 * kept the merge going (a pass ended only when no lane had a record), so
 * a flush lasted as long as the flipping did, without yielding once the
 * log was full.  The lane at 0 when a flush begins sits that flush out:
 * it takes three to keep the merge going.
 */
#define NR_LANES	4
#define FLIP_SPINS	200

struct flipper {
	struct st_lane l[NR_LANES];
	uint64_t real[NR_LANES];
	atomic_int run;
};

static void *flip_heads(void *p)
{
	struct flipper *fl = p;
	volatile unsigned int spin;
	int i;

	while (atomic_load(&fl->run)) {
		for (i = 0; i < NR_LANES; i++) {
			__atomic_store_n(&fl->l[i].ctl->head, 0, __ATOMIC_RELEASE);
			for (spin = 0; spin < FLIP_SPINS; spin++)
				;
			__atomic_store_n(&fl->l[i].ctl->head, fl->real[i],
					 __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

static pthread_barrier_t recorded;

/* Fill this thread's lane, then keep it until every lane is full. */
static void *record_thread(void *p)
{
	record_many(*(trace_event_id_t *)p, 1500);
	pthread_barrier_wait(&recorded);
	return NULL;
}

/* Fill this thread's lane and one in each of NR_LANES - 1 others, all
 * alive at once so that none reuses another's lane; false unless this
 * process then has exactly NR_LANES lanes, which @fl then flips.
 */
static bool fill_lanes(trace_event_id_t id, struct flipper *fl)
{
	pthread_t th[NR_LANES - 1];
	int i, made = 0;
	bool ok = true;

	if (pthread_barrier_init(&recorded, NULL, NR_LANES))
		return false;
	record_many(id, 1500);
	for (i = 0; i < NR_LANES - 1; i++) {
		if (pthread_create(&th[i], NULL, record_thread, &id))
			break;
		made++;
	}
	if (made < NR_LANES - 1)
		return false;	/* the others wait for ever: we exit */
	pthread_barrier_wait(&recorded);
	for (i = 0; i < made; i++)
		ok &= !pthread_join(th[i], NULL);
	pthread_barrier_destroy(&recorded);
	if (!ok || st_find_lanes(fl->l, NR_LANES) != NR_LANES)
		return false;
	for (i = 0; i < NR_LANES; i++)
		fl->real[i] = __atomic_load_n(&fl->l[i].ctl->head, __ATOMIC_ACQUIRE);
	atomic_store(&fl->run, 1);
	return true;
}

static uint64_t ms_since(uint64_t t0)
{
	return (st_now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
}

static int create_with_log(pid_t pid, int *fd, trace_id_t *trid)
{
	char path[] = "/tmp/pt-logflush-XXXXXX";
	trace_attr_t a;
	int ret;

	*fd = mkstemp(path);
	if (*fd < 0)
		return errno;
	unlink(path);
	posix_trace_attr_init(&a);
	posix_trace_attr_setstreamfullpolicy(&a, POSIX_TRACE_LOOP);
	posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_UNTIL_FULL);
	posix_trace_attr_setstreamsize(&a, STREAM_SIZE);
	posix_trace_attr_setlogsize(&a, LOG_SIZE);
	posix_trace_attr_setmaxdatasize(&a, PAYLOAD);
	ret = posix_trace_create_withlog(pid, &a, *fd, trid);
	posix_trace_attr_destroy(&a);
	if (!ret)
		ret = posix_trace_start(*trid);
	return ret;
}

FIXTURE(flush) {
	trace_id_t trid;
	int fd;
	pid_t child[2];
};

FIXTURE_SETUP(flush)
{
	self->trid = 0;
	self->fd = -1;
	self->child[0] = self->child[1] = -1;
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(flush)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->child[i] > 0) {
			kill(self->child[i], SIGKILL);
			waitpid(self->child[i], NULL, 0);
		}
	}
	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Where the flusher is in each lane (it publishes its position as the
 * lane's tail after each flush) must only ever move forward: returns the
 * number of lanes whose tail went backwards since @last, which it updates.
 */
static int tails_backwards(const struct flipper *fl, uint64_t *last)
{
	int i, back = 0;

	for (i = 0; i < NR_LANES; i++) {
		uint64_t t = __atomic_load_n(&fl->l[i].ctl->tail, __ATOMIC_ACQUIRE);

		back += (int64_t)(t - last[i]) < 0;
		last[i] = t;
	}
	return back;
}

/* REQ: 5.13 (a flush ends whatever a traced process writes) */
TEST_F_TIMEOUT(flush, lanes_whose_heads_flip_never_move_the_flusher_back_or_stall_it, 300)
{
	uint64_t t0, longest = 0, took, last[NR_LANES];
	int flushes = 0, back = 0;
	struct flipper fl;
	trace_event_id_t id;
	pthread_t th;

	ASSERT_EQ(0, posix_trace_eventid_open("logflush", &id));
	ASSERT_EQ(0, create_with_log(0, &self->fd, &self->trid));
	/* Fill the log (UNTIL_FULL: it stops taking), then the lanes. */
	record_many(id, 2000);
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_TRUE(fill_lanes(id, &fl));
	tails_backwards(&fl, last);
	ASSERT_EQ(0, pthread_create(&th, NULL, flip_heads, &fl));
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (ms_since(t0) < FLIP_SECONDS * 1000) {
		uint64_t t1 = st_now_ns(CLOCK_MONOTONIC);

		if (posix_trace_flush(self->trid))
			break;
		took = ms_since(t1);
		longest = took > longest ? took : longest;
		flushes++;
		back += tails_backwards(&fl, last);
	}
	atomic_store(&fl.run, 0);
	pthread_join(th, NULL);
	TH_LOG("%d flushes in %d s while the heads flipped: the longest %llu ms, a lane's position went back %d times",
	       flushes, FLIP_SECONDS, (unsigned long long)longest, back);
	EXPECT_LT(1, flushes);
	EXPECT_EQ(0, back);
	EXPECT_GT(FLUSH_BOUND_MS, longest);
	/* The final flush is bounded too, with a head still a lie. */
	__atomic_store_n(&fl.l[0].ctl->head, 0, __ATOMIC_RELEASE);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, posix_trace_shutdown(self->trid));
	self->trid = 0;
	took = ms_since(t0);
	EXPECT_GT(FLUSH_BOUND_MS, took);
}

/*
 * A traced process that flips its lane's head for ever; the stream is
 * created by another process, which then exits with the stream running.
 */
static void __attribute__((noreturn)) flipping_target(int go)
{
	struct flipper fl;
	trace_event_id_t id;
	char c;

	if (posix_trace_eventid_open("logflush", &id) || read(go, &c, 1) != 1 ||
	    !fill_lanes(id, &fl))
		_exit(2);
	flip_heads(&fl);
	_exit(0);
}

static void __attribute__((noreturn)) exiting_controller(pid_t target, int go)
{
	trace_id_t trid;
	uint64_t t0;
	int fd;

	if (create_with_log(target, &fd, &trid) || write(go, "g", 1) != 1)
		_exit(2);
	/* Let the target fill its lane and start lying, flushing meanwhile. */
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (ms_since(t0) < FLIP_SECONDS * 1000)
		if (posix_trace_flush(trid))
			_exit(3);
	_exit(0);	/* the final flush happens in our exit */
}

/* REQ: 4.10 (a controller's exit shuts its streams down; it must end) */
TEST_F_TIMEOUT(flush, the_exit_of_a_controller_is_bounded_by_a_lane_it_does_not_write, 300)
{
	int go[2], status = 0;
	uint64_t t0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	self->child[0] = fork();
	ASSERT_LE(0, self->child[0]);
	if (!self->child[0]) {
		close(go[1]);
		flipping_target(go[0]);
	}
	close(go[0]);
	self->child[1] = fork();
	ASSERT_LE(0, self->child[1]);
	if (!self->child[1])
		exiting_controller(self->child[0], go[1]);
	close(go[1]);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	do {
		pid = waitpid(self->child[1], &status, WNOHANG);
		if (!pid)
			st_sleep_ms(50);
	} while (!pid && ms_since(t0) < FLIP_SECONDS * 1000 + 60000);
	ASSERT_EQ(self->child[1], pid) {
		TH_LOG("the controller has not exited after %llu ms (state %c)",
		       (unsigned long long)ms_since(t0),
		       st_proc_state(self->child[1]));
	}
	self->child[1] = -1;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("controller status 0x%x", status);
	}
	TH_LOG("the controller exited %llu ms after the flushes began",
	       (unsigned long long)ms_since(t0));
}

TEST_HARNESS_MAIN
