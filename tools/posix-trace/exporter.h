/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace convert's exporters: each writes the events of a log in
 * one format (ctf.c: CTF 1.8, with ctf_meta.c and ctf_kev.c; chrome.c:
 * Trace Event Format, with chrome_kev.c) and is one
 * const struct exporter.  convert.c picks them from its table and drives
 * them; an exporter knows neither convert.c nor the other exporters, and
 * writes its files through convert_out.h.
 *
 * The calls: open, then event for each event of the log in log order,
 * then finish; abort instead at any point after a successful open.  An
 * export that fails (open, finish or abort) leaves nothing behind: what
 * is left after a successful finish is whole.
 */
#ifndef PT_EXPORTER_H
#define PT_EXPORTER_H

#include <stdint.h>
#include <time.h>
#include "logview.h"

struct exporter {
	/* Starts an export to @dest (a path; each exporter says what "-"
	 * means) from the log @lv, open and not yet read: 0 and the
	 * exporter's state in *@w, or an errno and nothing created. */
	int (*open)(void **w, const char *dest, struct logview *lv);
	/* One event: 0 or an errno (the caller then aborts). */
	int (*event)(void *w, const struct lv_event *ev);
	/* After the last event: completes the export, 0 or an errno (what
	 * was written is then removed).  Frees @w either way. */
	int (*finish)(void *w, struct logview *lv);
	/* Removes what the export wrote, frees @w. */
	void (*abort)(void *w);
};

extern const struct exporter ctf_exporter;	/* a trace directory */
extern const struct exporter chrome_exporter;	/* a file, "-": stdout */

/* An event's time: CLOCK_REALTIME ns since the Epoch (wraps, never traps,
 * on a garbage timestamp). */
static inline uint64_t cv_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

#endif
