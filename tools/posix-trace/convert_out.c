// SPDX-License-Identifier: LGPL-2.1-or-later
/* posix-trace convert: buffered output with plain write(2) (convert.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "convert.h"

int cv_out_init(struct cv_out *o, int fd)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->buf = malloc(CV_OUT_BUF);
	if (!o->buf) {
		close(fd);
		o->fd = -1;
		return ENOMEM;
	}
	return 0;
}

static void cv_out_flush(struct cv_out *o)
{
	size_t done = 0;
	ssize_t n;

	while (!o->err && done < o->len) {
		n = write(o->fd, o->buf + done, o->len - done);
		if (n > 0)
			done += (size_t)n;
		else if (n == 0)
			o->err = EIO;
		else if (errno != EINTR)
			o->err = errno;
	}
	o->len = 0;
}

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

int cv_out_close(struct cv_out *o)
{
	if (o->fd < 0)
		return o->err;
	cv_out_flush(o);
	if (close(o->fd) && !o->err && errno != EINTR)
		o->err = errno;
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
	return o->err;
}
