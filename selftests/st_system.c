// SPDX-License-Identifier: GPL-2.0
/*
 * st_system.c - time, signals, threads, CPUs, credentials, ptrace and
 * child processes for the selftests (declared in st_system.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "st_system.h"

struct timespec st_ns_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / ST_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % ST_NSEC_PER_SEC),
	};
	return ts;
}

uint64_t st_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return st_ts_ns(&ts);
}

uint64_t st_realtime_ns(void)
{
	return st_now_ns(CLOCK_REALTIME);
}

void st_sleep_ms(unsigned int ms)
{
	struct timespec ts = st_ns_ts((uint64_t)ms * 1000000ULL);

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void st_noop_handler(int sig)
{
	(void)sig;
}

int st_catch(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = st_noop_handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

void st_watchdog(unsigned int secs)
{
	st_catch(SIGALRM, 0);
	alarm(secs);
}

pid_t st_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Scheduler state letter in the stat file @path ('?' if unknown). */
static char st_stat_state(const char *path)
{
	char buf[512], *p;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return '?';
	return p[2];
}

char st_task_state(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return st_stat_state(path);
}

char st_proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return st_stat_state(path);
}

bool st_wait_sleeping(pid_t tid, unsigned int timeout_ms)
{
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) +
		       (uint64_t)timeout_ms * 1000000ULL;

	do {
		if (st_task_state(tid) == 'S')
			return true;
		st_sleep_ms(1);
	} while (st_now_ns(CLOCK_MONOTONIC) < end);
	return false;
}

bool st_wait_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	return r == 1;
}

void st_efd_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		abort();
}

int st_pin_nth_cpu(int nth, int *cpu_out)
{
	cpu_set_t set, one;
	int cpu, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return errno;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (seen++ != nth)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return errno;
		if (cpu_out)
			*cpu_out = cpu;
		return 0;
	}
	return ENODEV;
}

int st_nr_allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

int st_set_creds(uid_t uid, gid_t gid, int dumpable)
{
	if (setgroups(0, NULL))
		return errno;
	if (setresgid(gid, gid, gid))
		return errno;
	if (setresuid(uid, uid, uid))
		return errno;
	/* An euid change makes the process non-dumpable; restore it. */
	if (prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0))
		return errno;
	return 0;
}

int st_split_uids(uid_t ruid, uid_t euid)
{
	if (setgroups(0, NULL))
		return errno;
	if (setresgid(ruid, ruid, ruid))
		return errno;
	if (setresuid(ruid, euid, euid))
		return errno;
	return 0;
}

int st_clear_effective(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		data[i].effective = 0;
	if (syscall(SYS_capset, &hdr, data))
		return errno;
	return 0;
}

int st_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int idx = CAP_TO_INDEX(cap);
	__u32 mask = CAP_TO_MASK(cap);

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return errno;
	data[idx].effective &= ~mask;
	data[idx].permitted &= ~mask;
	data[idx].inheritable &= ~mask;
	if (syscall(SYS_capset, &hdr, data))
		return errno;
	return 0;
}

int st_ptrace_probe(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) == -1)
		return errno;
	while (waitpid(pid, &status, __WALL) == -1 && errno == EINTR)
		;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

int st_wait_exit(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) != pid) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t st_unused_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

ssize_t st_read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int st_ptrace_scope(void)
{
	char buf[16];

	if (st_read_small_file("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

int st_set_ptrace_scope(int v)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d\n", v);
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, buf, len) != len)
		ret = errno;
	close(fd);
	return ret;
}

int st_setuid_copy(const char *src, const char *name, char *dir, char *bin,
		   size_t binlen, bool *mounted)
{
	char buf[65536];
	struct statvfs sv;
	int in, out, err = 0;
	ssize_t n;

	*mounted = false;
	bin[0] = 0;
	strcpy(dir, "/tmp/pt-suid-XXXXXX");
	if (!mkdtemp(dir) || statvfs(dir, &sv))
		return errno;
	if (sv.f_flag & ST_NOSUID) {
		if (mount("tmpfs", dir, "tmpfs", 0, "mode=0755"))
			return errno;
		*mounted = true;
	}
	if (chmod(dir, 0755))
		return errno;
	snprintf(bin, binlen, "%s/%s", dir, name);
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	out = open(bin, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			err = errno ? errno : EIO;
			break;
		}
	}
	if (!err && n < 0)
		err = errno;
	/* chmod after chown, which clears the bit */
	if (!err && (fchown(out, 0, 0) || fchmod(out, 04755)))
		err = errno;
	close(out);
	close(in);
	return err;
}

void st_setuid_copy_remove(const char *dir, const char *bin, bool mounted)
{
	if (bin[0])
		unlink(bin);
	if (mounted)
		umount2(dir, MNT_DETACH);
	if (dir[0])
		rmdir(dir);
}

bool st_cpu1_online(bool on)
{
	int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok;
}
