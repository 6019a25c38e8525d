// SPDX-License-Identifier: GPL-2.0
/*
 * burst - the traced program of the recording benchmark: N back-to-back
 * posix_trace_event() calls of a 16-byte payload (the payload carries
 * the event's sequence number, so a reader can count what is missing),
 * from T threads, or from C forked children (under "posix-trace record
 * --inherit").  Prints the emitter's cost per event on stderr.
 *
 * usage: burst [-t THREADS] [-c CHILDREN] [-s BYTES] N
 *   N events per thread (or per child); -s the payload size (default 16).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <trace.h>

static unsigned long n_events;
static size_t payload = 16;
static trace_event_id_t id;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *emit(void *arg)
{
	unsigned char buf[4096] = { 0 };
	uint64_t seq;

	(void)arg;
	for (seq = 0; seq < n_events; seq++) {
		memcpy(buf, &seq, sizeof(seq));
		posix_trace_event(id, buf, payload);
	}
	return NULL;
}

/* Runs @threads emitters; returns the wall time they took. */
static uint64_t run(unsigned int threads)
{
	pthread_t th[64];
	uint64_t t0 = now_ns();
	unsigned int i;

	for (i = 1; i < threads; i++) {
		if (pthread_create(&th[i], NULL, emit, NULL)) {
			fprintf(stderr, "burst: pthread_create failed\n");
			exit(1);
		}
	}
	emit(NULL);
	for (i = 1; i < threads; i++)
		pthread_join(th[i], NULL);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	unsigned int threads = 1, children = 0, i;
	uint64_t ns;
	int c;

	while ((c = getopt(argc, argv, "t:c:s:")) != -1) {
		switch (c) {
		case 't': threads = (unsigned int)atoi(optarg); break;
		case 'c': children = (unsigned int)atoi(optarg); break;
		case 's': payload = (size_t)atol(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !threads || threads > 64 || payload > 4096)
		goto usage;
	n_events = strtoul(argv[optind], NULL, 10);
	if (posix_trace_eventid_open("burst/event", &id)) {
		perror("burst: posix_trace_eventid_open");
		return 1;
	}
	if (!children) {
		ns = run(threads);
		fprintf(stderr, "burst: %lu events x %u threads, %.0f ns/event\n",
			n_events, threads,
			(double)ns / ((double)n_events * threads));
		return 0;
	}
	fflush(NULL);
	for (i = 0; i < children; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("burst: fork");
			return 1;
		}
		if (!p) {
			ns = run(threads);
			fprintf(stderr, "burst: child %u: %lu events, %.0f ns/event\n",
				i, n_events, (double)ns / (double)n_events);
			_exit(0);
		}
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
usage:
	fprintf(stderr, "usage: burst [-t THREADS] [-c CHILDREN] [-s BYTES] N\n");
	return 2;
}
