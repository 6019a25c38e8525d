// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helper of tests/tools/sctime_tid.sh: writes to argv[1] a log of the
 * kernel events of threaded processes, with the test writer
 * tests/unit/log_writer.h, whose system calls posix-trace report must
 * match per thread (the records' kernel thread ids), and page faults it
 * must count per process:
 *   process 6000: threads 6000 (A) and 6001 (B).  A enters read, B enters
 *     and leaves getpid (500 ns), A leaves its CPU, B enters read and
 *     leaves its CPU, A comes back (off 6 us) and leaves read (9 us, 6 of
 *     them blocked), B comes back (off 7 us) and leaves read (9 us, 7
 *     blocked).  A and B fault once each (major, minor).  Thread 6002
 *     (C) calls execve while A is in nanosleep: the exec goes on as 6000
 *     (old_tid 0), its exit 1.8 us after C's entry; A's nanosleep never
 *     returns.  6000 then calls exit_group and the process exits.
 *   process 6100: thread 6101 enters read, 6100 calls exit_group, the
 *     process exits; a new process 6100 then has a thread 6101 again,
 *     whose getpid takes 300 ns (the old read never returned).
 *   process 6200: 3 major and 1,234 minor page faults.
 * and to argv[2], if given, a log of calls recorded in one record
 * (POSIX_TRACE_SYSCALL_NP):
 *   process 6300: getpid in one record (400 ns); read pending at 2 us
 *     (entered 100 ns before), sched_out, sched_in 5 us later, its exit
 *     at 9 us (7.1 us, 5 of them blocked); openat in one record with its
 *     path, -2 (ENOENT), 250 ns.
 */
#include <stdio.h>
#include <linux/posix_trace_kernel.h>
#include "log_writer.h"

#define T0	7000000000ull

/* One record: thread @tid of process @pid, @t ns after T0. */
struct rec {
	uint32_t pid, tid, id;
	uint64_t t;
	const void *data;
	uint32_t len;
};

static const struct posix_trace_syscall_entry rd = { .nr = 0 }, gp = { .nr = 39 };
static const struct posix_trace_syscall_entry ex = { .nr = 59 }, nsl = { .nr = 35 };
static const struct posix_trace_syscall_entry eg = { .nr = 231 };
static const struct posix_trace_syscall_exit x_rd5 = { .nr = 0, .ret = 5 };
static const struct posix_trace_syscall_exit x_rd7 = { .nr = 0, .ret = 7 };
static const struct posix_trace_syscall_exit x_gp = { .nr = 39, .ret = 6000 };
static const struct posix_trace_syscall_exit x_gp2 = { .nr = 39, .ret = 6100 };
static const struct posix_trace_syscall_exit x_ex = { .nr = 59 };
static const struct posix_trace_sched_out nap1 = { .reason = POSIX_TRACE_SCHED_SLEEPING, .cpu = 1 };
static const struct posix_trace_sched_out nap2 = { .reason = POSIX_TRACE_SCHED_SLEEPING, .cpu = 2 };
static const struct posix_trace_sched_in in1 = { .cpu = 1 }, in2 = { .cpu = 2 };
static const struct posix_trace_fault major = { .address = 0x7f0000010000ull,
						.ip = 0x401000, .flags = POSIX_TRACE_FAULT_USER };
static const struct posix_trace_fault minor = { .address = 0x7ffd00002000ull };
static const struct posix_trace_process_exit pexit = { .status = 0 };
static const struct {
	struct posix_trace_process_exec x;
	char name[9];
} exec_true = { .x = { .old_tid = 0, .name_len = 9 }, .name = "/bin/true" };

#define D(v) &(v), sizeof(v)

static const struct rec recs[] = {
	{ 6000, 6000, 16, 1000, D(rd) },
	{ 6000, 6001, 16, 2000, D(gp) },
	{ 6000, 6001, 17, 2500, D(x_gp) },
	{ 6000, 6000, 20, 3000, D(nap1) },
	{ 6000, 6001, 16, 4000, D(rd) },
	{ 6000, 6001, 20, 5000, D(nap2) },
	{ 6000, 6000, 21, 9000, D(in1) },
	{ 6000, 6000, 17, 10000, D(x_rd5) },
	{ 6000, 6001, 21, 12000, D(in2) },
	{ 6000, 6001, 17, 13000, D(x_rd7) },
	{ 6000, 6000, 23, 14000, D(major) },
	{ 6000, 6001, 27, 14500, D(minor) },
	{ 6000, 6002, 16, 15000, D(ex) },
	{ 6000, 6000, 16, 15500, D(nsl) },
	{ 6000, 6000, 25, 16000, &exec_true, sizeof(exec_true.x) + 9 },
	{ 6000, 6000, 17, 16800, D(x_ex) },
	{ 6000, 6000, 16, 17000, D(eg) },
	{ 6000, 6000, 26, 17500, D(pexit) },
	{ 6100, 6101, 16, 20000, D(rd) },
	{ 6100, 6100, 16, 21000, D(eg) },
	{ 6100, 6100, 26, 22000, D(pexit) },
	{ 6100, 6101, 16, 30000, D(gp) },
	{ 6100, 6101, 17, 30300, D(x_gp2) },
};

#define NRECS	(sizeof(recs) / sizeof(recs[0]))

#define C_T0	(T0 + 1000000)

static const struct posix_trace_syscall c_gp = {
	.nr = 39, .elapsed = 400, .ret = 6300 };
static const struct posix_trace_syscall c_rd = {
	.nr = 0, .flags = POSIX_TRACE_SYSCALL_PENDING, .elapsed = 100,
	.args = { 3, 0x7ffd0000, 64 } };
static const struct {
	struct posix_trace_syscall c;
	char path[11];
} c_op = { .c = { .nr = 257, .flags = POSIX_TRACE_SYSCALL_PATH,
		  .elapsed = 250, .ret = (uint64_t)-2,
		  .args = { (uint64_t)-100, 0x7ffd1000 }, .path_arg = 1, .path_len = 11 },
	    .path = "/etc/nosuch" };

static const struct rec calls[] = {
	{ 6300, 6300, 28, 1000, D(c_gp) },
	{ 6300, 6300, 28, 2000, D(c_rd) },
	{ 6300, 6300, 20, 4000, D(nap1) },
	{ 6300, 6300, 21, 9000, D(in1) },
	{ 6300, 6300, 17, 9000, D(x_rd5) },
	{ 6300, 6300, 28, 12000, &c_op, sizeof(c_op.c) + 11 },
};

#define NCALLS	(sizeof(calls) / sizeof(calls[0]))

/* The log of calls in one record (argv[2]). */
static int calls_log(const char *path)
{
	static const trace_event_id_t ids[] = { 16, 17, 20, 21, 28 };
	static const char *const names[] = {
		"posix_trace_syscall_entry", "posix_trace_syscall_exit",
		"posix_trace_sched_out", "posix_trace_sched_in", "posix_trace_syscall",
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[NCALLS];
	struct lw_log w;
	unsigned int i;

	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "calls", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < NCALLS; i++) {
		ev[i] = (struct lw_event){ .id = calls[i].id, .pid = calls[i].pid,
					   .tid = calls[i].tid, .flags = POSIX_TRACE_REC_AUTO,
					   .ts = C_T0 + calls[i].t, .data = calls[i].data,
					   .data_len = calls[i].len };
	}
	lw_events_packed(&w, ev, NCALLS);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path))
		return perror(path), 1;
	free(w.buf);
	return 0;
}
#define FAULTS	(3 + 1234)

