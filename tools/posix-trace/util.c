// SPDX-License-Identifier: LGPL-2.1-or-later
/* Messages and progress for posix-trace(1). */
#include <limits.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

void pt_err(const char *fmt, ...)
{
	va_list ap;

	fputs("posix-trace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void progress_start(struct progress *p, const char *what, unsigned long long total)
{
	p->on = isatty(STDERR_FILENO);
	p->what = what;
	p->done = 0;
	p->total = total;
	p->last_ns = 0;
}

/* 100 * @done / @total without overflow, whatever the file size. */
static unsigned long long percent(unsigned long long done, unsigned long long total)
{
	if (total > ULLONG_MAX / 100)
		return done / (total / 100);
	return 100 * done / total;
}

void progress_update(struct progress *p, unsigned long long done)
{
	long long t;

	p->done = done;
	if (!p->on)
		return;
	t = now_ns();
	if (t - p->last_ns < 200000000LL)	/* five redraws a second */
		return;
	p->last_ns = t;
	if (p->total)
		fprintf(stderr, "\r%s: %llu%%", p->what, percent(done, p->total));
	else
		fprintf(stderr, "\r%s: %llu", p->what, done);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last_ns)
		fprintf(stderr, "\r\033[K");
}
