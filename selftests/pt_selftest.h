/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt_selftest.h - helpers shared by the posix-trace selftests.
 *
 * Every test binary includes this header first.  It pulls in <trace.h> and
 * the kernel's kselftest_harness.h (extracted by the Makefile into
 * build/harness/) and provides:
 *
 *  - ST_REQUIRE_MODULE()/ST_REQUIRE_ROOT(): skip a test when
 *    /dev/posix_trace is absent or when it needs root;
 *  - small wrappers to build attributes, create streams and read events;
 *  - "agents": forked helper processes driven over a SOCK_SEQPACKET socket,
 *    used as traced processes, as second controllers and as tracers with
 *    other credentials;
 *  - thread/timing helpers (waiting until a thread sleeps in the kernel,
 *    CPU pinning, a SIGALRM watchdog that turns a hang into EINTR).
 *
 * Requirement ids in "REQ:" comments refer to shared/spec/POSIX-TRACE.md.
 */
#ifndef PT_SELFTEST_H
#define PT_SELFTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/posix_trace.h>

#include <trace.h>

/*
 * The unmodified 6.1 harness does not build with -Wextra -Werror
 * (unused parameters in its own functions): silence that inside it only.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define ST_DEVICE		"/dev/posix_trace"
#define ST_SMALL_STREAM		4096
/* Room for the largest system event, FILTER: two trace_event_set_t. */
#define ST_EV_DATA_MAX		512
#define ST_NSEC_PER_SEC		1000000000ULL
/* Slack allowed when comparing event timestamps with clock_gettime(). */
#define ST_TS_SLACK_NS		(5 * 1000 * 1000ULL)
#define ST_AGENT_TIMEOUT_MS	10000

/* ------------------------------------------------------------------ */
/* Skipping                                                            */
/* ------------------------------------------------------------------ */

static inline bool st_module_loaded(void)
{
	return access(ST_DEVICE, F_OK) == 0;
}

/*
 * The 6.1 kselftest_harness.h runs the test body even when FIXTURE_SETUP
 * called SKIP(return, ...) (it only checks ->passed, which SKIP sets).
 * Leave through the harness's jump buffer instead: the wrapper then skips
 * both the body and (when called from setup) the teardown, and the test is
 * reported as skipped.  Works from FIXTURE_SETUP and from TEST_F bodies.
 */
#define ST_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

/* Used by every FIXTURE_SETUP: skip when the module is not loaded. */
#define ST_REQUIRE_MODULE() do {					\
	if (!st_module_loaded())					\
		ST_SKIP("%s absent: posix_trace module not loaded",	\
			ST_DEVICE);					\
} while (0)

#define ST_REQUIRE_ROOT() do {						\
	if (geteuid() != 0)						\
		ST_SKIP("needs root (euid %d)", (int)geteuid());	\
} while (0)

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

static inline uint64_t st_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * ST_NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec st_ns_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / ST_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % ST_NSEC_PER_SEC),
	};
	return ts;
}

static inline uint64_t st_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return st_ts_ns(&ts);
}

static inline uint64_t st_realtime_ns(void)
{
	return st_now_ns(CLOCK_REALTIME);
}

