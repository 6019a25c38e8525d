// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/convert-out: a backend of posix-trace convert's output that writes
 * nothing (the formatting alone: what no output path can go below).
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
	return o->buf ? 0 : ENOMEM;
}

void cv_out_flush(struct cv_out *o)
{
	o->len = 0;
}

int cv_out_close(struct cv_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
	return o->err;
}
