// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test helper of tests/tools/convert.sh (built by it, not by make):
 *   convert_helper dump LOG   the reference: one line per event as
 *                             posix_trace_getnext_event() returns it (read
 *                             here, not through the tool's logview.c), in
 *                             the form convert_check.py prints exports in
 *   convert_helper odd OUT [N [back]]
 *                             writes a log of N events (default 27) whose
 *                             names and data hold every kind of byte quoting
 *                             must survive; "back": each event 1 us earlier
 *                             than the one before (a damaged log's order)
 *   convert_helper kernel OUT writes a log of kernel events of two
 *                             processes (system calls, off-CPU time,
 *                             signals, faults, fork, exec, exit; records
 *                             cut short) and one user event, whose
 *                             exports convert_check.py kchrome and kbt2
 *                             know by heart
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <linux/posix_trace_kernel.h>
#include "log_writer.h"

static void hex(const void *p, size_t n)
{
	const unsigned char *s = p;

	if (!n)
		putchar('-');
	while (n--)
		printf("%02x", *s++);
}

static int dump(const char *path)
{
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t max = 0, sys = 0, len;
	int fd, ret, unavailable = 0;
	unsigned char *data;
	trace_attr_t attr;
	trace_id_t trid;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (ret = posix_trace_open(fd, &trid))) {
		fprintf(stderr, "%s: cannot open as a log\n", path);
		return 1;
	}
	/* Room for the largest event, user or system: nothing cut on read. */
	if (posix_trace_get_attr(trid, &attr) || posix_trace_attr_getmaxdatasize(&attr, &max) ||
	    posix_trace_attr_getmaxsystemeventsize(&attr, &sys))
		return 1;
	max = max > sys ? max : sys;
	data = malloc(max + 1);
	if (!data)
		return 1;
	while (!(ret = posix_trace_getnext_event(trid, &info, data, max, &len, &unavailable)) &&
	       !unavailable) {
		if (posix_trace_eventid_get_name(trid, info.posix_event_id, name))
			strcpy(name, "?");
		printf("%llu ", (unsigned long long)info.posix_timestamp.tv_sec * 1000000000ull +
		       (unsigned long long)info.posix_timestamp.tv_nsec);
		hex(name, strlen(name));
		printf(" %d %llx %llx %d ", (int)info.posix_pid,
		       (unsigned long long)(uintptr_t)info.posix_thread_id,
		       (unsigned long long)(uintptr_t)info.posix_prog_address,
		       info.posix_truncation_status);
		hex(data, len);
		putchar('\n');
	}
	free(data);
	posix_trace_close(trid);
	close(fd);
	return ret != 0;
}

static int odd(const char *path, unsigned int n, bool back)
{
	static const char *const names[] = {
		"quote\"back\\slash", "tab\there", "new\nline", "ctl\x01\x1f\x7f",
		"latin1 \xff\xfe invalid", "utf8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		"bad utf8 \xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82",
		"{ x: } [1] = 2",
		"posix_trace_start",
	};
	static const trace_event_id_t ids[] = { 256, 257, 258, 259, 260, 261, 262, 263, 264 };
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED,
					      .posix_stream_overrun_status = POSIX_TRACE_OVERRUN };
	unsigned char data[200];
	struct lw_event ev[200];
	struct lw_log w;
	unsigned int i, k;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 37 + 1);
	data[0] = 0;
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "odd \"name\"\n\xff", POSIX_TRACE_LOOP, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 9);
	for (k = 0; k < n; k += 200) {
		for (i = 0; i < 200 && k + i < n; i++) {
			unsigned int j = k + i;

			ev[i] = (struct lw_event){
				.id = ids[j % 9], .pid = j % 3 ? 100 + j % 2 : 0, .tid = j,
				.flags = j % 4 == 3,
				.ts = back ? 9000000000ull - j * 1000ull : 5000000000ull + j * 1234567ull,
				.thread = j % 5 ? 0x7f0000000000ull + j % 3 : ~0ull,
				.address = 0x1000 + j, .data = data + j % 30, .data_len = (j * 7) % 170,
			};
		}
		lw_events(&w, ev, i);
	}
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path)) {
		perror(path);
		return 1;
	}
	free(w.buf);
	return 0;
}

/* A syscall entry with a path (@plen bytes of it, or none). */
struct kentry {
	struct posix_trace_syscall_entry e;
	char path[16];
};

static struct kentry kentry(uint32_t nr, uint64_t arg0, const char *path)
{
	struct kentry k = { .e = { .nr = nr, .args = { arg0, 0x7ffc0000beefull, 0, 0, 0, 0 } } };