static inline void st_sleep_ms(unsigned int ms)
{
	struct timespec ts = st_ns_ts((uint64_t)ms * 1000000ULL);

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* Attributes and streams                                              */
/* ------------------------------------------------------------------ */

/* Initialise @a; 0 arguments keep the defaults.  Returns 0 or an error. */
static inline int st_attr_make(trace_attr_t *a, size_t streamsize, int policy,
			       size_t maxdata)
{
	int ret = posix_trace_attr_init(a);

	if (ret)
		return ret;
	if (streamsize) {
		ret = posix_trace_attr_setstreamsize(a, streamsize);
		if (ret)
			return ret;
	}
	if (policy) {
		ret = posix_trace_attr_setstreamfullpolicy(a, policy);
		if (ret)
			return ret;
	}
	if (maxdata) {
		ret = posix_trace_attr_setmaxdatasize(a, maxdata);
		if (ret)
			return ret;
	}
	return 0;
}

static inline int st_create(pid_t pid, size_t streamsize, int policy,
			    size_t maxdata, trace_id_t *trid)
{
	trace_attr_t a;
	int ret = st_attr_make(&a, streamsize, policy, maxdata);

	if (ret)
		return ret;
	ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* Effective sizes of a stream, from posix_trace_get_attr(). */
struct st_sizes {
	size_t stream;		/* stream-min-size */
	size_t maxdata;		/* max-data-size */
	size_t sysev;		/* getmaxsystemeventsize */
	size_t userev;		/* getmaxusereventsize(data_len) */
};

static inline int st_stream_sizes(trace_id_t trid, size_t data_len,
				  struct st_sizes *s)
{
	trace_attr_t a;
	int ret;

	ret = posix_trace_attr_init(&a);
	if (ret)
		return ret;
	ret = posix_trace_get_attr(trid, &a);
	if (!ret)
		ret = posix_trace_attr_getstreamsize(&a, &s->stream);
	if (!ret)
		ret = posix_trace_attr_getmaxdatasize(&a, &s->maxdata);
	if (!ret)
		ret = posix_trace_attr_getmaxsystemeventsize(&a, &s->sysev);
	if (!ret)
		ret = posix_trace_attr_getmaxusereventsize(&a, data_len,
							    &s->userev);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Reading events                                                      */
/* ------------------------------------------------------------------ */

struct st_ev {
	struct posix_trace_event_info info;
	size_t len;
	int unavailable;
	unsigned char data[ST_EV_DATA_MAX];
};

static inline int st_try(trace_id_t trid, struct st_ev *ev)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_trygetnext_event(trid, &ev->info, ev->data,
					    sizeof(ev->data), &ev->len,
					    &ev->unavailable);
}

static inline int st_get(trace_id_t trid, struct st_ev *ev)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_getnext_event(trid, &ev->info, ev->data,
					 sizeof(ev->data), &ev->len,
					 &ev->unavailable);
}

static inline int st_timed(trace_id_t trid, struct st_ev *ev,
			   const struct timespec *abstime)
{
	ev->unavailable = -1;
	ev->len = (size_t)-1;
	return posix_trace_timedgetnext_event(trid, &ev->info, ev->data,
					      sizeof(ev->data), &ev->len,
					      &ev->unavailable, abstime);
}

/* timedgetnext with a deadline @ms milliseconds from now. */
static inline int st_timed_ms(trace_id_t trid, struct st_ev *ev,
			      unsigned int ms)
{
	struct timespec abs = st_ns_ts(st_realtime_ns() +
				       (uint64_t)ms * 1000000ULL);

	return st_timed(trid, ev, &abs);
}

/*
 * Read every immediately available event with trygetnext into @evs (at most
 * @max).  Returns 0 or the first error; *n is the number read.  Reading stops
 * at @max even if more are available.
 */
static inline int st_drain(trace_id_t trid, struct st_ev *evs, int max, int *n)
{
	int ret;

	*n = 0;
	while (*n < max) {
		ret = st_try(trid, &evs[*n]);
		if (ret)
			return ret;
		if (evs[*n].unavailable)
			return 0;
		(*n)++;
	}
	return 0;
}

/* Number of events available now (consumes them). */
static inline int st_count_available(trace_id_t trid, int *count)
{
	struct st_ev ev;
	int ret;

	*count = 0;
	for (;;) {
		ret = st_try(trid, &ev);
		if (ret)
			return ret;
		if (ev.unavailable)
			return 0;
		(*count)++;
	}
}

static inline bool st_is(const struct st_ev *ev, trace_event_id_t id)
{
	return ev->info.posix_event_id == id;
}

static inline const char *st_id_str(trace_event_id_t id)
{
	static __thread char buf[32];

	switch (id) {
	case POSIX_TRACE_ERROR: return "ERROR";
	case POSIX_TRACE_START: return "START";
	case POSIX_TRACE_STOP: return "STOP";
	case POSIX_TRACE_FILTER: return "FILTER";
	case POSIX_TRACE_OVERFLOW: return "OVERFLOW";
	case POSIX_TRACE_RESUME: return "RESUME";
	case POSIX_TRACE_FLUSH_START: return "FLUSH_START";
	case POSIX_TRACE_FLUSH_STOP: return "FLUSH_STOP";
	case POSIX_TRACE_UNNAMED_USEREVENT: return "UNNAMED_USEREVENT";
	}
	snprintf(buf, sizeof(buf), "id %u", id);
	return buf;
}

/* Value of the `int auto` data of a STOP event, or INT_MIN if malformed. */
static inline int st_stop_auto(const struct st_ev *ev)
{
	int v;

	if (ev->len != sizeof(int))
		return INT_MIN;
	memcpy(&v, ev->data, sizeof(v));
	return v;
}

/* Start @trid and consume the START event it records.  0 or an error. */
static inline int st_start_and_skip(trace_id_t trid)
{
	struct st_ev ev;
	int ret = posix_trace_start(trid);

	if (ret)
		return ret;
	ret = st_try(trid, &ev);
	if (ret)
		return ret;
	if (ev.unavailable || !st_is(&ev, POSIX_TRACE_START))
		return -1;
	return 0;
}

/* A stream on @pid with inheritance @inherit, not started. */
static inline int st_create_inherit(pid_t pid, int inherit, trace_id_t *trid)
{
	trace_attr_t a;
	int ret = st_attr_make(&a, 1 << 20, 0, 0);

	if (!ret)
		ret = posix_trace_attr_setinherited(&a, inherit);
	if (!ret)
		ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* A stream on the caller with inheritance @inherit, started, its START
 * consumed.  0 or an error. */
static inline int st_create_self_started(int inherit, trace_id_t *trid)
{
	int ret = st_create_inherit(0, inherit, trid);

	return ret ? ret : st_start_and_skip(*trid);
}

/* Every event of a stream until none is left: pid, id, first data byte
 * and, for POSIX_TRACE_ERROR, the error number it carries. */
#define ST_SEEN_MAX	256

struct st_seen {
	pid_t pid[ST_SEEN_MAX];
	trace_event_id_t id[ST_SEEN_MAX];
	pthread_t thread[ST_SEEN_MAX];
	char tag[ST_SEEN_MAX];
	int err[ST_SEEN_MAX];
	int n;
};

static inline int st_seen_drain(trace_id_t trid, struct st_seen *s)
{
	struct st_ev ev;
	int ret;

	s->n = 0;
	for (;;) {
		ret = st_try(trid, &ev);
		if (ret || ev.unavailable)
			return ret;
		if (s->n == ST_SEEN_MAX)
			return E2BIG;
		s->pid[s->n] = ev.info.posix_pid;
		s->id[s->n] = ev.info.posix_event_id;
		s->thread[s->n] = ev.info.posix_thread_id;
		s->tag[s->n] = ev.len ? (char)ev.data[0] : 0;
		s->err[s->n] = 0;
		if (ev.info.posix_event_id == POSIX_TRACE_ERROR && ev.len >= sizeof(int))
			memcpy(&s->err[s->n], ev.data, sizeof(int));
		s->n++;
	}
}

/* Events of @pid with id @id (0: any) and first data byte @tag (0: any). */
static inline int st_seen_count(const struct st_seen *s, pid_t pid,
				trace_event_id_t id, char tag)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->pid[i] == pid && (!id || s->id[i] == id) &&
		     (!tag || s->tag[i] == tag);
	return n;
}

/* ------------------------------------------------------------------ */
/* Threads, signals, CPUs                                              */
/* ------------------------------------------------------------------ */

static inline void st_noop_handler(int sig)
{
	(void)sig;
}

/* Install a do-nothing handler for @sig; @flags e.g. 0 or SA_RESTART. */
static inline int st_catch(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = st_noop_handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/*
 * Watchdog: deliver a caught SIGALRM to the process after @secs seconds so
 * that a call that should not block returns EINTR instead of hanging the
 * test until the harness timeout.  0 disarms.
 */
static inline void st_watchdog(unsigned int secs)
{
	st_catch(SIGALRM, 0);
	alarm(secs);
}

static inline pid_t st_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Scheduler state letter in the stat file @path ('?' if unknown). */
static inline char st_stat_state(const char *path)
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

/* Scheduler state letter of thread @tid of this process ('?' if unknown). */
static inline char st_task_state(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return st_stat_state(path);
}

/* Scheduler state letter of process @pid ('?' if unknown). */
static inline char st_proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return st_stat_state(path);
}

/* Wait (polling) until thread @tid sleeps interruptibly; false on timeout. */
static inline bool st_wait_sleeping(pid_t tid, unsigned int timeout_ms)
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

/* Wait until eventfd @efd becomes readable; true if it did. */
static inline bool st_wait_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	return r == 1;
}

