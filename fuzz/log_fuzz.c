// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the trace log reader on an in-memory log (memfd).
 * Opens the input as a log, then exercises every function a pre-recorded
 * trid accepts.  Built with ASan and UBSan over the library's sources
 * (Makefile); every crash it finds becomes a case in tests/unit/test_log.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace.h>

static int fd = -1;

static void drain(trace_id_t trid, unsigned int max)
{
	struct posix_trace_event_info info;
	unsigned char data[300];
	size_t len;
	int unavail;

	while (max--) {
		if (posix_trace_getnext_event(trid, &info, data, max % 7 ? sizeof(data) : 3,
					      &len, &unavail) || unavail)
			break;
		if (len > sizeof(data))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t size)
{
	struct posix_trace_status_info st;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	int unavail, n;

	if (fd < 0)
		fd = memfd_create("fuzzlog", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) ||
	    (size && pwrite(fd, buf, size, 0) != (ssize_t)size))
		abort();
	if (posix_trace_open(fd, &trid))
		return 0;
	drain(trid, 4096);
	if (posix_trace_get_attr(trid, &attr) ||
	    posix_trace_attr_getname(&attr, name) ||
	    strlen(name) >= TRACE_NAME_MAX ||
	    posix_trace_attr_getgenversion(&attr, name) ||
	    posix_trace_get_status(trid, &st))
		abort();
	for (n = 0; n < 2000; n++) {
		if (posix_trace_eventtypelist_getnext_id(trid, &id, &unavail))
			abort();
		if (unavail)
			break;
		if (posix_trace_eventid_get_name(trid, id, name) ||
		    strlen(name) > TRACE_EVENT_NAME_MAX)
			abort();
	}
	if (n == 2000 || posix_trace_eventtypelist_rewind(trid) || posix_trace_rewind(trid))
		abort();
	drain(trid, 8);
	if (posix_trace_close(trid))
		abort();
	return 0;
}
