// SPDX-License-Identifier: GPL-2.0
/*
 * unload_test - rmmod never frees code that a task still runs.
 *
 * The module's task_work callbacks (exit and exec: lifecycle.c; the fork
 * kit's refill: forkkit.c) hold a module reference while queued and drop
 * it as their last act, then return through module text.  rmmod may go
 * ahead as soon as the count is 0, so a task preempted between that
 * module_put() and the return would come back to freed memory, unless the
 * unload waits until no task can be in such a tail.
 *
 * The test makes that window as long as it likes: a perf event on the
 * module:module_put tracepoint (this module only), on the CPU the task
 * runs on, wakes a SCHED_FIFO thread there; with full kernel preemption
 * that thread preempts the task as module_put() enables preemption again,
 * after the count dropped, and keeps the CPU for HOLD_MS while the main
 * thread, on another CPU, unloads the module.  The unload must not return
 * before the task had its CPU back, and no task may die in the kernel.
 * A holder woken so late that the thread of the last put had already left
 * its CPU for good (exited, or blocked: not runnable) holds nothing, and
 * that attempt is made again, 5 times at most.
 * Then the module is loaded again, with the parameters it had.  Where the
 * compiler made the final module_put() a jump (sibling call: gcc does,
 * unless frame pointers forbid it) no module code runs after it and an
 * early unload goes unpunished; the test asks for the wait all the same.
 * The per-CPU kernel threads of the task's CPU run above the holder
 * (what the unload needs of that CPU must not wait for the test), and the
 * task is on the second CPU: grace periods of SRCU on small machines
 * queue their callbacks on the first.
 *
 * Root only (perf on every task's tracepoint, rmmod, insmod): SKIPs as
 * any other user.  Needs two CPUs and a kernel whose own code can be
 * preempted: full preemption, set here for the test through
 * /sys/kernel/debug/sched/preempt (or "preempt=full" on the command line
 * of a kernel without that knob), or PREEMPT_RT; elsewhere no task can be
 * preempted in the window, and it SKIPs.  It unloads the module, so it
 * is listed in TESTS.isolated and runs alone in a fresh VM.
 */
#include "pt_selftest.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>

#define PT_MODNAME	"posix_trace"
#define SYS_MODULE	"/sys/module/" PT_MODNAME
#define PREEMPT_KNOB	"/sys/kernel/debug/sched/preempt"
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
/* 6.12 on: the deadline server that runs fair tasks 50 ms a second. */
#define FAIR_SERVER	"/sys/kernel/debug/sched/fair_server/cpu%d/runtime"
_Static_assert(sizeof(FAIR_SERVER) + 8 < 64, "fits unload's buf");
#define TRACEFS		"/sys/kernel/tracing"
#define PUT_EVENT_ID	TRACEFS "/events/module/module_put/id"
#define PUT_EVENT_FORMAT	TRACEFS "/events/module/module_put/format"
#define HOLD_MS		6000
#define TAINT_DIE	(1UL << 7)
/* The raw module refcount with no user left (MODULE_REF_BASE). */
#define REF_NONE	1

enum how { BY_EXIT, BY_EXEC, BY_FORK };

/* Kernel threads raised above the holder (boost_kthreads()). */
#define MAX_BOOSTED	128
struct boosted {
	int n;
	pid_t pid[MAX_BOOSTED];
	int nice[MAX_BOOSTED];
};

FIXTURE(unload) {
	char module[PATH_MAX];
	char params[2048];	/* "name=value ..." to load it again as it was */
	char preempt[32];	/* the preemption model to restore, or "" */
	char rt_runtime[32];	/* sched_rt_runtime_us to restore, or "" */
	char fair_path[96];	/* cpu_task's fair server, or "" */
	char fair_runtime[32];	/* its runtime to restore */
	int cpu_task, cpu_unload;
	long put_id;		/* of the module:module_put trace event */
	struct boosted boosted;	/* kernel threads of cpu_task */
};

static int read_str(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	close(fd);
	return ret;
}

