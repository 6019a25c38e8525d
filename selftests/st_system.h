/* SPDX-License-Identifier: GPL-2.0 */
/*
 * st_system.h - the selftests' helpers around the system rather than the
 * trace interface: time, signals, threads and their scheduler state,
 * CPUs, credentials and capabilities, ptrace and Yama, child processes.
 * Defined in st_system.c.
 */
#ifndef ST_SYSTEM_H
#define ST_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#define ST_NSEC_PER_SEC		1000000000ULL

/* Time */

static inline uint64_t st_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * ST_NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

struct timespec st_ns_ts(uint64_t ns);
uint64_t st_now_ns(clockid_t clk);
uint64_t st_realtime_ns(void);
/* Sleeps the whole @ms even if signals interrupt it. */
void st_sleep_ms(unsigned int ms);

/* Signals, threads, CPUs */

/* Install a do-nothing handler for @sig; @flags e.g. 0 or SA_RESTART. */
int st_catch(int sig, int flags);

/*
 * Watchdog: deliver a caught SIGALRM to the process after @secs seconds so
 * that a call that should not block returns EINTR instead of hanging the
 * test until the harness timeout.  0 disarms.
 */
void st_watchdog(unsigned int secs);

pid_t st_gettid(void);

/* Scheduler state letter of thread @tid of this process ('?' if unknown). */
char st_task_state(pid_t tid);

/* Scheduler state letter of process @pid ('?' if unknown). */
char st_proc_state(pid_t pid);

/* Wait (polling) until thread @tid sleeps interruptibly; false on timeout. */
bool st_wait_sleeping(pid_t tid, unsigned int timeout_ms);

/* Wait until @fd (an eventfd, a pipe) becomes readable; true if it did. */
bool st_wait_fd(int fd, int timeout_ms);

/* Add 1 to eventfd @efd; aborts if it cannot. */
void st_efd_signal(int efd);

/* Pin the calling thread to the @nth CPU of its allowed set (0-based). */
int st_pin_nth_cpu(int nth, int *cpu_out);

int st_nr_allowed_cpus(void);

/* Credentials, capabilities, ptrace (each returns 0 or an errno) */

/* Every id @uid and @gid, no supplementary groups, dumpable @dumpable. */
int st_set_creds(uid_t uid, gid_t gid, int dumpable);

/*
 * A set-user-ID root copy of the file @src, named @name, in a fresh
 * directory under /tmp that honours the bit (a tmpfs is mounted on it if
 * /tmp is nosuid).  @dir (at least 32 bytes) and @bin (@binlen) get the
 * paths, *@mounted whether a tmpfs was mounted; the caller removes them
 * (st_setuid_copy_remove()).  Needs root.  0 or an errno.
 */
int st_setuid_copy(const char *src, const char *name, char *dir, char *bin,
		   size_t binlen, bool *mounted);
void st_setuid_copy_remove(const char *dir, const char *bin, bool mounted);

/* Real uid and all gids @ruid, effective/saved/fs uid @euid (from root). */
int st_split_uids(uid_t ruid, uid_t euid);

/* Empty the effective capability set; the permitted one stays. */
int st_clear_effective(void);

/* Remove capability @cap from the effective, permitted, inheritable sets. */
int st_drop_cap(int cap);

/*
 * PTRACE_ATTACH to @pid, wait for the attach stop, detach.  Returns 0 when
 * the attach was permitted, else the errno of PTRACE_ATTACH.
 */
int st_ptrace_probe(pid_t pid);

/* Yama's kernel.yama.ptrace_scope, or -1 when Yama is not active. */
int st_ptrace_scope(void);

/* Root only. */
int st_set_ptrace_scope(int v);

/* Processes and small files */

/* Exit status of child @pid once reaped: its exit code, 128 + signal, or
 * -1 if it could not be reaped. */
int st_wait_exit(pid_t pid);

/*
 * A pid that names no process: fork a child that exits at once and reap
 * it.  The pid is not reused before pid_max wraps around.
 */
pid_t st_unused_pid(void);

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated: the
 * length, or -1 if nothing could be read.
 */
ssize_t st_read_small_file(const char *path, char *buf, size_t size);

/* As root: take CPU 1 offline (@on false) or online; false if it cannot
 * be (no CPU 1, not root, or the kernel refuses). */
bool st_cpu1_online(bool on);

#endif /* ST_SYSTEM_H */
