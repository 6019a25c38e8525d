// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_event() where a signal handler may be: the first event of a
 * thread inside a handler must not allocate, a fork() from a handler that
 * interrupted a lane write must leave a child that runs on, and a first
 * event whose open() of the device fails for a passing reason (EMFILE)
 * must not leave the process untraced for its whole life.  Lanes are the
 * host benchmark's fake ones (writer.h), laid out as the module's and not
 * inherited by fork() either.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <trace.h>
#include <unistd.h>

#include "internal.h"
#include "bench_fake.h"
#include "pt_test.h"

#define U	POSIX_TRACE_UNNAMED_USEREVENT

static void sleep_ms(unsigned int ms)
{
	struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&d, &d) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* open() failing with EMFILE on the first event                       */
/* ------------------------------------------------------------------ */

/* The wanted bits of the user ids, as <trace.h>'s inline test sees them:
 * all set until the library knows, then the truth. */
static unsigned long long wanted_word(void)
{
	return __posix_trace_wanted[U / 64];
}

/* Issue 19, item 17: the first event's open() failed with EMFILE and the
 * process was untraced for good (the wanted bits cleared).  There is no
 * module on the host: once descriptors are free again, a later event
 * finds that out (ENOENT), and only then clears them. */
static void test_open_failing_for_a_while_is_tried_again(void)
{
	struct rlimit saved, rl;
	int fd, x = 1;

	EXPECT_EQ(wanted_word(), ~0ULL);
	if (getrlimit(RLIMIT_NOFILE, &saved)) {
		PT_FAIL("getrlimit");
		return;
	}
	fd = dup(0);
	rl = saved;
	rl.rlim_cur = fd >= 0 ? (rlim_t)fd : 3;
	if (fd >= 0)
		close(fd);
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		PT_FAIL("setrlimit");
		return;
	}
	posix_trace_event(U, &x, sizeof(x));
	setrlimit(RLIMIT_NOFILE, &saved);
	EXPECT_EQ(wanted_word(), ~0ULL);	/* not decided yet */
	posix_trace_event(U, &x, sizeof(x));	/* too soon: not tried */
	EXPECT_EQ(wanted_word(), ~0ULL);
	sleep_ms(5);
	posix_trace_event(U, &x, sizeof(x));
	EXPECT_EQ(wanted_word(), 0);		/* no module here */
}

/* ------------------------------------------------------------------ */
/* A thread's first event in a signal handler                          */
/* ------------------------------------------------------------------ */

/* calloc() calls made inside the handler below; glibc's own calls come
 * here too (malloc interposition).  ASan has its own calloc. */
static volatile int in_handler, callocs_in_handler;

#ifndef __SANITIZE_ADDRESS__
extern void *__libc_calloc(size_t n, size_t size);

void *calloc(size_t n, size_t size)
{
	if (in_handler)
		callocs_in_handler++;
	return __libc_calloc(n, size);
}
#endif

/* More keys than glibc keeps in a thread's descriptor, made before the
 * library's constructors run: its own key then has a second-level block,
 * which pthread_setspecific() allocates on a thread's first use. */
static pthread_key_t early_keys[40];

__attribute__((constructor(101))) static void make_keys_early(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(early_keys) / sizeof(early_keys[0]); i++)
		pthread_key_create(&early_keys[i], NULL);
}

static void first_event_handler(int sig)
{
	int v = sig;

	in_handler = 1;
	posix_trace_event(U, &v, sizeof(v));
	in_handler = 0;
}

static void *first_event_in_a_handler(void *arg)
{
	(void)arg;
	raise(SIGUSR1);
	return NULL;
}

/* Issue 19, item 17: the first event of a thread inside a signal handler
 * called pthread_setspecific(), which allocated. */
static void test_first_event_in_a_handler_allocates_nothing(void)
{
	struct sigaction sa;
	pthread_t th;

#ifdef __SANITIZE_ADDRESS__
	printf("# skipped under ASan (it owns calloc)\n");
	return;
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = first_event_handler;
	sigaction(SIGUSR1, &sa, NULL);
	if (pt_bench_fake_stream(POSIX_TRACE_LOOP, 65536, 64)) {
		PT_FAIL("fake stream");
		return;
	}
	if (pthread_create(&th, NULL, first_event_in_a_handler, NULL)) {
		PT_FAIL("pthread_create");
		return;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(callocs_in_handler, 0);
	signal(SIGUSR1, SIG_DFL);
}

/* ------------------------------------------------------------------ */
/* fork() in a handler that interrupted a lane write                   */
/* ------------------------------------------------------------------ */

#define FK_CHILDREN	64

static volatile sig_atomic_t fk_is_child, fk_n;
static volatile pid_t fk_pid[FK_CHILDREN];

/* The child returns into whatever the signal interrupted. */
static void fork_handler(int sig)
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

/* Issue 19, item 17: the child went on writing into a lane it does not
 * have (SIGSEGV). */
static void test_fork_in_a_handler_during_a_write_leaves_a_working_child(void)
{
	struct itimerval it = { { 0, 500 }, { 0, 500 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t alrm;
	char data[200];
	int i, status, bad = 0;
	time_t end = time(NULL) + 10;

	memset(data, 'x', sizeof(data));
	if (pt_bench_fake_stream(POSIX_TRACE_LOOP, 65536, 256)) {
		PT_FAIL("fake stream");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fork_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	while (fk_n < FK_CHILDREN && time(NULL) < end) {
		posix_trace_event(U, data, sizeof(data));
		if (fk_is_child) {
			/* It runs on: more events, then out. */
			for (i = 0; i < 100; i++)
				posix_trace_event(U, data, sizeof(data));
			_exit(0);
		}
		/* The reader's part, not under test: no fork() in it. */
		sigprocmask(SIG_BLOCK, &alrm, NULL);
		pt_bench_fake_drain();
		sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	for (i = 0; i < fk_n; i++) {
		if (waitpid(fk_pid[i], &status, 0) != fk_pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!bad++)
				PT_FAIL("child %d: %s %d", i,
					WIFSIGNALED(status) ? "signal" : "status",
					WIFSIGNALED(status) ? WTERMSIG(status) :
							      WEXITSTATUS(status));
		}
	}
	printf("# %d children forked in a handler, %d did not exit 0\n",
	       (int)fk_n, bad);
	EXPECT(fk_n > 0);
	EXPECT_EQ(bad, 0);
}

int main(void)
{
	/* First: before any event of the process. */
	PT_RUN(test_open_failing_for_a_while_is_tried_again,
	       "an open() failing with EMFILE on the first event is tried again");
	PT_RUN(test_first_event_in_a_handler_allocates_nothing,
	       "a thread's first event in a signal handler allocates nothing");
	PT_RUN(test_fork_in_a_handler_during_a_write_leaves_a_working_child,
	       "fork() in a handler that interrupted a lane write: the child runs on");
	return pt_test_done();
}
