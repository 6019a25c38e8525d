// SPDX-License-Identifier: GPL-2.0
/*
 * cli_traced - the program selftests/cli_test runs under "posix-trace
 * record" and "attach".  Every event's data is "<pid> <tag>" so the test
 * can tell which process recorded it.
 *
 *   cli_traced events N     N events "cli/a" and N "cli/b" (tags a0.. b0..),
 *                           then a forked child records "cli/child" and
 *                           execs "cli_traced exec-child", which records
 *                           "cli/exec"; exits 0 once the child did
 *   cli_traced exit N       records "cli/a", exits with status N
 *   cli_traced kill         records "cli/a", then SIGKILLs itself
 *   cli_traced wait         says "ready" on stdout, then records "cli/tick"
 *                           every 10 ms until SIGTERM (records "cli/sigterm",
 *                           exits 42) or a line on stdin (records
 *                           "cli/last", exits 0); gives up after 60 s
 *   cli_traced burst T C N  N back-to-back events "cli/burst" of 16 bytes
 *                           (the emitter's number and its sequence number,
 *                           two uint64_t) from each of T threads, or with
 *                           C > 0 from each of C forked children instead
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>

#define GIVE_UP_MS	60000

static void record(const char *name, const char *tag)
{
	trace_event_id_t id;
	char data[64];
	int len;

	if (posix_trace_eventid_open(name, &id))
		exit(90);
	len = snprintf(data, sizeof(data), "%d %s", (int)getpid(), tag);
	posix_trace_event(id, data, (size_t)len);
}

static int events(int n)
{
	char tag[16];
	int i, status;
	pid_t pid;

	for (i = 0; i < n; i++) {
		snprintf(tag, sizeof(tag), "a%d", i);
		record("cli/a", tag);
		snprintf(tag, sizeof(tag), "b%d", i);
		record("cli/b", tag);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 91;
	if (pid == 0) {
		record("cli/child", "child");
		execl("/proc/self/exe", "cli_traced", "exec-child", (char *)NULL);
		_exit(92);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 93;
	return WEXITSTATUS(status);
}

static unsigned long burst_n;
static trace_event_id_t burst_id;

static void *burst_emit(void *arg)
{
	uint64_t data[2] = { (uint64_t)(uintptr_t)arg, 0 };

	for (; data[1] < burst_n; data[1]++)
		posix_trace_event(burst_id, data, sizeof(data));
	return NULL;
}

static int burst(int threads, int children, unsigned long n)
{
	pthread_t th[16];
	int i, status, ret = 0;
	pid_t pid;

	burst_n = n;
	if (posix_trace_eventid_open("cli/burst", &burst_id))
		return 90;
	if (threads < 1 || threads > 16 || children < 0 || children > 16)
		return 2;
	fflush(NULL);
	for (i = 0; i < children; i++) {
		pid = fork();
		if (pid < 0)
			return 91;
		if (pid == 0) {
			burst_emit((void *)(uintptr_t)i);
			_exit(0);
		}
	}
	if (children) {
		while (wait(&status) > 0)
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				ret = 93;
		return ret;
	}
	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, burst_emit, (void *)(uintptr_t)i))
			return 91;
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static int wait_mode(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	struct sigaction sa;
	int waited;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	/* A sibling attaches to us: allow it where Yama asks (scope 1). */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	printf("ready\n");
	fflush(stdout);
	for (waited = 0; waited < GIVE_UP_MS; waited += 10) {
		if (got_term) {
			record("cli/sigterm", "term");
			return 42;
		}
		if (poll(&p, 1, 10) > 0) {
			record("cli/last", "last");
			return 0;
		}
		record("cli/tick", "tick");
	}
	return 94;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "events"))
		return events(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "exec-child")) {
		record("cli/exec", "exec");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "exit")) {
		record("cli/a", "exit");
		return atoi(argv[2]);
	}
	if (argc == 2 && !strcmp(argv[1], "kill")) {
		record("cli/a", "kill");
		raise(SIGKILL);
		return 95;
	}
	if (argc == 2 && !strcmp(argv[1], "wait"))
		return wait_mode();
	if (argc == 5 && !strcmp(argv[1], "burst"))
		return burst(atoi(argv[2]), atoi(argv[3]), strtoul(argv[4], NULL, 10));
	fprintf(stderr, "usage: cli_traced events N | exit N | kill | wait | burst T C N\n");
	return 2;
}
