/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Data of the kernel events (<linux/posix_trace.h>, POSIX_TRACE_KCLASS_*):
 * what posix_trace_getnext_event() returns as an event's data, and what a
 * log keeps.  Analyzers include this header.  Every layout starts with
 * its fixed part; variable bytes (a path) follow it, their length in the
 * fixed part.  Fields only grow at the end: a reader takes
 * min(data length, sizeof) bytes and treats what is missing as zero.
 *
 * The traced thread is the record's pid/tid; its time is the record's
 * timestamp (CLOCK_MONOTONIC), taken when the kernel reached the point.
 * No field ever holds a kernel address or kernel memory: arguments and
 * return values are the registers the thread passed and got back, and
 * strings are copied from the thread's own memory.
 */
#ifndef _UAPI_LINUX_POSIX_TRACE_KERNEL_H
#define _UAPI_LINUX_POSIX_TRACE_KERNEL_H

#include <linux/types.h>

/* posix_trace_syscall_entry.flags */
#define POSIX_TRACE_SYSCALL_COMPAT	(1U << 0)	/* 32-bit system call */
#define POSIX_TRACE_SYSCALL_PATH	(1U << 1)	/* a path follows */
#define POSIX_TRACE_SYSCALL_PATH_TRUNC	(1U << 2)	/* ... cut short */
#define POSIX_TRACE_SYSCALL_PATH_FAULT	(1U << 3)	/* not resident: no path */
#define POSIX_TRACE_SYSCALL_PENDING	(1U << 4)	/* left the CPU, not returned */

/* The longest path an entry carries, without a NUL. */
#define POSIX_TRACE_SYSCALL_PATH_MAX	256

/**
 * struct posix_trace_syscall_entry - POSIX_TRACE_ID_SYSCALL_ENTRY
 * @nr:		system call number of the thread's ABI (x86-64's, or i386's
 *		with POSIX_TRACE_SYSCALL_COMPAT).
 * @flags:	POSIX_TRACE_SYSCALL_* bits.
 * @args:	the six argument registers, as passed.
 * @path_arg:	with POSIX_TRACE_SYSCALL_PATH or _PATH_FAULT: the index in
 *		@args of the path argument.
 * @path_len:	bytes of path after this structure (no NUL).  The copy
 *		never faults: a path on a page the thread has not touched
 *		yet (a string literal, often) is not copied here
 *		(POSIX_TRACE_SYSCALL_PATH_FAULT); the exit record has it.
 *
 * Recorded when the thread enters exit(), exit_group(), execve() or
 * execveat(), calls that do not return as others do; every other call
 * is recorded as struct posix_trace_syscall.
 */
struct posix_trace_syscall_entry {
	__u32 nr;
	__u32 flags;
	__u64 args[6];
	__u32 path_arg;
	__u32 path_len;
};

/**
 * struct posix_trace_syscall_exit - POSIX_TRACE_ID_SYSCALL_EXIT
 * @nr:		as in the entry.
 * @flags:	POSIX_TRACE_SYSCALL_* bits, as in the entry.
 * @ret:	the return register, as a signed 64-bit value in two's
 *		complement (-4095 .. -1: -errno).
 * @path_arg:	as in the entry.
 * @path_len:	as in the entry: the path again, copied at exit, when the
 *		kernel has read it, so it is resident now where it was not
 *		at entry.  None after an execve() that succeeded (the
 *		registers are the new image's; the exec record has the
 *		name).
 *
 * Recorded when a call that left the CPU returns (after a struct
 * posix_trace_syscall with POSIX_TRACE_SYSCALL_PENDING), when an
 * execve() or execveat() returns, and for a call the stream saw only
 * the end of.  The call's duration is this record's timestamp minus the
 * entry time of the same thread's record before it (@entry_ts of the
 * pending record, the timestamp of an entry record).  exit() and
 * exit_group() have no exit record, and execve() has one only if it
 * failed or its image may be recorded (see struct
 * posix_trace_process_exec).
 */
struct posix_trace_syscall_exit {
	__u32 nr;
	__u32 flags;
	__u64 ret;
	__u32 path_arg;
	__u32 path_len;
};

