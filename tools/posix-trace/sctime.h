/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time in system calls and off CPU, from the kernel events of a log, for
 * posix-trace report: the duration of each system call (its exit's
 * timestamp minus that of the same thread's entry before it, same
 * number), the time a thread spent off CPU (its sched_in's timestamp
 * minus that of its sched_out before it), and for report --summary a
 * table per system call as strace -c prints it, the time of each call
 * split into on CPU and blocked when the log recorded the sched class,
 * and the page faults of each process (the fault class's records).
 *
 * A thread is the record's (pid, tid): the module records kernel events
 * with thread (pthread_t) 0, and their kernel thread id comes from
 * posix_trace_event_tid_np() (lv_event.tid), so the threads of a process
 * are timed apart.  A thread id is reused: when its process exits, or
 * execs (every other thread dies then), what its threads were in never
 * returns, and the next records of the same (pid, tid) are another
 * thread's.  An exec that a thread other than the leader called goes on
 * in the leader's id: its call moves there, to end with its exit.
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
	/* A syscall exit: the entry of its call (arguments, path), when it
	 * was seen with no event lost between, valid until the thread's
	 * next record. */
	const struct kd_event *entry;
};

struct sct {
	struct table threads;	/* (pid, tid): struct sct_thread */
	struct table procs;	/* (pid, 0): struct sct_proc */
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
 * into on CPU and blocked (off CPU between its entry and exit).  Then
 * the page faults of the records shown, when there are any, in text
 *   # page faults: 12 major, 3,456 minor
 *   #   pid 4242: 10 major, 3,000 minor
 * (a line per process, the most faults first), and in JSON always
 * ,"page_faults":[{"pid":4242,"major":10,"minor":3000},...] in the same
 * order.  0, or ENOMEM (nothing written).
 */
int sct_text(FILE *f, struct sct *s, bool sched);
int sct_json(FILE *f, struct sct *s, bool sched);

/* Frees everything (the tables and their values). */
void sct_free(struct sct *s);

#endif
