// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/convert-out: writes a large trace log for the convert benchmark
 * with the test writer (tests/unit/log_writer.h), on the host, no module:
 *   convert_mklog OUT N
 * N events in the proportions of a traced program: 8 user event types,
 * 0..32 bytes of data (16 on average), 2 processes of 2 threads each.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include "log_writer.h"

int main(int argc, char **argv)
{
	static const char *const names[] = { "app_start", "request_begin", "request_end",
					     "cache_miss", "db_query", "db_result", "lock_wait",
					     "app_stop" };
	static const trace_event_id_t ids[] = { 256, 257, 258, 259, 260, 261, 262, 263 };
	static const char data[32] = "0123456789abcdefghijklmnopqrstu";
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[800];
	unsigned long i, k, n;
	struct lw_log w;

	if (argc != 3)
		return fprintf(stderr, "usage: convert_mklog OUT N\n"), 2;
	n = strtoul(argv[2], NULL, 0);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "bench", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 8);
	for (k = 0; k < n; k += i) {
		for (i = 0; i < 800 && k + i < n; i++) {
			unsigned long j = k + i;

			ev[i] = (struct lw_event){
				.id = ids[j % 8], .pid = 1000 + j % 2, .tid = 1000 + j % 4,
				.ts = 5000000000ull + j * 731, .thread = 0x7f3a12345000ull + (j % 4) * 0x801000,
				.address = 0x55d0c0de0000ull + j % 8 * 0x40,
				.data = data, .data_len = (uint32_t)(j * 7 % 33),
			};
		}
		lw_events(&w, ev, (unsigned int)i);
	}
	lw_status(&w, &st);
	if (lw_save(&w, w.end, argv[1]))
		return perror(argv[1]), 1;
	free(w.buf);
	return 0;
}
