// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test helper of tests/tools/convert.sh (built by it, not by make):
 *   convert_helper dump LOG   the reference: one line per event as
 *                             posix_trace_getnext_event() returns it (read
 *                             here, not through the tool's logview.c), in
 *                             the form convert_check.py prints exports in
 *   convert_helper odd OUT [N [back]]
 *                             writes a log of N events (default 27) whose
 *                             names and data hold every kind of byte quoting
 *                             must survive; "back": each event 1 us earlier
 *                             than the one before (a damaged log's order)
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include "log_writer.h"

static void hex(const void *p, size_t n)
{
	const unsigned char *s = p;

	if (!n)
		putchar('-');
	while (n--)
		printf("%02x", *s++);
}

static int dump(const char *path)
{
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t max = 0, sys = 0, len;
	int fd, ret, unavailable = 0;
	unsigned char *data;
	trace_attr_t attr;
	trace_id_t trid;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (ret = posix_trace_open(fd, &trid))) {
		fprintf(stderr, "%s: cannot open as a log\n", path);
		return 1;
	}
	/* Room for the largest event, user or system: nothing cut on read. */
	if (posix_trace_get_attr(trid, &attr) || posix_trace_attr_getmaxdatasize(&attr, &max) ||
	    posix_trace_attr_getmaxsystemeventsize(&attr, &sys))
		return 1;
	max = max > sys ? max : sys;
	data = malloc(max + 1);
	if (!data)
		return 1;
	while (!(ret = posix_trace_getnext_event(trid, &info, data, max, &len, &unavailable)) &&
	       !unavailable) {
		if (posix_trace_eventid_get_name(trid, info.posix_event_id, name))
			strcpy(name, "?");
		printf("%llu ", (unsigned long long)info.posix_timestamp.tv_sec * 1000000000ull +
		       (unsigned long long)info.posix_timestamp.tv_nsec);
		hex(name, strlen(name));
		printf(" %d %llx %llx %d ", (int)info.posix_pid,
		       (unsigned long long)(uintptr_t)info.posix_thread_id,
		       (unsigned long long)(uintptr_t)info.posix_prog_address,
		       info.posix_truncation_status);
		hex(data, len);
		putchar('\n');
	}
	free(data);
	posix_trace_close(trid);
	close(fd);
	return ret != 0;
}

static int odd(const char *path, unsigned int n, bool back)
{
	static const char *const names[] = {
		"quote\"back\\slash", "tab\there", "new\nline", "ctl\x01\x1f\x7f",
		"latin1 \xff\xfe invalid", "utf8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		"bad utf8 \xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82",
		"{ x: } [1] = 2",
		"posix_trace_start",
	};
	static const trace_event_id_t ids[] = { 256, 257, 258, 259, 260, 261, 262, 263, 264 };
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED,
					      .posix_stream_overrun_status = POSIX_TRACE_OVERRUN };
	unsigned char data[200];
	struct lw_event ev[200];
	struct lw_log w;
	unsigned int i, k;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 37 + 1);
	data[0] = 0;
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "odd \"name\"\n\xff", POSIX_TRACE_LOOP, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 9);
	for (k = 0; k < n; k += 200) {
		for (i = 0; i < 200 && k + i < n; i++) {
			unsigned int j = k + i;

			ev[i] = (struct lw_event){
				.id = ids[j % 9], .pid = j % 3 ? 100 + j % 2 : 0, .tid = j,
				.flags = j % 4 == 3,
				.ts = back ? 9000000000ull - j * 1000ull : 5000000000ull + j * 1234567ull,
				.thread = j % 5 ? 0x7f0000000000ull + j % 3 : ~0ull,
				.address = 0x1000 + j, .data = data + j % 30, .data_len = (j * 7) % 170,
			};
		}
		lw_events(&w, ev, i);
	}
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path)) {
		perror(path);
		return 1;
	}
	free(w.buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "odd"))
		return odd(argv[2], argc > 3 ? (unsigned int)atoi(argv[3]) : 27,
			   argc > 4 && !strcmp(argv[4], "back"));
	fprintf(stderr, "usage: convert_helper dump LOG | odd OUT [N [back]]\n");
	return 2;
}
