// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/convert-out: an io_uring backend of posix-trace convert's output
 * (the three functions of tools/posix-trace/convert_fd.c), to measure
 * against plain write(2).  CV_OUT_NBUF buffers: a full one is queued as
 * an IORING_OP_WRITE at its file offset and formatting goes on in the
 * next one, waiting only when every buffer is still being written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>
#include "convert_out.h"

#define CV_OUT_NBUF	4

struct uring_out {
	struct io_uring ring;
	unsigned char *bufs[CV_OUT_NBUF];
	size_t lens[CV_OUT_NBUF];
	uint64_t offs[CV_OUT_NBUF];
	bool busy[CV_OUT_NBUF];
	unsigned int cur, inflight;
	uint64_t off;
};

int cv_out_init(struct cv_out *o, int fd)
{
	struct uring_out *u = calloc(1, sizeof(*u));
	off_t pos = lseek(fd, 0, SEEK_CUR);
	unsigned int i;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	if (!u)
		return ENOMEM;
	ret = io_uring_queue_init(CV_OUT_NBUF, &u->ring, 0);
	if (ret < 0) {
		free(u);
		return -ret;
	}
	for (i = 0; i < CV_OUT_NBUF; i++) {
		u->bufs[i] = malloc(CV_OUT_BUF);
		if (!u->bufs[i])
			return ENOMEM;	/* the bench exits */
	}
	u->off = pos > 0 ? (uint64_t)pos : 0;
	o->priv = u;
	o->buf = u->bufs[0];
	return 0;
}

/* One completion (waiting for it); a short write is finished with pwrite. */
static void reap(struct cv_out *o, struct uring_out *u)
{
	struct io_uring_cqe *cqe;
	unsigned int i;
	size_t done;
	ssize_t n;
	int ret;

	ret = io_uring_wait_cqe(&u->ring, &cqe);
	if (ret < 0) {
		o->err = o->err ? o->err : -ret;
		return;
	}
	i = (unsigned int)cqe->user_data;
	if (cqe->res < 0 && !o->err)
		o->err = -cqe->res;
	done = cqe->res > 0 ? (size_t)cqe->res : u->lens[i];
	while (!o->err && done < u->lens[i]) {
		n = pwrite(o->fd, u->bufs[i] + done, u->lens[i] - done, (off_t)(u->offs[i] + done));
		if (n <= 0)
			o->err = n ? errno : EIO;
		else
			done += (size_t)n;
	}
	io_uring_cqe_seen(&u->ring, cqe);
	u->busy[i] = false;
	u->inflight--;
}

void cv_out_flush(struct cv_out *o)
{
	struct uring_out *u = o->priv;
	struct io_uring_sqe *sqe;
	unsigned int i = u->cur;

	if (!o->len || o->err) {
		o->len = 0;
		return;
	}
	u->lens[i] = o->len;
	u->offs[i] = u->off;
	u->off += o->len;
	sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_write(sqe, o->fd, u->bufs[i], (unsigned int)o->len, u->offs[i]);
	io_uring_sqe_set_data64(sqe, i);
	io_uring_submit(&u->ring);
	u->busy[i] = true;
	u->inflight++;
	u->cur = (i + 1) % CV_OUT_NBUF;
	while (u->busy[u->cur])
		reap(o, u);
	o->buf = u->bufs[u->cur];
	o->len = 0;
}

int cv_out_close(struct cv_out *o)
{
	struct uring_out *u = o->priv;
	unsigned int i;

	if (o->fd < 0)
		return o->err;
	if (u) {
		cv_out_flush(o);
		while (u->inflight)
			reap(o, u);
		io_uring_queue_exit(&u->ring);
		for (i = 0; i < CV_OUT_NBUF; i++)
			free(u->bufs[i]);
		free(u);
	}
	if (close(o->fd) && !o->err && errno != EINTR)
		o->err = errno;
	o->fd = -1;
	o->priv = NULL;
	o->buf = NULL;
	return o->err;
}
