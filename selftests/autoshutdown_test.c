// SPDX-License-Identifier: GPL-2.0
/*
 * Automatic shutdown is synchronous (spec 4.10, RULE-78, MODEL-45): when
 * the controller exits, however it does, its streams are gone before its
 * parent's waitpid() returns; when it execs, before the new image runs.
 *
 * The controller is a child of the test that traces the test process with
 * NR_STREAMS running streams, so the test's own status page shows their
 * slots.  The page is read once, right after waitpid() (or the new image's
 * first message): no sleep, no retry.
 */
#include "pt_selftest.h"
#include <sys/mman.h>
#include <linux/posix_trace.h>

#define HELPER_ARG	"--pt-autoshutdown-helper"
#define NR_STREAMS	4u

enum end {
	END_EXIT,		/* exit() */
	END_RETURN,		/* return from main() */
	END__EXIT,		/* _exit(), another thread blocked in getnext */
	END_THREAD_EXIT,	/* _exit() from a non-leader thread, the
				 * leader blocked in getnext */
	END_SIGKILL,
	END_SIGTERM,		/* a fatal signal with no handler */
	END_EXEC,		/* exec, another thread blocked in getnext */
	END_THREAD_EXEC,	/* exec from a non-leader thread, the leader
				 * blocked in getnext */
};

enum {
	C_CREATE = ST_C_FIRST_OWN,
	C_START,
	C_PIPE,
	C_THREAD,
	C_EXEC,
	C_BLOCKED_READER_RETURNED,
};

/* ------------------------------------------------------------------ */
/* The controller                                                      */
/* ------------------------------------------------------------------ */

struct ctl {
	enum end end;
	int go;
	int back;
	trace_id_t trid[NR_STREAMS];
	pid_t reader;		/* tid of the thread blocked in getnext */
};

/* Exec this binary as the image that reports it runs (END_*EXEC). */
static void exec_image(struct ctl *c)
{
	char go[16], back[16];

	snprintf(go, sizeof(go), "%d", c->go);
	snprintf(back, sizeof(back), "%d", c->back);
	execl("/proc/self/exe", "autoshutdown_test", HELPER_ARG, "image",
	      go, back, (char *)NULL);
	_exit(C_EXEC);
}

/* Read the first stream until getnext fails: blocks once START is read. */
static void read_until_error(struct ctl *c)
{
	struct st_ev ev;

	__atomic_store_n(&c->reader, st_gettid(), __ATOMIC_RELEASE);
	while (st_get(c->trid[0], &ev) == 0)
		;
}

/* Once the reader sleeps in getnext, end the process as told. */
static void end_once_reader_blocks(struct ctl *c)
{
	pid_t tid;

	while (!(tid = __atomic_load_n(&c->reader, __ATOMIC_ACQUIRE)))
		sched_yield();
	st_wait_sleeping(tid, 5000);
	if (c->end == END__EXIT || c->end == END_THREAD_EXIT)
		_exit(0);
	exec_image(c);
}

static void *reader_thread(void *arg)
{
	read_until_error(arg);
	_exit(C_BLOCKED_READER_RETURNED);
}

static void *ender_thread(void *arg)
{
	end_once_reader_blocks(arg);
	return NULL;
}

/*
 * Create NR_STREAMS running streams tracing our parent, say so on @back,
 * wait for a byte on @go, then end as told.  Returns (END_RETURN) or exits
 * with 0, or a C_* code if something else went wrong.
 */
