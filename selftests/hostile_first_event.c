// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_first_event - the program selftests/hostile_lane_test runs to
 * record a thread's first event inside a signal handler.
 *
 *   hostile_first_event LIBRARY FD
 *
 * Makes 40 pthread keys, then waits for a byte on descriptor FD (the test
 * traces this process meanwhile), then dlopen()s LIBRARY: its own key is
 * then past the 32 glibc keeps in a thread's descriptor, and
 * pthread_setspecific() allocates its second-level block on a thread's
 * first use.  A new thread raises SIGUSR1; the handler records the
 * thread's first event.  Exit code: the calloc() calls made inside the
 * handler (glibc's own come here too), or 90+ for a setup failure.
 * Not linked against the library: it must not load before the keys.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace.h>

extern void *__libc_calloc(size_t n, size_t size);

static volatile int in_handler, callocs;
static void (*event)(trace_event_id_t, const void *, size_t);

void *calloc(size_t n, size_t size)
{
	if (in_handler)
		callocs++;
	return __libc_calloc(n, size);
}

static void handler(int sig)
{
	static const char data[] = "first event in a handler";

	(void)sig;
	in_handler = 1;
	event(POSIX_TRACE_UNNAMED_USEREVENT, data, sizeof(data));
	in_handler = 0;
}

static void *first_event(void *arg)
{
	(void)arg;
	raise(SIGUSR1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_key_t keys[40];
	struct sigaction sa;
	pthread_t th;
	void *lib;
	char c;
	int i;

	if (argc != 3)
		return 90;
	for (i = 0; i < 40; i++)
		if (pthread_key_create(&keys[i], NULL))
			return 91;
	if (read(atoi(argv[2]), &c, 1) != 1)
		return 92;
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib)
		return 93;
	*(void **)&event = dlsym(lib, "posix_trace_event");
	if (!event)
		return 94;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 95;
	if (pthread_create(&th, NULL, first_event, NULL) || pthread_join(th, NULL))
		return 96;
	return callocs > 80 ? 80 : callocs;
}