static inline void st_efd_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		abort();
}

/* Pin the calling thread to the @nth CPU of its allowed set (0-based). */
static inline int st_pin_nth_cpu(int nth, int *cpu_out)
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

static inline int st_nr_allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

/* ------------------------------------------------------------------ */
/* Credentials and ptrace                                              */
/* ------------------------------------------------------------------ */

static inline int st_set_creds(uid_t uid, gid_t gid, int dumpable)
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

/* Real uid and all gids @ruid, effective/saved/fs uid @euid (from root). */
static inline int st_split_uids(uid_t ruid, uid_t euid)
{
	if (setgroups(0, NULL))
		return errno;
	if (setresgid(ruid, ruid, ruid))
		return errno;
	if (setresuid(ruid, euid, euid))
		return errno;
	return 0;
}

/* Empty the effective capability set; the permitted one stays. */
static inline int st_clear_effective(void)
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

/* Remove capability @cap from the effective, permitted, inheritable sets. */
static inline int st_drop_cap(int cap)
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

/*
 * PTRACE_ATTACH to @pid, wait for the attach stop, detach.  Returns 0 when
 * the attach was permitted, else the errno of PTRACE_ATTACH.
 */
static inline int st_ptrace_probe(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_ATTACH, pid, 0, 0) == -1)
		return errno;
	while (waitpid(pid, &status, __WALL) == -1 && errno == EINTR)
		;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}

