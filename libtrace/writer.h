/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record path of posix_trace_event() below event.c: writer lanes
 * (writer.c, from the pool of pool.c) and the kernel's ioctl.
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

/* writer.c: record @ev in every stream of @pg that wants it. */
void pt_writer_event(const struct posix_trace_proc_page *pg, struct pt_wevent *ev);
/* writer.c: the kernel records @ev in stream @trid (0: every stream). */
void pt_event_ioctl(uint32_t trid, uint32_t flags, const struct pt_wevent *ev);
/* writer.c: forget every lane after fork() (the child has no mapping). */
void pt_writer_atfork_child(void);

#endif /* PT_WRITER_H */
