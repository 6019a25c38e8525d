/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time in system calls and off CPU, from the kernel events of a log, for
 * posix-trace report: the duration of each system call (its exit's
 * timestamp minus that of the same thread's entry before it, same
 * number), the time a thread spent off CPU (its sched_in's timestamp
 * minus that of its sched_out before it), and for report --summary a
 * table per system call as strace -c prints it, the time of each call
 * split into on CPU and blocked when the log recorded the sched class.
 *
 * A thread is the record's (pid, thread) as the report shows them.  The
 * module records kernel events with thread 0 and their tid is not among
 * what posix_trace_getnext_event() returns, so the kernel events of all
 * the threads of a process are one thread here: a call another thread
 * entered in between has no duration (its number differs), or the wrong
 * one when both threads made the same call at once.
 *
 * Every event of the log goes through sct_event() in log order, shown or
 * not (--filter chooses what is shown, not what a duration is); the
 * table counts the calls of which a record is shown.  An entry without
 * an exit (exit(), exit_group(), an execve() that succeeded, the end of
 * the log) counts as a call without time, as does an exit without its
 * entry; after an OVERFLOW or a START (events may be missing before it)
 * nothing before it is timed with what follows: an exit still ends the
 * call open across it, counted once, without a duration.
 */
#ifndef PT_SCTIME_H
#define PT_SCTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kdata.h"
#include "logview.h"
#include "table.h"

/* What the report adds to one event's line. */
struct sct_note {
	bool has_dur;		/* a syscall exit whose entry was seen */
	uint64_t dur_ns;
	bool has_off;		/* a sched_in whose sched_out was seen */
	uint64_t off_ns;
	uint32_t off_reason;	/* the sched_out's reason */
};

struct sct {
	struct table threads;	/* (pid, thread): struct sct_thread */
	struct table calls;	/* (compat, nr): struct sct_stat, with summary */
	bool summary;		/* count calls for sct_text()/sct_json() */
	unsigned int gen;	/* bumped where events were lost */
};

void sct_init(struct sct *s, bool summary);

/*
 * One event of the log, in log order: @k its kernel data decoded, NULL
 * for another event; @shown whether the report shows it.  *@note says
 * what its line gains.  0, or ENOMEM.
 */
int sct_event(struct sct *s, const struct lv_event *ev, const struct kd_event *k,
	      bool shown, struct sct_note *note);

/* At the end of the log: counts the calls still open.  0, or ENOMEM. */
int sct_end(struct sct *s);

/*
 * The table of report --summary, after sct_end(): text lines starting
 * with "# ", or the ,"syscalls":[...] member of the JSON summary object.
 * @sched: the log recorded the sched class, so each call's time splits
 * into on CPU and blocked (off CPU between its entry and exit).  0, or
 * ENOMEM (nothing written).
 */
int sct_text(FILE *f, struct sct *s, bool sched);
int sct_json(FILE *f, struct sct *s, bool sched);

/* Frees everything (the tables and their values). */
void sct_free(struct sct *s);

#endif
