// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writes the seed corpus (corpus/) from the test writer: a complete
 * sequential log, the same cut short, one with unknown blocks, a LOOP
 * ring log, the same two with packed EVENTS blocks (format 1.1); and, for tools_fuzz (whose inputs are larger), one with a
 * name of TRACE_EVENT_NAME_MAX bytes and events of kilobytes of data,
 * and a ring of 1024 slots.  Run by "make corpus"; the files are kept in
 * git.
 */
#include <stdio.h>
#include "log_writer.h"

static void save(const char *path, const struct lw_log *w, size_t len)
{
	if (lw_save(w, len, path))
		perror(path), exit(1);
}

/* A 255-byte name and 3000-byte events, some of them over max-data-size. */
static void big(void)
{
	static const trace_event_id_t ids[] = { 2, 257 };
	static char name[TRACE_EVENT_NAME_MAX + 1];
	static uint8_t data[3000];
	const char *names[] = { "posix_trace_start", name };
	struct lw_event ev[10];
	struct lw_log w;
	unsigned int i;

	memset(name, 'n', TRACE_EVENT_NAME_MAX);
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	for (i = 0; i < 10; i++)
		ev[i] = (struct lw_event){ .id = i ? 257 : 2, .pid = 7, .tid = 8,
					   .ts = 5000000000ull + i, .data = data,
					   .data_len = 300 * i };
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "big", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 2);
	lw_events(&w, ev, 10);
	save("corpus/big", &w, w.end);
	free(w.buf);
}

/* 1024 one-event slots, wrapped. */
static void ring_many(void)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "user" };
	struct lw_event ev = { .id = 257, .pid = 7, .tid = 8 };
	struct lw_log w;
	unsigned int i;

	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_RING, 512, 1024, 128);
	lw_info(&w, "ring-many", POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP);
	lw_types(&w, ids, names, 1);
	for (i = 0; i < 1024; i++) {
		ev.ts = 5000000000ull + i;
		lw_slot(&w, (i + 300) % 1024, 10 + i, &ev, 1);
	}
	save("corpus/ring-many", &w, w.len);
	free(w.buf);
}

/* A ring of 3 slots, wrapped; @packed: two of them packed (format 1.1). */
static void ring(const struct lw_event *ev, const struct posix_trace_status_info *st,
		 const trace_event_id_t *ids, const char *const *names, int packed)
{
	const char *name = packed ? "ring-packed" : "ring";
	char path[64];
	struct lw_log w;

	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_RING, 512, 3, 256);
	lw_info(&w, name, POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP);
	lw_types(&w, ids, names, 2);
	lw_slot_as(&w, 1, 4, ev, 2, packed);
	lw_slot_as(&w, 2, 5, ev + 2, 2, packed);
	lw_slot_as(&w, 0, 6, ev + 4, 2, 0);
	lw_status(&w, st);
	snprintf(path, sizeof(path), "corpus/%s", name);
	save(path, &w, w.len);
	free(w.buf);
}

int main(void)
{
	static const trace_event_id_t ids[] = { 1, 2, 3, 256, 257 };
	static const char *const names[] = { "posix_trace_error", "posix_trace_start",
					     "posix_trace_stop", "unnamed", "user" };
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[6];
	struct lw_log w;
	uint64_t x = 1;
	unsigned int i;

	for (i = 0; i < 6; i++)
		ev[i] = (struct lw_event){ .id = 256 + i % 2, .pid = 7, .tid = 8 + i,
					   .ts = 5000000000ull + i, .data = "payload",
					   .data_len = i };
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "seq", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 5);
	lw_events(&w, ev, 3);
	lw_types(&w, ids + 4, names + 4, 1);
	lw_events(&w, ev + 3, 3);
	lw_status(&w, &st);
	save("corpus/seq", &w, w.end);
	save("corpus/seq-cut", &w, w.end - 50);
	lw_append(&w, 99, 1, &x, sizeof(x));
	w.end += lw_block_at(&w, w.end, 98, POSIX_TRACE_LOG_BF_CRITICAL, w.seq++, 1, &x, sizeof(x));
	save("corpus/seq-unknown", &w, w.end);
	free(w.buf);

	/* format 1.1: packed EVENTS blocks, sequential and ring */
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "packed", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 5);
	lw_events_packed(&w, ev, 3);
	lw_events(&w, ev + 3, 1);
	lw_events_packed(&w, ev + 4, 2);
	lw_status(&w, &st);
	save("corpus/packed", &w, w.end);
	free(w.buf);
	ring(ev, &st, ids + 3, names + 3, 0);
	ring(ev, &st, ids + 3, names + 3, 1);
	big();
	ring_many();
	return 0;
}
