// SPDX-License-Identifier: GPL-2.0
/*
 * proctree_test - process trees a hostile user builds (issue 19, item 1):
 * chains thousands of generations deep and wide trees, with exits in
 * every order, must be released without recursion and pin memory only in
 * proportion to the names their processes registered.
 *
 * Every process forked by a process the module knows (here: one that
 * opened an event name) is known too, with a name mapping forked from its
 * parent's.  Before the fix, each mapping referred to its parent's, the
 * last exit freed the chain by recursion from an RCU callback, and about
 * 3000 generations overflowed the IRQ stack: a kernel panic.
 */
#include "pt_selftest.h"

#include <sys/prctl.h>

#define CHAIN_DEPTH	4000
#define WIDE_CHILDREN	200
/* Maps a chain may hold beyond the test's own while its last process
 * lives: the last one's, and one named ancestor's (proc.c, map.c).
 */
#define UNNAMED_CHAIN_MAPS	3

FIXTURE(tree) {
	struct posix_trace_stats base;
	int ready[2];	/* the last generation writes one byte */
	int hold[2];	/* ...and exits when this is closed */
};

FIXTURE_SETUP(tree)
{
	trace_event_id_t id;

	self->ready[0] = self->ready[1] = -1;
	self->hold[0] = self->hold[1] = -1;
	ST_REQUIRE_MODULE();
	/* Known to the module, so every process forked below is too. */
	ASSERT_EQ(0, posix_trace_eventid_open("proctree-root", &id));
	ASSERT_TRUE(st_stats_quiet(&self->base));
	/* Orphans come back to us, to be reaped. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe2(self->ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(self->hold, O_CLOEXEC));
}

FIXTURE_TEARDOWN(tree)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->ready[i] >= 0)
			close(self->ready[i]);
		if (self->hold[i] >= 0)
			close(self->hold[i]);
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* The last generation: say so, then live until the test lets go. */
static void __attribute__((noreturn)) last_generation(int ready, int hold)
{
	char c = 0;

	if (write(ready, &c, 1) != 1)
		_exit(3);
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * A chain @depth generations deep: each process (with @names, after
 * opening a name of its own) forks the next and exits at once, so every
 * ancestor of the last one is dead.
 */
static void __attribute__((noreturn)) chain(int depth, bool names,
					    FIXTURE_DATA(tree) *self)
{
	char name[32];
	trace_event_id_t id;
	int i;

	/* The last generation must see EOF once the test closes its end. */
	close(self->ready[0]);
	close(self->hold[1]);
	for (i = 0; i < depth; i++) {
		pid_t pid;

		if (names) {
			snprintf(name, sizeof(name), "gen-%d", i);
			if (posix_trace_eventid_open(name, &id))
				_exit(2);
		}
		pid = fork();
		if (pid < 0)
			_exit(2);
		if (pid > 0)
			_exit(0);
	}
	last_generation(self->ready[1], self->hold[0]);
}

/* Children that did not exit with status 0, over the whole test. */
static int bad_exits;

/* Reap what has exited (@block: everything, until none is left). */
static void reap(bool block)
{
	int status;

	for (;;) {
		pid_t pid = waitpid(-1, &status, block ? 0 : WNOHANG);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			return;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad_exits++;
	}
}

/* Reap every child and orphan until none is left; false on a failure. */
static bool reap_all(void)
{
	reap(true);
	return errno == ECHILD && !bad_exits;
}

/*
 * Wait up to @ms for @fd to be readable, reaping dead generations as we
 * go: their zombies count against RLIMIT_NPROC, which an unprivileged
 * user reaches before a chain is thousands deep on a small machine.
 */
static bool wait_reaping(int fd, unsigned int ms)
{
	unsigned int waited;

	for (waited = 0; waited < ms; waited += 50) {
		if (st_wait_fd(fd, 50))
			return true;
		reap(false);
	}
	return false;
}

/*
 * Build a chain, check what it pins while its last process lives (at
 * most @max_maps mappings beyond the test's own), then let it go and
 * require every object to be freed.
 */
static void run_chain(struct __test_metadata *_metadata, FIXTURE_DATA(tree) *self,
		      bool names, unsigned int max_maps)
{
	struct posix_trace_stats now;
	unsigned int waited;
	pid_t pid;
	char c;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		chain(CHAIN_DEPTH, names, self);
	close(self->ready[1]);
	self->ready[1] = -1;
	ASSERT_TRUE(wait_reaping(self->ready[0], 600 * 1000));
	ASSERT_EQ(1, read(self->ready[0], &c, 1)) {
		TH_LOG("the chain broke: %d generations failed", bad_exits);
	}
	/* Dead generations are freed after an RCU grace period: wait. */
	for (waited = 0; waited < 10000; waited += 50) {
		ASSERT_EQ(0, st_stats(&now));
		if (now.maps <= self->base.maps + max_maps)
			break;
		st_sleep_ms(50);
	}
	TH_LOG("%d generations, %s: %u mappings live (%u before)", CHAIN_DEPTH,
	       names ? "a name each" : "no names", now.maps, self->base.maps);
	EXPECT_GE(self->base.maps + max_maps, now.maps);
	close(self->hold[1]);
	self->hold[1] = -1;
	EXPECT_TRUE(reap_all());
	EXPECT_TRUE(st_stats_settle(&self->base, &now, 20000, &waited)) {
		TH_LOG("after the last exit: %u mappings, %u processes (%u, %u before)",
		       now.maps, now.procs, self->base.maps, self->base.procs);
	}
}

TEST_F_TIMEOUT(tree, a_chain_of_thousands_of_dead_generations_is_freed_without_recursion,
	       900)
{
	run_chain(_metadata, self, false, UNNAMED_CHAIN_MAPS);
}

/* Names bound a chain: a mapping holding none is skipped by its children,
 * and there are at most POSIX_TRACE_USER_EVENT_MAX ids to hold.
 */
TEST_F_TIMEOUT(tree, a_chain_whose_generations_each_open_a_name_pins_at_most_one_map_per_id,
	       900)
{
	run_chain(_metadata, self, true,
		  POSIX_TRACE_USER_EVENT_MAX + UNNAMED_CHAIN_MAPS);
}

/*
 * A parent with many children that each open a name: the parent exits
 * first, then the children in the reverse order of their birth, so each
 * mapping is freed with its parent's already unreferenced by its process.
 */
TEST_F_TIMEOUT(tree, a_wide_tree_exiting_parent_first_leaves_nothing_behind, 300)
{
	struct posix_trace_stats now;
	unsigned int waited;
	pid_t parent;
	char c;
	int i;

	parent = fork();
	ASSERT_LE(0, parent);
	if (!parent) {
		int gate[WIDE_CHILDREN][2];
		trace_event_id_t id;

		for (i = 0; i < WIDE_CHILDREN; i++) {
			char name[32];
			pid_t pid;

			if (pipe(gate[i]))
				_exit(2);
			pid = fork();
			if (pid < 0)
				_exit(2);
			if (!pid) {
				close(gate[i][1]);
				snprintf(name, sizeof(name), "child-%d", i);
				if (posix_trace_eventid_open(name, &id))
					_exit(2);
				/* Wait for our turn: the write end closes. */
				while (read(gate[i][0], &c, 1) < 0 && errno == EINTR)
					;
				_exit(0);
			}
			close(gate[i][0]);
		}
		/* Children exit in reverse order after we are gone: the
		 * write ends go with a helper that closes them one by one.
		 */
		if (fork() == 0) {
			st_sleep_ms(200);
			for (i = WIDE_CHILDREN - 1; i >= 0; i--) {
				close(gate[i][1]);
				st_sleep_ms(2);
			}
			_exit(0);
		}
		_exit(0);
	}
	EXPECT_TRUE(reap_all());
	EXPECT_TRUE(st_stats_settle(&self->base, &now, 20000, &waited)) {
		TH_LOG("%u mappings, %u processes left (%u, %u before)",
		       now.maps, now.procs, self->base.maps, self->base.procs);
	}
}

TEST_HARNESS_MAIN
