/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record path of posix_trace_event(): writer lanes (writer.c) and the
 * per-process page that says which streams want the events (event.c).
 */
#ifndef PT_WRITER_H
#define PT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <trace.h>
#include <linux/posix_trace.h>

/* One call of posix_trace_event(). */
struct pt_wevent {
	uint32_t id;
	const void *data;
	size_t len;
	void *address;
	uint64_t timestamp;	/* 0 until taken */
};

/* event.c: the process's page as a writable copy, for the fake (host
 * benchmark) mode. */
struct posix_trace_proc_page *pt_status_fake(void);

/* writer.c: record @ev in every stream of @pg that wants it. */
void pt_writer_event(const struct posix_trace_proc_page *pg, struct pt_wevent *ev);
/* writer.c: the kernel records @ev in stream @trid (0: every stream). */
void pt_event_ioctl(uint32_t trid, uint32_t flags, const struct pt_wevent *ev);
/* writer.c: forget every lane after fork() (the child has no mapping). */
void pt_writer_atfork_child(void);

/*
 * Host benchmark only: make this process look traced by one running stream
 * whose writer lanes are anonymous memory laid out exactly like the
 * module's; no module involved.  Not exported from the shared library.
 */
int pt_bench_fake_stream(uint32_t policy, uint64_t capacity, uint32_t max_data);
void pt_bench_fake_filter(trace_event_id_t id, int filtered);
void pt_bench_fake_drain(void);
void pt_bench_fake_untrace(void);

#endif /* PT_WRITER_H */
