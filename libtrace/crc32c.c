// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CRC32C for the trace log's headers and blocks (log_format.h).  Bitwise
 * table, built once: a reader checks each block once per pass.
 */
#include <pthread.h>
#include "log_format.h"

static uint32_t pt_crc_table[256];
static pthread_once_t pt_crc_once = PTHREAD_ONCE_INIT;

static void pt_crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		pt_crc_table[i] = c;
	}
}

uint32_t pt_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&pt_crc_once, pt_crc_init);
	crc = ~crc;
	while (len--)
		crc = pt_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t pt_log_crc(const uint8_t *buf, size_t len, size_t crc_off)
{
	static const uint8_t zero[4];
	uint32_t crc = pt_crc32c(0, buf, crc_off);

	crc = pt_crc32c(crc, zero, 4);
	return pt_crc32c(crc, buf + crc_off + 4, len - crc_off - 4);
}