/* Create + shutdown a small stream on @pid: 0 or the create error. */
static inline int st_create_probe(pid_t pid)
{
	trace_id_t trid;
	int ret = st_create(pid, ST_SMALL_STREAM, 0, 0, &trid);

	if (!ret)
		posix_trace_shutdown(trid);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Agents: forked helper processes driven over a socket                */
/* ------------------------------------------------------------------ */

enum st_agent_op {
	STA_EXIT = 1,
	STA_GETPID,		/* v[0] = pid, l = pthread_self() */
	STA_SETCREDS,		/* a = uid, b = gid, c = dumpable */
	STA_DUMPABLE,		/* a = value */
	STA_SET_PTRACER,	/* l = tracer pid or PR_SET_PTRACER_ANY */
	STA_DROP_CAP,		/* a = capability */
	STA_CREATE_PROBE,	/* a = pid: create + shutdown */
	STA_PTRACE_PROBE,	/* a = pid: attach + detach */
	STA_SPAWN,		/* a = socket fd: fork a sub-agent; v[0] = pid */
	STA_EVENTID_OPEN,	/* s = name; v[0] = id */
	STA_EVENT,		/* a = id, b = data length (data in s) */
	STA_CREATE,		/* a = pid, b = stream size; v[0] = trid */
	STA_START,		/* a = trid */
	STA_STOP,		/* a = trid */
	STA_SHUTDOWN,		/* a = trid */
	STA_DRAIN,		/* a = trid, b = id, c = pid; v[0] = matches,
				 * v[1] = all events, v[2] = data mismatches */
	STA_EVENT_BURST,	/* a = id, b = count: data = uint32 0..count-1 */
	STA_SPLIT_UIDS,		/* a = real uid and every gid, b = effective,
				 * saved and fs uid */
	STA_CLEAR_EFFECTIVE,	/* no effective capability, permitted kept */
	STA_SPAWN_VM,		/* as STA_SPAWN, sharing the agent's memory
				 * (clone(CLONE_VM) without CLONE_THREAD) */
	STA_CREATE_LOOP,	/* a = pid, b = tries of STA_CREATE_PROBE;
				 * v[0] = successes, v[1] = EPERM, v[2] = other */
};

struct st_msg {
	int op;
	int a, b, c;
	long l;
	char s[TRACE_EVENT_NAME_MAX + 1];
};

struct st_reply {
	int ret;
	int v[3];
	long l;
};

struct st_agent {
	pid_t pid;
	int fd;
};

/*
 * STA_DRAIN checks each matching event's data against the agent-side
 * pattern: the data is the decimal string "ev<n>" where n counts from 0.
 */
static inline void st_agent_drain(const struct st_msg *m, struct st_reply *r)
{
	struct st_ev ev;
	char want[32];
	int ret;

	for (;;) {
		ret = st_try(m->a, &ev);
		if (ret) {
			r->ret = ret;
			return;
		}
		if (ev.unavailable)
			return;
		r->v[1]++;
		if (ev.info.posix_event_id != (trace_event_id_t)m->b ||
		    ev.info.posix_pid != m->c)
			continue;
		snprintf(want, sizeof(want), "ev%d", r->v[0]);
		if (ev.len != strlen(want) || memcmp(ev.data, want, ev.len))
			r->v[2]++;
		r->v[0]++;
	}
}

static inline void __attribute__((noreturn)) st_agent_loop(int fd);

/* STA_SPAWN_VM's child: the agent loop on its own stack. */
static inline int st_agent_vm_child(void *arg)
{
	st_agent_loop((int)(long)arg);
}

/*
 * clone(CLONE_VM) a sub-agent serving socket @sfd; its pid or -errno.
 * It shares our memory, errno and TLS included: we only wait in recv()
 * meanwhile.  The stack is never freed (the child may outlive us).
 */
static inline pid_t st_agent_spawn_vm(int sfd)
{
	const size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED)
		return -errno;
	pid = clone(st_agent_vm_child, (char *)stack + size, CLONE_VM | SIGCHLD,
		    (void *)(long)sfd);
	return pid < 0 ? -errno : pid;
}

