// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * controller - trace a program from its first instruction.
 *
 *   controller PROGRAM [ARGS]          print its events as they come
 *   controller -o LOG PROGRAM [ARGS]   write them to the trace log LOG
 *                                      (read it with examples/analyzer)
 *
 * The child is forked, a stream is created for its pid, and only then does
 * the child exec PROGRAM, so nothing it does escapes the trace.  Live mode
 * reads with posix_trace_timedgetnext_event(), waking up now and then to
 * see whether the program has exited.  The module must be loaded
 * (/dev/posix_trace); try:  controller examples/traced 5
 *
 * Build against an installed libposixtrace:
 *   cc controller.c $(pkg-config --cflags --libs posixtrace) -o controller
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>

#define DATA_MAX 256

static void check(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "controller: %s: %s\n", what, strerror(err));
		exit(1);
	}
}

/* Fork a child that execs argv once it reads a byte from the pipe. */
static pid_t spawn_stopped(char **argv, int *go_fd)
{
	int go[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC) < 0)
		check(errno, "pipe");
	pid = fork();
	if (pid < 0)
		check(errno, "fork");
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the controller gave up */
		execvp(argv[0], argv);
		fprintf(stderr, "controller: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

static void print_event(trace_id_t trid, const struct posix_trace_event_info *ev,
			size_t len)
{
	char name[TRACE_EVENT_NAME_MAX + 1];

	if (posix_trace_eventid_get_name(trid, ev->posix_event_id, name))
		strcpy(name, "?");
	printf("%lld.%09ld pid %d %-24s %zu bytes\n",
	       (long long)ev->posix_timestamp.tv_sec,
	       ev->posix_timestamp.tv_nsec, (int)ev->posix_pid, name, len);
}

/* Live: print every event until the child has exited; returns its status. */
static int read_live(trace_id_t trid, pid_t child)
{
	struct posix_trace_event_info ev;
	char data[DATA_MAX];
	struct timespec until;
	int unavailable, status = 0, err;
	bool exited = false;
	size_t len;

	for (;;) {
		/* Absolute CLOCK_REALTIME, as for sem_timedwait(). */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		err = posix_trace_timedgetnext_event(trid, &ev, data, sizeof(data),
						     &len, &unavailable, &until);
		if (err == 0 && !unavailable) {
			print_event(trid, &ev, len);
			continue;
		}
		if (err && err != ETIMEDOUT)
			check(err, "posix_trace_timedgetnext_event");
		/* Nothing for a while: the stream is empty; done if the child is. */
		if (exited)
			return status;
		if (waitpid(child, &status, WNOHANG) == child) {
			/* Its last events may have arrived meanwhile. */
			check(posix_trace_stop(trid), "posix_trace_stop");
			exited = true;
		}
	}
}

int main(int argc, char **argv)
{
	const char *log = NULL;
	trace_attr_t attr;
	trace_id_t trid;
	int go, fd = -1, status, opt;
	pid_t child;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			goto usage;
		log = optarg;
	}
	if (optind >= argc)
		goto usage;

	check(posix_trace_attr_init(&attr), "posix_trace_attr_init");
	check(posix_trace_attr_setname(&attr, "controller"), "setname");
	check(posix_trace_attr_setmaxdatasize(&attr, DATA_MAX), "setmaxdatasize");
	child = spawn_stopped(argv + optind, &go);
	if (log) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			check(errno, log);
		/* A full stream is written to the log, not overwritten. */
		check(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_FLUSH),
		      "setstreamfullpolicy");
		check(posix_trace_create_withlog(child, &attr, fd, &trid),
		      "posix_trace_create_withlog");
	} else {
		check(posix_trace_create(child, &attr, &trid), "posix_trace_create");
	}
	posix_trace_attr_destroy(&attr);
	check(posix_trace_start(trid), "posix_trace_start");

	/* The stream runs: let the child exec the program. */
	if (write(go, "g", 1) != 1)
		check(errno, "write");
	close(go);

	if (log) {
		if (waitpid(child, &status, 0) < 0)
			check(errno, "waitpid");
	} else {
		status = read_live(trid, child);
	}
	/* With a log, shutdown writes what is left in the stream to it. */
	check(posix_trace_shutdown(trid), "posix_trace_shutdown");
	if (fd >= 0 && close(fd))
		check(errno, log);
	if (log)
		fprintf(stderr, "controller: events of %s written to %s\n",
			argv[optind], log);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

usage:
	fprintf(stderr, "usage: %s [-o LOG] PROGRAM [ARGS]\n", argv[0]);
	return 2;
}