static unsigned long read_ulong(const char *path)
{
	char buf[64];

	return read_str(path, buf, sizeof(buf)) ? ~0UL : strtoul(buf, NULL, 0);
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The first two CPUs the caller may run on. */
static int first_cpus(int *a, int *b)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++) {
		if (CPU_ISSET(cpu, &set))
			*(n++ ? b : a) = cpu;
	}
	return n == 2 ? 0 : -1;
}

/*
 * The per-CPU kernel threads of @cpu (kworkers, ksoftirqd, ...: those of
 * SCHED_OTHER bound to it alone) run above the holder: what the unload
 * needs of that CPU, say a grace period's softirq, must not wait for the
 * holder, or the test would hold the unload back itself.  Their pids and
 * nice values go to @saved, for unboost_kthreads().
 */
static bool is_kthread_of(pid_t pid, int cpu)
{
	char path[64], buf[1024], *p;
	unsigned long flags;
	cpu_set_t set;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_str(path, buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');
	/* After the comm: state ppid pgrp session tty tpgid flags. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1 ||
	    !(flags & 0x00200000))	/* PF_KTHREAD */
		return false;
	if (sched_getaffinity(pid, sizeof(set), &set))
		return false;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set) &&
	       sched_getscheduler(pid) == SCHED_OTHER;
}

static void boost_kthreads(int cpu, struct boosted *saved)
{
	struct sched_param sp = { .sched_priority = 60 };
	struct dirent *d;
	DIR *dir = opendir("/proc");
	pid_t pid;

	saved->n = 0;
	while (dir && (d = readdir(dir)) && saved->n < MAX_BOOSTED) {
		pid = (pid_t)strtol(d->d_name, NULL, 10);
		if (pid <= 0 || !is_kthread_of(pid, cpu))
			continue;
		errno = 0;
		saved->nice[saved->n] = getpriority(PRIO_PROCESS, pid);
		if (errno || sched_setscheduler(pid, SCHED_FIFO, &sp))
			continue;
		saved->pid[saved->n++] = pid;
	}
	if (dir)
		closedir(dir);
}

static void unboost_kthreads(struct boosted *saved)
{
	struct sched_param sp = { .sched_priority = 0 };
	int i;

	for (i = 0; i < saved->n; i++) {
		if (!sched_setscheduler(saved->pid[i], SCHED_OTHER, &sp))
			setpriority(PRIO_PROCESS, saved->pid[i], saved->nice[i]);
	}
	saved->n = 0;
}

/* The module's parameters as "name=value ..." (all are readable). */
static int save_params(char *buf, size_t size)
{
	char path[PATH_MAX], val[256];
	size_t len = 0;
	struct dirent *d;
	DIR *dir;

	dir = opendir(SYS_MODULE "/parameters");
	if (!dir)
		return -1;
	buf[0] = '\0';
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYS_MODULE "/parameters/%s",
			 d->d_name);
		if (read_str(path, val, sizeof(val)))
			continue;
		len += snprintf(buf + len, size - len, "%s=%s ", d->d_name, val);
		if (len >= size)
			break;
	}
	closedir(dir);
	return len < size ? 0 : -1;
}

static int load_module(FIXTURE_DATA(unload) *self)
{
	int fd = open(self->module, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, self->params, 0) ? errno : 0;
	close(fd);
	return ret;
}

