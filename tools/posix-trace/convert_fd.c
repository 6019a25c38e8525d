// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert: the output backend, plain write(2) of the whole
 * buffer (convert_out.h).  bench/convert-out measures it against io_uring
 * and stdio backends of these three functions (Documentation/
 * performance.md, "posix-trace convert: output path").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "convert_out.h"

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

void cv_out_flush(struct cv_out *o)
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