/**
 * struct posix_trace_syscall - POSIX_TRACE_ID_SYSCALL
 * @nr:		as in the entry.
 * @flags:	POSIX_TRACE_SYSCALL_* bits, as in the entry, and
 *		POSIX_TRACE_SYSCALL_PENDING when the call has not returned.
 * @elapsed:	ns from the thread's entry into the call to this record's
 *		timestamp: the call's duration, or with
 *		POSIX_TRACE_SYSCALL_PENDING the time it ran before it left
 *		the CPU.  The entry's time is the timestamp minus @elapsed,
 *		in whatever clock the reader gets timestamps in.
 * @ret:	as in the exit; 0 with POSIX_TRACE_SYSCALL_PENDING.
 * @args:	as in the entry: the six argument registers at entry.
 * @path_arg:	as in the exit.
 * @path_len:	bytes of path after this structure, copied at the exit as
 *		the exit record's; none with POSIX_TRACE_SYSCALL_PENDING.
 *
 * A call that returns without leaving its CPU (most calls: getppid(),
 * a read() the page cache serves) is this one record, stamped when the
 * call returned, with how long before it was entered in @elapsed: half the
 * records of an entry and an exit, and a third fewer instructions per
 * traced call.  A call that leaves the CPU before it returns (it blocks,
 * or is preempted) is this record with POSIX_TRACE_SYSCALL_PENDING,
 * stamped when it left, so that it is visible while it blocks, and then
 * an exit record (struct posix_trace_syscall_exit) when it returns.
 * exit(), exit_group(), execve() and execveat(), and 32-bit calls, keep
 * their entry record (struct posix_trace_syscall_entry), stamped at
 * entry.
 *
 * Records are stamped when they are written, so a lane stays in time
 * order: a record made during the call (a fault, a signal) comes before
 * this one, though the entry is earlier than its time.
 */
struct posix_trace_syscall {
	__u32 nr;
	__u32 flags;
	__u64 elapsed;
	__u64 ret;
	__u64 args[6];
	__u32 path_arg;
	__u32 path_len;
};

/* posix_trace_signal_generate.result: what became of the signal. */
#define POSIX_TRACE_SIGNAL_DELIVERED	0	/* queued, or pending */
#define POSIX_TRACE_SIGNAL_IGNORED	1	/* dropped: ignored */
#define POSIX_TRACE_SIGNAL_ALREADY_PENDING 2	/* merged with a pending one */
#define POSIX_TRACE_SIGNAL_OVERFLOW_FAIL 3	/* real-time queue full: not sent */
#define POSIX_TRACE_SIGNAL_LOSE_INFO	4	/* sent, its siginfo lost */

/* posix_trace_signal_generate.flags */
#define POSIX_TRACE_SIGNAL_GROUP	(1U << 0)	/* to the process, not a thread */

/**
 * struct posix_trace_signal_generate - POSIX_TRACE_ID_SIGNAL_GENERATE
 * @signo:	the signal number.
 * @code:	its si_code, a signed 32-bit value in two's complement
 *		(SI_USER 0, SI_TKILL -6, SI_KERNEL 0x80, CLD_EXITED 1, ...).
 * @sender_pid:	the process that sent it, in the stream's pid namespace,
 *		for a signal a process sent with kill(), tgkill() or
 *		sigqueue() (si_code SI_USER, SI_TKILL, SI_QUEUE); 0 for one
 *		the kernel sent (a fault, a child's exit, a timer, I/O) or a
 *		sender not visible there.
 * @result:	POSIX_TRACE_SIGNAL_* (what the kernel did with it).
 * @flags:	POSIX_TRACE_SIGNAL_GROUP: sent to the whole process.
 * @reserved:	zero.
 *
 * Recorded for the traced thread the signal is sent to (the record's
 * pid/tid), whoever sent it, when the kernel has decided what to do with
 * it; the record's timestamp is that moment.
 */
struct posix_trace_signal_generate {
	__u32 signo;
	__u32 code;
	__u32 sender_pid;
	__u32 result;
	__u32 flags;
	__u32 reserved;
};

