/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posix_trace_log.h - the trace log format, shared by posix_trace.ko (which
 * writes logs), libposixtrace (which reads them), the unit tests' log
 * writer and the fuzzers' corpus maker: its only definition.
 *
 * Documentation/log-format.md explains it.  A log is described by offsets,
 * not C structures: every integer in it is little-endian, whatever the
 * writer's byte order, and fields sit at any offset a reader must check.
 * Offsets in a block's payload count from the end of its header.
 */
#ifndef _UAPI_LINUX_POSIX_TRACE_LOG_H
#define _UAPI_LINUX_POSIX_TRACE_LOG_H

#define POSIX_TRACE_LOG_MAJOR		1
#define POSIX_TRACE_LOG_MINOR		1	/* 1: packed EVENTS blocks */

/* File header (log-format.md §3): offsets. */
#define POSIX_TRACE_LOG_MAGIC		"PTRCLOG"	/* 8 bytes with its NUL */
#define POSIX_TRACE_LOG_H_MAGIC		0
#define POSIX_TRACE_LOG_H_MAJOR		8	/* u16 */
#define POSIX_TRACE_LOG_H_MINOR		10	/* u16 */
#define POSIX_TRACE_LOG_H_BYTE_ORDER	12	/* u8: writer's native order */
#define POSIX_TRACE_LOG_H_WORD_SIZE	13	/* u8: writer's sizeof(long) */
#define POSIX_TRACE_LOG_H_LAYOUT	14	/* u8 */
#define POSIX_TRACE_LOG_H_HEADER_SIZE	16	/* u32 */
#define POSIX_TRACE_LOG_H_BLOCK_MAX	20	/* u32 */
#define POSIX_TRACE_LOG_H_LOG_TAG	24	/* u32 */
#define POSIX_TRACE_LOG_H_RING_OFFSET	32	/* u64 */
#define POSIX_TRACE_LOG_H_RING_SIZE	40	/* u64 */
#define POSIX_TRACE_LOG_H_SLOT_SIZE	48	/* u32 */
#define POSIX_TRACE_LOG_H_CRC		60	/* u32 */
#define POSIX_TRACE_LOG_HEADER_V1	64	/* header_size written by 1.x */
#define POSIX_TRACE_LOG_HEADER_MAX	4096	/* larger: not a log */

#define POSIX_TRACE_LOG_ORDER_LE	1
#define POSIX_TRACE_LOG_ORDER_BE	2

#define POSIX_TRACE_LOG_LAYOUT_SEQ	1	/* blocks one after the other */
#define POSIX_TRACE_LOG_LAYOUT_RING	2	/* meta area, then a ring of slots */

/* Block header (§4): offsets. */
#define POSIX_TRACE_LOG_B_MAGIC		0	/* u32 */
#define POSIX_TRACE_LOG_B_TYPE		4	/* u16 */
#define POSIX_TRACE_LOG_B_FLAGS		6	/* u16 */
#define POSIX_TRACE_LOG_B_LENGTH	8	/* u32, header included */
#define POSIX_TRACE_LOG_B_CRC		12	/* u32 */
#define POSIX_TRACE_LOG_B_SEQ		16	/* u64 */
#define POSIX_TRACE_LOG_B_COUNT		24	/* u32 */
#define POSIX_TRACE_LOG_B_TAG		28	/* u32 */
#define POSIX_TRACE_LOG_BLOCK_HDR	32

#define POSIX_TRACE_LOG_BLOCK_MAGIC	0x4b425450U	/* "PTBK" */
#define POSIX_TRACE_LOG_BF_CRITICAL	0x1U	/* unknown type: stop here */
/* No block is larger, whatever block_max says: bounds a reader's buffer. */
#define POSIX_TRACE_LOG_BLOCK_LIMIT	(16U << 20)
/* Ring layouts have at most this many slots: bounds one ring scan. */
#define POSIX_TRACE_LOG_SLOTS_MAX	65536U

/* Block types (§5). */
#define POSIX_TRACE_LOG_BT_INFO		1
#define POSIX_TRACE_LOG_BT_TYPES	2
#define POSIX_TRACE_LOG_BT_EVENTS	3	/* format 1.0: still read */
#define POSIX_TRACE_LOG_BT_STATUS	4
#define POSIX_TRACE_LOG_BT_PAD		5
#define POSIX_TRACE_LOG_BT_LOSS		6
/*
 * Packed EVENTS (§5.3.2), always written with the CRITICAL block flag: a
 * reader of format 1.0 stops there rather than skip events.  The block's
 * count is the number of events in it; context records are not counted.
 */
