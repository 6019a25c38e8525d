// SPDX-License-Identifier: LGPL-2.1-or-later
/* Names, data and timestamps in text, JSON and CSV: see textfmt.h. */
#include <stdint.h>
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

void tf_text(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			putc(*p, f);
	}
}

/*
 * Length of the valid UTF-8 sequence at @p (at most @n bytes), 0 if it is
 * not one: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void tf_json(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	putc('"', f);
	while (i < n) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(f, "\\%c", p[i]);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(f, "\\u%04x", p[i]);
			i++;
		} else {
			len = utf8_len(p + i, n - i);
			if (len) {
				fwrite(p + i, 1, len, f);
				i += len;
			} else {
				fputs("\\ufffd", f);
				i++;
			}
		}
	}
	putc('"', f);
}

void tf_csv(FILE *f, const char *s, size_t n)
{
	size_t i;

	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\r', n) &&
	    !memchr(s, '\n', n)) {
		fwrite(s, 1, n, f);
		return;
	}
	putc('"', f);
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			putc('"', f);
		putc(s[i], f);
	}
	putc('"', f);
}
