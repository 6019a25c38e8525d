/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing names, data and timestamps for posix-trace report and stat, in
 * text, JSON and CSV (RFC 4180) alike.  Event and trace names are any
 * bytes but NUL: each format escapes them its own way, all reading UTF-8
 * with utf8.h; JSON is jsonstr.h's, which convert --chrome shares.
 */
#ifndef PT_TEXTFMT_H
#define PT_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* "SECONDS.NANOSECONDS" of @ts into @buf (at least TF_TS_LEN bytes). */
#define TF_TS_LEN 32
const char *tf_ts(char *buf, const struct timespec *ts);

/* A duration of @ns in the unit that fits, rounded to three digits or
 * so as strace -T would show it: "850 ns", "4.1 us", "12.3 ms", "1.20 s"
 * into @buf (at least TF_DUR_LEN bytes). */
#define TF_DUR_LEN 32
const char *tf_dur(char *buf, uint64_t ns);

/* Data as lower-case hex, bytes separated by @sep ("" for none). */
void tf_hex(FILE *f, const unsigned char *p, size_t n, const char *sep);
/* Data as ASCII, every byte outside 0x20..0x7e as '.'. */
void tf_printable(FILE *f, const unsigned char *p, size_t n);
/*
 * Names come from the log, which may be anyone's: whatever a terminal
 * would obey (C0 and C1 controls, DEL; the C1 ones raw or in UTF-8, such
 * as the 8-bit CSI 0x9b and U+009B) or that reorders what is shown (the
 * bidirectional controls) never goes out as is.
 */
/* A name on one text line: control characters, bytes that are not valid
 * UTF-8 and '\' as \xNN, each byte; valid UTF-8 otherwise as is. */
void tf_text(FILE *f, const char *s);
/* @n bytes (a path from a log's data: any bytes) between double quotes
 * on one text line: escaped as tf_text() escapes, and '"' as \x22. */
void tf_quoted(FILE *f, const char *s, size_t n);
/* A JSON string with its quotes, as json_str() (jsonstr.h) writes it:
 * control characters as \uXXXX, each maximal subpart of bytes that are
 * not valid UTF-8 as U+FFFD. */
void tf_json(FILE *f, const char *s, size_t n);
/* A CSV field: the bytes escaped as tf_text() does; a ' before a first
 * character =, +, -, @ or ' (spreadsheets take the others for formulas:
 * remove one leading ' to read the value); quoted, quotes doubled, when it
 * holds ',' or '"'. */
void tf_csv(FILE *f, const char *s, size_t n);

#endif
