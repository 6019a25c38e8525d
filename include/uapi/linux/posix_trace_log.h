/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posix_trace_log.h - the trace log format, shared by posix_trace.ko (which
 * writes logs) and libposixtrace (which reads them).
 *
 * Documentation/log-format.md is the reference.  A log is described by
 * offsets, not C structures: every integer in it is little-endian,
 * whatever the writer's byte order.  This header holds what format 1.1
 * added, the packed EVENTS records; the older constants are still named
 * by kmod/log.h and libtrace/log_format.h.
 */
#ifndef _UAPI_LINUX_POSIX_TRACE_LOG_H
#define _UAPI_LINUX_POSIX_TRACE_LOG_H

#define POSIX_TRACE_LOG_MAJOR		1
#define POSIX_TRACE_LOG_MINOR		1	/* 1: packed EVENTS blocks */

/*
 * Block type of packed EVENTS (log-format.md §5.3.2), always written with
 * the CRITICAL block flag: a reader of format 1.0 stops there rather than
 * skip events.  The block's count is the number of events in it; context
 * records are not counted.
 */
#define POSIX_TRACE_LOG_BT_PACKED	7

/*
 * A packed record: a 16-byte header, the program address if it changed,
 * the data padded with zeros to 8 bytes.
 *   u32 word       bits 0-23 data_len, bits 24-31 POSIX_TRACE_LOG_PF_*
 *   u32 event_id
 *   u64 timestamp  CLOCK_MONOTONIC nanoseconds
 *   u64 address    only with POSIX_TRACE_LOG_PF_ADDRESS; else the address
 *                  of the block's previous record (0 at its start)
 * A context record (POSIX_TRACE_LOG_PF_CONTEXT, data_len 0) sets pid, tid
 * and thread for the records after it in the block; an event before the
 * block's first context record makes the rest of the block unreadable.
 *   u32 word       POSIX_TRACE_LOG_PF_CONTEXT
 *   u32 pid
 *   u32 tid
 *   u32 reserved   zero
 *   u64 thread
 */
#define POSIX_TRACE_LOG_P_WORD		0
#define POSIX_TRACE_LOG_P_ID		4
#define POSIX_TRACE_LOG_P_TIMESTAMP	8
#define POSIX_TRACE_LOG_P_HDR		16
#define POSIX_TRACE_LOG_P_ADDRESS	16	/* when present */

#define POSIX_TRACE_LOG_P_LEN_MASK	0x00ffffffU
#define POSIX_TRACE_LOG_PF_TRUNCATED	0x01000000U	/* TRUNCATED_RECORD */
#define POSIX_TRACE_LOG_PF_AUTO		0x02000000U	/* a system event */
#define POSIX_TRACE_LOG_PF_ADDRESS	0x04000000U	/* address follows */
#define POSIX_TRACE_LOG_PF_CONTEXT	0x80000000U	/* a context record */
#define POSIX_TRACE_LOG_PF_KNOWN	0x87000000U

#define POSIX_TRACE_LOG_C_PID		4
#define POSIX_TRACE_LOG_C_TID		8
#define POSIX_TRACE_LOG_C_RESERVED	12
#define POSIX_TRACE_LOG_C_THREAD	16
#define POSIX_TRACE_LOG_C_SIZE		24

/* The most bytes a packed event with @len bytes of data takes, its context
 * record and address included: never more than a format 1.0 record.
 */
#define POSIX_TRACE_LOG_P_MAX(len) \
	(POSIX_TRACE_LOG_C_SIZE + POSIX_TRACE_LOG_P_HDR + 8 + (((len) + 7) & ~7ULL))

#endif /* _UAPI_LINUX_POSIX_TRACE_LOG_H */
