// SPDX-License-Identifier: LGPL-2.1-or-later
/* posix-trace convert: buffered output (convert_out.h); the backend that
 * empties the buffer is convert_fd.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "convert_out.h"

void cv_out_write(struct cv_out *o, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t k;

	o->bytes += n;
	while (n) {
		if (o->len == CV_OUT_BUF)
			cv_out_flush(o);
		k = CV_OUT_BUF - o->len;
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void cv_out_printf(struct cv_out *o, const char *fmt, ...)
{
	char small[256], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->err = o->err ? o->err : EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		cv_out_write(o, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		o->err = o->err ? o->err : ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	cv_out_write(o, big, (size_t)n);
	free(big);
}
