/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C of log blocks (Documentation/log-format.md), with the CPU's
 * CRC32 instruction where it has one.
 *
 * The kernel's __crc32c_le() is the table version; the accelerated one
 * (crc32c-intel) is reached only through the crypto API and a module that
 * nothing loads on a machine without udev.  The log worker sums every
 * byte it writes, so the instruction (SSE4.2, 8 bytes at a time, general
 * registers only: no FPU state to save) is most of the difference.  Same
 * polynomial and bit order, so logs do not depend on which one wrote them.
 */
#ifndef PT_CRC32C_H
#define PT_CRC32C_H

#include <linux/crc32.h>
#include <linux/types.h>
#include <linux/string.h>
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#endif

static inline u32 pt_crc32c(u32 crc, const void *buf, size_t len)
{
#ifdef CONFIG_X86_64
	const u8 *p = buf;
	u64 c = crc;

	if (!boot_cpu_has(X86_FEATURE_XMM4_2))
		return __crc32c_le(crc, buf, len);
	for (; len >= 8; p += 8, len -= 8) {
		u64 v;

		memcpy(&v, p, sizeof(v));	/* a load; @buf may be unaligned */
		asm("crc32q %1, %0" : "+r" (c) : "rm" (v));
	}
	for (; len; p++, len--)
		asm("crc32b %1, %k0" : "+r" (c) : "rm" (*p));
	return c;
#else
	return __crc32c_le(crc, buf, len);
#endif
}

#endif /* PT_CRC32C_H */
