// SPDX-License-Identifier: LGPL-2.1-or-later
/* Names, data and timestamps in text, JSON and CSV: see textfmt.h. */
#include <inttypes.h>
#include <string.h>
#include "jsonstr.h"
#include "textfmt.h"
#include "utf8.h"

const char *tf_ts(char *buf, const struct timespec *ts)
{
	snprintf(buf, TF_TS_LEN, "%lld.%09ld", (long long)ts->tv_sec,
		 (long)ts->tv_nsec);
	return buf;
}

/* @ns / @unit, rounded to the nearest (halves up), without overflow. */
static uint64_t div_round(uint64_t ns, uint64_t unit)
{
	return ns / unit + (ns % unit >= unit / 2);
}

const char *tf_dur(char *buf, uint64_t ns)
{
	uint64_t v;

	/* The unit is chosen after rounding: 999.96 us is "1.0 ms". */
	if (ns < 1000) {
		snprintf(buf, TF_DUR_LEN, "%" PRIu64 " ns", ns);
	} else if (ns < 999950) {
		v = div_round(ns, 100);
		snprintf(buf, TF_DUR_LEN, "%" PRIu64 ".%" PRIu64 " us", v / 10, v % 10);
	} else if (ns < 999950000) {
		v = div_round(ns, 100000);
		snprintf(buf, TF_DUR_LEN, "%" PRIu64 ".%" PRIu64 " ms", v / 10, v % 10);
	} else {
		v = div_round(ns, 10000000);
		snprintf(buf, TF_DUR_LEN, "%" PRIu64 ".%02" PRIu64 " s", v / 100, v % 100);
	}
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

/* How text_bytes() treats '"': as is, doubled (a quoted CSV field), or
 * escaped (a quoted string on a text line). */
enum quote { Q_NONE, Q_CSV, Q_TEXT };

/*
 * Bytes of @s (@n of them) from @i that go out as they are: 0 for a byte
 * that tf_text() writes as \xNN ('\', a control character, a byte that
 * is not valid UTF-8: every byte of such a sequence, one at a time; '"'
 * too with Q_TEXT).
 */
static size_t text_run(const unsigned char *s, size_t n, size_t i, enum quote q)
{
	uint32_t cp;
	size_t len;

	if (s[i] == '\\' || (q == Q_TEXT && s[i] == '"'))
		return 0;
	len = utf8_next(s + i, n - i, &cp);
	return cp != UTF8_BAD && !utf8_control(cp) ? len : 0;
}

static void text_bytes(FILE *f, const unsigned char *s, size_t n, enum quote q)
{
	size_t i = 0, len;

	while (i < n) {
		len = text_run(s, n, i, q);
		if (!len) {
			fprintf(f, "\\x%02x", s[i++]);
			continue;
		}
		if (q == Q_CSV && s[i] == '"')
			putc('"', f);
		fwrite(s + i, 1, len, f);
		i += len;
	}
}

void tf_text(FILE *f, const char *s)
{
	text_bytes(f, (const unsigned char *)s, strlen(s), Q_NONE);
}

void tf_quoted(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	text_bytes(f, (const unsigned char *)s, n, Q_TEXT);
	putc('"', f);
}

static void file_put(void *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

void tf_json(FILE *f, const char *s, size_t n)
{
	json_str(file_put, f, s, n);
}

void tf_csv(FILE *f, const char *s, size_t n)
{
	bool quote = memchr(s, ',', n) || memchr(s, '"', n);

	if (quote)
		putc('"', f);
	/* A spreadsheet takes a cell that begins so for a formula. */
	if (n && s[0] && strchr("=+-@'", s[0]))
		putc('\'', f);
	text_bytes(f, (const unsigned char *)s, n, quote ? Q_CSV : Q_NONE);
	if (quote)
		putc('"', f);
}