/* posix_trace_signal_deliver.action: what the thread does with it. */
#define POSIX_TRACE_SIGNAL_HANDLER	0	/* runs its handler */
#define POSIX_TRACE_SIGNAL_IGNORE	1	/* SIG_IGN, or ignored by default */
#define POSIX_TRACE_SIGNAL_DEFAULT	2	/* default: stop, core or terminate */

/**
 * struct posix_trace_signal_deliver - POSIX_TRACE_ID_SIGNAL_DELIVER
 * @signo:	the signal number.
 * @code:	its si_code, as in the generate record.
 * @sender_pid:	for si_code SI_USER, SI_TKILL and SI_QUEUE, the si_pid
 *		the thread receives in its siginfo_t (the sender as the
 *		kernel names it to the thread, which sigqueue()'s caller
 *		may have chosen); else 0.
 * @action:	POSIX_TRACE_SIGNAL_HANDLER, _IGNORE or _DEFAULT.
 * @handler:	with POSIX_TRACE_SIGNAL_HANDLER: the address of the handler
 *		in the thread's own memory (sa_handler or sa_sigaction);
 *		else 0.
 * @sa_flags:	the action's sa_flags (SA_SIGINFO, SA_RESTART, ...).
 * @reserved:	zero.
 *
 * Recorded by the traced thread when it takes the signal off its pending
 * set, on its way back to user space, before the handler runs.  When its
 * process dies (of a signal whose action is to terminate, or because
 * another thread called exit_group() or execve()), each thread records
 * the signal the process dies of (SIGKILL when it does not die of one),
 * @code SI_KERNEL, action POSIX_TRACE_SIGNAL_DEFAULT, @sender_pid 0.
 */
struct posix_trace_signal_deliver {
	__u32 signo;
	__u32 code;
	__u32 sender_pid;
	__u32 action;
	__u64 handler;
	__u32 sa_flags;
	__u32 reserved;
};

/* posix_trace_sched_out.reason: why the thread left its CPU. */
#define POSIX_TRACE_SCHED_PREEMPTED	0	/* still runnable: preempted, or yielded */
#define POSIX_TRACE_SCHED_SLEEPING	1	/* an interruptible wait (a signal ends it) */
#define POSIX_TRACE_SCHED_BLOCKED	2	/* an uninterruptible wait (I/O, a lock) */
#define POSIX_TRACE_SCHED_STOPPED	3	/* stopped (SIGSTOP...) or ptrace-stopped */
#define POSIX_TRACE_SCHED_EXITING	4	/* its last switch: the thread exited */

/**
 * struct posix_trace_sched_out - POSIX_TRACE_ID_SCHED_OUT
 * @reason:	POSIX_TRACE_SCHED_* (from the thread's state as it left).
 * @cpu:	the CPU it left.
 *
 * Recorded when the traced thread leaves its CPU; the time until its
 * next POSIX_TRACE_ID_SCHED_IN is time it did not run (off CPU): waiting
 * for a CPU when PREEMPTED, waiting for something else otherwise.
 */
struct posix_trace_sched_out {
	__u32 reason;
	__u32 cpu;
};

/**
 * struct posix_trace_sched_in - POSIX_TRACE_ID_SCHED_IN
 * @cpu:	the CPU it runs on now.
 * @reserved:	zero.
 *
 * Recorded when the traced thread gets a CPU again.
 */
struct posix_trace_sched_in {
	__u32 cpu;
	__u32 reserved;
};

/* posix_trace_sched_wakeup.flags */
#define POSIX_TRACE_SCHED_WAKER_IRQ	(1U << 0)	/* woken from an interrupt */
#define POSIX_TRACE_SCHED_WAKER_OTHER	(1U << 1)	/* by a process not traced here */

/**
 * struct posix_trace_sched_wakeup - POSIX_TRACE_ID_SCHED_WAKEUP
 * @waker_pid:	the process whose thread woke it, in the stream's pid
 *		namespace, when it is the same process or one this stream
 *		traces too; else 0: from an interrupt, a kernel thread,
 *		or a process the stream does not trace (whose activity is
 *		not the controller's to see: POSIX_TRACE_SCHED_WAKER_OTHER).
 * @waker_tid:	that thread, as @waker_pid.
 * @flags:	POSIX_TRACE_SCHED_WAKER_IRQ, POSIX_TRACE_SCHED_WAKER_OTHER.
 * @reserved:	zero.
 *
 * Recorded for the traced thread (the record's pid/tid) when another
 * thread, or an interrupt, makes it runnable after a wait; the time from
 * here to its POSIX_TRACE_ID_SCHED_IN is the time it waited for a CPU.
 */
