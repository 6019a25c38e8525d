// SPDX-License-Identifier: LGPL-2.1-or-later
/* The UTF-8 reader: see utf8.h. */
#include "utf8.h"

/*
 * The lead byte's sequence length and payload bits, and the range its
 * second byte must fall in (Unicode Table 3-7): the narrow ranges after
 * E0, ED, F0 and F4 are what rules out overlong forms, surrogates and
 * code points above U+10FFFF, so that a sequence is known bad at the
 * first byte that cannot continue it.
 */
static size_t lead(unsigned char b, uint32_t *c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf) {
		*c = b & 0x1f;
		return 2;
	}
	if (b >= 0xe0 && b <= 0xef) {
		*lo = b == 0xe0 ? 0xa0 : 0x80;
		*hi = b == 0xed ? 0x9f : 0xbf;
		*c = b & 0x0f;
		return 3;
	}
	if (b >= 0xf0 && b <= 0xf4) {
		*lo = b == 0xf0 ? 0x90 : 0x80;
		*hi = b == 0xf4 ? 0x8f : 0xbf;
		*c = b & 0x07;
		return 4;
	}
	return 0;	/* a continuation byte, C0, C1 or F5..FF */
}

size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char lo, hi;
	size_t len, i;
	uint32_t c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	len = lead(p[0], &c, &lo, &hi);
	if (!len) {
		*cp = UTF8_BAD;
		return 1;
	}
	for (i = 1; i < len; i++) {
		if (i == n || p[i] < lo || p[i] > hi) {
			*cp = UTF8_BAD;
			return i;
		}
		c = c << 6 | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return len;
}

bool utf8_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||	/* C0, DEL, C1 */
	       cp == 0x61c || cp == 0x200e || cp == 0x200f ||	/* ALM, LRM, RLM */
	       (cp >= 0x202a && cp <= 0x202e) ||		/* embeddings, overrides */
	       (cp >= 0x2066 && cp <= 0x2069);			/* isolates */
}