static inline void __attribute__((noreturn)) st_agent_loop(int fd)
{
	static trace_id_t trids[8];
	struct st_reply r;
	struct st_msg m;
	trace_event_id_t id;
	trace_id_t trid;
	ssize_t n;
	pid_t pid;
	int i;

	(void)trids;
	for (;;) {
		n = recv(fd, &m, sizeof(m), 0);
		if (n == 0)
			_exit(0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(3);
		}
		memset(&r, 0, sizeof(r));
		switch (m.op) {
		case STA_EXIT:
			break;
		case STA_GETPID:
			r.v[0] = getpid();
			r.l = (long)pthread_self();
			break;
		case STA_SETCREDS:
			r.ret = st_set_creds(m.a, m.b, m.c);
			break;
		case STA_DUMPABLE:
			r.ret = prctl(PR_SET_DUMPABLE, m.a, 0, 0, 0) ? errno : 0;
			break;
		case STA_SET_PTRACER:
			r.ret = prctl(PR_SET_PTRACER, (unsigned long)m.l, 0, 0,
				      0) ? errno : 0;
			break;
		case STA_DROP_CAP:
			r.ret = st_drop_cap(m.a);
			break;
		case STA_CREATE_PROBE:
			r.ret = st_create_probe(m.a);
			break;
		case STA_PTRACE_PROBE:
			r.ret = st_ptrace_probe(m.a);
			break;
		case STA_SPAWN:
			pid = fork();
			if (pid == 0) {
				close(fd);
				st_agent_loop(m.a);
			}
			r.ret = pid < 0 ? errno : 0;
			r.v[0] = pid;
			break;
		case STA_SPLIT_UIDS:
			r.ret = st_split_uids(m.a, m.b);
			break;
		case STA_CLEAR_EFFECTIVE:
			r.ret = st_clear_effective();
			break;
		case STA_SPAWN_VM:
			pid = st_agent_spawn_vm(m.a);
			r.ret = pid < 0 ? -pid : 0;
			r.v[0] = pid;
			break;
		case STA_CREATE_LOOP:
			for (i = 0; i < m.b; i++) {
				int ret = st_create_probe(m.a);

				r.v[ret == 0 ? 0 : ret == EPERM ? 1 : 2]++;
			}
			break;
		case STA_EVENTID_OPEN:
			id = 0;
			r.ret = posix_trace_eventid_open(m.s, &id);
			r.v[0] = (int)id;
			break;
		case STA_EVENT:
			posix_trace_event((trace_event_id_t)m.a, m.s,
					  (size_t)m.b);
			r.l = (long)pthread_self();
			break;
		case STA_CREATE:
			trid = 0;
			r.ret = st_create(m.a, (size_t)m.b, 0, 0, &trid);
			r.v[0] = trid;
			break;
		case STA_START:
			r.ret = posix_trace_start(m.a);
			break;
		case STA_STOP:
			r.ret = posix_trace_stop(m.a);
			break;
		case STA_SHUTDOWN:
			r.ret = posix_trace_shutdown(m.a);
			break;
		case STA_DRAIN:
			st_agent_drain(&m, &r);
			break;
		case STA_EVENT_BURST:
			for (r.v[0] = 0; r.v[0] < m.b; r.v[0]++)
				posix_trace_event((trace_event_id_t)m.a,
						  &r.v[0], sizeof(r.v[0]));
			break;
		default:
			r.ret = ENOSYS;
			break;
		}
		if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
			_exit(4);
		if (m.op == STA_EXIT)
			_exit(0);
	}
}

