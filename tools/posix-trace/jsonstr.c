// SPDX-License-Identifier: LGPL-2.1-or-later
/* The JSON string escaper: see jsonstr.h. */
#include <stdbool.h>
#include <stdint.h>
#include "jsonstr.h"
#include "utf8.h"

#define ESC_MAX 6	/* \uXXXX */

/* Printable ASCII that goes out as is: the common case, decided here
 * without decoding. */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* The escape of code point @cp (UTF8_BAD: an invalid subpart) in @e: its
 * length, 0 if the character goes out as is. */
static size_t escape(uint32_t cp, char e[ESC_MAX])
{
	static const char hex[] = "0123456789abcdef";

	if (cp == '"' || cp == '\\') {
		e[0] = '\\';
		e[1] = (char)cp;
		return 2;
	}
	if (cp == UTF8_BAD)
		cp = 0xfffd;
	else if (!utf8_control(cp))
		return 0;
	/* Every control is in the BMP: four digits, no surrogate pair. */
	e[0] = '\\';
	e[1] = 'u';
	e[2] = hex[cp >> 12 & 15];
	e[3] = hex[cp >> 8 & 15];
	e[4] = hex[cp >> 4 & 15];
	e[5] = hex[cp & 15];
	return 6;
}

/* Runs of bytes that go out as is are handed to @put whole. */
void json_str(json_put_fn *put, void *sink, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i = 0, run = 0, len, k;
	char e[ESC_MAX];
	uint32_t cp;

	put(sink, "\"", 1);
	while (i < n) {
		if (plain(p[i])) {
			i++;
			continue;
		}
		len = utf8_next(p + i, n - i, &cp);
		k = escape(cp, e);
		if (k) {
			if (i > run)
				put(sink, p + run, i - run);
			put(sink, e, k);
			run = i + len;
		}
		i += len;
	}
	if (n > run)
		put(sink, p + run, n - run);
	put(sink, "\"", 1);
}