static int controller(enum end end, int go, int back)
{
	struct ctl c = { .end = end, .go = go, .back = back };
	pthread_t th;
	unsigned int i;
	char b;

	for (i = 0; i < NR_STREAMS; i++) {
		if (st_create(getppid(), ST_SMALL_STREAM, 0, 0, &c.trid[i]))
			return C_CREATE;
		if (posix_trace_start(c.trid[i]))
			return C_START;
	}
	if (write(back, "r", 1) != 1)
		return C_PIPE;
	while (read(go, &b, 1) < 0 && errno == EINTR)
		;
	switch (end) {
	case END_EXIT:
		exit(0);
	case END_RETURN:
		return 0;
	case END__EXIT:
	case END_EXEC:
		if (pthread_create(&th, NULL, reader_thread, &c))
			return C_THREAD;
		end_once_reader_blocks(&c);
		break;
	case END_THREAD_EXIT:
	case END_THREAD_EXEC:
		if (pthread_create(&th, NULL, ender_thread, &c))
			return C_THREAD;
		read_until_error(&c);
		return C_BLOCKED_READER_RETURNED;
	default:	/* killed by the test meanwhile */
		break;
	}
	return C_SETUP;
}

/* ------------------------------------------------------------------ */
/* The test: the traced process                                        */
/* ------------------------------------------------------------------ */

FIXTURE(autoshutdown) {
	int fd;
	struct posix_trace_proc_page *pg;
	pid_t child;
};

FIXTURE_SETUP(autoshutdown)
{
	self->fd = -1;
	self->pg = MAP_FAILED;
	self->child = -1;
	ST_REQUIRE_MODULE();
	ST_REQUIRE_TRACE_CHILDREN();
	/* Yama ptrace_scope 1: let the controller, our child, trace us. */
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	self->fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->pg);
}

FIXTURE_TEARDOWN(autoshutdown)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->pg != MAP_FAILED)
		munmap(self->pg, 4096);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Keep the module's workqueue off every CPU while the test looks: this
 * process and the controller run SCHED_FIFO on one CPU, and a SCHED_FIFO
 * thread of lower priority spins on every CPU, so a kworker (an ordinary
 * task) does not run even while the controller waits for I/O.  A shutdown
 * left to the workqueue then comes after the test looked, where otherwise
 * it would mostly win the race; a synchronous one is not affected.  Needs
 * CAP_SYS_NICE: without it nothing is starved and the test checks the same
 * order less sharply.
 */
#define MAX_SPINNERS	16

struct starve {
	bool on;
	int nr;
	int stop;
	int running;
	pthread_t th[MAX_SPINNERS];
};

static void *spin(void *arg)
{
	struct starve *st = arg;

	__atomic_fetch_add(&st->running, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

static void starve_workqueue(struct starve *st, pid_t child)
{
	struct sched_param prio = { .sched_priority = 2 };
	struct sched_param low = { .sched_priority = 1 };
	cpu_set_t all, one;
	pthread_attr_t attr;
	int cpu, first = -1;

	memset(st, 0, sizeof(*st));
	if (sched_getaffinity(0, sizeof(all), &all) ||
	    sched_setscheduler(0, SCHED_FIFO, &prio))
		return;
	st->on = true;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &low);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (first < 0) {
			first = cpu;
			sched_setaffinity(0, sizeof(one), &one);
			sched_setaffinity(child, sizeof(one), &one);
			sched_setscheduler(child, SCHED_FIFO, &prio);
		}
		if (st->nr == MAX_SPINNERS)
			break;
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		if (!pthread_create(&st->th[st->nr], &attr, spin, st))
			st->nr++;
	}
	pthread_attr_destroy(&attr);
	/* Sleep, so the spinner of this CPU can start. */
	while (__atomic_load_n(&st->running, __ATOMIC_ACQUIRE) < st->nr)
		st_sleep_ms(1);
}

static void starve_end(struct starve *st)
{
	struct sched_param prio = { .sched_priority = 0 };
	int i;

	if (!st->on)
		return;
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < st->nr; i++)
		pthread_join(st->th[i], NULL);
	sched_setscheduler(0, SCHED_OTHER, &prio);
	st->on = false;
}

/* Slots of our status page that name a stream. */
static unsigned int slots_in_use(const struct posix_trace_proc_page *pg)
{
	unsigned int i, n = 0;

	for (i = 0; i < POSIX_TRACE_PROC_STREAMS; i++)
		n += __atomic_load_n(&pg->slots[i].trid, __ATOMIC_ACQUIRE) != 0;
	return n;
}

