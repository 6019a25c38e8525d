/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ring copy: bytes in and out of a lane's ring, which the writer
 * (writer.c) and the reader (rlane.h, pt_ring_copy()) share.  Calls
 * nothing, includes nothing of the library: the bottom layer.
 */
#ifndef PT_RING_H
#define PT_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy out of / into a byte ring of @size bytes at offset @off < @size,
 * wrapping at the end (the lanes' record layout, design.md section 4). */
static inline void pt_ring_read(const uint8_t *ring, uint64_t size, uint64_t off,
				void *dst, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(dst, ring + off, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, ring, len - first);
}

static inline void pt_ring_write(uint8_t *ring, uint64_t size, uint64_t off,
				 const void *src, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(ring + off, src, first);
	if (first < len)
		memcpy(ring, (const uint8_t *)src + first, len - first);
}

#endif /* PT_RING_H */
