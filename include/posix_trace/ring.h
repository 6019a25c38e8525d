/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The byte copies in and out of a lane's ring, which wrap at its end:
 * shared by the module (kmod/record.c, kmod/writer.c) and the library
 * (libtrace), which lay records out the same way (posix_trace.h, "lanes").
 * Not installed: an implementation detail of both sides, like the order
 * rule in merge.h.
 */
#ifndef _POSIX_TRACE_RING_H
#define _POSIX_TRACE_RING_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
#endif

/* Copy @len bytes from offset @off of the @size-byte @ring to @dst;
 * @off < @size and @len <= @size.
 */
static inline void pt_ring_copy_out(const void *ring, __u64 size, __u64 off,
				    void *dst, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(dst, (const unsigned char *)ring + off, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, ring, len - first);
}

/* Copy @len bytes from @src into the @size-byte @ring at offset @off. */
static inline void pt_ring_copy_in(void *ring, __u64 size, __u64 off,
				   const void *src, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy((unsigned char *)ring + off, src, first);
	if (first < len)
		memcpy(ring, (const unsigned char *)src + first, len - first);
}

#endif /* _POSIX_TRACE_RING_H */