	if (path) {
		k.e.flags = POSIX_TRACE_SYSCALL_PATH;
		k.e.path_arg = 1;
		k.e.path_len = (uint32_t)strlen(path);
		memcpy(k.path, path, k.e.path_len);
	}
	return k;
}

/* A record of the kernel log: @t ns after its start, of thread @tid of
 * process @pid. */
struct krec {
	uint32_t pid, tid, id;
	uint64_t t;
	const void *data;
	uint32_t len;
};

#define KRECS 39
#define ENTRY(k) &(k), (uint32_t)(sizeof((k).e) + (k).e.path_len)
#define WHOLE(x) &(x), (uint32_t)sizeof(x)

/*
 * Process 300 opens /etc/passwd blocked 250 us inside the call, while its
 * thread 303 reads (1.3 us) in between; it takes a major fault in user
 * mode, reads (a minor fault inside), is preempted in user mode, gets
 * SIGUSR1 from 301, has a write exit without its entry, then sleeps in
 * nanosleep, woken and back on a CPU at the end of the log, the call not
 * returned.  Process 301 writes, kills (ESRCH) while a SIGTERM record cut
 * to its signo comes in, takes a fault whose record holds the address
 * only, calls getpid with an entry cut to 12 bytes, forks, and while its
 * thread 304 waits in futex, execs /bin/true (which ends 304; its execve
 * has no exit record) and exits in exit_group.  One user event of 300 in
 * between.
 */
