/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace log format, version 1.1 (Documentation/log-format.md is the
 * reference; this header only names its offsets and constants).  Every
 * integer in a log is little-endian whatever the writer's byte order, so
 * the layout is described by offsets, not by C structures.
 */
#ifndef PT_LOG_FORMAT_H
#define PT_LOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/posix_trace_log.h>	/* packed EVENTS (format 1.1) */

#define PT_LOG_MAGIC		"PTRCLOG"	/* 8 bytes with its NUL */
#define PT_LOG_MAJOR		POSIX_TRACE_LOG_MAJOR

/* File header: offsets. */
#define PT_LOG_H_MAGIC		0
#define PT_LOG_H_MAJOR		8	/* u16 */
#define PT_LOG_H_MINOR		10	/* u16 */
#define PT_LOG_H_BYTE_ORDER	12	/* u8: writer's native order */
#define PT_LOG_H_WORD_SIZE	13	/* u8: writer's sizeof(void *) */
#define PT_LOG_H_LAYOUT		14	/* u8 */
#define PT_LOG_H_HEADER_SIZE	16	/* u32 */
#define PT_LOG_H_BLOCK_MAX	20	/* u32 */
#define PT_LOG_H_LOG_TAG	24	/* u32 */
#define PT_LOG_H_RING_OFFSET	32	/* u64 */
#define PT_LOG_H_RING_SIZE	40	/* u64 */
#define PT_LOG_H_SLOT_SIZE	48	/* u32 */
#define PT_LOG_H_CRC		60	/* u32 */
#define PT_LOG_HEADER_MIN	64
#define PT_LOG_HEADER_MAX	4096

#define PT_LOG_ORDER_LE		1
#define PT_LOG_ORDER_BE		2

#define PT_LOG_LAYOUT_SEQ	1	/* blocks one after the other */
#define PT_LOG_LAYOUT_RING	2	/* meta area, then a ring of slots */

/* Block header: offsets. */
#define PT_LOG_B_MAGIC		0	/* u32 */
#define PT_LOG_B_TYPE		4	/* u16 */
#define PT_LOG_B_FLAGS		6	/* u16 */
#define PT_LOG_B_LENGTH		8	/* u32 */
#define PT_LOG_B_CRC		12	/* u32 */
#define PT_LOG_B_SEQ		16	/* u64 */
#define PT_LOG_B_COUNT		24	/* u32 */
#define PT_LOG_B_TAG		28	/* u32 */
#define PT_LOG_BLOCK_HDR	32

#define PT_LOG_BLOCK_MAGIC	0x4b425450u	/* "PTBK" */
#define PT_LOG_BF_CRITICAL	0x1u		/* unknown type: stop here */
/* No block is larger, whatever block_max says: bounds the reader's buffer. */
#define PT_LOG_BLOCK_LIMIT	(16u << 20)
/* Ring layouts have at most this many slots: bounds one ring scan. */
#define PT_LOG_SLOTS_MAX	65536u

enum {
	PT_LOG_BT_INFO = 1,
	PT_LOG_BT_TYPES = 2,
	PT_LOG_BT_EVENTS = 3,
	PT_LOG_BT_STATUS = 4,
	PT_LOG_BT_PAD = 5,
	PT_LOG_BT_LOSS = 6,
};

/* LOSS payload (log-format.md §5.5): u64 counts from these offsets. */
#define PT_LOG_L_SIZE		0	/* u32 */
#define PT_LOG_L_DROPPED	8
#define PT_LOG_L_DROP_GAPS	16
#define PT_LOG_L_OVERWRITTEN	24
#define PT_LOG_L_OVERWRITE_GAPS	32
#define PT_LOG_L_DISCARDED	40
#define PT_LOG_L_WRITE_LOST	48
#define PT_LOG_LOSS_V1		64

/* INFO payload: offsets from the end of the block header. */
#define PT_LOG_I_SIZE		0	/* u32: bytes before the name */
#define PT_LOG_I_PID		4	/* u32 */
#define PT_LOG_I_REALTIME	8	/* u64 ns */
#define PT_LOG_I_MONOTONIC	16	/* u64 ns */
#define PT_LOG_I_CLOCK_RES	24	/* u64 ns */
#define PT_LOG_I_INHERIT	32	/* u32 */
#define PT_LOG_I_STREAM_POLICY	36	/* u32 */
#define PT_LOG_I_LOG_POLICY	40	/* u32 */
#define PT_LOG_I_STREAM_SIZE	48	/* u64 */
#define PT_LOG_I_MAX_DATA	56	/* u64 */
#define PT_LOG_I_LOG_SIZE	64	/* u64 */
#define PT_LOG_I_PIDNS		72	/* u64 */
#define PT_LOG_I_GENVERSION	80	/* char[32], NUL-padded */
#define PT_LOG_I_NAME_LEN	112	/* u32 */
#define PT_LOG_INFO_V1		120	/* info_size of version 1.0 */
#define PT_LOG_GENVERSION_LEN	32

/* TYPES entry: u32 id, u16 name_len, u16 zero, name, zero padding to 8. */
#define PT_LOG_TYPE_HDR		8

/* STATUS payload: u32 status_size, then the seven status fields as u32. */
#define PT_LOG_S_SIZE		0
#define PT_LOG_STATUS_V1	32

/* EVENTS (format 1.0, still read): records laid out as struct
 * posix_trace_record, little-endian.  Format 1.1 writes packed EVENTS
 * blocks instead (POSIX_TRACE_LOG_BT_PACKED, <linux/posix_trace_log.h>). */
#define PT_LOG_R_SIZE		0	/* u32 */
#define PT_LOG_R_ID		4
#define PT_LOG_R_PID		8
#define PT_LOG_R_TID		12
#define PT_LOG_R_DATA_LEN	16
#define PT_LOG_R_FLAGS		20
#define PT_LOG_R_SEQ		24	/* u64 */
#define PT_LOG_R_TIMESTAMP	32
#define PT_LOG_R_THREAD		40
#define PT_LOG_R_ADDRESS	48
#define PT_LOG_RECORD_HDR	56

static inline uint16_t pt_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t pt_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t pt_le64(const uint8_t *p)
{
	return (uint64_t)pt_le32(p) | (uint64_t)pt_le32(p + 4) << 32;
}

/* CRC32C (Castagnoli, reflected 0x82F63B78, init and final xor ~0):
 * pt_crc32c(0, "123456789", 9) == 0xe3069283.  @crc chains calls. */
uint32_t pt_crc32c(uint32_t crc, const void *buf, size_t len);

/* The CRC of a header or block: over its bytes with the 4-byte CRC field
 * at @crc_off counted as zeros. */
uint32_t pt_log_crc(const uint8_t *buf, size_t len, size_t crc_off);

#endif /* PT_LOG_FORMAT_H */
