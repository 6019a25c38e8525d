// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * traced - a program instrumented with POSIX trace events.
 *
 *   traced [ITERATIONS]      (default 10)
 *
 * It does not trace itself: a controller (examples/controller, or
 * "posix-trace record") creates a stream for its pid.  Untraced, every
 * posix_trace_event() below costs one load and test: instrumentation can
 * stay in production code.
 *
 * Build against an installed libposixtrace:
 *   cc traced.c $(pkg-config --cflags --libs posixtrace) -o traced
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <trace.h>

/* The data of a "traced/step" event: what an analyzer would decode. */
struct step {
	int iteration;
	unsigned long long value;
};

/*
 * Event names are per process; the controller reads them from the stream.
 * Without the module (ENOSYS) nothing can trace us: carry on untraced.
 */
static trace_event_id_t open_event(const char *name)
{
	static bool untraced;
	trace_event_id_t id;
	int err = posix_trace_eventid_open(name, &id);

	if (err == ENOSYS) {
		if (!untraced)
			fprintf(stderr, "traced: no posix_trace module: untraced\n");
		untraced = true;
		return POSIX_TRACE_UNNAMED_USEREVENT;
	}
	if (err) {
		fprintf(stderr, "traced: posix_trace_eventid_open %s: %s\n",
			name, strerror(err));
		exit(1);
	}
	return id;
}

int main(int argc, char **argv)
{
	const struct timespec pause = { .tv_nsec = 2 * 1000 * 1000 };
	trace_event_id_t start, step, done;
	struct step s = { 0, 1 };
	int i, n = 10;

	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: %s [ITERATIONS]\n"
		       "Records traced/start, ITERATIONS x traced/step "
		       "(with data) and traced/done.\n", argv[0]);
		return 0;
	}
	if (argc > 1)
		n = atoi(argv[1]);

	/* Open the ids once; recording an event then takes no lookup. */
	start = open_event("traced/start");
	step = open_event("traced/step");
	done = open_event("traced/done");

	/* Any bytes can go with an event: here a string... */
	posix_trace_event(start, argv[0], strlen(argv[0]));
	for (i = 1; i <= n; i++) {
		s.iteration = i;
		s.value *= 3;
		/* ... here a structure. */
		posix_trace_event(step, &s, sizeof(s));
		nanosleep(&pause, NULL);
	}
	/* ... or nothing at all. */
	posix_trace_event(done, NULL, 0);
	printf("traced: %d steps, value %llu\n", n, s.value);
	return 0;
}