static int kernel(const char *path)
{
	static const trace_event_id_t ids[] = { 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
						256 };
	static const char *const names[] = {
		"posix_trace_syscall_entry", "posix_trace_syscall_exit",
		"posix_trace_signal_generate", "posix_trace_signal_deliver",
		"posix_trace_sched_out", "posix_trace_sched_in", "posix_trace_sched_wakeup",
		"posix_trace_fault_major", "posix_trace_process_fork", "posix_trace_process_exec",
		"posix_trace_process_exit", "posix_trace_fault_minor", "user_ev",
	};
	struct kentry openat = kentry(257, (uint64_t)-100, "/etc/passwd");
	struct kentry rd = kentry(0, 3, NULL), nsl = kentry(35, 0x7ffc00000010ull, NULL);
	struct kentry wr = kentry(1, 1, NULL), kill = kentry(62, 4242, NULL);
	struct kentry getpid = kentry(39, 0x1122334455667788ull, NULL);
	struct kentry execve = kentry(59, 0x7ffc00000020ull, "/bin/true");
	struct kentry exit_group = kentry(231, 0, NULL), futex = kentry(202, 0x7f0000003000ull, NULL);
	struct posix_trace_syscall_exit x_open = { .nr = 257, .ret = 3 };
	struct posix_trace_syscall_exit x_rd = { .nr = 0, .ret = 4096 };
	struct posix_trace_syscall_exit x_wr = { .nr = 1, .ret = 5 };
	struct posix_trace_syscall_exit x_kill = { .nr = 62, .ret = (uint64_t)-3 };
	struct posix_trace_syscall_exit x_getpid = { .nr = 39, .ret = 301 };
	struct posix_trace_syscall_exit x_rd303 = { .nr = 0, .ret = 1 };
	struct posix_trace_sched_out blocked = { .reason = POSIX_TRACE_SCHED_BLOCKED, .cpu = 1 };
	struct posix_trace_sched_out preempted = { .reason = POSIX_TRACE_SCHED_PREEMPTED, .cpu = 2 };
	struct posix_trace_sched_out sleeping = { .reason = POSIX_TRACE_SCHED_SLEEPING };
	struct posix_trace_sched_out exiting = { .reason = POSIX_TRACE_SCHED_EXITING, .cpu = 3 };
	struct posix_trace_sched_in in2 = { .cpu = 2 }, in0 = { .cpu = 0 };
	struct posix_trace_sched_wakeup irq = { .flags = POSIX_TRACE_SCHED_WAKER_IRQ };
	struct posix_trace_fault major = { .address = 0x7f0000001000ull, .ip = 0x401000,
					   .flags = POSIX_TRACE_FAULT_USER };
	struct posix_trace_fault minor = { .address = 0x7ffc00001000ull };
	struct posix_trace_fault minor_cut = { .address = 0x7f0000002000ull, .ip = 0x401010,
					       .flags = POSIX_TRACE_FAULT_USER };
	struct posix_trace_signal_generate usr1 = { .signo = 10, .sender_pid = 301,
		.result = POSIX_TRACE_SIGNAL_DELIVERED };
	struct posix_trace_signal_deliver take = { .signo = 10, .code = (uint32_t)-6,
		.sender_pid = 301, .action = POSIX_TRACE_SIGNAL_HANDLER, .handler = 0x401136 };
	struct posix_trace_signal_generate term = { .signo = 15, .code = 0, .sender_pid = 300 };
	struct posix_trace_process_fork child = { .child_pid = 302, .child_tid = 302 };
	struct { struct posix_trace_process_exec x; char name[9]; } exec =
		{ .x = { .old_tid = 301, .name_len = 9 }, .name = "/bin/true" };
	struct posix_trace_process_exit gone = { .status = 0 };
	static const char hello[] = "hello";
	const struct krec kr[KRECS] = {
		{ 300, 300, 16, 0, ENTRY(openat) },
		{ 300, 300, 20, 1000, WHOLE(blocked) },
		{ 300, 303, 16, 1200, ENTRY(rd) },
		{ 300, 300, 22, 1500, WHOLE(irq) },
		{ 301, 301, 16, 2000, ENTRY(wr) },
		{ 300, 303, 17, 2500, WHOLE(x_rd303) },
		{ 301, 301, 17, 3000, WHOLE(x_wr) },
		{ 300, 300, 21, 251000, WHOLE(in2) },
		{ 300, 300, 17, 252500, WHOLE(x_open) },
		{ 300, 300, 23, 300000, WHOLE(major) },
		{ 300, 300, 256, 305000, hello, sizeof(hello) },
		{ 300, 300, 16, 310000, ENTRY(rd) },
		{ 300, 300, 27, 310100, WHOLE(minor) },
		{ 300, 300, 17, 311000, WHOLE(x_rd) },
		{ 300, 300, 20, 320000, WHOLE(preempted) },
		{ 300, 300, 21, 330000, WHOLE(in0) },
		{ 301, 301, 16, 339000, ENTRY(kill) },
		{ 301, 301, 18, 339500, &term, 4 },		/* the signo only */
		{ 300, 300, 18, 340000, WHOLE(usr1) },
		{ 300, 300, 19, 340500, WHOLE(take) },
		{ 301, 301, 17, 341000, WHOLE(x_kill) },
		{ 301, 301, 27, 345000, &minor_cut, 8 },	/* the address only */
		{ 301, 301, 16, 350000, &getpid, 12 },	/* nr, flags, half of args[0] */
		{ 300, 300, 17, 350050, WHOLE(x_wr) },	/* no entry */
		{ 301, 301, 17, 350100, WHOLE(x_getpid) },
		{ 300, 300, 16, 360000, ENTRY(nsl) },
		{ 300, 300, 20, 360500, WHOLE(sleeping) },
		{ 301, 301, 24, 400000, WHOLE(child) },
		{ 301, 304, 16, 400500, ENTRY(futex) },
		{ 301, 304, 20, 401000, WHOLE(sleeping) },
		{ 301, 301, 16, 410000, ENTRY(execve) },
		{ 301, 301, 25, 420000, &exec, (uint32_t)sizeof(exec.x) + 9 },
		{ 301, 301, 16, 430000, ENTRY(exit_group) },
		{ 301, 301, 26, 431000, WHOLE(gone) },
		{ 301, 301, 20, 432000, WHOLE(exiting) },
		{ 300, 300, 22, 500000, WHOLE(irq) },
		{ 300, 300, 21, 500000, WHOLE(in0) },
		{ 300, 303, 16, 500000, ENTRY(wr) },
		{ 300, 303, 17, 500000, WHOLE(x_wr) },
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[KRECS];
	struct lw_log w;
	unsigned int i;

	for (i = 0; i < KRECS; i++)
		ev[i] = (struct lw_event){ .id = kr[i].id, .pid = kr[i].pid, .tid = kr[i].tid,
					   .flags = kr[i].id < 256 ? POSIX_TRACE_REC_AUTO : 0,
					   .ts = 7000000000ull + kr[i].t,
					   .thread = kr[i].id < 256 ? 0 : 0x7f00000000aaull,
					   .address = kr[i].id < 256 ? 0 : 0x401234,
					   .data = kr[i].data, .data_len = kr[i].len };
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "kernel", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, sizeof(ids) / sizeof(ids[0]));
	lw_events(&w, ev, KRECS);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path)) {
		perror(path);
		return 1;
	}
	free(w.buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "odd"))
		return odd(argv[2], argc > 3 ? (unsigned int)atoi(argv[3]) : 27,
			   argc > 4 && !strcmp(argv[4], "back"));
	if (argc == 3 && !strcmp(argv[1], "kernel"))
		return kernel(argv[2]);
	fprintf(stderr, "usage: convert_helper dump LOG | odd OUT [N [back]] | kernel OUT\n");
	return 2;
}
