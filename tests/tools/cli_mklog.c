// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helper of tests/tools/cli.sh: writes to argv[1] a sequential log whose
 * event names and data hold everything the report formats must escape
 * ('"', '\', newline, ',', control bytes, bytes that are not UTF-8, UTF-8,
 * spaces) and a record truncated when recorded, with the test writer
 * tests/unit/log_writer.h.
 */
#include <stdio.h>
#include "log_writer.h"

#define NAMES 9

int main(int argc, char **argv)
{
	static const trace_event_id_t ids[NAMES] = { 2, 257, 258, 259, 260, 261, 262, 263, 264 };
	static const char *const names[NAMES] = {
		"posix_trace_start", "q\"uote", "back\\slash", "new\nline", "com,ma",
		"ctl\x01\x7f", "bad\xff\xfe", "utf8 \xc3\xa9 \xe2\x82\xac", "sp ace",
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED,
					      .posix_log_overrun_status = POSIX_TRACE_OVERRUN };
	struct lw_event ev[NAMES + 1];
	struct lw_log w;
	unsigned int i;

	if (argc != 2)
		return 2;
	for (i = 0; i < NAMES; i++)
		ev[i] = (struct lw_event){ .id = ids[i], .pid = 7 + i, .tid = 7,
					   .ts = 5000000000ull + 1000 * i,
					   .thread = 0x7f0000001000ull + i,
					   .data = names[i],
					   .data_len = (uint32_t)strlen(names[i]) + 1 };
	ev[NAMES] = ev[1];
	ev[NAMES].flags = POSIX_TRACE_REC_TRUNCATED;
	ev[NAMES].ts += 999999999;
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "odd \"trace\"\n", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, NAMES);
	lw_events(&w, ev, NAMES + 1);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, argv[1]))
		return perror(argv[1]), 1;
	free(w.buf);
	return 0;
}
