// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helper of tests/tools/cli.sh: writes to argv[1] a sequential log whose
 * event names and data hold everything the report formats must escape
 * ('"', '\', newline, ',', control bytes, bytes that are not UTF-8, UTF-8,
 * spaces) and a record truncated when recorded, and to argv[2], if
 * given, a log of kernel events (every type, paths that need escaping,
 * data cut short), and to argv[3] and argv[4], if given, logs of system
 * calls of known durations, with and without the sched class, with the
 * test writer tests/unit/log_writer.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/posix_trace_kernel.h>
#include "log_writer.h"

#define NAMES 9

/* A syscall entry with path @path (@plen bytes; the data holds @have). */
struct kentry {
	struct posix_trace_syscall_entry e;
	char path[64];
};

static struct kentry kentry(uint32_t nr, uint32_t flags, const char *path, uint32_t plen)
{
	struct kentry k = { .e = { .nr = nr, .flags = flags,
				   .args = { (uint64_t)-100, 0x7ffc0000beefull, 0x80000, 0, 0, 0 },
				   .path_arg = 1, .path_len = plen } };

	memcpy(k.path, path, plen < sizeof(k.path) ? plen : sizeof(k.path));
	return k;
}

/* A syscall entry with arguments @args and a path at @path_arg. */
static struct kentry kcall(uint32_t nr, const uint64_t args[6], uint32_t path_arg,
			   const char *path, uint32_t plen)
{
	struct kentry k = kentry(nr, plen ? POSIX_TRACE_SYSCALL_PATH : 0, path, plen);

	memcpy(k.e.args, args, sizeof(k.e.args));
	k.e.path_arg = path_arg;
	return k;
}

#define KEV 52

/* The kernel log: TYPES of the system ids, every class and one user id;
 * the events of a small program, signals with every kind of name and
 * none, a thread off and on a CPU, and records cut short (the fixed part
 * read as zeros); calls whose arguments are flags and constants, named
 * and not; page faults; an execve() that thread 4250 calls, which ends
 * in the leader's id, 4242. */
