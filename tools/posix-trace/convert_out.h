/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace convert: the buffered output the exporters (ctf.c,
 * chrome.c) write their files through.  convert_out.c fills the buffer;
 * convert_fd.c is the backend that empties it, and bench/convert-out
 * links other backends in its place.
 */
#ifndef PT_CONVERT_OUT_H
#define PT_CONVERT_OUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A file written through one buffer of CV_OUT_BUF bytes handed whole to
 * write(2): every exporter formats into it, so the output path is one
 * place (Documentation/performance.md, "posix-trace convert: output
 * path", measures it against io_uring).  Errors are sticky: the first
 * one is kept in @err and every later write is dropped.
 */
#define CV_OUT_BUF	(256 * 1024)

struct cv_out {
	int fd;
	int err;			/* first errno, 0 if none */
	unsigned char *buf;
	size_t len;
	uint64_t bytes;			/* written so far, flushed or not */
	void *priv;			/* another backend's state (bench/) */
};

/* 0 or an errno; @fd is owned by @o from then on (convert_fd.c). */
int cv_out_init(struct cv_out *o, int fd);
void cv_out_write(struct cv_out *o, const void *p, size_t n);
void cv_out_printf(struct cv_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Flushes, closes, frees; 0 or the first errno. */
int cv_out_close(struct cv_out *o);
/* The backend (convert_fd.c): hands o->buf[0, o->len) to the file. */
void cv_out_flush(struct cv_out *o);

static inline void cv_out_putc(struct cv_out *o, char c)
{
	if (o->len < CV_OUT_BUF)
		o->buf[o->len++] = (unsigned char)c;
	else
		cv_out_write(o, &c, 1);
}

static inline void cv_out_puts(struct cv_out *o, const char *s)
{
	cv_out_write(o, s, strlen(s));
}

#endif
