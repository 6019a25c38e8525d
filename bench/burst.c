// SPDX-License-Identifier: GPL-2.0
/*
 * burst - the traced program of the recording benchmark: N back-to-back
 * posix_trace_event() calls of a 16-byte payload (the payload carries
 * the event's sequence number, so a reader can count what is missing),
 * from T threads, or from C forked children (under "posix-trace record
 * --inherit").  Prints the emitter's cost per event on stderr.
 *
 * usage: burst [-t THREADS] [-c CHILDREN] [-s BYTES] [-l PROVIDER] N
 *   N events per thread (or per child); -s the payload size (default 16);
 *   -l: LTTng-UST's bench:event tracepoint instead (PROVIDER is
 *   build/bench/libbench_tp.so, dlopen()ed as in lttng.c), the peer of
 *   bench/record.  With threads, also the process's CPU time per event.
 * usage: burst -r LOG
 *   prints how many burst events the trace log LOG holds (what
 *   "posix-trace report" says, without formatting every event).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include <trace.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "bench_tp.h"

static unsigned long n_events;
static size_t payload = 16;
static trace_event_id_t id;
static int lttng;		/* -l: the LTTng tracepoint */

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
		if (lttng)
			lttng_ust_tracepoint(bench, event, buf, (unsigned int)payload);
		else
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

/* burst -r LOG: the number of burst/event events in LOG. */
static int count_log(const char *path)
{
	struct posix_trace_event_info ev;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t burst = 0;
	unsigned long n = 0;
	unsigned char data[4096];
	size_t len;
	trace_id_t trid;
	int fd = open(path, O_RDONLY), unav, ret;

	if (fd < 0 || posix_trace_open(fd, &trid)) {
		perror("burst: open the log");
		return 1;
	}
	while (!(ret = posix_trace_getnext_event(trid, &ev, data, sizeof(data),
						 &len, &unav)) && !unav) {
		if (!burst && !posix_trace_eventid_get_name(trid, ev.posix_event_id, name) &&
		    !strcmp(name, "burst/event"))
			burst = ev.posix_event_id;
		n += burst && ev.posix_event_id == burst;
	}
	printf("%lu\n", n);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int threads = 1, children = 0, i;
	const char *provider = NULL;
	struct rusage ru;
	uint64_t ns, cpu;
	int c;

	while ((c = getopt(argc, argv, "t:c:s:l:r:")) != -1) {
		switch (c) {
		case 'r': return count_log(optarg);
		case 't': threads = (unsigned int)atoi(optarg); break;
		case 'c': children = (unsigned int)atoi(optarg); break;
		case 's': payload = (size_t)atol(optarg); break;
		case 'l': provider = optarg; break;
		default: goto usage;
		}
	}
	if (provider) {
		/* Registers with the session daemon before it returns. */
		if (!dlopen(provider, RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "burst: dlopen: %s\n", dlerror());
			return 1;
		}
		lttng = 1;
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
		getrusage(RUSAGE_SELF, &ru);
		cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
		      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
		fprintf(stderr, "burst: %lu events x %u threads, %.0f ns/event, cpu %.0f ns/event\n",
			n_events, threads,
			(double)ns / ((double)n_events * threads),
			(double)cpu / ((double)n_events * threads));
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
	fprintf(stderr, "usage: burst [-t THREADS] [-c CHILDREN] [-s BYTES] [-l PROVIDER] N\n");
	return 2;
}
