/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing names, data and timestamps for posix-trace report and stat, in
 * text, JSON and CSV (RFC 4180) alike.  Event and trace names are any
 * bytes but NUL: each format escapes them its own way.
 */
#ifndef PT_TEXTFMT_H
#define PT_TEXTFMT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* "SECONDS.NANOSECONDS" of @ts into @buf (at least TF_TS_LEN bytes). */
#define TF_TS_LEN 32
const char *tf_ts(char *buf, const struct timespec *ts);

/* Data as lower-case hex, bytes separated by @sep ("" for none). */
void tf_hex(FILE *f, const unsigned char *p, size_t n, const char *sep);
/* Data as ASCII, every byte outside 0x20..0x7e as '.'. */
void tf_printable(FILE *f, const unsigned char *p, size_t n);
/* A name on one text line: control bytes, DEL and '\' as \xNN. */
void tf_text(FILE *f, const char *s);
/* A JSON string with its quotes; bytes that are not valid UTF-8 become
 * U+FFFD, so the output is always valid JSON. */
void tf_json(FILE *f, const char *s, size_t n);
/* A CSV field, quoted (quotes doubled) when it holds ',', '"', CR or LF. */
void tf_csv(FILE *f, const char *s, size_t n);

#endif