static bool end_is_exec(enum end end)
{
	return end == END_EXEC || end == END_THREAD_EXEC;
}

static void controller_ends(struct __test_metadata *_metadata,
			    FIXTURE_DATA(autoshutdown) *self, enum end end)
{
	int go[2], back[2], status;
	struct starve st;
	unsigned int slots, active;
	char c;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		char gofd[16], backfd[16];

		close(go[1]);
		close(back[0]);
		if (end == END_RETURN) {
			snprintf(gofd, sizeof(gofd), "%d", go[0]);
			snprintf(backfd, sizeof(backfd), "%d", back[1]);
			execl("/proc/self/exe", "autoshutdown_test", HELPER_ARG,
			      "controller", gofd, backfd, (char *)NULL);
			_exit(C_EXEC);
		}
		_exit(controller(end, go[0], back[1]));
	}
	close(go[0]);
	close(back[1]);
	st_watchdog(20);	/* a hanging exit fails instead of blocking */

	ASSERT_EQ(1, read(back[0], &c, 1)) TH_LOG("controller did not start");
	ASSERT_EQ(NR_STREAMS, slots_in_use(self->pg));
	ASSERT_EQ(NR_STREAMS, self->pg->active);
	starve_workqueue(&st, self->child);
	if (end == END_SIGKILL || end == END_SIGTERM) {
		ASSERT_EQ(0, kill(self->child,
				  end == END_SIGKILL ? SIGKILL : SIGTERM));
	} else {
		ASSERT_EQ(1, write(go[1], "g", 1));
	}

	/* The new image's first act is to answer; else wait for the exit. */
	if (end_is_exec(end)) {
		ASSERT_EQ(1, read(back[0], &c, 1)) TH_LOG("new image silent");
	} else {
		ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	}
	slots = slots_in_use(self->pg);
	active = self->pg->active;
	starve_end(&st);
	EXPECT_EQ(0u, slots) TH_LOG("streams outlive the controller's end");
	EXPECT_EQ(0u, active);
	close(go[1]);	/* lets an exec'd image exit */
	if (end_is_exec(end)) {
		ASSERT_EQ('x', c);
		ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	}
	self->child = -1;
	alarm(0);
	close(back[0]);
	if (end == END_SIGKILL || end == END_SIGTERM) {
		ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("status 0x%x", status);
		ASSERT_EQ(end == END_SIGKILL ? SIGKILL : SIGTERM, WTERMSIG(status));
	} else {
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
}

/* REQ: RULE-78 4.10 SHUT-8 */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after_exit)
{
	controller_ends(_metadata, self, END_EXIT);
}

/* REQ: RULE-78 4.10 */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after_return_from_main)
{
	controller_ends(_metadata, self, END_RETURN);
}

/* REQ: RULE-78 4.10 (a reader blocked in getnext does not hold up _exit) */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after__exit_with_blocked_reader)
{
	controller_ends(_metadata, self, END__EXIT);
}

/* REQ: RULE-78 4.10 (exit_group from a non-leader thread) */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after_exit_from_other_thread)
{
	controller_ends(_metadata, self, END_THREAD_EXIT);
}

/* REQ: RULE-78 4.10 MODEL-46 */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after_sigkill)
{
	controller_ends(_metadata, self, END_SIGKILL);
}

/* REQ: RULE-78 4.10 */
TEST_F(autoshutdown, streams_are_gone_when_waitpid_returns_after_fatal_sigterm)
{
	controller_ends(_metadata, self, END_SIGTERM);
}

/* REQ: RULE-78 MODEL-45 (a reader blocked in getnext does not hold up exec) */
TEST_F(autoshutdown, streams_are_gone_when_new_image_runs_after_exec_with_blocked_reader)
{
	controller_ends(_metadata, self, END_EXEC);
}

/* REQ: RULE-78 MODEL-45 (exec from a non-leader thread) */
TEST_F(autoshutdown, streams_are_gone_when_new_image_runs_after_exec_from_other_thread)
{
	controller_ends(_metadata, self, END_THREAD_EXEC);
}