struct posix_trace_sched_wakeup {
	__u32 waker_pid;
	__u32 waker_tid;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct posix_trace_process_fork - POSIX_TRACE_ID_PROCESS_FORK
 * @child_pid:	the new process's id, or for a new thread its process's,
 *		in the stream's pid namespace (0 if not visible there).
 * @child_tid:	the new thread's id, as @child_pid.
 * @flags:	POSIX_TRACE_FORK_THREAD: a thread, not a process.
 * @reserved:	zero.
 *
 * Recorded by the parent, in the parent's process.
 */
#define POSIX_TRACE_FORK_THREAD		(1U << 0)
struct posix_trace_process_fork {
	__u32 child_pid;
	__u32 child_tid;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct posix_trace_process_exec - POSIX_TRACE_ID_PROCESS_EXEC
 * @old_tid:	the thread id that called exec; 0 when a thread other
 *		than the leader did (it became the leader, and its old id
 *		was freed before the new image was in place).
 * @name_len:	bytes of file name after this structure (no NUL), as the
 *		caller named the file, at most POSIX_TRACE_SYSCALL_PATH_MAX.
 *
 * Recorded when the new image is in place, before it runs.  An exec that
 * raises privileges (set-user-ID, file capabilities, ...) records
 * nothing of the process until the controllers that lost the right to
 * trace it are detached; those that keep it then get this record, still
 * before the new image runs (@name from its AT_EXECFN, the same string),
 * but no exit record of that execve().
 */
struct posix_trace_process_exec {
	__u32 old_tid;
	__u32 name_len;
};

/**
 * struct posix_trace_process_exit - POSIX_TRACE_ID_PROCESS_EXIT
 * @status:	the wait status the parent will see (as waitpid()'s).
 * @reserved:	zero.
 *
 * Recorded once, by the last thread of the process to exit.
 */
struct posix_trace_process_exit {
	__u32 status;
	__u32 reserved;
};

/* posix_trace_fault.flags */
#define POSIX_TRACE_FAULT_USER		(1U << 0)	/* taken in user mode: @ip is set */

/**
 * struct posix_trace_fault - POSIX_TRACE_ID_FAULT_MAJOR, _FAULT_MINOR
 * @address:	the user address whose page the thread faulted on (as the
 *		hardware reported it, not rounded to the page).
 * @ip:		with POSIX_TRACE_FAULT_USER, the address of the thread's
 *		instruction that faulted; 0 for a fault the kernel took on
 *		the thread's memory inside a system call (read() into a
 *		buffer not yet touched, say), whose instruction is the
 *		kernel's.
 * @flags:	POSIX_TRACE_FAULT_USER.
 * @reserved:	zero.
 *
 * Recorded by the traced thread when the kernel has resolved a fault on
 * its memory, with the record's id telling how: _FAULT_MAJOR when the
 * page had to be read in (or another thread was reading it, and the
 * fault waited), _FAULT_MINOR when it was in memory already (a first
 * touch of anonymous memory, a page-cache hit, copy-on-write).  The
 * record's timestamp is the end of the fault; its duration is not
 * measured (a major fault shows as a SCHED off-CPU interval, when that
 * class is recorded too).  A fault the kernel could not resolve (SIGSEGV,
 * SIGBUS) is not recorded here; the SIGNAL class has its signal.
 * getrusage()'s ru_majflt and ru_minflt count these faults and also those
 * the kernel takes through get_user_pages() (direct I/O, a futex,
 * /proc/PID/mem), which are not recorded.
 */
struct posix_trace_fault {
	__u64 address;
	__u64 ip;
	__u32 flags;
	__u32 reserved;
};

#endif /* _UAPI_LINUX_POSIX_TRACE_KERNEL_H */
