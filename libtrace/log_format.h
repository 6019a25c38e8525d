/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the trace log format's little-endian fields, and its CRC.  The
 * format itself (every constant and offset, POSIX_TRACE_LOG_*) is named
 * once, in <linux/posix_trace_log.h>, which the module's writer includes
 * too; Documentation/log-format.md explains it.
 */
#ifndef PT_LOG_FORMAT_H
#define PT_LOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/posix_trace_log.h>

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
