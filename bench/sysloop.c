// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop - the cost of kernel events to a program that makes system
 * calls (bench/kernel-events, issue 23): N getppid() calls, the median
 * ns per call of REPS repetitions on stdout.
 *
 * usage: sysloop [--pingpong | --touch] [--self CLASSES | --other CLASSES] N REPS
 *   --pingpong  instead of getppid(), N round trips of a byte between two
 *             threads of this process through two pipes (each one a
 *             wake-up and a switch off and onto a CPU per thread): what
 *             class SCHED costs; ns per round trip.
 *   --touch   instead of getppid(), N first writes to pages of anonymous
 *             memory, TOUCH_PAGES at a time, given back with
 *             MADV_DONTNEED after each pass (each write a minor fault):
 *             what class FAULT costs; ns per fault, the madvise() included.
 *   (none)    untraced, no stream anywhere asks for kernel events;
 *   --other   untraced, while a stream records CLASSES for another process
 *             (a child that sleeps): the probes are registered and this
 *             process pays the check of each tracepoint it passes;
 *   --self    traced: a running LOOP stream on this process records
 *             CLASSES (every call is two records).
 * CLASSES is a posix_trace_attr_setkernelclasses_np() mask.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <trace.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int stream_on(pid_t pid, unsigned int classes, trace_id_t *trid)
{
	trace_attr_t a;
	int err;

	err = posix_trace_attr_init(&a);
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&a, POSIX_TRACE_LOOP);
	if (!err)
		err = posix_trace_attr_setkernelclasses_np(&a, classes);
	if (!err)
		err = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	if (!err)
		err = posix_trace_start(*trid);
	if (err)
		fprintf(stderr, "sysloop: stream on %d: %s\n", (int)pid, strerror(err));
	return err;
}

static int ping[2], pong[2];

/* The other side of the ping-pong: echoes each byte back until EOF. */
static void *ponger(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static void round_trips(unsigned long n)
{
	unsigned long i;
	char c = 'x';

	for (i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			exit(1);
}

#define TOUCH_PAGES	64

static char *touch_area;

static void touches(unsigned long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long i;

	for (i = 0; i < n; i++) {
		touch_area[(i % TOUCH_PAGES) * pg] = 1;
		if (i % TOUCH_PAGES == TOUCH_PAGES - 1 &&
		    madvise(touch_area, TOUCH_PAGES * pg, MADV_DONTNEED))
			exit(1);
	}
}

int main(int argc, char **argv)
{
	bool pingpong = argc > 1 && !strcmp(argv[1], "--pingpong");
	bool touch = argc > 1 && !strcmp(argv[1], "--touch");
	pthread_t pt;
	unsigned long n, reps, i, r;
	pid_t other = -1;
	trace_id_t trid = 0;
	double *ns;
	int arg = 1;

	if (pingpong) {
		argc--;
		argv++;
		if (pipe(ping) || pipe(pong) || pthread_create(&pt, NULL, ponger, NULL))
			return 1;
	} else if (touch) {
		argc--;
		argv++;
		touch_area = mmap(NULL, TOUCH_PAGES * sysconf(_SC_PAGESIZE),
				  PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (touch_area == MAP_FAILED)
			return 1;
	}
	if (argc == 5 && (!strcmp(argv[1], "--self") || !strcmp(argv[1], "--other"))) {
		unsigned int classes = (unsigned int)strtoul(argv[2], NULL, 0);

		if (!strcmp(argv[1], "--other")) {
			other = fork();
			if (other < 0)
				return 1;
			if (!other) {
				pause();
				_exit(0);
			}
		}
		if (stream_on(other > 0 ? other : 0, classes, &trid))
			goto err;
		arg = 3;
	} else if (argc != 3) {
		fprintf(stderr, "usage: sysloop [--pingpong | --touch] [--self CLASSES | --other CLASSES] N REPS\n");
		return 2;
	}
	n = strtoul(argv[arg], NULL, 0);
	reps = strtoul(argv[arg + 1], NULL, 0);
	if (!n || !reps)
		goto err;
	ns = calloc(reps, sizeof(*ns));
	if (!ns)
		goto err;
	for (r = 0; r < reps; r++) {
		unsigned long long t0 = now_ns();

		if (pingpong)
			round_trips(n);
		else if (touch)
			touches(n);
		else
			for (i = 0; i < n; i++)
				syscall(SYS_getppid);
		ns[r] = (double)(now_ns() - t0) / n;
	}
	qsort(ns, reps, sizeof(*ns), cmp);
	printf("%.1f\n", ns[reps / 2]);
	if (trid)
		posix_trace_shutdown(trid);
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	free(ns);
	return 0;
err:
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	return 1;
}
