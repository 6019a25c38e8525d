// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * demo - trace another process with the POSIX Tracing option.
 *
 * The controller forks a child, creates and starts a trace stream for the
 * child's pid, then lets the child go.  The child opens a few named user
 * event types and records them, from two threads, with some data.  The
 * controller reads every event back and prints one line per event:
 *
 *   timestamp  pid  thread  event-name  data-length  hex | printable
 *
 * Run it in the VM, where the module is loaded:  make demo
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>

#define DONE_EVENT "demo/done"
#define DATA_MAX 4096
/* Bytes of an event's data shown on its line. */
#define DATA_SHOWN 32
/* The controller gives up on a child that never says "done". */
#define READ_TIMEOUT_SEC 30

static void die(const char *what, int err)
{
	fprintf(stderr, "demo: %s: %s\n", what, strerror(err));
	exit(1);
}

/* posix_trace_* return an error number; turn a non-zero one into exit. */
static void check(int err, const char *what)
{
	if (err)
		die(what, err);
}

static trace_event_id_t open_event(const char *name)
{
	trace_event_id_t id;

	check(posix_trace_eventid_open(name, &id), name);
	return id;
}

/* ---- child: the traced process ---------------------------------------- */

struct point {
	int32_t x, y;
};

static void *child_thread(void *arg)
{
	trace_event_id_t id = open_event("demo/thread");
	const char msg[] = "hello from a second thread";

	(void)arg;
	posix_trace_event(id, msg, sizeof(msg) - 1);
	return NULL;
}

static void child_main(int go_fd)
{
	trace_event_id_t hello, counter, point, done;
	struct point pt = { .x = 3, .y = -4 };
	pthread_t thread;
	char go;
	int i, err;

	/* Wait until the controller's stream for our pid is running. */
	if (read(go_fd, &go, 1) != 1)
		_exit(2);
	close(go_fd);

	hello = open_event("demo/hello");
	counter = open_event("demo/counter");
	point = open_event("demo/point");
	done = open_event(DONE_EVENT);

	posix_trace_event(hello, "hello, trace!", 13);
	for (i = 1; i <= 3; i++)
		posix_trace_event(counter, &i, sizeof(i));
	posix_trace_event(point, &pt, sizeof(pt));

	err = pthread_create(&thread, NULL, child_thread, NULL);
	if (err == 0)
		pthread_join(thread, NULL);

	posix_trace_event(done, NULL, 0);
	_exit(0);
}

/* ---- controller -------------------------------------------------------- */

static void print_data(const unsigned char *data, size_t len)
{
	size_t i, shown = len < DATA_SHOWN ? len : DATA_SHOWN;

	for (i = 0; i < shown; i++)
		printf("%s%02x", i ? " " : "", data[i]);
	printf("%s|", shown ? " " : "");
	for (i = 0; i < shown; i++)
		putchar(data[i] >= 0x20 && data[i] < 0x7f ? data[i] : '.');
	printf("|%s", shown < len ? "..." : "");
}

static void print_event(trace_id_t trid,
			const struct posix_trace_event_info *ev,
			const unsigned char *data, size_t len)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	int err;

	err = posix_trace_eventid_get_name(trid, ev->posix_event_id, name);
	if (err)
		snprintf(name, sizeof(name), "<id %u: %s>", ev->posix_event_id,
			 strerror(err));
	printf("%10lld.%09ld  pid %-6d  thread %-#16lx  %-22s  %3zu bytes%s  ",
	       (long long)ev->posix_timestamp.tv_sec,
	       ev->posix_timestamp.tv_nsec, (int)ev->posix_pid,
	       (unsigned long)ev->posix_thread_id, name, len,
	       ev->posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED ?
	       " (truncated)" : "");
	print_data(data, len);
	putchar('\n');
}

static int is_event(trace_id_t trid, trace_event_id_t id, const char *name)
{
	char buf[TRACE_EVENT_NAME_MAX + 1];

	return posix_trace_eventid_get_name(trid, id, buf) == 0 &&
	       strcmp(buf, name) == 0;
}

/* Blocking reads while the child runs, until its last event. */
static int read_until_done(trace_id_t trid)
{
	struct posix_trace_event_info ev;
	unsigned char data[DATA_MAX];
	size_t len;
	int unavailable, n = 0;

	for (;;) {
		check(posix_trace_getnext_event(trid, &ev, data, sizeof(data),
						&len, &unavailable),
		      "posix_trace_getnext_event");
		if (unavailable) {	/* not expected while running */
			usleep(10000);
			continue;
		}
		print_event(trid, &ev, data, len);
		n++;
		if (is_event(trid, ev.posix_event_id, DONE_EVENT))
			return n;
	}
}

/* Non-blocking reads of whatever is left (e.g. the STOP event). */
static int drain(trace_id_t trid)
{
	struct posix_trace_event_info ev;
	unsigned char data[DATA_MAX];
	size_t len;
	int unavailable, n = 0;

	for (;;) {
		check(posix_trace_trygetnext_event(trid, &ev, data,
						   sizeof(data), &len,
						   &unavailable),
		      "posix_trace_trygetnext_event");
		if (unavailable)
			return n;
		print_event(trid, &ev, data, len);
		n++;
	}
}

static void on_alarm(int sig)
{
	static const char msg[] = "demo: timed out waiting for the child's events\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static trace_id_t start_stream(pid_t child)
{
	trace_attr_t attr;
	trace_id_t trid;

	check(posix_trace_attr_init(&attr), "posix_trace_attr_init");
	check(posix_trace_attr_setname(&attr, "demo"),
	      "posix_trace_attr_setname");
	check(posix_trace_attr_setmaxdatasize(&attr, 64),
	      "posix_trace_attr_setmaxdatasize");
	check(posix_trace_create(child, &attr, &trid), "posix_trace_create");
	check(posix_trace_attr_destroy(&attr), "posix_trace_attr_destroy");
	check(posix_trace_start(trid), "posix_trace_start");
	return trid;
}

int main(void)
{
	int go[2], status, n, err;
	trace_id_t trid;
	pid_t child;

	if (pipe(go) < 0)
		die("pipe", errno);
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (child == 0) {
		close(go[1]);
		child_main(go[0]);
	}
	close(go[0]);

	trid = start_stream(child);
	printf("demo: tracing child %d (stream %d)\n", (int)child, (int)trid);
	fflush(stdout);
	if (write(go[1], "g", 1) != 1)
		die("write", errno);
	close(go[1]);

	signal(SIGALRM, on_alarm);
	alarm(READ_TIMEOUT_SEC);
	n = read_until_done(trid);
	alarm(0);

	if (waitpid(child, &status, 0) < 0)
		die("waitpid", errno);
	err = posix_trace_stop(trid);
	if (err)
		fprintf(stderr, "demo: posix_trace_stop: %s\n", strerror(err));
	n += drain(trid);
	check(posix_trace_shutdown(trid), "posix_trace_shutdown");

	printf("demo: %d events; child exited with status %d\n", n,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