/*
 * A controller ends (exit_group()) while one of its threads creates and
 * shuts down streams on its own process, and, as told, it has a running
 * stream on the test or another thread creates and shuts down streams on
 * the test.  A create finding its target exiting must not make the module
 * forget the controller while it controls a stream, and a controller on
 * its way out must not gain one: either would outlive the controller.
 */
#define CREATE_AT_EXIT_ROUNDS	20

static void *create_forever(void *arg)
{
	pid_t pid = (pid_t)(intptr_t)arg;
	trace_id_t trid;

	for (;;) {
		if (!st_create(pid, ST_SMALL_STREAM, 0, 0, &trid) &&
		    (pid == 0 || !posix_trace_start(trid)))
			posix_trace_shutdown(trid);
	}
	return NULL;
}

static int controller_creating_at_exit(bool keep_one, int back,
				       unsigned int delay_us)
{
	trace_id_t trid;
	pthread_t th;

	if (keep_one) {
		if (st_create(getppid(), ST_SMALL_STREAM, 0, 0, &trid))
			return C_CREATE;
		if (posix_trace_start(trid))
			return C_START;
	} else if (pthread_create(&th, NULL, create_forever,
				  (void *)(intptr_t)getppid())) {
		return C_THREAD;
	}
	if (pthread_create(&th, NULL, create_forever, NULL))
		return C_THREAD;
	if (write(back, "r", 1) != 1)
		return C_PIPE;
	usleep(delay_us);
	return 0;	/* _exit() below: exit_group() meets the creates */
}

static void controller_exits_while_creating(struct __test_metadata *_metadata,
					    FIXTURE_DATA(autoshutdown) *self,
					    bool keep_one)
{
	unsigned int round, slots = 0, active = 0;
	int back[2], status;
	char c;

	st_watchdog(60);
	for (round = 0; round < CREATE_AT_EXIT_ROUNDS && !slots && !active; round++) {
		ASSERT_EQ(0, pipe(back));
		fflush(NULL);
		self->child = fork();
		ASSERT_LE(0, self->child);
		if (self->child == 0) {
			close(back[0]);
			_exit(controller_creating_at_exit(keep_one, back[1],
							  round * 100));
		}
		close(back[1]);
		ASSERT_EQ(1, read(back[0], &c, 1)) TH_LOG("controller did not start");
		close(back[0]);
		ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
		self->child = -1;
		ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status 0x%x", status);
		ASSERT_EQ(0, WEXITSTATUS(status));
		slots = slots_in_use(self->pg);
		active = self->pg->active;
	}
	alarm(0);
	EXPECT_EQ(0u, slots) TH_LOG("round %u: a stream outlives its controller", round);
	EXPECT_EQ(0u, active);
}

/* REQ: RULE-78 4.10 (a create on itself racing with the exit) */
TEST_F(autoshutdown, stream_is_gone_when_the_controller_exits_while_creating_on_itself)
{
	controller_exits_while_creating(_metadata, self, true);
}

/* REQ: RULE-78 4.10 (creates on itself and on us racing with the exit) */
TEST_F(autoshutdown, no_stream_outlives_a_controller_exiting_while_creating_on_itself_and_us)
{
	controller_exits_while_creating(_metadata, self, false);
}

/*
 * Helper images: "image" answers 'x' at once and exits at EOF on go;
 * "controller" is a controller that returns from main().
 */
int main(int argc, char **argv)
{
	char c;

	if (argc == 5 && !strcmp(argv[1], HELPER_ARG)) {
		int go = atoi(argv[3]), back = atoi(argv[4]);

		if (!strcmp(argv[2], "controller"))
			return controller(END_RETURN, go, back);
		if (write(back, "x", 1) != 1)
			return C_PIPE;
		while (read(go, &c, 1) < 0 && errno == EINTR)
			;
		return 0;
	}
	return test_harness_run(argc, argv);
}