/* "none (voluntary) full" -> "voluntary" into @cur. */
static int preempt_model(char *cur, size_t size)
{
	char buf[128], *open, *close;

	if (read_str(PREEMPT_KNOB, buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!close)
		return -1;
	*close = '\0';
	snprintf(cur, size, "%s", open + 1);
	return 0;
}

/* Can a task be preempted in kernel code, for this test?  A dynamic
 * model without the debugfs knob (no CONFIG_SCHED_DEBUG) is what the
 * kernel command line chose.
 */
static bool make_preemptible(FIXTURE_DATA(unload) *self)
{
	char cmdline[4096];
	struct utsname u;

	if (!preempt_model(self->preempt, sizeof(self->preempt)))
		return !write_str(PREEMPT_KNOB, "full");
	self->preempt[0] = '\0';
	if (uname(&u))
		return false;
	if (strstr(u.version, "PREEMPT_DYNAMIC"))
		return !read_str("/proc/cmdline", cmdline, sizeof(cmdline)) &&
		       strstr(cmdline, "preempt=full");
	return strstr(u.version, "PREEMPT_RT") || strstr(u.version, "PREEMPT ");
}

FIXTURE_SETUP(unload)
{
	char buf[64];
	struct utsname u;

	self->preempt[0] = self->rt_runtime[0] = self->fair_path[0] = '\0';
	self->boosted.n = 0;
	ST_REQUIRE_ROOT();
	ST_REQUIRE_MODULE();
	if (st_nr_allowed_cpus() < 2)
		ST_SKIP("needs two CPUs");
	ASSERT_EQ(0, uname(&u));
	if (!st_find_module(u.release, self->module, sizeof(self->module)))
		ST_SKIP("no posix_trace.ko built for %s", u.release);
	if (access(PUT_EVENT_ID, R_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (read_str(PUT_EVENT_ID, buf, sizeof(buf)))
		ST_SKIP("no module:module_put trace event");
	self->put_id = strtol(buf, NULL, 10);
	if (!make_preemptible(self))
		ST_SKIP("kernel code is not preemptible here: no task can be preempted in the window");
	ASSERT_EQ(0, save_params(self->params, sizeof(self->params)));
	ASSERT_EQ(0, read_str(RT_RUNTIME, self->rt_runtime, sizeof(self->rt_runtime)));
	/* The holder must keep its CPU for HOLD_MS, not 95% of it. */
	ASSERT_EQ(0, write_str(RT_RUNTIME, "-1"));
	ASSERT_EQ(0, first_cpus(&self->cpu_unload, &self->cpu_task));
	/*
	 * Nor does the fair server of 6.12 give the preempted task 50 ms of
	 * each second: it would finish its callback and switch, and the
	 * unload would rightly go ahead while the holder still spins.
	 */
	snprintf(buf, sizeof(buf), FAIR_SERVER, self->cpu_task);
	if (!read_str(buf, self->fair_runtime, sizeof(self->fair_runtime))) {
		strcpy(self->fair_path, buf);
		ASSERT_EQ(0, write_str(buf, "0"));
	}
	ASSERT_EQ(0, pin_cpu(self->cpu_unload));
	boost_kthreads(self->cpu_task, &self->boosted);
}

FIXTURE_TEARDOWN(unload)
{
	unboost_kthreads(&self->boosted);
	if (self->preempt[0])
		write_str(PREEMPT_KNOB, self->preempt);
	if (self->rt_runtime[0])
		write_str(RT_RUNTIME, self->rt_runtime);
	if (self->fair_path[0])
		write_str(self->fair_path, self->fair_runtime);
	if (self->module[0] && access(SYS_MODULE, F_OK))
		load_module(self);
}

/* The thread that takes the task's CPU after its last module_put(). */
struct holder {
	int cpu;
	int fd;				/* the perf event */
	struct perf_event_mmap_page *pg;
	size_t pgsz;			/* also the size of the ring */
	unsigned long base, size;	/* the module's core */
	unsigned long twr, twr_end;	/* task_work_run() */
	int ready, armed, stop, unloaded;
	int err;
	unsigned int ip_off, ref_off;	/* in the raw entry (its format file) */
	unsigned int samples;		/* of this module seen, for the log */
	uint64_t last_ip;
	int last_ref;
	uint64_t released_ns;		/* it gave the CPU back */
	int putter;			/* the thread of the last put (tid) */
	char task_state;		/* in /proc/<putter>/stat when armed */
};

/* @len bytes at ring position @pos. */
static void ring_copy(const struct holder *h, uint64_t pos, void *dst, size_t len)
{
	const unsigned char *ring = (const unsigned char *)h->pg + h->pgsz;
	unsigned char *out = dst;
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = ring[(pos + i) % h->pgsz];
}

/* The offset of field @name ("unsigned long ip;") in the event's format
 * file, or -1.
 */
static int format_offset(const char *name)
{
	char line[256], want[64];
	int off = -1;
	FILE *f = fopen(PUT_EVENT_FORMAT, "re");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s;", name);
	while (fgets(line, sizeof(line), f)) {
		const char *o = strstr(line, "offset:");

		if (strstr(line, want) && o) {
			off = atoi(o + 7);
			break;
		}
	}
	fclose(f);
	return off;
}

/*
 * A PERF_SAMPLE_TID | PERF_SAMPLE_RAW sample of module:module_put: the
 * putter's pid and tid (u32 each), u32 size, then the entry: the common
 * fields (8 bytes, more on PREEMPT_RT), ip (the caller), refcnt (raw),
 * at the offsets its format file gives.  The
 * caller is the callback, in the module, or, where the compiler made the
 * callback's last call a jump (sibling call), task_work_run(), to which
 * module_put() then returns.
 */
static bool last_put_by_module(struct holder *h, const unsigned char *s,
			       size_t len)
{
	uint32_t ids[2];	/* PERF_SAMPLE_TID: pid, tid of the putter */
	uint64_t ip;
	int32_t ref;

	if (len < 8 + 4 + h->ref_off + sizeof(ref) || len < 8 + 4 + h->ip_off + sizeof(ip))
		return false;
	memcpy(ids, s, sizeof(ids));
	s += sizeof(ids);
	memcpy(&ip, s + 4 + h->ip_off, sizeof(ip));
	memcpy(&ref, s + 4 + h->ref_off, sizeof(ref));
	h->samples++;
	h->last_ip = ip;
	h->last_ref = ref;
	if (ref > REF_NONE || !((ip >= h->base && ip < h->base + h->size) ||
				(ip >= h->twr && ip < h->twr_end)))
		return false;
	h->putter = (int)ids[1];
	return true;
}

/* Consume the ring: did the module's code drop its last reference? */
static bool last_put_seen(struct holder *h)
{
	uint64_t head = __atomic_load_n(&h->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = h->pg->data_tail;
	struct perf_event_header hdr;
	unsigned char rec[256];
	bool seen = false;

	while (tail < head) {
		ring_copy(h, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec))
			break;
		ring_copy(h, tail, rec, hdr.size);
		if (hdr.type == PERF_RECORD_SAMPLE &&
		    last_put_by_module(h, rec + sizeof(hdr), hdr.size - sizeof(hdr)))
			seen = true;
		tail += hdr.size;
	}
	__atomic_store_n(&h->pg->data_tail, head, __ATOMIC_RELEASE);
	return seen;
}

/* The state letter of thread @tid ('R' running or runnable), or '?'. */
static char task_state(int tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (tid <= 0 || fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

static void *holder_run(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct pollfd p = { .events = POLLIN };
	struct holder *h = arg;
	uint64_t end;

	p.fd = h->fd;
	h->err = pin_cpu(h->cpu) ? errno :
		 pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	if (h->err)
		return NULL;
	while (!last_put_seen(h)) {
		if (__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
			return NULL;
		poll(&p, 1, 100);
	}
	/* Woken on the task's CPU: the task is preempted, past its put,
	 * unless this wake-up came so late that the task had already run on
	 * and left its CPU for good (exited or blocked): then there is nothing
	 * for an unload to wait for, and the attempt proves nothing.  The
	 * interrupt that wakes this thread (perf's irq_work) can be that
	 * late in a VM under load.
	 */
	h->task_state = task_state(h->putter);
	__atomic_store_n(&h->armed, 1, __ATOMIC_RELEASE);
	end = st_now_ns(CLOCK_MONOTONIC) + HOLD_MS * 1000000ULL;
	while (!__atomic_load_n(&h->unloaded, __ATOMIC_ACQUIRE) &&
	       st_now_ns(CLOCK_MONOTONIC) < end)
		;
	h->released_ns = st_now_ns(CLOCK_MONOTONIC);
	return NULL;
}

/* Where the module is: its core's base and size, from /proc/modules. */
static int module_range(unsigned long *base, unsigned long *size)
{
	char line[512], name[64];
	FILE *f = fopen("/proc/modules", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu %*d %*s %*s %lx", name, size, base) == 3 &&
		    !strcmp(name, PT_MODNAME) && *base) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* [start, end) of the kernel's function @fn, from /proc/kallsyms: from
 * its address to the next symbol's (the file is not sorted).
 */
static int kernel_function(const char *fn, unsigned long *start,
			   unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[128];
	unsigned long a;
	int pass;

	if (!f)
		return -1;
	*start = 0;
	*end = ~0UL;
	for (pass = 0; pass < 2; pass++) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx %*c %127s", &a, name) != 2)
				continue;
			if (!pass && !strcmp(name, fn))
				*start = a;
			else if (pass && a > *start && a < *end)
				*end = a;
		}
		if (!*start)
			break;
	}
	fclose(f);
	return *start && *end != ~0UL ? 0 : -1;
}

static int holder_open(struct holder *h, int cpu, long id)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = (uint64_t)id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW,
		.wakeup_events = 1,
	};

	int ip_off = format_offset("ip"), ref_off = format_offset("refcnt");

	if (ip_off < 0 || ref_off < 0) {
		errno = ENOENT;	/* no format file to read the samples by */
		return -1;
	}
	h->ip_off = (unsigned int)ip_off;
	h->ref_off = (unsigned int)ref_off;
	h->cpu = cpu;
	h->pgsz = (size_t)sysconf(_SC_PAGESIZE);
	if (module_range(&h->base, &h->size) ||
	    kernel_function("task_work_run", &h->twr, &h->twr_end))
		return -1;
	h->fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
	if (h->fd < 0)
		return -1;
	/* Less to wake up for; samples are checked anyway. */
	ioctl(h->fd, PERF_EVENT_IOC_SET_FILTER, "name == \"" PT_MODNAME "\"");
	h->pg = mmap(NULL, 2 * h->pgsz, PROT_READ | PROT_WRITE, MAP_SHARED,
		     h->fd, 0);
	return h->pg == MAP_FAILED ? -1 : 0;
}

/* Make the caller a process the module knows, holding no reference. */
static int become_known(void)
{
	static const char name[] = "unload";
	struct posix_trace_eventid e = {
		.size = sizeof(e),
		.name_len = sizeof(name) - 1,
		.name_ptr = (uintptr_t)name,
	};
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e);
	close(fd);
	return ret;
}

/*
 * The task: on @cpu, known to the module, then queues the callback that
 * drops the module's last reference: its exit, its exec, or the fork
 * kit's refill after a fork (it then waits, with its child, to be killed).
 */
static void run_task(int cpu, enum how how)
{
	if (setpgid(0, 0) || pin_cpu(cpu) || become_known())
		_exit(1);
	switch (how) {
	case BY_EXIT:
		_exit(0);
	case BY_EXEC:
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	case BY_FORK:
		if (fork() < 0)
			_exit(1);
		for (;;)
			pause();
	}
	_exit(1);
}

/* Reap the task (a task that died in the kernel while exiting never is). */
static void reap(pid_t t)
{
	int i;

	kill(-t, SIGKILL);
	kill(t, SIGKILL);
	for (i = 0; i < 1000; i++) {
		if (waitpid(t, NULL, WNOHANG) != 0)
			return;
		st_sleep_ms(10);
	}
}

/*
 * One attempt: the task's state when the holder took its CPU; the unload
 * was tried only if that was 'R' (the task preempted, still to run).
 */
static char unload_attempt(struct __test_metadata *_metadata,
			   FIXTURE_DATA(unload) *self, enum how how)
{
	unsigned long taint0 = read_ulong("/proc/sys/kernel/tainted");
	struct holder h = { .fd = -1 };
	uint64_t unloaded_ns;
	pthread_t th;
	int i, ret, err;
	pid_t t;

	for (i = 0; i < 500 && read_ulong(SYS_MODULE "/refcnt"); i++)
		st_sleep_ms(10);
	ASSERT_EQ(0UL, read_ulong(SYS_MODULE "/refcnt"))
		TH_LOG("the module is in use before the test");
	ASSERT_EQ(0, holder_open(&h, self->cpu_task, self->put_id))
		TH_LOG("perf on module:module_put: %s", strerror(errno));
	ASSERT_EQ(0, pthread_create(&th, NULL, holder_run, &h));
	while (!__atomic_load_n(&h.ready, __ATOMIC_ACQUIRE))
		st_sleep_ms(1);
	ASSERT_EQ(0, h.err) TH_LOG("holder thread: %s", strerror(h.err));

	fflush(NULL);
	t = fork();
	ASSERT_LE(0, t);
	if (t == 0)
		run_task(self->cpu_task, how);
	for (i = 0; i < 2000 && !__atomic_load_n(&h.armed, __ATOMIC_ACQUIRE); i++)
		st_sleep_ms(10);
	if (!__atomic_load_n(&h.armed, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&h.stop, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		reap(t);
		ASSERT_TRUE(false)
			TH_LOG("no last module_put() by the module's code was seen (%u samples, last ip %#llx ref %d, module %#lx+%lu)",
			       h.samples, (unsigned long long)h.last_ip, h.last_ref, h.base, h.size);
	}
	if (h.task_state != 'R') {
		/* Too late to hold anything: not an attempt (see holder_run). */
		__atomic_store_n(&h.unloaded, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		reap(t);
		munmap(h.pg, 2 * h.pgsz);
		close(h.fd);
		return h.task_state;
	}
	/* The task is off its CPU, past its module_put(): unload now. */
	ret = (int)syscall(SYS_delete_module, PT_MODNAME, O_NONBLOCK);
	err = errno;
	unloaded_ns = st_now_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&h.unloaded, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	reap(t);
	if (!ret)
		EXPECT_EQ(0, load_module(self));
	EXPECT_EQ(0, ret) TH_LOG("delete_module: %s", strerror(err));
	EXPECT_LE(h.released_ns, unloaded_ns)
		TH_LOG("the unload returned while a task preempted in the module's callback was still off its CPU");
	EXPECT_EQ(0UL, (read_ulong("/proc/sys/kernel/tainted") & ~taint0) & TAINT_DIE)
		TH_LOG("a task died in the kernel (see the kernel log)");
	munmap(h.pg, 2 * h.pgsz);
	close(h.fd);
	return 'R';
}

/* Up to 5 attempts, until one holds the task's CPU while it is runnable. */
static void unload_while_preempted(struct __test_metadata *_metadata,
				   FIXTURE_DATA(unload) *self, enum how how)
{
	char state = '?';
	int i;

	for (i = 0; i < 5 && state != 'R'; i++) {
		state = unload_attempt(_metadata, self, how);
		if (state != 'R')
			TH_LOG("attempt %d: the task was no longer runnable (%c) when the holder took its CPU: again",
			       i + 1, state);
	}
	ASSERT_EQ('R', state)
		TH_LOG("in 5 attempts the holder never took the CPU of a runnable task");
}

TEST_F_TIMEOUT(unload, rmmod_waits_for_an_exit_callback_preempted_after_its_last_put, 120)
{
	unload_while_preempted(_metadata, self, BY_EXIT);
}

TEST_F_TIMEOUT(unload, rmmod_waits_for_an_exec_callback_preempted_after_its_last_put, 120)
{
	unload_while_preempted(_metadata, self, BY_EXEC);
}

TEST_F_TIMEOUT(unload, rmmod_waits_for_a_fork_kit_refill_preempted_after_its_last_put, 120)
{
	unload_while_preempted(_metadata, self, BY_FORK);
}

TEST_HARNESS_MAIN
