/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The data of kernel events (posix_trace_attr_setkernelclasses_np(3),
 * <linux/posix_trace_kernel.h>) for posix-trace report: decoded from a
 * log's bytes, which may be anyone's, and written as text or JSON.  As
 * the header says, a layout is read from the first min(length, size)
 * bytes, what is missing is zero, and a string is what follows the fixed
 * part, no more than the data holds.
 */
#ifndef PT_KDATA_H
#define PT_KDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <trace.h>
#include <linux/posix_trace_kernel.h>

struct kd_event {
	trace_event_id_t id;		/* POSIX_TRACE_SYSCALL_ENTRY_NP... */
	union {
		struct posix_trace_syscall_entry entry;
		struct posix_trace_syscall_exit exit;
		struct posix_trace_syscall call;
		struct posix_trace_signal_generate gen;
		struct posix_trace_signal_deliver deliver;
		struct posix_trace_sched_out out;
		struct posix_trace_sched_in in;
		struct posix_trace_sched_wakeup wakeup;
		struct posix_trace_process_fork fork;
		struct posix_trace_process_exec exec;
		struct posix_trace_process_exit pexit;
		struct posix_trace_fault fault;
	} u;
	const char *str;		/* an entry's or exit's path, the exec's file */
	size_t str_len;			/* bytes of it in the data */
	bool str_short;			/* the data holds less than it says */
};

/* Whether @id is a kernel event type; if so, *@k is its data decoded
 * (@k->str points into @data). */
bool kd_decode(trace_event_id_t id, const unsigned char *data, size_t len,
	       struct kd_event *k);

/*
 * The entry and the exit a call recorded in one (POSIX_TRACE_SYSCALL_NP)
 * stands for, as if recorded apart: *@entry (with the path the exit
 * copied, if any) and, unless the call is pending (it left the CPU and its exit is
 * another record), *@exit.  Returns whether *@exit was set.  Their
 * strings are @k's.
 */
bool kd_call_split(const struct kd_event *k, struct kd_event *entry,
		   struct kd_event *exit);

/* The name of system call @nr of an entry or exit with @flags: NULL for
 * a 32-bit call (the table is x86-64's) or a number without a name. */
const char *kd_syscall_name(uint32_t nr, uint32_t flags);
/* "ENOENT" for -2 as a return register; NULL if no -errno or unknown. */
const char *kd_errno_name(uint64_t ret);
/* "sleeping" for a posix_trace_sched_out.reason; NULL for a value that
 * has no name. */
const char *kd_sched_reason(uint32_t reason);

/*
 * One line's worth, without a newline.  A system call as strace shows
 * it, its arguments decoded where the call is described (syscalls.h,
 * sysflags.h), the six registers in hexadecimal where it is not:
 *   syscall entry  openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC)
 *                  mmap(NULL, 8192, PROT_READ|PROT_WRITE,
 *                  MAP_PRIVATE|MAP_ANONYMOUS, -1, 0); "/very/long"... for a
 *                  path cut short; the address for a path the kernel
 *                  could not copy; syscall_999(...) without a name,
 *                  syscall32_5(...) for a 32-bit call (not decoded)
 *   syscall exit   the call again, with the arguments of @entry (the
 *                  entry of the call, or NULL: "?" for each), the path
 *                  the exit copied or else the entry's, and " = 3",
 *                  " = -2 (ENOENT)", " = 0x7f1234567000"
 *   syscall        a call in one record: as its exit, with its own
 *                  arguments; a pending one as its entry, then
 *                  " <unfinished ...>"
 *   signal generate
 *                  sig=10 (SIGUSR1) code=0 (SI_USER) from=1234
 *                  result=delivered [group]
 *   signal deliver sig=10 (SIGUSR1) code=-6 (SI_TKILL) from=1234
 *                  action=handler handler=0x401136 sa_flags=0x4000000
 *   sched out      reason=sleeping cpu=1 (reason=7 for a value without a name)
 *   sched in       cpu=0
 *   sched wakeup   by=1234/1235 (waker pid/tid), by=irq, by=kernel (pid 0)
 *   fault          addr=0x7f10a2c3d000 ip=0x55d0c0de1234 (user), or
 *                  addr=0x7f10a2c3d000 (in syscall): the kernel's fault on
 *                  the thread's memory inside a system call
 *   fork           child=4243, child=4242 tid=4250 (thread)
 *   exec           file="/bin/ls" old_tid=4242
 *   exit           status=0x100 (exited 1)
 * Strings are escaped as tf_quoted() does.  @entry is ignored unless it
 * is an entry of the same call (number and ABI) as the exit @k (that
 * of a pending call as kd_call_split() gives it).
 */
void kd_text(FILE *f, const struct kd_event *k, const struct kd_event *entry);

/* The same as a JSON object (strings through json_str()), e.g.
 * {"event":"syscall_exit","nr":257,"syscall":"openat","compat":false,
 *  "ret":-2,"errno":"ENOENT","path_arg":1,"path":"/etc/x",
 *  "path_truncated":false,"path_fault":false}; a name beside each number
 * it has one for, null when it has none:
 * {"event":"signal_deliver","signo":10,"signal_name":"SIGUSR1","code":-6,
 *  "code_name":"SI_TKILL","sender_pid":1234,"action":0,
 *  "action_name":"handler","handler":"0x401136","sa_flags":67108864},
 * {"event":"sched_out","reason":1,"reason_name":"sleeping","cpu":1},
 * {"event":"sched_in","cpu":0},
 * {"event":"sched_wakeup","waker_pid":1234,"waker_tid":1235,"irq":false},
 * {"event":"fault_major","address":"0x7f10a2c3d000","ip":"0x55d0c0de1234",
 *  "user":true}.  An entry's "args" (hexadecimal strings) have
 * "args_decoded" beside them: for each, what text shows when that is a
 * name ("AT_FDCWD", "O_RDONLY|O_CLOEXEC", "0644"), else null.  The object
 * is the record's data alone: an exit has no arguments.  A call in one
 * record is {"event":"syscall", the entry's keys, "elapsed_ns" (from the
 * entry to the record's time), "pending", "ret" and "errno" (null when
 * pending), the path keys}. */
void kd_json(FILE *f, const struct kd_event *k);

#endif
