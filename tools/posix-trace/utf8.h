/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one UTF-8 reader of posix-trace: names and data come from a log
 * that may be anyone's, so every output that shows them as text (report,
 * stat, convert --chrome) decodes them here, and all agree on what is
 * valid UTF-8 and where an invalid sequence ends.
 */
#ifndef PT_UTF8_H
#define PT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What utf8_next() gives for bytes that are not valid UTF-8. */
#define UTF8_BAD	UINT32_MAX

/*
 * Reads the sequence at @p (@n > 0 bytes): returns its length and its
 * code point in *@cp.  Bytes that are not valid UTF-8 (overlong forms,
 * surrogates, above U+10FFFF, cut short) give *@cp = UTF8_BAD and the
 * length of their maximal subpart (Unicode 3.9, "U+FFFD Substitution of
 * Maximal Subparts"): the longest start of a valid sequence, or one byte.
 */
size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp);

/*
 * A code point that must not go out as is: one a terminal obeys (C0 and
 * C1 controls, DEL) or that reorders what is shown (the bidirectional
 * controls).
 */
bool utf8_control(uint32_t cp);

#endif