static int kernel_log(const char *path)
{
	static const trace_event_id_t ids[] = { 1, 2, 3, 9, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
						       26, 27, 28, 256 };
	static const char *const names[] = {
		"posix_trace_error", "posix_trace_start", "posix_trace_stop",
		"posix_trace_detached", "posix_trace_syscall_entry",
		"posix_trace_syscall_exit", "posix_trace_signal_generate",
		"posix_trace_signal_deliver", "posix_trace_sched_out",
		"posix_trace_sched_in", "posix_trace_sched_wakeup", "posix_trace_fault_major",
		"posix_trace_process_fork", "posix_trace_process_exec", "posix_trace_process_exit",
		"posix_trace_fault_minor", "posix_trace_syscall",
		"posix_trace_unnamed_userevent",
	};
	/* Calls in one record: an openat that returned in 700 ns, a read
	 * pending 300 ns after its entry (its exit next, 1 us later: 1.3 us),
	 * one whose path says 10 bytes and holds 4. */
	struct { struct posix_trace_syscall c; char path[16]; } c_open = {
		.c = { .nr = 257, .flags = POSIX_TRACE_SYSCALL_PATH, .elapsed = 700, .ret = 5,
		       .args = { (uint64_t)-100, 0x7ffc0000a000, 02000000 }, .path_arg = 1,
		       .path_len = 10 }, .path = "/etc/hosts" };
	struct posix_trace_syscall c_rd = {
		.nr = 0, .flags = POSIX_TRACE_SYSCALL_PENDING, .elapsed = 300,
		.args = { 3, 0x7ffc0000b000, 4096 } };
	struct posix_trace_syscall_exit x_crd = { .nr = 0, .ret = 4096 };
	struct { struct posix_trace_syscall c; char path[16]; } c_cut = {
		.c = { .nr = 257, .flags = POSIX_TRACE_SYSCALL_PATH, .elapsed = 9, .ret = 6,
		       .args = { (uint64_t)-100, 0x7ffc0000a000 }, .path_arg = 1,
		       .path_len = 10 }, .path = "/cut" };
	struct kentry open_ok = kentry(257, POSIX_TRACE_SYSCALL_PATH, "/etc/ld.so.cache", 16);
	struct kentry odd = kentry(257, POSIX_TRACE_SYSCALL_PATH, "/tmp/q\"uo\\te\x01\xff \xc3\xa9", 17);
	struct kentry trunc = kentry(2, POSIX_TRACE_SYSCALL_PATH | POSIX_TRACE_SYSCALL_PATH_TRUNC,
				     "/very/long", 10);
	struct kentry fault = kentry(4, POSIX_TRACE_SYSCALL_PATH_FAULT, "", 0);
	struct kentry compat = kentry(5, POSIX_TRACE_SYSCALL_COMPAT, "", 0);
	struct kentry cut = kentry(257, POSIX_TRACE_SYSCALL_PATH, "/cut/short", 10);
	struct posix_trace_syscall_exit x_ok = { .nr = 257, .ret = 3 };
	/* The exit copies the path again (the entry's was not in memory). */
	struct { struct posix_trace_syscall_exit x; char path[8]; } x_err =
		{ .x = { .nr = 257, .ret = (uint64_t)-2, .flags = POSIX_TRACE_SYSCALL_PATH,
			 .path_arg = 1, .path_len = 6 }, .path = "/nope\n" };
	struct posix_trace_syscall_exit x_mmap = { .nr = 9, .ret = 0x7f1234567000ull };
	struct posix_trace_process_fork fk = { .child_pid = 4243, .child_tid = 4243 };
	struct posix_trace_process_fork th = { .child_pid = 4242, .child_tid = 4250,
					       .flags = POSIX_TRACE_FORK_THREAD };
	struct { struct posix_trace_process_exec x; char name[8]; } ex =
		{ .x = { .old_tid = 4242, .name_len = 7 }, .name = "/bin/ls" };
	struct posix_trace_process_exit pe = { .status = 1 << 8 };
	struct posix_trace_process_exit killed = { .status = 9 };
	struct posix_trace_signal_generate gen = { .signo = 10, .code = 0, .sender_pid = 1234,
		.result = POSIX_TRACE_SIGNAL_DELIVERED, .flags = POSIX_TRACE_SIGNAL_GROUP };
	struct posix_trace_signal_deliver dlv = { .signo = 10, .code = (uint32_t)-6,
		.sender_pid = 1234, .action = POSIX_TRACE_SIGNAL_HANDLER,
		.handler = 0x401136, .sa_flags = 0x4000000 };
	struct posix_trace_signal_generate chld = { .signo = 17, .code = 1,
		.result = POSIX_TRACE_SIGNAL_ALREADY_PENDING };
	struct posix_trace_signal_deliver rt = { .signo = 35, .code = (uint32_t)-1,
		.sender_pid = 77, .action = POSIX_TRACE_SIGNAL_DEFAULT };
	/* Values no name is known for: numbers only. */
	struct posix_trace_signal_generate unknown = { .signo = 99, .code = 7, .sender_pid = 1,
		.result = 9 };
	struct posix_trace_signal_deliver dlv_cut = { .signo = 11, .code = 0x80,
		.action = POSIX_TRACE_SIGNAL_DEFAULT, .handler = 0xdead, .sa_flags = 4 };
	struct posix_trace_signal_generate gen_cut = { .signo = 9, .code = 0x80, .sender_pid = 5,
		.result = POSIX_TRACE_SIGNAL_IGNORED, .flags = POSIX_TRACE_SIGNAL_GROUP };
	/* A sleep: out, woken by another thread, in on another CPU; a wakeup
	 * from an interrupt, one by an untraced process (not named), a
	 * reason with no name. */
	struct posix_trace_sched_out s_out = { .reason = POSIX_TRACE_SCHED_SLEEPING, .cpu = 1 };
	struct posix_trace_sched_wakeup s_wake = { .waker_pid = 1234, .waker_tid = 1235 };
	struct posix_trace_sched_in s_in = { .cpu = 0 };
	struct posix_trace_sched_wakeup s_irq = { .waker_pid = 0,
		.flags = POSIX_TRACE_SCHED_WAKER_IRQ };
	struct posix_trace_sched_wakeup s_kern = { .waker_pid = 0, .waker_tid = 0,
		.flags = POSIX_TRACE_SCHED_WAKER_OTHER };
	struct posix_trace_sched_out s_odd = { .reason = 7, .cpu = 3 };
	struct posix_trace_sched_out s_out_cut = { .reason = POSIX_TRACE_SCHED_BLOCKED, .cpu = 5 };
	struct posix_trace_sched_wakeup s_wake_cut = { .waker_pid = 77, .waker_tid = 78,
		.flags = POSIX_TRACE_SCHED_WAKER_IRQ };
	/* Flags and constants, x86-64's values: a file created (mode 0644),
	 * open flags with a bit no name has, memory mapped and protected,
	 * access, lseek, fcntl with an argument and without, clone. */
	struct kentry creat = kcall(257, (const uint64_t[6]){ 0xffffff9c, 0x7ffc0000beef,
		02001101, 0644 }, 1, "/tmp/new", 8);
	struct posix_trace_syscall_exit x_creat = { .nr = 257, .ret = 4 };
	struct kentry oddflags = kcall(257, (const uint64_t[6]){ 3, 0x7ffc0000beef,
		0x40000000, 0777 }, 1, "data", 4);
	struct posix_trace_syscall_exit x_odd = { .nr = 257, .ret = (uint64_t)-22 };
	struct kentry anon = kcall(9, (const uint64_t[6]){ 0, 8192, 3, 0x22, 0xffffffff, 0 },
				   0, "", 0);
	struct posix_trace_syscall_exit x_anon = { .nr = 9, .ret = 0x7f0000001000ull };
	struct kentry text = kcall(9, (const uint64_t[6]){ 0x7f0000001000ull, 4096, 5,
		0x812 | 0x200, 3, 0x2000 }, 0, "", 0);
	struct kentry prot = kcall(10, (const uint64_t[6]){ 0x7f0000001000ull, 4096, 0 }, 0,
				   "", 0);
	struct kentry acc = kcall(21, (const uint64_t[6]){ 0x7ffc0000beef, 6 }, 0,
				  "/etc/hosts", 10);
	struct kentry seek = kcall(8, (const uint64_t[6]){ 3, 0, 2 }, 0, "", 0);
	struct kentry setfl = kcall(72, (const uint64_t[6]){ 3, 4, 04000 }, 0, "", 0);
	struct kentry getfl = kcall(72, (const uint64_t[6]){ 3, 3, 0x7ffc0000beef }, 0, "", 0);
	struct kentry cln = kcall(56, (const uint64_t[6]){ 0x1200011, 0, 0, 0x7f00000029d0ull },
				  0, "", 0);
	/* A fault of the thread's own instruction, one the kernel took in a
	 * system call, one cut after its address (in a system call, then). */
	struct posix_trace_fault f_major = { .address = 0x7f0000001000ull, .ip = 0x401136,
					     .flags = POSIX_TRACE_FAULT_USER };
	struct posix_trace_fault f_minor = { .address = 0x7ffc00001000ull };
	struct posix_trace_fault f_cut = { .address = 0x7f0000002000ull, .ip = 0x401200,
					   .flags = POSIX_TRACE_FAULT_USER };
	struct kentry exe = kcall(59, (const uint64_t[6]){ 0x7ffc0000beef, 0x7ffc0000bf00,
		0x7ffc0000bf10 }, 0, "/bin/true", 9);
	struct { struct posix_trace_process_exec x; char name[16]; } ex_thr =
		{ .x = { .old_tid = 0, .name_len = 9 }, .name = "/bin/true" };
	struct posix_trace_syscall_exit x_exe = { .nr = 59 };
	const void *data[KEV] = { &open_ok, &x_ok, &odd, &x_err, &trunc, &fault, &compat,
				  &x_mmap, &fk, &th, &ex, &pe, &killed, &cut, &gen, &dlv,
				  &chld, &rt, &unknown, &dlv_cut, &gen_cut, &s_out, &s_wake,
				  &s_in, &s_irq, &s_kern, &s_odd, &s_out_cut, &s_wake_cut,
				  &creat, &x_creat, &oddflags, &x_odd, &anon, &x_anon, &text,
				  &prot, &acc, &seek, &setfl, &getfl, &cln, &f_major, &f_minor,
				  &f_cut, &exe, &ex_thr, &x_exe, &c_open, &c_rd, &x_crd, &c_cut };
	const uint32_t len[KEV] = {
		sizeof(open_ok.e) + 16, sizeof(x_ok), sizeof(odd.e) + 17, sizeof(x_err.x) + 6,
		sizeof(trunc.e) + 10, sizeof(fault.e), sizeof(compat.e), sizeof(x_mmap),
		sizeof(fk), sizeof(th), sizeof(ex.x) + 7, sizeof(pe), sizeof(killed),
		sizeof(cut.e) + 4,	/* says 10 bytes of path, holds 4 */
		sizeof(gen), sizeof(dlv), sizeof(chld), sizeof(rt), sizeof(unknown),
		12,			/* signo, code, sender_pid: no action */
		3,			/* three bytes of signo */
		sizeof(s_out), sizeof(s_wake), sizeof(s_in), sizeof(s_irq), sizeof(s_kern),
		sizeof(s_odd),
		4,			/* the reason: no cpu */
		6,			/* waker_pid, half of waker_tid: no flags */
		sizeof(creat.e) + 8, sizeof(x_creat), sizeof(oddflags.e) + 4, sizeof(x_odd),
		sizeof(anon.e), sizeof(x_anon), sizeof(text.e), sizeof(prot.e),
		sizeof(acc.e) + 10, sizeof(seek.e), sizeof(setfl.e), sizeof(getfl.e),
		sizeof(cln.e), sizeof(f_major), sizeof(f_minor),
		8,			/* the address: no ip, no flags */
		sizeof(exe.e) + 9, sizeof(ex_thr.x) + 9, sizeof(x_exe),
		sizeof(c_open.c) + 10, sizeof(c_rd), sizeof(x_crd),
		sizeof(c_cut.c) + 4,	/* says 10 bytes of path, holds 4 */
	};
	static const uint32_t kid[KEV] = { 16, 17, 16, 17, 16, 16, 16, 17, 24, 24, 25, 26, 26, 16,
					   18, 19, 18, 19, 18, 19, 18, 20, 22, 21, 22, 22, 20, 20,
					   22, 16, 17, 16, 17, 16, 17, 16, 16, 16, 16, 16, 16, 16,
					   23, 27, 27, 16, 25, 17, 28, 28, 17, 28 };
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[KEV];
	struct lw_log w;
	unsigned int i;

	/* 1 us apart, but the first call, which takes 4.1 us. */
	for (i = 0; i < KEV; i++)
		ev[i] = (struct lw_event){ .id = kid[i], .pid = 4242,
					   .tid = data[i] == &exe ? 4250 : 4242,
					   .flags = POSIX_TRACE_REC_AUTO,
					   .ts = 5000000000ull + 1000 * i + (i ? 3100 : 0),
					   .data = data[i], .data_len = len[i] };
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "kernel", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, sizeof(ids) / sizeof(ids[0]));
	lw_events_packed(&w, ev, KEV);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path))
		return perror(path), 1;
	free(w.buf);
	return 0;
}