static struct lw_event ev_of(const struct rec *r)
{
	return (struct lw_event){ .id = r->id, .pid = r->pid, .tid = r->tid,
				  .flags = POSIX_TRACE_REC_AUTO, .ts = T0 + r->t,
				  .data = r->data, .data_len = r->len };
}

/* Process 6200's faults, one thread, after everything else. */
static void faults(struct lw_event *ev)
{
	unsigned int i;

	for (i = 0; i < FAULTS; i++)
		ev[i] = (struct lw_event){ .id = i < 3 ? 23 : 27, .pid = 6200, .tid = 6201,
					   .flags = POSIX_TRACE_REC_AUTO,
					   .ts = T0 + 100000 + i,
					   .data = i < 3 ? (const void *)&major : &minor,
					   .data_len = sizeof(major) };
}

int main(int argc, char **argv)
{
	static const trace_event_id_t ids[] = { 16, 17, 20, 21, 22, 23, 24, 25, 26, 27 };
	static const char *const names[] = {
		"posix_trace_syscall_entry", "posix_trace_syscall_exit",
		"posix_trace_sched_out", "posix_trace_sched_in", "posix_trace_sched_wakeup",
		"posix_trace_fault_major", "posix_trace_process_fork",
		"posix_trace_process_exec", "posix_trace_process_exit",
		"posix_trace_fault_minor",
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	static struct lw_event ev[FAULTS];
	struct lw_log w;
	unsigned int i;

	if (argc != 2 && argc != 3)
		return 2;
	if (argc == 3 && calls_log(argv[2]))
		return 1;
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "threads", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < NRECS; i++)
		ev[i] = ev_of(&recs[i]);
	/* The first half in a 1.0 block, the rest packed: both carry tids. */
	lw_events(&w, ev, NRECS / 2);
	lw_events_packed(&w, ev + NRECS / 2, NRECS - NRECS / 2);
	faults(ev);
	lw_events_packed(&w, ev, FAULTS);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, argv[1]))
		return perror(argv[1]), 1;
	free(w.buf);
	return 0;
}
