/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace convert --chrome: what chrome.c (the file, the processes and
 * threads, user and system events) shares with chrome_kev.c (the kernel
 * events as slices and instants).
 */
#ifndef PT_CHROME_H
#define PT_CHROME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "convert_out.h"
#include "logview.h"
#include "table.h"

struct chrome_writer {
	char *path;			/* to remove on failure; NULL: not a regular file */
	struct cv_out out;
	bool any;			/* an event written: separate the next */
	bool have_base;
	uint64_t base;
	uint64_t end;			/* the latest event's time: where what is
					 * still open ends */
	uint64_t events;
	struct table pids;		/* the processes named so far; value:
					 * their first kernel track (chrome_kev.c) */
	struct table thr;		/* (pid, thread): tid - 1; value: the
					 * track's kernel state (chrome_kev.c) */
	struct table kthr;		/* (pid, kernel tid) of kernel events;
					 * value: the track's kernel state */
	struct table named;		/* (pid, tid) of the "M" events written */
	FILE *scratch;			/* kd_json()'s text, copied into out */
	char *scratch_buf;
	size_t scratch_size;
};

/* @p (@n bytes, any) as a JSON string (jsonstr.h). */
void chrome_json(struct cv_out *o, const void *p, size_t n);

/*
 * Starts an event: {"name":@name,"cat":@cat,"ph":@ph,["s":"t",]"ts":..,
 * "pid":@pid,"tid":@tid -- an instant ('i') gets "s":"t" (its thread's
 * track); the caller adds the rest and the closing brace.
 */
void chrome_head(struct chrome_writer *w, const char *name, const char *cat, char ph,
		 uint64_t ns, int32_t pid, uint32_t tid);

/* chrome_kev.c: whether @ev is a kernel event (ids 16..27), which it
 * then writes; 0 or an errno.  @tid is its track, @state the track's
 * value in w->kthr (w->thr for a record without a tid), NULL until
 * chrome_kev.c sets it. */
bool chrome_kev_is(const struct lv_event *ev);
int chrome_kev_event(struct chrome_writer *w, const struct lv_event *ev, uint32_t tid,
		     void **state);
/* After the last event: ends what is still open at w->end. */
void chrome_kev_end(struct chrome_writer *w);
/* Frees the tracks' states (the values of w->thr and w->kthr). */
void chrome_kev_free(struct chrome_writer *w);

#endif
