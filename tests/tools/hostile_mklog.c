// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helper of tests/tools/hostile.sh: writes a hostile trace log with the
 * test writer tests/unit/log_writer.h.  Every block is valid (CRCs
 * match): only the values are what a log from someone else might hold.
 *
 *   hostile_mklog maxdata PATH   INFO max-data-size 2^64 - 1, events
 *                                with 4000 bytes of data
 *   hostile_mklog bigdata PATH   the same with max-data-size 200
 *   hostile_mklog longname PATH  an event type name of 255 bytes
 *                                (TRACE_EVENT_NAME_MAX), used by events
 *   hostile_mklog escape PATH    names and data that a terminal or a
 *                                spreadsheet would obey: ESC, BEL, the
 *                                8-bit CSI raw and as UTF-8, formulas
 *   hostile_mklog span PATH      events at realtime 0 and 2^64 - 1 ns
 *   hostile_mklog backspan PATH  the same, the later one first
 *   hostile_mklog bare PATH      no event, no event type (a TYPES block
 *                                of no entry)
 *   hostile_mklog ring N PATH    a LOOP (ring) log of N slots, one event
 *                                each (for timing the reader by hand)
 */
#include <stdio.h>
#include "log_writer.h"

static const struct posix_trace_status_info done = {
	.posix_stream_status = POSIX_TRACE_SUSPENDED,
};

static struct lw_event event(uint32_t id, uint64_t ts, const void *data, uint32_t len)
{
	return (struct lw_event){ .id = id, .pid = 77, .tid = 77, .ts = ts,
				  .thread = 0x7f0000001000ull, .data = data,
				  .data_len = len };
}

static void seq_log(struct lw_log *w, const trace_event_id_t *ids,
		    const char *const *names, unsigned int n)
{
	lw_init(w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(w, "hostile", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(w, ids, names, n);
}

/* Events of 4000 bytes of data; INFO's max-data-size 2^64 - 1 if @huge. */
static void mk_bigdata(struct lw_log *w, int huge)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "big" };
	static uint8_t data[4000];
	struct lw_event ev[3];
	unsigned int i;

	memset(data, 'D', sizeof(data));
	seq_log(w, ids, names, 1);
	if (huge) {
		/* INFO is the first block, at the end of the 64-byte header. */
		lw_put64(w->buf + POSIX_TRACE_LOG_HEADER_V1 + POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_I_MAX_DATA,
			 UINT64_MAX);
		lw_reseal(w, POSIX_TRACE_LOG_HEADER_V1);
	}
	for (i = 0; i < 3; i++)
		ev[i] = event(257, 5000000000ull + i, data, sizeof(data));
	lw_events(w, ev, 3);
}

static void mk_longname(struct lw_log *w)
{
	static const trace_event_id_t ids[] = { 2, 257 };
	static char name[TRACE_EVENT_NAME_MAX + 1];
	const char *names[] = { "posix_trace_start", name };
	struct lw_event ev[2];

	memset(name, 'n', TRACE_EVENT_NAME_MAX);
	seq_log(w, ids, names, 2);
	ev[0] = event(2, 5000000000ull, NULL, 0);
	ev[1] = event(257, 5000000001ull, "x", 1);
	lw_events(w, ev, 2);
}

#define NESC 9

static void mk_escape(struct lw_log *w)
{
	static const trace_event_id_t ids[NESC] = { 257, 258, 259, 260, 261, 262, 263, 264, 265 };
	static const char *const names[NESC] = {
		"\x1b]0;pwned\x07\x1b[2J", "raw\x9b" "31mcsi", "utf8\xc2\x9b" "31mcsi",
		"=HYPERLINK(\"http://x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
		"'=quoted", "bidi\xe2\x80\xae" "evil",
	};
	static const char formula[] = "=1+1";
	struct lw_event ev[NESC];
	unsigned int i;

	seq_log(w, ids, names, NESC);
	for (i = 0; i < NESC; i++)
		ev[i] = event(ids[i], 5000000000ull + i, i ? names[i] : formula,
			      (uint32_t)strlen(i ? names[i] : formula));
	lw_events(w, ev, NESC);
}

/* Events at realtime 0 and 2^64 - 1 ns, in that order or (@back) not. */
static void mk_span(struct lw_log *w, int back)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "edge" };
	/* lw_info(): realtime 1700000000 s at monotonic 5 s. */
	uint64_t zero = 5000000000ull - 1700000000ull * 1000000000ull;
	struct lw_event ev[2];

	seq_log(w, ids, names, 1);
	ev[back] = event(257, zero, NULL, 0);
	ev[!back] = event(257, zero - 1, NULL, 0);
	lw_events(w, ev, 2);
}

static void mk_ring(struct lw_log *w, uint32_t nslots)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "tick" };
	struct lw_event ev;
	uint32_t i;

	lw_init(w, POSIX_TRACE_LOG_LAYOUT_RING, 4096, nslots, 128);
	lw_info(w, "ring", POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP);
	lw_types(w, ids, names, 1);
	for (i = 0; i < nslots; i++) {
		ev = event(257, 5000000000ull + i, NULL, 0);
		/* Wrapped: the oldest block is in the middle slot. */
		lw_slot(w, (i + nslots / 2) % nslots, i, &ev, 1);
	}
	w->end = w->len;
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "", *path = argv[argc - 1];
	struct lw_log w;

	if (argc == 3 && !strcmp(kind, "maxdata"))
		mk_bigdata(&w, 1);
	else if (argc == 3 && !strcmp(kind, "bigdata"))
		mk_bigdata(&w, 0);
	else if (argc == 3 && !strcmp(kind, "longname"))
		mk_longname(&w);
	else if (argc == 3 && !strcmp(kind, "escape"))
		mk_escape(&w);
	else if (argc == 3 && !strcmp(kind, "span"))
		mk_span(&w, 0);
	else if (argc == 3 && !strcmp(kind, "backspan"))
		mk_span(&w, 1);
	else if (argc == 3 && !strcmp(kind, "bare"))
		seq_log(&w, NULL, NULL, 0);
	else if (argc == 4 && !strcmp(kind, "ring") && atoi(argv[2]) > 0)
		mk_ring(&w, (uint32_t)atoi(argv[2]));
	else
		return fputs("usage: hostile_mklog maxdata|bigdata|longname|escape|span|backspan|bare|ring N PATH\n",
			     stderr), 2;
	if (w.layout == POSIX_TRACE_LOG_LAYOUT_SEQ)
		lw_status(&w, &done);
	if (lw_save(&w, w.end, path))
		return perror(path), 1;
	free(w.buf);
	return 0;
}