/* A socket pair for an agent: [0] for the driver, [1] for the agent. */
static inline int st_agent_socket(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ?
	       errno : 0;
}

/*
 * Fork an agent (a child of the caller).  If @first is given, the agent
 * runs @first(@arg) before it answers anything, and exits with its
 * result if that is not 0.  0 or an errno.
 */
static inline int st_agent_start_with(struct st_agent *ag,
				      int (*first)(void *), void *arg)
{
	int sv[2], ret;
	pid_t pid;

	ag->pid = -1;
	ag->fd = -1;
	ret = st_agent_socket(sv);
	if (ret)
		return ret;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (pid == 0) {
		close(sv[0]);
		ret = first ? first(arg) : 0;
		if (ret)
			_exit(ret);
		st_agent_loop(sv[1]);
	}
	close(sv[1]);
	ag->pid = pid;
	ag->fd = sv[0];
	return 0;
}

static inline int st_agent_start(struct st_agent *ag)
{
	return st_agent_start_with(ag, NULL, NULL);
}

static inline int st_agent_send(struct st_agent *ag, const struct st_msg *m)
{
	return send(ag->fd, m, sizeof(*m), MSG_NOSIGNAL) == sizeof(*m) ? 0 : -1;
}

/* Wait (up to ST_AGENT_TIMEOUT_MS) for a reply.  0 or -1. */
static inline int st_agent_recv(struct st_agent *ag, struct st_reply *r)
{
	struct pollfd p = { .fd = ag->fd, .events = POLLIN };
	int ret;

	memset(r, 0, sizeof(*r));
	do {
		ret = poll(&p, 1, ST_AGENT_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	if (ret != 1)
		return -1;
	if (recv(ag->fd, r, sizeof(*r), 0) != sizeof(*r))
		return -1;
	return 0;
}

/* Send @m, wait for the reply.  0, or -1 on a transport error/timeout. */
static inline int st_agent_call(struct st_agent *ag, const struct st_msg *m,
				struct st_reply *r)
{
	if (st_agent_send(ag, m))
		return -1;
	return st_agent_recv(ag, r);
}

/*
 * One-line agent calls.  They return the agent's result code, or -1 when
 * the agent could not be reached; *v0 (if not NULL) receives v[0].
 */
static inline int st_agent_op(struct st_agent *ag, int op, int a, int b,
			      int c, int *v0)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = op;
	m.a = a;
	m.b = b;
	m.c = c;
	if (st_agent_call(ag, &m, &r))
		return -1;
	if (v0)
		*v0 = r.v[0];
	return r.ret;
}

static inline int st_agent_set_ptracer(struct st_agent *ag, unsigned long who)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_SET_PTRACER;
	m.l = (long)who;
	if (st_agent_call(ag, &m, &r))
		return -1;
	return r.ret;
}

static inline int st_agent_eventid_open(struct st_agent *ag, const char *name,
					trace_event_id_t *id)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_EVENTID_OPEN;
	snprintf(m.s, sizeof(m.s), "%s", name);
	if (st_agent_call(ag, &m, &r))
		return -1;
	*id = (trace_event_id_t)r.v[0];
	return r.ret;
}

/* Record event @id with data "ev<n>"; *thread receives the agent's
 * pthread_self() (may be NULL). */
static inline int st_agent_event(struct st_agent *ag, trace_event_id_t id,
				 int n, pthread_t *thread)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_EVENT;
	m.a = (int)id;
	m.b = snprintf(m.s, sizeof(m.s), "ev%d", n);
	if (st_agent_call(ag, &m, &r))
		return -1;
	if (thread)
		*thread = (pthread_t)r.l;
	return r.ret;
}

