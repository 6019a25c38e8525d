// SPDX-License-Identifier: GPL-2.0
/*
 * stress_test - the whole lifecycle at once, for a bounded time
 * (STRESS_SECONDS, default 20): controller processes create streams
 * (random policy, inheritance and size) on short-lived traced processes,
 * read them from a second thread, stop, start, clear and shut them down,
 * and sometimes just die; the traced processes record from several
 * threads, fork, re-exec this binary, and get SIGKILLed at random moments;
 * controllers are SIGKILLed at random moments too.  Once every process is
 * reaped, POSIX_TRACE_IOC_STATS must come back to no stream, attach, writer
 * lane, mapping, process entry, name mapping or charged user within a
 * bounded wait (this process never uses a stream itself); vm-run then
 * checks that rmmod works and the kernel log is clean.
 */
#include "pt_selftest.h"

#include <stdatomic.h>
#include <sys/mman.h>

#define TRACED_ARG	"--stress-traced"
#define DEFAULT_SECONDS	20
#define MAX_SECONDS	240
#define CONTROLLERS	6
#define SETTLE_MS	10000
#define NAMES		8

/* Shared by every process of the test until it execs. */
struct stress {
	atomic_int stop;
	atomic_long streams, create_fail, events, killed_traced, killed_ctl;
	atomic_int bad;			/* unexpected outcomes */
	char why[200];			/* the first of them */
};

static struct stress *sh;

static void bad(const char *fmt, int a, int b)
{
	if (atomic_fetch_add(&sh->bad, 1) == 0)
		snprintf(sh->why, sizeof(sh->why), fmt, a, b);
}