/* A record of the timing log: @t ns after its start. */
struct tev {
	uint32_t pid, id;
	uint64_t t;
	const void *data;
	uint32_t len;
};

#define TEVS 21
#define E(k) &(k), sizeof((k).e)
#define X(x) &(x), sizeof(x)

/*
 * The timing log: process 5151 opens a file (5 us), reads sleeping 3 ms
 * of its 3.002 ms, fails to open (ENOENT, 7.5 us) while process 5152
 * reads (1.2 us), sleeps 1.2 s of 1.200003 s in nanosleep, closes
 * (800 ns) and calls exit_group (no exit record); 5152's write has an
 * OVERFLOW (events lost) between entry and exit: no duration.  Without
 * @sched, the same but the sched records and types.
 */
static int timing_log(const char *path, bool sched)
{
	static const trace_event_id_t ids[] = { 5, 16, 17, 20, 21 };
	static const char *const names[] = {
		"posix_trace_overflow", "posix_trace_syscall_entry", "posix_trace_syscall_exit",
		"posix_trace_sched_out", "posix_trace_sched_in",
	};
	struct kentry passwd = kentry(257, POSIX_TRACE_SYSCALL_PATH, "/etc/passwd", 11);
	struct kentry nonexist = kentry(257, POSIX_TRACE_SYSCALL_PATH, "/nonexistent", 12);
	struct kentry rd = kentry(0, 0, "", 0), nsl = kentry(35, 0, "", 0);
	struct kentry cl = kentry(3, 0, "", 0), wr = kentry(1, 0, "", 0);
	struct kentry eg = kentry(231, 0, "", 0);
	struct posix_trace_syscall_exit x_open = { .nr = 257, .ret = 3 };
	struct posix_trace_syscall_exit x_rd = { .nr = 0, .ret = 100 }, x_rd2 = { .nr = 0, .ret = 5 };
	struct posix_trace_syscall_exit x_enoent = { .nr = 257, .ret = (uint64_t)-2 };
	struct posix_trace_syscall_exit x_nsl = { .nr = 35 }, x_cl = { .nr = 3 };
	struct posix_trace_syscall_exit x_wr = { .nr = 1, .ret = 4 };
	struct posix_trace_sched_out nap = { .reason = POSIX_TRACE_SCHED_SLEEPING, .cpu = 2 };
	struct posix_trace_sched_out gone = { .reason = POSIX_TRACE_SCHED_EXITING, .cpu = 2 };
	struct posix_trace_sched_in in = { .cpu = 2 };
	const struct tev tl[TEVS] = {
		{ 5151, 16, 0, E(passwd) + 11 },
		{ 5151, 17, 5000, X(x_open) },
		{ 5151, 16, 10000, E(rd) },
		{ 5151, 20, 11000, X(nap) },
		{ 5151, 21, 3011000, X(in) },
		{ 5151, 17, 3012000, X(x_rd) },
		{ 5151, 16, 3020000, E(nonexist) + 12 },
		{ 5152, 16, 3021000, E(rd) },
		{ 5152, 17, 3022200, X(x_rd2) },
		{ 5151, 17, 3027500, X(x_enoent) },
		{ 5151, 16, 3030000, E(nsl) },
		{ 5151, 20, 3031000, X(nap) },
		{ 5151, 21, 1203031000, X(in) },
		{ 5151, 17, 1203033000, X(x_nsl) },
		{ 5151, 16, 1203040000, E(cl) },
		{ 5151, 17, 1203040800, X(x_cl) },
		{ 5152, 16, 1203041000, E(wr) },
		{ 0, 5, 1203042000, NULL, 0 },
		{ 5152, 17, 1203043000, X(x_wr) },
		{ 5151, 16, 1203050000, E(eg) },
		{ 5151, 20, 1203051000, X(gone) },
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED };
	struct lw_event ev[TEVS];
	unsigned int i, n = 0;
	struct lw_log w;

	for (i = 0; i < TEVS; i++) {
		if (!sched && (tl[i].id == 20 || tl[i].id == 21))
			continue;
		ev[n++] = (struct lw_event){ .id = tl[i].id, .pid = tl[i].pid, .tid = tl[i].pid,
					     .flags = tl[i].id == 5 ? POSIX_TRACE_REC_AUTO : 0,
					     .ts = 6000000000ull + tl[i].t,
					     .data = tl[i].data, .data_len = tl[i].len };
	}
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "timing", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, sched ? 5 : 3);
	lw_events_packed(&w, ev, n);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, path))
		return perror(path), 1;
	free(w.buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const trace_event_id_t ids[NAMES] = { 2, 257, 258, 259, 260, 261, 262, 263, 264 };
	static const char *const names[NAMES] = {
		"posix_trace_start", "q\"uote", "back\\slash", "new\nline", "com,ma",
		"ctl\x01\x7f", "bad\xff\xfe", "utf8 \xc3\xa9 \xe2\x82\xac", "sp ace",
	};
	struct posix_trace_status_info st = { .posix_stream_status = POSIX_TRACE_SUSPENDED,
					      .posix_log_overrun_status = POSIX_TRACE_OVERRUN };
	struct lw_event ev[NAMES + 1];
	struct lw_log w;
	unsigned int i;

	if (argc != 2 && argc != 3 && argc != 5)
		return 2;
	for (i = 0; i < NAMES; i++)
		ev[i] = (struct lw_event){ .id = ids[i], .pid = 7 + i, .tid = 7,
					   .ts = 5000000000ull + 1000 * i,
					   .thread = 0x7f0000001000ull + i,
					   .data = names[i],
					   .data_len = (uint32_t)strlen(names[i]) + 1 };
	ev[NAMES] = ev[1];
	ev[NAMES].flags = POSIX_TRACE_REC_TRUNCATED;
	ev[NAMES].ts += 999999999;
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "odd \"trace\"\n", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, NAMES);
	lw_events(&w, ev, NAMES + 1);
	lw_status(&w, &st);
	if (lw_save(&w, w.end, argv[1]))
		return perror(argv[1]), 1;
	free(w.buf);
	if (argc > 2 && kernel_log(argv[2]))
		return 1;
	if (argc > 3 && (timing_log(argv[3], true) || timing_log(argv[4], false)))
		return 1;
	return 0;
}