#define POSIX_TRACE_LOG_BT_PACKED	7

/* INFO payload (§5.1). */
#define POSIX_TRACE_LOG_I_SIZE		0	/* u32: bytes before the name */
#define POSIX_TRACE_LOG_I_PID		4	/* u32 */
#define POSIX_TRACE_LOG_I_REALTIME	8	/* u64 ns */
#define POSIX_TRACE_LOG_I_MONOTONIC	16	/* u64 ns */
#define POSIX_TRACE_LOG_I_CLOCK_RES	24	/* u64 ns */
#define POSIX_TRACE_LOG_I_INHERIT	32	/* u32 */
#define POSIX_TRACE_LOG_I_STREAM_POLICY	36	/* u32 */
#define POSIX_TRACE_LOG_I_LOG_POLICY	40	/* u32 */
#define POSIX_TRACE_LOG_I_STREAM_SIZE	48	/* u64 */
#define POSIX_TRACE_LOG_I_MAX_DATA	56	/* u64 */
#define POSIX_TRACE_LOG_I_LOG_SIZE	64	/* u64 */
#define POSIX_TRACE_LOG_I_PIDNS		72	/* u64 */
#define POSIX_TRACE_LOG_I_GENVERSION	80	/* char[32], NUL-padded */
#define POSIX_TRACE_LOG_I_NAME_LEN	112	/* u32 */
#define POSIX_TRACE_LOG_INFO_V1		120	/* info_size of 1.x */
#define POSIX_TRACE_LOG_GENVERSION_LEN	32

/* TYPES entry (§5.2): u32 id, u16 name_len, u16 zero, name, zeros to 8. */
#define POSIX_TRACE_LOG_T_ID		0
#define POSIX_TRACE_LOG_T_NAME_LEN	4
#define POSIX_TRACE_LOG_TYPE_HDR	8

/* STATUS payload (§5.4): u32 status_size, then the status fields, u32. */
#define POSIX_TRACE_LOG_S_SIZE		0
#define POSIX_TRACE_LOG_S_STREAM	4
#define POSIX_TRACE_LOG_S_FULL		8
#define POSIX_TRACE_LOG_S_OVERRUN	12
#define POSIX_TRACE_LOG_S_FLUSH		16
#define POSIX_TRACE_LOG_S_FLUSH_ERROR	20	/* an errno */
#define POSIX_TRACE_LOG_S_LOG_OVERRUN	24
#define POSIX_TRACE_LOG_S_LOG_FULL	28
#define POSIX_TRACE_LOG_STATUS_V1	32
/* posix_stream_status in it: <trace.h>'s values */
#define POSIX_TRACE_LOG_STATE_RUNNING	1
#define POSIX_TRACE_LOG_STATE_SUSPENDED	2

/* LOSS payload (§5.5): u32 loss_size, then u64 counts. */
#define POSIX_TRACE_LOG_L_SIZE		0
#define POSIX_TRACE_LOG_L_DROPPED	8
#define POSIX_TRACE_LOG_L_DROP_GAPS	16
#define POSIX_TRACE_LOG_L_OVERWRITTEN	24
#define POSIX_TRACE_LOG_L_OVERWRITE_GAPS 32
#define POSIX_TRACE_LOG_L_DISCARDED	40
#define POSIX_TRACE_LOG_L_WRITE_LOST	48
#define POSIX_TRACE_LOG_LOSS_V1		64

/* EVENTS of format 1.0 (§5.3.1, still read): struct posix_trace_record's
 * fields, little-endian.
 */
#define POSIX_TRACE_LOG_R_SIZE		0	/* u32 */
#define POSIX_TRACE_LOG_R_ID		4
#define POSIX_TRACE_LOG_R_PID		8
#define POSIX_TRACE_LOG_R_TID		12
#define POSIX_TRACE_LOG_R_DATA_LEN	16
#define POSIX_TRACE_LOG_R_FLAGS		20
#define POSIX_TRACE_LOG_R_SEQ		24	/* u64 */
#define POSIX_TRACE_LOG_R_TIMESTAMP	32
#define POSIX_TRACE_LOG_R_THREAD	40
#define POSIX_TRACE_LOG_R_ADDRESS	48
#define POSIX_TRACE_LOG_RECORD_HDR	56

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