/* Status of a child that may have been SIGKILLed but must not crash. */
static void check_status(const char *who, int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		bad("%c killed by signal %d", who[0], WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		bad("%c exited with %d", who[0], WEXITSTATUS(status));
}

/* ------------------------------------------------------------------ */
/* Traced processes                                                    */
/* ------------------------------------------------------------------ */

struct recorder {
	unsigned int seed;
	int events;
	int depth;		/* > 0: may re-exec the process */
};

static void traced_exec(int depth, unsigned int seed);

static void *record_main(void *arg)
{
	struct recorder *r = arg;
	char data[200], name[16];
	trace_event_id_t id = POSIX_TRACE_UNNAMED_USEREVENT;
	int i;

	memset(data, 'd', sizeof(data));
	for (i = 0; i < r->events; i++) {
		if (rand_r(&r->seed) % 16 == 0) {
			snprintf(name, sizeof(name), "stress-%d", rand_r(&r->seed) % NAMES);
			if (posix_trace_eventid_open(name, &id))
				id = POSIX_TRACE_UNNAMED_USEREVENT;
		}
		posix_trace_event(id, data, rand_r(&r->seed) % sizeof(data));
		if (rand_r(&r->seed) % 64 == 0)
			sched_yield();
		/* exec from a thread that is not the leader */
		if (r->depth > 0 && rand_r(&r->seed) % 2048 == 0)
			traced_exec(r->depth - 1, r->seed);
	}
	return NULL;
}

static void traced_exec(int depth, unsigned int seed)
{
	char d[16], s[16];

	snprintf(d, sizeof(d), "%d", depth);
	snprintf(s, sizeof(s), "%u", seed);
	execl("/proc/self/exe", "stress_test", TRACED_ARG, d, s, (char *)NULL);
}

/*
 * A traced process: records from 1-3 threads, maybe forks a child that
 * does the same, maybe re-execs itself (from the main thread or another
 * one), then exits.  Bounded: @depth nested forks or execs at most.
 */
static int traced_main(int depth, unsigned int seed)
{
	struct recorder r[3];
	pthread_t th[3];
	int i, n = 1 + rand_r(&seed) % 3;
	pid_t child = -1;

	if (depth > 0 && rand_r(&seed) % 3 == 0) {
		child = fork();
		if (child == 0)
			return traced_main(depth - 1, seed * 7 + 1);
	}
	for (i = 0; i < n; i++) {
		int err;

		r[i].seed = seed + i;
		r[i].events = 50 + rand_r(&seed) % 500;
		r[i].depth = depth;
		err = pthread_create(&th[i], NULL, record_main, &r[i]);
		/* EAGAIN: another thread is in execve() (copy_fs()). */
		if (err == EAGAIN) {
			n = i;
			break;
		}
		if (err)
			return 100 + err;
	}
	if (depth > 0 && rand_r(&seed) % 4 == 0)
		traced_exec(depth - 1, seed * 3 + 1);	/* with threads recording */
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (depth > 0 && rand_r(&seed) % 3 == 0)
		traced_exec(depth - 1, seed * 5 + 1);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Controllers                                                         */
/* ------------------------------------------------------------------ */

struct reader {
	trace_id_t trid;
	long events;
};

/* Read until the stream is shut down under us (EINVAL). */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct st_ev ev;
	int ret;

	for (;;) {
		ret = st_timed_ms(r->trid, &ev, 20);
		if (ret == 0)
			r->events++;
		else if (ret != ETIMEDOUT)
			break;
	}
	if (ret != EINVAL)
		bad("reader: %d %d", ret, 0);
	return NULL;
}

static int create_random(pid_t pid, unsigned int *seed, trace_id_t *trid)
{
	static const size_t sizes[] = { 1024, 4096, 16384, 65536, 262144 };
	trace_attr_t a;
	int ret;

	ret = st_attr_make(&a, sizes[rand_r(seed) % 5],
			   rand_r(seed) % 2 ? POSIX_TRACE_LOOP : POSIX_TRACE_UNTIL_FULL,
			   0);
	if (!ret)
		ret = posix_trace_attr_setinherited(&a, rand_r(seed) % 2 ?
						    POSIX_TRACE_INHERITED :
						    POSIX_TRACE_CLOSE_FOR_CHILD);
	if (!ret)
		ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

#define ROUND_STREAMS	2

/* Random control operations on a stream being read. */
static void control_randomly(trace_id_t trid, unsigned int *seed)
{
	struct posix_trace_status_info info;
	int i;

	for (i = rand_r(seed) % 8; i > 0; i--) {
		st_sleep_ms(rand_r(seed) % 20);
		switch (rand_r(seed) % 4) {
		case 0:
			posix_trace_stop(trid);
			break;
		case 1:
			posix_trace_start(trid);
			break;
		case 2:
			posix_trace_clear(trid);
			break;
		default:
			posix_trace_get_status(trid, &info);
			break;
		}
	}
}

/*
 * One round: a traced child, one or two streams on it (or on ourselves),
 * each with a reader thread, random control, then shutdown while the
 * readers and the child are busy; the child may be SIGKILLed first.
 */
static void controller_round(unsigned int *seed)
{
	struct reader rd[ROUND_STREAMS] = { 0 };
	pthread_t th[ROUND_STREAMS];
	int go[2], i, n = 0, ret, status;
	pid_t t;
	char c = 'g';

	if (pipe(go)) {
		bad("pipe %d %d", errno, 0);
		return;
	}
	t = fork();
	if (t == 0) {
		unsigned int s = *seed ^ getpid();

		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(4);
		if (rand_r(&s) % 2)
			traced_exec(2, s);
		_exit(traced_main(2, s));
	}
	close(go[0]);
	if (t < 0) {
		close(go[1]);
		return;
	}
	/* Sometimes the child is already running when tracing starts. */
	if (rand_r(seed) % 4 == 0 && write(go[1], &c, 1) != 1)
		bad("write %d %d", errno, 0);
	for (i = 1 + rand_r(seed) % ROUND_STREAMS; i > 0; i--) {
		ret = create_random(rand_r(seed) % 8 ? t : 0, seed, &rd[n].trid);
		if (ret && ret != EAGAIN && ret != ENOMEM && ret != ESRCH)
			bad("create: %d %d", ret, 0);
		if (ret) {
			atomic_fetch_add(&sh->create_fail, 1);
			continue;
		}
		atomic_fetch_add(&sh->streams, 1);
		posix_trace_start(rd[n].trid);
		if (pthread_create(&th[n], NULL, reader_main, &rd[n])) {
			bad("pthread_create %d %d", errno, 0);
			posix_trace_shutdown(rd[n].trid);
			continue;
		}
		n++;
	}
	if (write(go[1], &c, 1) != 1 && errno != EPIPE)
		bad("write %d %d", errno, 0);
	close(go[1]);
	for (i = 0; i < n; i++)
		control_randomly(rd[i].trid, seed);
	if (rand_r(seed) % 2) {
		kill(t, SIGKILL);
		atomic_fetch_add(&sh->killed_traced, 1);
	}
	for (i = 0; i < n; i++) {
		if (posix_trace_shutdown(rd[i].trid))
			bad("shutdown %d %d", errno, 0);
		pthread_join(th[i], NULL);
		atomic_fetch_add(&sh->events, rd[i].events);
	}
	if (waitpid(t, &status, 0) == t)
		check_status("traced", status);
}

static void controller_main(unsigned int seed)
{
	while (!atomic_load(&sh->stop))
		controller_round(&seed);
	_exit(0);
}

/*
 * The spawner (its own process group): keeps CONTROLLERS controllers
 * running, kills one now and then, reaps them.
 */
static void spawner_main(unsigned int seed)
{
	pid_t ctl[CONTROLLERS] = { 0 };
	int i, status;
	pid_t pid;

	while (!atomic_load(&sh->stop)) {
		for (i = 0; i < CONTROLLERS; i++) {
			if (ctl[i] > 0)
				continue;
			ctl[i] = fork();
			if (ctl[i] == 0)
				controller_main(seed + i * 1000 + getpid());
		}
		st_sleep_ms(50 + rand_r(&seed) % 200);
		if (rand_r(&seed) % 3 == 0) {
			i = rand_r(&seed) % CONTROLLERS;
			if (ctl[i] > 0 && !kill(ctl[i], SIGKILL))
				atomic_fetch_add(&sh->killed_ctl, 1);
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			for (i = 0; i < CONTROLLERS; i++)
				if (ctl[i] == pid)
					ctl[i] = 0;
			check_status("controller", status);
		}
	}
	while ((pid = wait(&status)) > 0)
		check_status("controller", status);
	_exit(0);
}

static unsigned int stress_seconds(void)
{
	const char *s = getenv("STRESS_SECONDS");
	unsigned int v = s ? (unsigned int)atoi(s) : DEFAULT_SECONDS;

	return v < 1 ? 1 : v > MAX_SECONDS ? MAX_SECONDS : v;
}

/* Nothing of the test is left: no process of it uses the module. */
/* Reap the orphans that came back to us; until @end (0: forever, blocking). */
static void reap_orphans(pid_t spawner, uint64_t end)
{
	int status;
	pid_t pid;

	while (end ? st_now_ns(CLOCK_MONOTONIC) < end : true) {
		pid = waitpid(-1, &status, end ? WNOHANG : 0);
		if (pid < 0)
			return;
		if (pid == 0) {
			st_sleep_ms(100);
			continue;
		}
		if (pid == spawner)
			check_status("spawner", status);
		else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
			check_status("orphan", status);
	}
}

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
	ST_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(stress)
{
}

/* REQ: issue 4 (races; afterwards no stream, lane or mapping is left) */
TEST_F_TIMEOUT(stress, lifecycle_stress_leaves_nothing_behind,
	       MAX_SECONDS + 60)
{
	unsigned int secs = stress_seconds(), waited;
	const struct posix_trace_stats idle = { 0 };
	struct posix_trace_stats st;
	pid_t spawner;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	/* A write to the pipe of a child that was killed meanwhile. */
	signal(SIGPIPE, SIG_IGN);
	/* Orphans (children of killed processes) come back to us. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	fflush(NULL);
	spawner = fork();
	ASSERT_LE(0, spawner);
	if (spawner == 0) {
		setpgid(0, 0);
		spawner_main(getpid());
	}
	setpgid(spawner, spawner);
	reap_orphans(spawner, st_now_ns(CLOCK_MONOTONIC) + secs * ST_NSEC_PER_SEC);
	atomic_store(&sh->stop, 1);
	/* Give everyone a second to finish, then kill whatever is left. */
	reap_orphans(spawner, st_now_ns(CLOCK_MONOTONIC) + ST_NSEC_PER_SEC);
	kill(-spawner, SIGKILL);
	reap_orphans(spawner, 0);
	TH_LOG("%ld streams (%ld creates refused), %ld events read, %ld traced and %ld controllers killed",
	       atomic_load(&sh->streams), atomic_load(&sh->create_fail),
	       atomic_load(&sh->events), atomic_load(&sh->killed_traced),
	       atomic_load(&sh->killed_ctl));
	EXPECT_EQ(0, atomic_load(&sh->bad)) {
		TH_LOG("first: %s", sh->why);
	}
	EXPECT_LT(0, atomic_load(&sh->streams));
	/* The module finishes its asynchronous work (RCU, workqueue), and
	 * holds nothing at all. */
	EXPECT_TRUE(st_stats_settle(&idle, &st, SETTLE_MS, &waited)) {
		TH_LOG("after %u ms: streams %u (active %u), procs %u, attaches %u, writers %u, mappings %u, maps %u, users %u",
		       waited, st.streams, st.active_streams, st.procs, st.attaches,
		       st.writers, st.mappings, st.maps, st.users);
	}
	munmap(sh, sizeof(*sh));
}

int main(int argc, char **argv)
{
	/* The image a traced process re-execs: no shared state any more. */
	if (argc == 4 && !strcmp(argv[1], TRACED_ARG))
		return traced_main(atoi(argv[2]), (unsigned int)strtoul(argv[3], NULL, 10));
	return test_harness_run(argc, argv);
}