static inline int st_agent_drain_call(struct st_agent *ag, trace_id_t trid,
				      trace_event_id_t id, pid_t pid,
				      int *matches, int *all, int *bad)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_DRAIN;
	m.a = trid;
	m.b = (int)id;
	m.c = pid;
	if (st_agent_call(ag, &m, &r))
		return -1;
	*matches = r.v[0];
	*all = r.v[1];
	*bad = r.v[2];
	return r.ret;
}

/* Kill and reap an agent that is a child of the caller. */
static inline void st_agent_kill(struct st_agent *ag)
{
	if (ag->pid > 0) {
		kill(ag->pid, SIGKILL);
		while (waitpid(ag->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	if (ag->fd >= 0)
		close(ag->fd);
	ag->pid = -1;
	ag->fd = -1;
}

/* ------------------------------------------------------------------ */
/* Miscellaneous                                                       */
/* ------------------------------------------------------------------ */

/* Exit status of child @pid once reaped: its exit code, 128 + signal, or
 * -1 if it could not be reaped. */
static inline int st_wait_exit(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) != pid) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Every function taking a trid: st_call_all_trid_functions() stores the
 * result of function i in res[i], st_trid_fn_name(i) names it. */
#define ST_NR_TRID_FNS	15

static inline const char *st_trid_fn_name(int i)
{
	static const char *const names[] = {
		"start", "stop", "clear", "get_attr", "get_status", "getnext",
		"timedgetnext", "trygetnext", "eventid_get_name",
		"trid_eventid_open", "eventtypelist_getnext_id",
		"eventtypelist_rewind", "get_filter", "set_filter", "shutdown",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) == ST_NR_TRID_FNS,
		       "one name per function");
	return i >= 0 && i < ST_NR_TRID_FNS ? names[i] : "?";
}

/* The blocking functions would wait 100 ms at most. */
static inline void st_call_all_trid_functions(trace_id_t t,
					      int res[ST_NR_TRID_FNS])
{
	struct timespec abs = st_ns_ts(st_realtime_ns() + 100000000ULL);
	struct posix_trace_status_info st;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_set_t set;
	trace_event_id_t id;
	trace_attr_t a;
	struct st_ev ev;
	int i = 0, unav;

	posix_trace_attr_init(&a);
	posix_trace_eventset_empty(&set);
	res[i++] = posix_trace_start(t);
	res[i++] = posix_trace_stop(t);
	res[i++] = posix_trace_clear(t);
	res[i++] = posix_trace_get_attr(t, &a);
	res[i++] = posix_trace_get_status(t, &st);
	res[i++] = st_get(t, &ev);
	res[i++] = st_timed(t, &ev, &abs);
	res[i++] = st_try(t, &ev);
	res[i++] = posix_trace_eventid_get_name(t, POSIX_TRACE_START, name);
	res[i++] = posix_trace_trid_eventid_open(t, "x", &id);
	res[i++] = posix_trace_eventtypelist_getnext_id(t, &id, &unav);
	res[i++] = posix_trace_eventtypelist_rewind(t);
	res[i++] = posix_trace_get_filter(t, &set);
	res[i++] = posix_trace_set_filter(t, &set, POSIX_TRACE_SET_EVENTSET);
	res[i++] = posix_trace_shutdown(t);
	posix_trace_attr_destroy(&a);
}


/*
 * A pid that names no process: fork a child that exits at once and reap
 * it.  The pid is not reused before pid_max wraps around.
 */
static inline pid_t st_unused_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/* Module parameters (/sys/module/posix_trace/parameters/@name). */
static inline int st_param_read(const char *name, unsigned long *v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/posix_trace/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ret = fscanf(f, "%lu", v) == 1 ? 0 : -1;
	fclose(f);
	return ret;
}

/* Root only: the writable parameters are mode 0644. */
static inline int st_param_write(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/posix_trace/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%lu\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * The module built for the running kernel: $PT_MODULE, the copy vm-run
 * loaded (its module may be another build: scripts/check-debug), or the
 * tree's own.
 */
static inline bool st_find_module(const char *release, char *path, size_t size)
{
	const char *cand[] = { getenv("PT_MODULE"), "/run/vmrun/module.ko",
			       "kmod/posix_trace.ko" };
	char vermagic[128];
	size_t i;

	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		char cmd[PATH_MAX + 64];
		FILE *p;

		if (!cand[i] || access(cand[i], R_OK))
			continue;
		snprintf(cmd, sizeof(cmd), "modinfo -F vermagic '%s' 2>/dev/null",
			 cand[i]);
		p = popen(cmd, "re");
		if (!p)
			continue;
		vermagic[0] = '\0';
		if (!fgets(vermagic, sizeof(vermagic), p))
			vermagic[0] = '\0';
		pclose(p);
		if (strncmp(vermagic, release, strlen(release)) == 0 &&
		    vermagic[strlen(release)] == ' ') {
			snprintf(path, size, "%s", cand[i]);
			return true;
		}
	}
	return false;
}

/* POSIX_TRACE_IOC_STATS: 0 or an errno. */
static inline int st_stats(struct posix_trace_stats *st)
{
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(fd, POSIX_TRACE_IOC_STATS, st))
		ret = errno;
	close(fd);
	return ret;
}

