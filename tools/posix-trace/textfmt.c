// SPDX-License-Identifier: LGPL-2.1-or-later
/* Names, data and timestamps in text, JSON and CSV: see textfmt.h. */
#include <string.h>
#include "textfmt.h"

const char *tf_ts(char *buf, const struct timespec *ts)
{
	snprintf(buf, TF_TS_LEN, "%lld.%09ld", (long long)ts->tv_sec,
		 (long)ts->tv_nsec);
	return buf;
}

void tf_hex(FILE *f, const unsigned char *p, size_t n, const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%02x", i ? sep : "", p[i]);
}

void tf_printable(FILE *f, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		putc(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '.', f);
}

/*
 * Length of the valid UTF-8 sequence at @p (at most @n bytes), its code
 * point in *@cp; 0 if it is not one: no overlong forms, no surrogates,
 * nothing above U+10FFFF.
 */
size_t tf_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

bool tf_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||	/* C0, DEL, C1 */
	       cp == 0x61c || cp == 0x200e || cp == 0x200f ||	/* ALM, LRM, RLM */
	       (cp >= 0x202a && cp <= 0x202e) ||		/* embeddings, overrides */
	       (cp >= 0x2066 && cp <= 0x2069);			/* isolates */
}

/*
 * Bytes of @s (@n of them) from @i that go out as they are: 0 for a byte
 * that tf_text() writes as \xNN ('\', a control character, a byte that
 * is not valid UTF-8: every byte of such a sequence, one at a time).
 */
static size_t text_run(const unsigned char *s, size_t n, size_t i)
{
	uint32_t cp;
	size_t len;

	if (s[i] == '\\')
		return 0;
	len = tf_utf8(s + i, n - i, &cp);
	return len && !tf_control(cp) ? len : 0;
}

static void text_bytes(FILE *f, const unsigned char *s, size_t n, bool csv)
{
	size_t i = 0, len;

	while (i < n) {
		len = text_run(s, n, i);
		if (!len) {
			fprintf(f, "\\x%02x", s[i++]);
			continue;
		}
		if (csv && s[i] == '"')
			putc('"', f);
		fwrite(s + i, 1, len, f);
		i += len;
	}
}

void tf_text(FILE *f, const char *s)
{
	text_bytes(f, (const unsigned char *)s, strlen(s), false);
}

void tf_json(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t cp;

	putc('"', f);
	while (i < n) {
		len = tf_utf8(p + i, n - i, &cp);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (tf_control(cp))
			fprintf(f, "\\u%04x", (unsigned int)cp);
		else
			fwrite(p + i, 1, len, f);
		i += len;
	}
	putc('"', f);
}

void tf_csv(FILE *f, const char *s, size_t n)
{
	bool quote = memchr(s, ',', n) || memchr(s, '"', n);

	if (quote)
		putc('"', f);
	/* A spreadsheet takes a cell that begins so for a formula. */
	if (n && s[0] && strchr("=+-@'", s[0]))
		putc('\'', f);
	text_bytes(f, (const unsigned char *)s, n, quote);
	if (quote)
		putc('"', f);
}
