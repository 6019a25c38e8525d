/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one JSON string escaper of posix-trace: report --format json and
 * convert --chrome both write names through it, so one log gives one
 * JSON text of each name whichever command wrote it.
 */
#ifndef PT_JSONSTR_H
#define PT_JSONSTR_H

#include <stddef.h>

/* Where the escaped text goes: a FILE (textfmt.c), a cv_out (chrome.c). */
typedef void json_put_fn(void *sink, const void *p, size_t n);

/*
 * @s (@n bytes, any bytes, NUL included) as a JSON string with its
 * quotes (RFC 8259), written through @put:
 *   - '"' and '\' as \" and \\;
 *   - the characters utf8_control() names as \uXXXX (lower-case hex):
 *     the C0 controls, which RFC 8259 requires, and DEL, C1 and the
 *     bidirectional controls, which a terminal showing the JSON must not
 *     obey; the text stays the same;
 *   - bytes that are not valid UTF-8 as U+FFFD (\ufffd), one per maximal
 *     subpart (utf8.h), as Unicode recommends and as a conforming decoder
 *     (Python's errors="replace", the WHATWG decoder) reads the bytes.
 *     Not U+00NN for a byte NN: that would claim the name was Latin-1;
 *     the exact bytes of data are in the outputs' hex fields;
 *   - valid UTF-8 otherwise as is.
 * So the output is always valid UTF-8 and valid JSON.
 */
void json_str(json_put_fn *put, void *sink, const void *s, size_t n);

#endif