/* The module's object counts are the same (fork kits are not objects). */
static inline bool st_stats_same(const struct posix_trace_stats *a,
				 const struct posix_trace_stats *b)
{
	return a->streams == b->streams && a->active_streams == b->active_streams &&
	       a->procs == b->procs && a->attaches == b->attaches &&
	       a->writers == b->writers && a->mappings == b->mappings &&
	       a->maps == b->maps && a->users == b->users;
}

/*
 * Wait up to @ms for the counts to come back to @base once everything was
 * released (RCU and work items free asynchronously); true if they did.
 * @now holds the last reading, *@waited the ms it took.
 */
static inline bool st_stats_settle(const struct posix_trace_stats *base,
				   struct posix_trace_stats *now,
				   unsigned int ms, unsigned int *waited)
{
	for (*waited = 0; *waited < ms; *waited += 50) {
		if (st_stats(now))
			return false;
		if (st_stats_same(base, now))
			return true;
		st_sleep_ms(50);
	}
	return false;
}

/* A reading of counts that stay put for 100 ms (what earlier tests
 * released has finished freeing), within 5 s; false if they do not.
 */
static inline bool st_stats_quiet(struct posix_trace_stats *st)
{
	struct posix_trace_stats next;
	unsigned int waited;

	if (st_stats(st))
		return false;
	for (waited = 0; waited < 5000; waited += 100) {
		st_sleep_ms(100);
		if (st_stats(&next))
			return false;
		if (st_stats_same(st, &next))
			return true;
		*st = next;
	}
	return false;
}

static inline long st_trace_sys_max(void)
{
	return sysconf(_SC_TRACE_SYS_MAX);
}

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated: the
 * length, or -1 if nothing could be read.
 */
static inline ssize_t st_read_small_file(const char *path, char *buf, size_t size)
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

/* Yama's kernel.yama.ptrace_scope, or -1 when Yama is not active. */
static inline int st_ptrace_scope(void)
{
	char buf[16];

	if (st_read_small_file("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

static inline int st_set_ptrace_scope(int v)
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

/*
 * Tests that trace a child process as an unprivileged user cannot work
 * when Yama forbids ptrace of children (ptrace_scope >= 2): skip them.
 */
#define ST_REQUIRE_TRACE_CHILDREN() do {				\
	int __scope = st_ptrace_scope();				\
	if (__scope >= 3 || (__scope == 2 && geteuid() != 0))		\
		ST_SKIP("Yama ptrace_scope %d forbids tracing children",	\
			__scope);					\
} while (0)

/* Exit codes of the forked children that read under seccomp; each test
 * file adds its own from ST_C_FIRST_OWN. */
enum {
	C_OK = 0,
	C_SETUP = 10,
	C_FILTER,
	C_READ_RET,
	C_UNAVAILABLE,
	C_WRONG_EVENT,
	C_WRONG_DATA,
	C_NOT_EMPTY,
	ST_C_FIRST_OWN,
};

/* Record the unnamed event n times carrying first, first + 1, ... */
static inline void st_record_seq(uint64_t first, uint64_t n)
{
	uint64_t i;

	for (i = first; i < first + n; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
}

/* The number st_record_seq() put into @ev. */
static inline uint64_t st_seq_of(const struct st_ev *ev)
{
	uint64_t v;

	memcpy(&v, ev->data, sizeof(v));
	return v;
}

#endif /* PT_SELFTEST_H */
