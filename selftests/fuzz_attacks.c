// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_attacks - the attack classes of issue 19 as step kinds of
 * fuzz_test, so that the fuzzer searches them itself:
 *
 *  - process trees: chains of up to thousands of generations of known
 *    processes that fork and exit (parent first, child first, or either),
 *    and wide trees whose children exit in a random order with their
 *    parent before, among or after them; traced by an inherited stream or
 *    not, killed halfway or not;
 *  - writer lanes whose head, oldest, in-flight time and records a thread
 *    keeps rewriting while the kernel's flusher (streams with log) or the
 *    library's reader (streams without) reads them, and while the
 *    controller shuts the stream down or exits;
 *  - CREATE racing its target's exec of a set-user-ID program (su(1),
 *    which waits on its stdin): the stream of a controller that may not
 *    trace the new image must never attach to it;
 *  - madvise (the fork flags, DONTNEED, REMOVE, ...), mremap (grow, shrink,
 *    move) and fork of every kind of mapping (status page, read-only
 *    region, consumer region, writer lane): a child inherits no stream
 *    region and no lane, and never reads its parent's status page;
 *  - logs that block: pipes, FIFOs and sockets that nobody reads, or whose
 *    reader is stopped, under flush, shutdown and the controller's exit;
 *  - creates that must be refused, on a non-dumpable group whose leader
 *    has exited and whose threads each start the next and exit, so that
 *    the thread the privilege check picks is on its way out.
 *
 * Every step ends what it began (processes, streams, mappings of its own)
 * before it returns, so that in a deterministic run (FUZZ_PROCS=1
 * FUZZ_THREADS=1) nothing of it runs beside the next step.  What happens
 * inside depends on time: choices made after something timed come from a
 * generator of the step's own (struct fa_rng), and only the variant is
 * folded into the digest.  The steps run in the workers only (depth 0);
 * their children use raw ioctls, never the library, as the worker may
 * have other threads.
 */
/*
 * The selftest helpers without pt_selftest.h: the harness it includes
 * defines functions and data of its own, which fuzz_test.c has already.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/posix_trace.h>

#include "st_module.h"
#include "st_stream.h"
#include "st_system.h"

#include <dirent.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "fuzz.h"

#ifndef MADV_COLD
#define MADV_COLD		20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED	24
#endif

/* One flush, read or shutdown with lanes that lie (design.md: bounded by
 * what the lanes held when it began).
 */
#define FA_CALL_BOUND_MS	10000
/* A flush, shutdown or exit with a blocked log: a stalled flush already
 * running, then its own, each given up after the 5 s stall bound.
 */
#define FA_BLOCK_BOUND_MS	13000
#define FA_TREE_BUDGET_MS	3000	/* no process of a tree is born after */
#define FA_CHAIN_BUDGET_MS	30000	/* ...of a chain whose ancestors exit,
					 * but for the run's end */
#define FA_TREE_END_MS		2000	/* ...and all are gone this much later */
#define FA_CHAIN_MAX		8192
#define FA_KILLED_MS		20000	/* a process survives SIGKILL no longer,
					 * even on a machine that TCG and other
					 * trees keep busy */
#define FA_NESTED_MAX		256	/* generations alive at once */
#define FA_WIDE_MAX		192	/* children of one parent */
#define FA_LANES_MAX		4
#define FA_LIE_MS_MIN		200
#define FA_LIE_MS_MAX		1500
#define FA_UID			65534	/* root's runs race set-ID execs as it */

/* Exit codes of the helpers that report (others exit 0). */
enum {
	FA_X_SETUP = 10,	/* could not set up: nothing to judge */
	FA_X_ATTACHED,		/* a create attached after a set-ID exec */
	FA_X_NO_MAPS,		/* /proc/self/maps unreadable */
	FA_X_TRACED,		/* a refused create got a stream */
};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* A generator of the step's own, for choices made after something timed. */
struct fa_rng {
	uint64_t s;
};

static uint32_t fa_rn(struct fa_rng *r, uint32_t n)
{
	r->s = fz_mix(r->s);
	return n ? (uint32_t)(r->s % n) : 0;
}

static uint64_t fa_ms_since(uint64_t t0)
{
	return (st_now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
}

static uint64_t fa_after_ms(unsigned int ms)
{
	return st_now_ns(CLOCK_MONOTONIC) + ms * 1000000ULL;
}

static bool fa_past(uint64_t deadline)
{
	return st_now_ns(CLOCK_MONOTONIC) >= deadline;
}

static void fa_spin(unsigned int n)
{
	volatile unsigned int i;

	for (i = 0; i < n; i++)
		;
}

/* A call that began at @t0 returned: it must have within @ms. */
static void fa_bound(uint64_t t0, unsigned int ms, const char *what, int variant)
{
	uint64_t took = fa_ms_since(t0);

	if (took > ms)
		fz_bad("seed %llu: %s took %llu ms (bound %u ms, variant %d)",
		       (unsigned long long)fz_seed, what, (unsigned long long)took,
		       ms, variant);
}

/* *@max = max(*@max, @v) */
static void fa_max(atomic_long *max, long v)
{
	long m = atomic_load(max);

	while (v > m && !atomic_compare_exchange_weak(max, &m, v))
		;
}

static int fa_dev(void)
{
	return open(ST_DEVICE, O_RDWR | O_CLOEXEC);
}

static void fa_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int fa_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static int fa_ctl(int fd, unsigned long cmd, uint32_t trid)
{
	struct posix_trace_ctl c = { .size = sizeof(c), .trid = trid };

	return fa_ioctl(fd, cmd, &c);
}

/* Open @name in the mapping of stream @trid (0: the caller's). */
static int fa_name(int fd, uint32_t trid, const char *name)
{
	struct posix_trace_eventid e = {
		.size = sizeof(e), .trid = trid, .name_len = strlen(name),
		.name_ptr = (uintptr_t)name,
	};

	return fa_ioctl(fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e);
}

/* An event through the ioctl: for stream @trid, or every stream (0). */
static int fa_event(int fd, uint32_t trid, size_t len)
{
	static const char data[512];
	struct posix_trace_event_req e = {
		.size = sizeof(e), .event_id = POSIX_TRACE_ID_UNNAMED,
		.data_ptr = (uintptr_t)data,
		.data_len = len < sizeof(data) ? len : sizeof(data),
		.trid = trid,
	};

	return fa_ioctl(fd, POSIX_TRACE_IOC_EVENT, &e);
}

/* User ids of the mapping stream @trid uses, or 0. */
static uint32_t fa_nr_user(int fd, uint32_t trid)
{
	struct posix_trace_eventtypes e = { .size = sizeof(e), .trid = trid };

	return fa_ioctl(fd, POSIX_TRACE_IOC_EVENTTYPES, &e) ? 0 : e.nr_user;
}

struct fa_spec {
	pid_t pid;
	uint32_t policy, inherit;
	uint64_t size, max_data;
	int log_fd;		/* -1: no log */
	uint32_t log_policy;
	uint64_t log_size;
	uint32_t kclasses;	/* kernel events recorded (issue 23) */
};

/* No kernel events, one class, or all: each probe set alone and mixed,
 * recording into the stream under attack. */
static uint32_t fa_kclasses(uint32_t r)
{
	static const uint32_t mix[] = { 0, POSIX_TRACE_KCLASS_SYSCALL,
					POSIX_TRACE_KCLASS_SIGNAL,
					POSIX_TRACE_KCLASS_SCHED,
					POSIX_TRACE_KCLASS_FAULT,
					POSIX_TRACE_KCLASS_PROCESS,
					POSIX_TRACE_KCLASS_ALL };

	return mix[r % 7];
}

static int fa_create(int fd, const struct fa_spec *sp, struct posix_trace_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->pid = (uint32_t)sp->pid;
	c->stream_policy = sp->policy;
	c->inherit = sp->inherit;
	c->stream_size = sp->size;
	c->max_data_size = sp->max_data;
	c->kernel_classes = sp->kclasses;
	if (sp->log_fd >= 0) {
		c->flags = POSIX_TRACE_CREATE_LOG;
		c->log_fd = (uint32_t)sp->log_fd;
		c->log_policy = sp->log_policy;
		c->log_size = sp->log_size;
	}
	return fa_ioctl(fd, POSIX_TRACE_IOC_CREATE, c);
}

/* A regular file for a log, with no name (the guest's /tmp is a tmpfs). */
static int fa_tmpfile(void)
{
	return open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

static bool fa_put(int fd)
{
	return write(fd, "x", 1) == 1;
}

/* One byte from @fd within @ms; false on timeout or EOF. */
static bool fa_get(int fd, int ms)
{
	char c;

	return st_wait_fd(fd, ms) && read(fd, &c, 1) == 1;
}

/* Reap child @pid within @ms; false if it is still there. */
static bool fa_reap(pid_t pid, unsigned int ms, int *status)
{
	uint64_t end = fa_after_ms(ms);
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return true;
		if (r < 0 && errno != EINTR) {
			*status = 0;	/* not ours to wait for */
			return true;
		}
		if (fa_past(end))
			return false;
		st_sleep_ms(2);
	}
}

/* SIGKILL child @pid and reap it (a stopped one too). */
static void fa_kill_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A helper process: it dies with the thread that forked it. */
static pid_t fa_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

/* The effective uid of process @pid, or -1. */
static long fa_euid(pid_t pid)
{
	char path[64], buf[2048], *s;
	long ruid, euid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (st_read_small_file(path, buf, sizeof(buf)) < 0)
		return -1;
	s = strstr(buf, "\nUid:");
	if (!s || sscanf(s + 5, "%ld %ld", &ruid, &euid) != 2)
		return -1;
	return euid;
}

/* Drop to FA_UID when we are root, as a child racing as a plain user. */
static bool fa_unprivileged(void)
{
	return getuid() != 0 || !st_set_creds(FA_UID, FA_UID, 1);
}

/* ------------------------------------------------------------------ */
/* Process trees                                                       */
/* ------------------------------------------------------------------ */

enum fa_shape { SHAPE_DEAD, SHAPE_NESTED, SHAPE_MIXED, SHAPE_WIDE, SHAPE_NR };

struct fa_tree {
	int shape;
	int size;		/* generations, or children of a wide tree */
	uint32_t names;		/* 1 in @names processes opens a name (0: none) */
	uint32_t events;	/* 1 in @events records an event (0: none) */
	bool map_page;		/* the root maps page 0, else opens a name */
	bool own_stream;	/* the root traces itself and its descendants */
	bool exec;		/* the root runs in a fresh image */
	int log;		/* that stream's log, or -1 */
	uint64_t deadline;	/* no process is born after it */
	uint64_t seed;
	int go;			/* the worker's stream is there */
};

static bool fa_tree_over(const struct fa_tree *tr)
{
	return atomic_load(&sh->stop) || fa_past(tr->deadline);
}

/* What process @n of a tree does before it forks or waits. */
static void fa_tree_work(const struct fa_tree *tr, struct fa_rng *r, int fd, int n)
{
	char name[32];

	atomic_fetch_add(&sh->fa.tree_procs, 1);
	if (tr->names && !fa_rn(r, tr->names)) {
		snprintf(name, sizeof(name), "fa-tree-%d", n % 2048);
		fa_name(fd, 0, name);
	}
	if (tr->events && !fa_rn(r, tr->events))
		fa_event(fd, 0, fa_rn(r, 64));
}

/*
 * A chain: each generation forks the next, then exits at once (every
 * ancestor of the last one is dead), after its child (the deepest exit
 * first), or either.  It ends at its size, its deadline, or a fork that
 * fails (the user's process limit).
 */
static void __attribute__((noreturn)) fa_chain(const struct fa_tree *tr,
					       struct fa_rng *r, int fd)
{
	bool wait;
	pid_t pid;
	int gen;

	for (gen = 0; gen < tr->size && !fa_tree_over(tr); gen++) {
		fa_tree_work(tr, r, fd, gen);
		wait = tr->shape == SHAPE_NESTED ||
		       (tr->shape == SHAPE_MIXED && fa_rn(r, 2));
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0)
			continue;
		if (wait)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	fa_max(&sh->fa.deepest, gen);
	_exit(0);
}

/* Let children go: close their gates @order[from .. to-1]. */
static void fa_release(const int *gate, const int *order, int from, int to,
		       struct fa_rng *r)
{
	int i;

	for (i = from; i < to; i++) {
		close(gate[order[i]]);
		if (!fa_rn(r, 8))
			st_sleep_ms(1);
	}
}

/* A child of a wide tree (some with a child of their own): it exits
 * when its gate closes.
 */
static void __attribute__((noreturn)) fa_wide_child(const struct fa_tree *tr,
						    struct fa_rng *r, int fd,
						    int n, int gate)
{
	char c;

	fa_tree_work(tr, r, fd, n);
	if (!fa_rn(r, 8))
		fork();
	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * A parent with many children, which exit in a random order; the parent
 * exits after a random number of them, a helper lets the rest go once it
 * is gone.
 */
static void __attribute__((noreturn)) fa_wide(const struct fa_tree *tr,
					      struct fa_rng *r, int fd)
{
	int gate[FA_WIDE_MAX] = { 0 }, order[FA_WIDE_MAX] = { 0 };
	int p[2], n = 0, i, j, me, tmp;
	pid_t pid, root = getpid();

	for (i = 0; i < tr->size && !fa_tree_over(tr); i++) {
		if (pipe(p))
			break;
		pid = fork();
		if (pid == 0) {
			for (j = 0; j < n; j++)
				close(gate[j]);
			close(p[1]);
			fa_wide_child(tr, r, fd, i, p[0]);
		}
		close(p[0]);
		if (pid < 0) {
			close(p[1]);
			break;
		}
		order[n] = n;
		gate[n++] = p[1];
		fa_rn(r, 2);	/* the next child's choices differ */
	}
	for (i = n - 1; i > 0; i--) {
		j = fa_rn(r, i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	me = fa_rn(r, n + 1);
	fa_release(gate, order, 0, me, r);
	/* Without the helper the rest go with our exit, all at once. */
	if (me < n && fork() == 0) {
		for (i = 0; i < 2000 && getppid() == root; i++)
			st_sleep_ms(1);
		fa_release(gate, order, me, n, r);
		_exit(0);
	}
	_exit(0);
}

#define FA_TREE_ENV	"FUZZ_TREE_ROOT"

/*
 * The root in a fresh image of this program (the fork of a small process
 * is several times faster than a worker's, whose threads and tables are
 * copied: chains get deeper): its parameters, the shared state's memfd
 * and the pipes it needs pass through the environment.
 */
static void fa_tree_exec(const struct fa_tree *tr)
{
	char env[256], *envp[] = { env, NULL }, *argv[] = { "fuzz-tree-root", NULL };

	snprintf(env, sizeof(env), FA_TREE_ENV "=%d %llu %d %d %u %u %d %d %d %d %llu %llu",
		 fz_shared_fd, (unsigned long long)fz_seed, tr->shape, tr->size, tr->names,
		 tr->events, tr->map_page, tr->own_stream, tr->log, tr->go,
		 (unsigned long long)tr->deadline, (unsigned long long)tr->seed);
	if (fcntl(fz_shared_fd, F_SETFD, 0) || fcntl(tr->go, F_SETFD, 0) ||
	    (tr->log >= 0 && fcntl(tr->log, F_SETFD, 0)))
		return;
	execve("/proc/self/exe", argv, envp);
}

static void __attribute__((noreturn)) fa_tree_root(struct fa_tree *tr)
{
	struct fa_spec sp = {
		.policy = POSIX_TRACE_POLICY_LOOP, .size = 4096,
		.inherit = POSIX_TRACE_INHERIT_INHERITED, .log_fd = tr->log,
		.log_policy = POSIX_TRACE_LOG_LOOP, .log_size = 65536,
	};
	struct fa_rng r = { tr->seed };
	struct posix_trace_create c;
	int fd;
	void *page;

	setpgid(0, 0);
	if (tr->exec) {
		tr->exec = false;
		fa_tree_exec(tr);	/* on failure, in this image */
	}
	fd = fa_dev();
	/* Known to the module, so every process forked below is too. */
	if (tr->map_page) {
		page = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
		if (page != MAP_FAILED)
			fz_touch(page, page_size);
	} else {
		fa_name(fd, 0, "fa-tree-root");
	}
	if (!fa_get(tr->go, FZ_STEP_BOUND_MS))
		_exit(0);
	/* Its exit shuts it down while its descendants are traced. */
	if (tr->own_stream && !fa_create(fd, &sp, &c))
		fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid);
	if (tr->shape == SHAPE_WIDE)
		fa_wide(tr, &r, fd);
	fa_chain(tr, &r, fd);
}

/* Before main(): a tree's root in its fresh image (fa_tree_exec()). */
__attribute__((constructor)) static void fa_tree_exec_main(void)
{
	const char *env = getenv(FA_TREE_ENV);
	unsigned long long seed, deadline, rseed;
	struct fa_tree tr = { 0 };
	int shfd, map_page, own;

	if (!env)
		return;
	if (sscanf(env, "%d %llu %d %d %u %u %d %d %d %d %llu %llu", &shfd, &seed,
		   &tr.shape, &tr.size, &tr.names, &tr.events, &map_page, &own,
		   &tr.log, &tr.go, &deadline, &rseed) != 12)
		_exit(0);
	page_size = sysconf(_SC_PAGESIZE);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, shfd, 0);
	if (sh == MAP_FAILED)
		_exit(0);
	close(shfd);
	fz_seed = seed;
	tr.map_page = map_page;
	tr.own_stream = own;
	tr.deadline = deadline;
	tr.seed = rseed;
	fa_tree_root(&tr);
}

/*
 * Is a process of group @pgrp alive (a zombie is not: orphans are the
 * test process's to reap)?  *@who and *@state say which, if one is.
 */
static bool fa_group_alive(pid_t pgrp, pid_t *who, char *state)
{
	char path[300], buf[512], *s, st;
	struct dirent *d;
	bool alive = false;
	DIR *dir;
	int g;

	dir = opendir("/proc");
	if (!dir)
		return false;
	while (!alive && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		if (st_read_small_file(path, buf, sizeof(buf)) < 0)
			continue;
		/* "pid (comm) S ppid pgrp ...": comm may hold anything */
		s = strrchr(buf, ')');
		if (!s || sscanf(s + 1, " %c %*d %d", &st, &g) != 2)
			continue;
		if (g == pgrp && st != 'Z' && st != 'X') {
			alive = true;
			*who = atoi(d->d_name);
			*state = st;
		}
	}
	closedir(dir);
	return alive;
}

/* Where process @pid is: its wait channel and kernel stack (root only),
 * in a static buffer.
 */
static const char *fa_where(pid_t pid)
{
	static __thread char buf[400];
	const char *files[] = { "comm", "wchan", "stack" };
	char path[64];
	size_t len = 0;
	unsigned int i;
	ssize_t n;
	int fd;

	buf[0] = '\0';
	for (i = 0; i < 3 && len < sizeof(buf) - 2; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, files[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf + len, sizeof(buf) - 2 - len);
		close(fd);
		if (n <= 0)
			continue;
		for (len += n; len && buf[len - 1] == '\n'; len--)
			;
		buf[len++] = ' ';
		buf[len] = '\0';
	}
	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			buf[i] = '|';
	return buf;
}

/* Where each thread of process @pid is (root only): "tid state stack"
 * per thread, '|' between frames, in a static buffer.
 */
static const char *fa_where_threads(pid_t pid)
{
	static __thread char buf[1200];
	char path[64], one[400];
	struct dirent *de;
	size_t len = 0;
	DIR *dir;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return buf;
	while ((de = readdir(dir)) && len < sizeof(buf) - 64) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, tid);
		if (fz_read_stack(path, one, sizeof(one)) < 0)
			one[0] = '\0';
		len += snprintf(buf + len, sizeof(buf) - len, "[%d %c: %s] ", tid,
				st_proc_state(tid), one);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	closedir(dir);
	return buf;
}

/* The tree is gone: shut our stream on it down. */
static void fa_tree_done(struct fz_tree *tr)
{
	uint64_t t0;

	if (tr->trid) {
		t0 = st_now_ns(CLOCK_MONOTONIC);
		fa_ctl(tr->fd, POSIX_TRACE_IOC_SHUTDOWN, tr->trid);
		fa_bound(t0, FA_CALL_BOUND_MS, "shutdown of a tree's inherited stream",
			 tr->variant);
	}
	fa_close(&tr->fd);
	fa_close(&tr->log);
}

/*
 * One look at tree @tr (its process group): true once no process of it
 * is left.  It is killed after its kill_ms if that is >= 0, or when it
 * outlives its end; a process that survives SIGKILL is stuck in the
 * kernel, a failure.  The root, our child, is reaped only then: its pid
 * names the group, and a pid is not reused while its zombie is there.
 */
static bool fa_tree_check(struct fz_tree *tr)
{
	int status;
	pid_t who;
	char st;

	if (!fa_group_alive(tr->root, &who, &st)) {
		while (waitpid(tr->root, &status, 0) < 0 && errno == EINTR)
			;
		fz_check_status("tree root", tr->root, status);
		return true;
	}
	if (!tr->killed && ((tr->kill_ms >= 0 && fa_ms_since(tr->t0) >= (uint64_t)tr->kill_ms) ||
			    fa_past(tr->end))) {
		kill(-tr->root, SIGKILL);
		tr->killed = true;
		tr->end = fa_after_ms(FA_KILLED_MS);
		return false;
	}
	if (!tr->killed || !fa_past(tr->end))
		return false;
	fz_bad("seed %llu: process %d of tree %d (variant %d) outlives SIGKILL by %d ms (state %c, %s)",
	       (unsigned long long)fz_seed, (int)who, (int)tr->root, tr->variant,
	       FA_KILLED_MS, st, fa_where(who));
	fa_kill_reap(tr->root);
	return true;
}

static void fa_tree_wait(struct fz_tree *tr)
{
	while (!fa_tree_check(tr))
		st_sleep_ms(10);
	fa_tree_done(tr);
}

/* Forget the trees of @p that are gone; false if the table stays full. */
static bool fa_trees_poll(struct fz_proc *p)
{
	bool room;
	int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->ntrees; i++) {
		if (!fa_tree_check(&p->trees[i]))
			continue;
		fa_tree_done(&p->trees[i]);
		p->trees[i--] = p->trees[--p->ntrees];
	}
	room = p->ntrees < FZ_TREES;
	pthread_mutex_unlock(&p->lock);
	return room;
}

/* At the end of a worker: every tree it started is gone. */
void fa_proc_cleanup(struct fz_proc *p)
{
	while (p->ntrees) {
		fa_tree_wait(&p->trees[0]);
		p->trees[0] = p->trees[--p->ntrees];
	}
}

/*
 * Process trees of known processes, with exits in every order (issue 19,
 * item 1): no release path may recurse as deep as the user chooses.  A
 * chain gets FA_CHAIN_BUDGET_MS to grow (under TCG, a chain among busy
 * workers gains 50 generations a second), more than a step may take: it
 * runs on while the worker goes on, and is waited for when the worker
 * ends; FZ_TREES at a time.  A deterministic run waits for each tree in
 * its step, so its trees get FA_TREE_BUDGET_MS.
 */
void op_tree(struct fz_thr *t)
{
	static const uint32_t every[] = { 0, 1, 2, 8 };
	struct fa_spec sp = {
		.policy = POSIX_TRACE_POLICY_LOOP, .log_fd = -1,
		.inherit = POSIX_TRACE_INHERIT_INHERITED,
		.log_policy = POSIX_TRACE_LOG_LOOP, .log_size = 65536,
	};
	struct fz_proc *p = t->p;
	struct posix_trace_create c;
	struct fa_tree tr = { 0 };
	struct fz_tree run = { .fd = -1 };
	unsigned int budget;
	int go[2], stream;
	bool log;
	pid_t root;

	t->op = "process tree";
	if (p->depth > 0)
		return;
	tr.shape = rn(t, SHAPE_NR);
	if (tr.shape == SHAPE_WIDE)
		tr.size = 1 + (int)rn(t, FA_WIDE_MAX);
	else if (tr.shape == SHAPE_NESTED)
		tr.size = 1 + (int)rn(t, FA_NESTED_MAX);
	else		/* half of them at least 4096 generations deep */
		tr.size = rn(t, 2) ? FA_CHAIN_MAX >> rn(t, 2) : 16 << rn(t, 8);
	tr.names = every[rn(t, 4)];
	tr.events = every[rn(t, 4)];
	tr.map_page = rn(t, 2);
	stream = rn(t, 4);	/* 2: the worker's, inherited; 3: the root's */
	tr.own_stream = stream == 3;
	log = rn(t, 2);
	sp.size = 4096 << rn(t, 4);
	sp.kclasses = fa_kclasses(rn(t, 8));	/* half with none */
	tr.seed = rnd(t);
	tr.exec = rn(t, 4);
	budget = (tr.shape == SHAPE_DEAD || tr.shape == SHAPE_MIXED) && !p->det ?
		 FA_CHAIN_BUDGET_MS : FA_TREE_BUDGET_MS;
	run.kill_ms = rn(t, 4) ? -1 : (int)rn(t, budget);
	run.variant = tr.shape * 16 + stream * 2 + log;
	fz_note(t, OP_TREE, run.variant);
	if (!p->det && !fa_trees_poll(p))
		return;
	tr.log = run.log = stream >= 2 && log ? fa_tmpfile() : -1;
	if (pipe2(go, O_CLOEXEC)) {
		fa_close(&run.log);
		return;
	}
	tr.go = go[0];
	run.t0 = st_now_ns(CLOCK_MONOTONIC);
	tr.deadline = run.t0 + budget * 1000000ULL;
	/* A chain grows until the run ends, within its budget. */
	if (fz_end_ns && tr.deadline > fz_end_ns)
		tr.deadline = fz_end_ns > run.t0 + FA_TREE_BUDGET_MS * 1000000ULL ?
			      fz_end_ns : run.t0 + FA_TREE_BUDGET_MS * 1000000ULL;
	run.end = tr.deadline + FA_TREE_END_MS * 1000000ULL;
	root = fork();
	if (root == 0) {
		close(go[1]);
		fa_tree_root(&tr);
	}
	close(go[0]);
	if (root < 0) {
		close(go[1]);
		fa_close(&run.log);
		return;
	}
	atomic_fetch_add(&sh->fa.trees, 1);
	setpgid(root, root);	/* as the root does, whoever is first */
	run.root = root;
	if (stream == 2) {
		run.fd = fa_dev();
		sp.pid = root;
		sp.log_fd = run.log;
		if (!fa_create(run.fd, &sp, &c)) {
			run.trid = c.trid;
			fa_ctl(run.fd, POSIX_TRACE_IOC_START, run.trid);
		}
	}
	fa_put(go[1]);
	close(go[1]);
	if (p->det) {
		fa_tree_wait(&run);
		return;
	}
	/* Another thread may have taken the last place meanwhile. */
	pthread_mutex_lock(&p->lock);
	if (p->ntrees < FZ_TREES) {
		p->trees[p->ntrees++] = run;
		run.root = 0;
	}
	pthread_mutex_unlock(&p->lock);
	if (run.root)
		fa_tree_wait(&run);
}

/* ------------------------------------------------------------------ */
/* Writer lanes that lie over time                                     */
/* ------------------------------------------------------------------ */

enum fa_lie {
	LIE_TURNS,	/* the heads take turns at 0 (logflush_test) */
	LIE_HEAD,	/* head: behind, ahead, misaligned, absurd, and back */
	LIE_OLDEST,
	LIE_INFLIGHT,	/* in-flight times of every kind */
	LIE_RECORDS,	/* record headers rewritten in the ring */
	LIE_PAIR,	/* oldest and head both moved, misaligned, to the ring's end */
	LIE_GROW,	/* honest records, lap after lap */
	LIE_DROPPED,	/* the count of events lost while stopped full */
	LIE_ALL,	/* any of the above, each time */
	LIE_NR
};

struct fa_lane {
	struct posix_trace_writer_ctl *ctl;
	unsigned char *ring;
	size_t map_len;
	uint64_t size, cap;		/* ring bytes; record bytes it holds */
	uint64_t head, oldest, seq;	/* the honest writer's own view */
};

struct fa_lanes {
	struct fa_lane l[FA_LANES_MAX];
	int n;
	int lie;
	struct fa_rng rng;	/* the liar's */
	atomic_int run;
	int fd;			/* the liar records through it, or -1 */
	uint32_t trid;
};

#define FA_STORE(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define FA_LOAD(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

/* Open and map up to @n writer lanes of stream @trid, which traces us. */
static int fa_lanes_open(struct fa_lanes *ls, int fd, uint32_t trid, int n)
{
	struct posix_trace_writer w;
	unsigned char *m;

	ls->n = 0;
	ls->trid = trid;
	while (ls->n < n) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.trid = trid;
		if (fa_ioctl(fd, POSIX_TRACE_IOC_WRITER_OPEN, &w))
			break;
		if (w.data_offset < sizeof(*ls->l[0].ctl) || w.data_size % 8 ||
		    w.capacity < sizeof(struct posix_trace_record) ||
		    w.data_size < w.capacity || w.data_offset + w.data_size > w.mmap_size) {
			fz_bad("seed %llu: WRITER_OPEN gave a lane of %llu bytes, ring %llu at %llu, capacity %llu",
			       (unsigned long long)fz_seed, (unsigned long long)w.mmap_size,
			       (unsigned long long)w.data_size, (unsigned long long)w.data_offset,
			       (unsigned long long)w.capacity);
			break;
		}
		m = mmap(NULL, w.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 w.mmap_offset);
		if (m == MAP_FAILED)
			break;
		ls->l[ls->n++] = (struct fa_lane){
			.ctl = (void *)m, .ring = m + w.data_offset, .map_len = w.mmap_size,
			.size = w.data_size, .cap = w.capacity,
		};
	}
	return ls->n;
}

static void fa_lanes_close(struct fa_lanes *ls)
{
	while (ls->n > 0) {
		ls->n--;
		munmap(ls->l[ls->n].ctl, ls->l[ls->n].map_len);
	}
}

static void fa_ring_write(struct fa_lane *l, uint64_t pos, const void *src, size_t len)
{
	size_t off = pos % l->size, first = len < l->size - off ? len : l->size - off;

	memcpy(l->ring + off, src, first);
	memcpy(l->ring, (const unsigned char *)src + first, len - first);
}

/* Records start 8-aligned in a ring of 8-byte multiples: a size never wraps. */
static uint32_t fa_ring_size_at(const struct fa_lane *l, uint64_t pos)
{
	uint32_t v;

	memcpy(&v, l->ring + (pos & ~7ULL) % l->size, sizeof(v));
	return v;
}

/* One honest record of @len data bytes, the oldest dropped as a LOOP
 * writer drops them (libtrace/writer.c).
 */
static void fa_lane_put(struct fa_lane *l, uint32_t len)
{
	static const unsigned char data[72];
	struct posix_trace_record r = { 0 };
	uint64_t size = (sizeof(r) + len + 7) & ~7ULL;
	uint32_t rsize;

	if (size > l->cap || size - sizeof(r) > sizeof(data))
		return;
	while (l->head + size - l->oldest > l->cap) {
		rsize = fa_ring_size_at(l, l->oldest);
		if (rsize < sizeof(r) || rsize % 8 || rsize > l->head - l->oldest) {
			l->oldest = l->head;
			break;
		}
		l->oldest += rsize;
	}
	FA_STORE(&l->ctl->oldest, l->oldest);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r.size = (uint32_t)size;
	r.event_id = POSIX_TRACE_ID_UNNAMED;
	r.data_len = len;
	r.seq = l->seq++;
	r.timestamp = st_now_ns(CLOCK_MONOTONIC);
	FA_STORE(&l->ctl->inflight_ts, r.timestamp);
	fa_ring_write(l, l->head + sizeof(r), data, size - sizeof(r));
	fa_ring_write(l, l->head, &r, sizeof(r));
	l->head += size;
	FA_STORE(&l->ctl->head, l->head);
	FA_STORE(&l->ctl->inflight_ts, 0);
}

/* Fill every lane, past one lap. */
static void fa_lanes_fill(struct fa_lanes *ls, struct fa_rng *r)
{
	struct fa_lane *l;
	int i, n;

	for (i = 0; i < ls->n; i++) {
		l = &ls->l[i];
		for (n = 0; n < 8192 && l->head < l->cap + l->cap / 2; n++)
			fa_lane_put(l, fa_rn(r, 65));
	}
}

/* A position: near @real, behind it, ahead, misaligned or absurd. */
static uint64_t fa_lie_pos(struct fa_rng *r, const struct fa_lane *l, uint64_t real)
{
	switch (fa_rn(r, 10)) {
	case 0:
		return 0;
	case 1:
		return real + 1 + fa_rn(r, 7);
	case 2:
		return real - 8 * (1 + fa_rn(r, 64));
	case 3:
		return real + 8 * (1 + fa_rn(r, 64));
	case 4:
		return real + l->size;
	case 5:
		return real + l->cap + 8;
	case 6:
		return l->oldest - 8 * fa_rn(r, 4);
	case 7:
		return ~0ULL - fa_rn(r, 64);
	case 8:
		return 1ULL << (32 + fa_rn(r, 32));
	default:	/* near the ring's end, as in item 12 */
		return l->size - 1 - fa_rn(r, 64);
	}
}

static uint64_t fa_lie_ts(struct fa_rng *r)
{
	uint64_t now = st_now_ns(CLOCK_MONOTONIC);

	switch (fa_rn(r, 8)) {
	case 0:
		return 0;
	case 1:
		return POSIX_TRACE_INFLIGHT_CLOCK;
	case 2:
		return now;
	case 3:
		return now - fa_rn(r, 1000) * 1000000ULL;
	case 4:
		return now + (1 + fa_rn(r, 5)) * ST_NSEC_PER_SEC;
	case 5:
		return now + 3600 * ST_NSEC_PER_SEC;
	case 6:
		return ~0ULL;
	default:
		return fz_mix(now);
	}
}

/* Rewrite a header field of a record the lane holds. */
static void fa_lie_record(struct fa_rng *r, struct fa_lane *l)
{
	uint64_t pos = l->oldest, v64;
	int hops = fa_rn(r, 16);
	uint32_t v32, rsize;
	size_t at;

	while (hops-- > 0 && pos < l->head) {
		rsize = fa_ring_size_at(l, pos);
		if (rsize < sizeof(struct posix_trace_record) || rsize % 8)
			break;
		pos += rsize;
	}
	if (pos >= l->head)
		pos = l->oldest;
	switch (fa_rn(r, 6)) {
	case 0: {
		static const uint32_t sizes[] = { 0, 7, 8, 56, 57, 64, 0xfffffff8, 0xffffffff };

		v32 = fa_rn(r, 3) ? sizes[fa_rn(r, 8)] : (uint32_t)l->cap + 8;
		at = offsetof(struct posix_trace_record, size);
		break;
	}
	case 1:
		v32 = fa_rn(r, 2) ? 0xffffffff : (uint32_t)l->cap;
		at = offsetof(struct posix_trace_record, data_len);
		break;
	case 2:
		v32 = fa_rn(r, 2) ? 1 + fa_rn(r, 9) : (uint32_t)fz_mix(pos);
		at = offsetof(struct posix_trace_record, event_id);
		break;
	case 3:
		v32 = (uint32_t)fz_mix(pos);
		at = offsetof(struct posix_trace_record, flags);
		break;
	case 4:
		v64 = fa_rn(r, 2) ? fz_mix(pos) : 0;
		fa_ring_write(l, pos + offsetof(struct posix_trace_record, seq), &v64, 8);
		return;
	default:
		v64 = fa_lie_ts(r);
		fa_ring_write(l, pos + offsetof(struct posix_trace_record, timestamp), &v64, 8);
		return;
	}
	fa_ring_write(l, pos + at, &v32, 4);
}

/*
 * A span that looks like records but ends past the ring or straddles its
 * end, at a position that is not 8-aligned (issue 19, item 12: oldest =
 * size - 33, head = size - 1 made the reader load 8 bytes at the last
 * byte of the mapping).
 */
static void fa_lie_pair(struct fa_rng *r, struct fa_lane *l)
{
	uint64_t lap = l->head - l->head % l->size;
	uint64_t head = lap + l->size - 1 - fa_rn(r, 8);
	uint64_t oldest = head - 32 - fa_rn(r, 4) * 8 - fa_rn(r, 2);

	if (fa_rn(r, 4) == 0)
		head += 8 * (1 + fa_rn(r, 8));	/* past the end, wrapping */
	FA_STORE(&l->ctl->oldest, oldest);
	FA_STORE(&l->ctl->head, head);
	fa_spin(fa_rn(r, 20000));
	if (fa_rn(r, 8)) {
		FA_STORE(&l->ctl->head, l->head);
		FA_STORE(&l->ctl->oldest, l->oldest);
	}
}

static void fa_lie_once(struct fa_lanes *ls, int lie)
{
	struct fa_rng *r = &ls->rng;
	struct fa_lane *l = &ls->l[fa_rn(r, ls->n)];
	int i;

	switch (lie) {
	case LIE_TURNS:
		for (i = 0; i < ls->n; i++) {
			FA_STORE(&ls->l[i].ctl->head, 0);
			fa_spin(200);
			FA_STORE(&ls->l[i].ctl->head, ls->l[i].head);
		}
		break;
	case LIE_HEAD:
		FA_STORE(&l->ctl->head, fa_lie_pos(r, l, l->head));
		fa_spin(fa_rn(r, 2000));
		if (fa_rn(r, 4))
			FA_STORE(&l->ctl->head, l->head);
		break;
	case LIE_OLDEST:
		FA_STORE(&l->ctl->oldest, fa_lie_pos(r, l, l->oldest));
		fa_spin(fa_rn(r, 2000));
		if (fa_rn(r, 4))
			FA_STORE(&l->ctl->oldest, l->oldest);
		break;
	case LIE_INFLIGHT:
		FA_STORE(&l->ctl->inflight_ts, fa_lie_ts(r));
		fa_spin(fa_rn(r, 2000));
		if (fa_rn(r, 2))
			FA_STORE(&l->ctl->inflight_ts, 0);
		break;
	case LIE_RECORDS:
		fa_lie_record(r, l);
		fa_spin(fa_rn(r, 2000));
		break;
	case LIE_PAIR:
		fa_lie_pair(r, l);
		break;
	case LIE_GROW:
		fa_lane_put(l, fa_rn(r, 65));
		break;
	case LIE_DROPPED:	/* summed at the log's end: saturates */
		FA_STORE(&l->ctl->dropped, fa_rn(r, 2) ? ~0ULL - fa_rn(r, 4) :
			 FA_LOAD(&l->ctl->dropped) + fa_rn(r, 1000));
		break;
	default:
		fa_lie_once(ls, fa_rn(r, LIE_ALL));
		break;
	}
}

/* Lie until told to stop; now and then an event through the kernel. */
static void fa_lie_loop(struct fa_lanes *ls, uint64_t deadline)
{
	unsigned long n = 0;

	while (atomic_load(&ls->run) && !fa_past(deadline)) {
		fa_lie_once(ls, ls->lie);
		if (++n % 64)
			continue;
		atomic_fetch_add(&sh->fa.lies, 64);
		if (ls->fd >= 0)
			fa_event(ls->fd, ls->trid, 8);
		sched_yield();
	}
}

static void *fa_liar(void *arg)
{
	fa_lie_loop(arg, ~0ULL);
	return NULL;
}

static bool fa_liar_start(struct fa_lanes *ls, pthread_t *th)
{
	atomic_fetch_add(&sh->fa.lanes, 1);
	atomic_store(&ls->run, 1);
	return !pthread_create(th, NULL, fa_liar, ls);
}

static void fa_liar_stop(struct fa_lanes *ls, pthread_t th, bool *lying)
{
	if (!*lying)
		return;
	atomic_store(&ls->run, 0);
	pthread_join(th, NULL);
	*lying = false;
}

/* The flusher publishes its position in each lane as the lane's tail: it
 * may never move back (issue 19, item 2).
 */
static void fa_check_tails(const struct fa_lanes *ls, uint64_t *last, int variant)
{
	uint64_t tail;
	int i;

	for (i = 0; i < ls->n; i++) {
		tail = FA_LOAD(&ls->l[i].ctl->tail);
		if ((int64_t)(tail - last[i]) < 0)
			fz_bad("seed %llu: the flusher's position in lane %d went back from %llu to %llu (variant %d)",
			       (unsigned long long)fz_seed, i, (unsigned long long)last[i],
			       (unsigned long long)tail, variant);
		last[i] = tail;
	}
}

struct fa_lanes_run {
	struct fa_spec sp;
	int nlanes;
	unsigned int lie_ms;
	int end;		/* 0: stop lying first; 1: lie on; 2: leave head 0 */
	int variant;
	struct fa_rng rng;	/* the controller's */
};

/* Controller and traced process in one: flush while our lanes lie, then
 * shut the stream down.
 */
static void fa_lanes_flush_self(struct fa_lanes *ls, struct fa_lanes_run *lr)
{
	uint64_t tails[FA_LANES_MAX] = { 0 }, t0, t1;
	struct posix_trace_create c;
	bool lying = false;
	int fd = fa_dev();
	pthread_t th;

	lr->sp.pid = 0;
	lr->sp.log_fd = fa_tmpfile();
	if (fd < 0 || lr->sp.log_fd < 0 || fa_create(fd, &lr->sp, &c))
		goto out;
	if (fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid) ||
	    !fa_lanes_open(ls, fd, c.trid, lr->nlanes))
		goto shut;
	fa_lanes_fill(ls, &lr->rng);
	fa_ctl(fd, POSIX_TRACE_IOC_FLUSH, c.trid);	/* UNTIL_FULL may fill */
	fa_check_tails(ls, tails, lr->variant);
	lying = fa_liar_start(ls, &th);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (lying && fa_ms_since(t0) < lr->lie_ms) {
		t1 = st_now_ns(CLOCK_MONOTONIC);
		fa_ctl(fd, fa_rn(&lr->rng, 8) ? POSIX_TRACE_IOC_FLUSH : POSIX_TRACE_IOC_STATUS,
		       c.trid);
		fa_bound(t1, FA_CALL_BOUND_MS, "a flush with lying lanes", lr->variant);
		atomic_fetch_add(&sh->fa.lane_calls, 1);
		fa_check_tails(ls, tails, lr->variant);
	}
	if (lr->end != 1)
		fa_liar_stop(ls, th, &lying);
	if (lr->end == 2 && ls->n)
		FA_STORE(&ls->l[0].ctl->head, 0);
shut:
	t1 = st_now_ns(CLOCK_MONOTONIC);
	fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
	fa_bound(t1, FA_CALL_BOUND_MS, "a shutdown with lying lanes", lr->variant);
	fa_liar_stop(ls, th, &lying);
	fa_lanes_close(ls);
out:
	fa_close(&fd);
	fa_close(&lr->sp.log_fd);
}

/* The traced process of another controller: opens lanes in the stream
 * whose trid comes on @go, fills them, lies until its deadline.
 */
static void __attribute__((noreturn)) fa_lanes_target(struct fa_lanes *ls,
						      struct fa_lanes_run *lr,
						      int go, bool record)
{
	uint32_t trid;
	int fd = fa_dev();

	if (!st_wait_fd(go, FZ_STEP_BOUND_MS) || read(go, &trid, sizeof(trid)) != sizeof(trid))
		_exit(0);
	if (!fa_lanes_open(ls, fd, trid, lr->nlanes))
		_exit(0);
	fa_lanes_fill(ls, &lr->rng);
	ls->fd = record ? fd : -1;
	atomic_fetch_add(&sh->fa.lanes, 1);
	atomic_store(&ls->run, 1);
	fa_lie_loop(ls, fa_after_ms(lr->lie_ms + FA_CALL_BOUND_MS));
	_exit(0);
}

/* A controller that flushes a while, then exits with the stream running:
 * the exit's final flush must end (issue 19, item 2).
 */
static void __attribute__((noreturn)) fa_lanes_controller(struct fa_lanes_run *lr,
							  int go)
{
	struct posix_trace_create c;
	int fd = fa_dev();
	uint64_t t0;

	lr->sp.log_fd = fa_tmpfile();
	if (fd < 0 || lr->sp.log_fd < 0 || fa_create(fd, &lr->sp, &c) ||
	    fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid) ||
	    write(go, &c.trid, sizeof(c.trid)) != sizeof(c.trid))
		_exit(0);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (fa_ms_since(t0) < lr->lie_ms)
		fa_ctl(fd, POSIX_TRACE_IOC_FLUSH, c.trid);
	_exit(0);
}

/* Wait for the exit of controller @pid, begun after @ms at most. */
static void fa_wait_exit(pid_t pid, unsigned int ms, const char *what, int variant)
{
	int status;

	if (fa_reap(pid, ms, &status)) {
		fz_check_status(what, pid, status);
		return;
	}
	fz_bad("seed %llu: %s %d has not exited after %u ms (state %c, variant %d; %s)",
	       (unsigned long long)fz_seed, what, (int)pid, ms, st_proc_state(pid), variant,
	       fa_where_threads(pid));
	fa_kill_reap(pid);
}

static void fa_lanes_flush_exit(struct fa_lanes *ls, struct fa_lanes_run *lr)
{
	int go[2];
	pid_t target, ctl;

	if (pipe2(go, O_CLOEXEC))
		return;
	target = fa_fork();
	if (target == 0) {
		close(go[1]);
		fa_lanes_target(ls, lr, go[0], false);
	}
	close(go[0]);
	ctl = target > 0 ? fa_fork() : -1;
	if (ctl == 0) {
		lr->sp.pid = target;
		fa_lanes_controller(lr, go[1]);
	}
	close(go[1]);
	if (ctl > 0)
		fa_wait_exit(ctl, lr->lie_ms + FA_CALL_BOUND_MS, "controller of lying lanes",
			     lr->variant);
	fa_kill_reap(target);
}

static void fa_lanes_draw(struct fz_thr *t, struct fa_lanes *ls,
			  struct fa_lanes_run *lr)
{
	memset(ls, 0, sizeof(*ls));
	memset(lr, 0, sizeof(*lr));
	ls->fd = -1;
	ls->lie = rn(t, LIE_NR);
	ls->rng.s = rnd(t);
	lr->rng.s = rnd(t);
	lr->nlanes = 1 + rn(t, FA_LANES_MAX);
	lr->lie_ms = FA_LIE_MS_MIN + rn(t, FA_LIE_MS_MAX - FA_LIE_MS_MIN);
	lr->end = rn(t, 3);
	lr->sp.size = 4096 << rn(t, 5);
	lr->sp.kclasses = fa_kclasses(rn(t, 8));
	lr->sp.max_data = 64;
	lr->sp.log_fd = -1;
}

/*
 * Writer lanes that lie while the kernel's flusher reads them (streams
 * with log): each flush, the shutdown's final one and the exit of a
 * controller are bounded, and the flusher never goes back in a lane.
 */
void op_lanes_flush(struct fz_thr *t)
{
	static const uint32_t log_policies[] = {
		POSIX_TRACE_LOG_LOOP, POSIX_TRACE_LOG_UNTIL_FULL, POSIX_TRACE_LOG_APPEND,
	};
	static const uint32_t policies[] = {
		POSIX_TRACE_POLICY_LOOP, POSIX_TRACE_POLICY_UNTIL_FULL,
		POSIX_TRACE_POLICY_FLUSH,
	};
	struct fa_lanes_run lr;
	struct fa_lanes ls;
	bool cross;

	t->op = "lying lanes, flushed";
	if (t->p->depth > 0)
		return;
	fa_lanes_draw(t, &ls, &lr);
	lr.sp.policy = policies[rn(t, 3)];
	lr.sp.log_policy = log_policies[rn(t, 3)];
	lr.sp.log_size = 16384 << rn(t, 4);
	cross = !rn(t, 3);
	lr.variant = ls.lie * 8 + cross * 4 + lr.end;
	fz_note(t, OP_LANES, lr.variant);
	if (cross)
		fa_lanes_flush_exit(&ls, &lr);
	else
		fa_lanes_flush_self(&ls, &lr);
}

/* A read of the library against lying lanes, bounded; @fd records the
 * event a blocking read waits for.
 */
static void fa_lanes_read_once(struct fa_lanes_run *lr, trace_id_t trid, int fd,
			       bool may_block)
{
	struct posix_trace_status_info st;
	struct st_ev ev;
	uint64_t t0 = st_now_ns(CLOCK_MONOTONIC);
	int n;

	fz_in_lib = 1;
	switch (fa_rn(&lr->rng, 4)) {
	case 0:
		for (n = 1 + fa_rn(&lr->rng, 20); n > 0; n--)
			if (st_try(trid, &ev) || ev.unavailable)
				break;
		break;
	case 1:
		st_timed_ms(trid, &ev, 1 + fa_rn(&lr->rng, 20));
		break;
	case 2:
		/* An event in the kernel's lane: getnext must come back. */
		if (may_block && !fa_event(fd, trid, 8)) {
			st_get(trid, &ev);
			break;
		}
		st_try(trid, &ev);
		break;
	default:
		posix_trace_get_status(trid, &st);
		break;
	}
	fz_in_lib = 0;
	fa_bound(t0, FA_CALL_BOUND_MS, "a read with lying lanes", lr->variant);
	atomic_fetch_add(&sh->fa.lane_calls, 1);
}

static int fa_lib_create(pid_t pid, const struct fa_spec *sp, trace_id_t *trid)
{
	trace_attr_t a;
	int ret;

	fz_in_lib = 1;
	posix_trace_attr_init(&a);
	posix_trace_attr_setstreamsize(&a, sp->size);
	posix_trace_attr_setstreamfullpolicy(&a, sp->policy);
	posix_trace_attr_setmaxdatasize(&a, sp->max_data);
	ret = posix_trace_create(pid, &a, trid);
	posix_trace_attr_destroy(&a);
	if (!ret)
		ret = posix_trace_start(*trid);
	fz_in_lib = 0;
	return ret;
}

static void fa_lib_shutdown(const struct fa_lanes_run *lr, trace_id_t trid)
{
	uint64_t t0 = st_now_ns(CLOCK_MONOTONIC);

	fz_in_lib = 1;
	posix_trace_shutdown(trid);
	fz_in_lib = 0;
	fa_bound(t0, FA_CALL_BOUND_MS, "a shutdown of the library with lying lanes",
		 lr->variant);
}

/* Our own stream, read by the library, written by lanes of ours that lie. */
static void fa_lanes_read_self(struct fa_lanes *ls, struct fa_lanes_run *lr)
{
	bool lying = false, may_block = lr->sp.policy == POSIX_TRACE_POLICY_LOOP;
	int fd = fa_dev();
	trace_id_t trid;
	pthread_t th;
	uint64_t t0;

	if (fd < 0 || fa_lib_create(0, &lr->sp, &trid)) {
		fa_close(&fd);
		return;
	}
	if (fa_lanes_open(ls, fd, (uint32_t)trid, lr->nlanes)) {
		fa_lanes_fill(ls, &lr->rng);
		lying = fa_liar_start(ls, &th);
	}
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (lying && fa_ms_since(t0) < lr->lie_ms)
		fa_lanes_read_once(lr, trid, fd, may_block);
	if (lr->end != 1)
		fa_liar_stop(ls, th, &lying);
	fa_lib_shutdown(lr, trid);
	fa_liar_stop(ls, th, &lying);
	fa_lanes_close(ls);
	close(fd);
}

/* Another process's lanes lie to our library (root tracing nobody). */
static void fa_lanes_read_cross(struct fa_lanes *ls, struct fa_lanes_run *lr)
{
	trace_id_t trid = 0;
	uint32_t id;
	pid_t target;
	uint64_t t0;
	int go[2];

	if (pipe2(go, O_CLOEXEC))
		return;
	target = fa_fork();
	if (target == 0) {
		close(go[1]);
		fa_lanes_target(ls, lr, go[0], true);
	}
	close(go[0]);
	if (target < 0 || fa_lib_create(target, &lr->sp, &trid))
		goto out;
	id = (uint32_t)trid;
	if (write(go[1], &id, sizeof(id)) != sizeof(id))
		goto out;
	t0 = st_now_ns(CLOCK_MONOTONIC);
	while (fa_ms_since(t0) < lr->lie_ms) {
		fa_lanes_read_once(lr, trid, -1, false);
		/* Lanes of a process that is gone are read as well. */
		if (lr->end == 2 && fa_ms_since(t0) > lr->lie_ms / 2) {
			fa_kill_reap(target);
			target = -1;
		}
	}
out:
	close(go[1]);
	if (trid)
		fa_lib_shutdown(lr, trid);
	fa_kill_reap(target);
}

/*
 * Writer lanes that lie while the library reads them (streams without
 * log): every read and the shutdown are bounded, and the controller does
 * not crash (design.md: a writer cannot make the reader read outside the
 * ring).
 */
void op_lanes_read(struct fz_thr *t)
{
	struct fa_lanes_run lr;
	struct fa_lanes ls;
	bool cross;

	t->op = "lying lanes, read";
	if (t->p->depth > 0 || !t->p->lib_ok)
		return;
	fa_lanes_draw(t, &ls, &lr);
	lr.sp.policy = rn(t, 4) ? POSIX_TRACE_POLICY_LOOP : POSIX_TRACE_POLICY_UNTIL_FULL;
	cross = rn(t, 2);
	lr.variant = ls.lie * 8 + cross * 4 + lr.end;
	fz_note(t, OP_LANES, 1000 + lr.variant);
	if (cross)
		fa_lanes_read_cross(&ls, &lr);
	else
		fa_lanes_read_self(&ls, &lr);
}

/* ------------------------------------------------------------------ */
/* CREATE racing a set-ID exec                                         */
/* ------------------------------------------------------------------ */

/* A set-user-ID root program any user may run, that waits on its stdin. */
static const char *fa_setid_path;

void fa_init(void)
{
	static const char su[] = "/usr/bin/su";
	struct statvfs vfs;
	struct stat st;

	if (stat(su, &st) || !(st.st_mode & S_ISUID) || st.st_uid != 0 ||
	    statvfs(su, &vfs) || (vfs.f_flag & ST_NOSUID) ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return;
	fa_setid_path = su;
}

struct fa_setid {
	const char *path;
	int names;		/* the target opens them before its exec */
	int log;		/* 0, 1: none; 2: a file; 3: a pipe that holds the create */
	unsigned int drain_ms;	/* ...until it is read, after this */
	unsigned int t_spin, c_spin;
	bool thread_exec;	/* the exec comes from a second thread */
	bool c_first;		/* the controller is let go first */
	int ready, go_t, go_c, in, c_ready;
};

static void __attribute__((noreturn)) fa_exec(const struct fa_setid *s)
{
	char *argv[] = { (char *)s->path, NULL };

	execv(s->path, argv);
	_exit(0);
}

static void *fa_exec_thread(void *arg)
{
	fa_exec(arg);
}

/* The target: known with @names names (its mapping holds more than the
 * unnamed id), then execs when told.
 */
static void __attribute__((noreturn)) fa_setid_target(const struct fa_setid *s)
{
	char name[32];
	pthread_t th;
	int fd, i, null;

	if (!fa_unprivileged())
		_exit(FA_X_SETUP);
	fd = fa_dev();
	for (i = 0; i < s->names; i++) {
		snprintf(name, sizeof(name), "fa-setid-%d", i);
		if (fa_name(fd, 0, name))
			_exit(FA_X_SETUP);
	}
	null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(s->in, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(FA_X_SETUP);
	if (!fa_put(s->ready) || !fa_get(s->go_t, FZ_STEP_BOUND_MS))
		_exit(0);
	fa_spin(s->t_spin);
	if (s->thread_exec && !pthread_create(&th, NULL, fa_exec_thread, (void *)s))
		for (;;)
			pause();
	fa_exec(s);
}

/* Shrink pipe @fd to a page and fill it; false if that failed. */
static bool fa_fill_pipe(int fd)
{
	static const char page[4096];
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETPIPE_SZ, (int)sizeof(page)) < 0 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return false;
	while (write(fd, page, sizeof(page)) > 0)
		;
	return errno == EAGAIN && !fcntl(fd, F_SETFL, fl);
}

/* A process that reads @rfd until EOF, after @delay_ms. */
static pid_t fa_drainer(int rfd, int wfd, unsigned int delay_ms)
{
	char buf[4096];
	pid_t pid = fa_fork();

	if (pid)
		return pid;
	close(wfd);
	st_sleep_ms(delay_ms);
	while (read(rfd, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

/*
 * The log of the racing create: a pipe whose full buffer holds the create
 * in its log setup (waiting for the header to be written) until a reader
 * comes, as exec_test's race does; the target's exec falls in between.
 */
static int fa_setid_log(const struct fa_setid *s, struct fa_spec *sp)
{
	int p[2];

	sp->log_policy = POSIX_TRACE_LOG_APPEND;
	if (s->log == 2) {
		sp->log_policy = POSIX_TRACE_LOG_LOOP;
		sp->log_size = 65536;
		return fa_tmpfile();
	}
	if (s->log != 3 || pipe2(p, O_CLOEXEC))
		return -1;
	if (!fa_fill_pipe(p[1]) || fa_drainer(p[0], p[1], s->drain_ms) < 0) {
		close(p[1]);
		p[1] = -1;
	}
	close(p[0]);
	return p[1];
}

/*
 * The controller, as a plain user: creates a stream on @target while it
 * execs.  If the stream got the mapping the exec gave the new image (only
 * the unnamed id: a create that attached after the exec) while the new
 * image runs with root's privileges, the create judged the old image.
 */
static void __attribute__((noreturn)) fa_setid_controller(const struct fa_setid *s,
							  pid_t target)
{
	struct fa_spec sp = {
		.pid = target, .policy = POSIX_TRACE_POLICY_LOOP, .size = 4096,
	};
	struct posix_trace_create c;
	int fd;

	if (!fa_unprivileged())
		_exit(FA_X_SETUP);
	fd = fa_dev();
	sp.log_fd = fa_setid_log(s, &sp);
	if (fd < 0 || !fa_put(s->c_ready) || !fa_get(s->go_c, FZ_STEP_BOUND_MS))
		_exit(0);
	fa_spin(s->c_spin);
	if (fa_create(fd, &sp, &c))
		_exit(0);
	atomic_fetch_add(&sh->fa.race_creates, 1);
	if (s->path == fa_setid_path && fa_nr_user(fd, c.trid) == 1 &&
	    fa_euid(target) == 0)
		_exit(FA_X_ATTACHED);
	fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
	_exit(0);
}

/*
 * Root only: the stacks of the processes and kernel workers that are in
 * the module or a pipe, when a create has not returned (which log worker
 * it waits for, and what that one is doing).
 */
static void fa_where_module(void)
{
	char path[64], buf[2048];
	DIR *d = opendir("/proc");
	int shown = 0;
	struct dirent *de;

	while (d && (de = readdir(d)) && shown < 12) {
		int pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stack", pid);
		if (fz_read_stack(path, buf, sizeof(buf)) < 0)
			continue;
		if (!strstr(buf, "posix_trace") && !strstr(buf, "pipe_write"))
			continue;
		fprintf(stderr, "# where %d %c: %s\n", pid, st_proc_state(pid), buf);
		shown++;
	}
	if (d)
		closedir(d);
}

static void fa_setid_judge(const struct fa_setid *s, pid_t ctl, int variant)
{
	int status;

	if (!fa_reap(ctl, FA_BLOCK_BOUND_MS, &status)) {
		fz_bad("seed %llu: a create racing an exec has not returned after %d ms (state %c, variant %d; %s)",
		       (unsigned long long)fz_seed, FA_BLOCK_BOUND_MS, st_proc_state(ctl),
		       variant, fa_where(ctl));
		fa_where_module();
		fa_kill_reap(ctl);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == FA_X_ATTACHED)
		fz_bad("seed %llu: uid %d's stream attached to its target after the target's exec of %s (variant %d)",
		       (unsigned long long)fz_seed, getuid() ? (int)getuid() : FA_UID,
		       s->path, variant);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != FA_X_SETUP)
		fz_check_status("racing controller", ctl, status);
}

/* The pipes of a race: [0] read, [1] write. */
struct fa_race_pipes {
	int ready[2], go_t[2], go_c[2], in[2], c_ready[2];
};

static bool fa_race_pipes(struct fa_race_pipes *rp, struct fa_setid *s)
{
	int *all[] = { rp->ready, rp->go_t, rp->go_c, rp->in, rp->c_ready };
	unsigned int i;

	for (i = 0; i < 5; i++)
		all[i][0] = all[i][1] = -1;
	for (i = 0; i < 5; i++)
		if (pipe2(all[i], O_CLOEXEC))
			return false;
	s->ready = rp->ready[1];
	s->go_t = rp->go_t[0];
	s->go_c = rp->go_c[0];
	s->in = rp->in[0];
	s->c_ready = rp->c_ready[1];
	return true;
}

static void fa_race_close(struct fa_race_pipes *rp)
{
	int *all[] = { rp->ready, rp->go_t, rp->go_c, rp->in, rp->c_ready };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		fa_close(&all[i][0]);
		fa_close(&all[i][1]);
	}
}

/*
 * CREATE racing its target's exec of a set-user-ID program (issue 19,
 * item 3); as root, both sides are FA_UID.  Without such a program, or
 * now and then, /bin/true: the race without privileges to judge.
 */
void op_setid(struct fz_thr *t)
{
	struct fa_setid s = { 0 };
	struct fa_race_pipes rp;
	pid_t target, ctl = -1;
	bool raced = false;
	int variant;

	t->op = "create racing a set-ID exec";
	if (t->p->depth > 0)
		return;
	s.path = fa_setid_path && rn(t, 4) ? fa_setid_path : "/bin/true";
	s.names = 1 + rn(t, 4);
	s.log = rn(t, 4);
	s.drain_ms = rn(t, 200);
	s.t_spin = rn(t, 4) ? rn(t, 20000) : 0;
	s.c_spin = rn(t, 4) ? rn(t, 20000) : 0;
	s.thread_exec = !rn(t, 4);
	s.c_first = rn(t, 2);
	variant = (s.path == fa_setid_path) * 16 + s.log * 4 + s.thread_exec * 2 + s.c_first;
	fz_note(t, OP_SETID, variant);
	if (!fa_race_pipes(&rp, &s))
		goto out;
	target = fa_fork();
	if (target == 0)
		fa_setid_target(&s);
	if (target < 0)
		goto out;
	/* Only the target holds them now: a target gone is EOF. */
	fa_close(&rp.ready[1]);
	fa_close(&rp.go_t[0]);
	if (fa_get(rp.ready[0], FZ_STEP_BOUND_MS / 3))
		ctl = fa_fork();
	if (ctl == 0)
		fa_setid_controller(&s, target);
	fa_close(&rp.c_ready[1]);
	fa_close(&rp.go_c[0]);
	if (ctl > 0 && fa_get(rp.c_ready[0], FZ_STEP_BOUND_MS / 3)) {
		fa_put(s.c_first ? rp.go_c[1] : rp.go_t[1]);
		fa_put(s.c_first ? rp.go_t[1] : rp.go_c[1]);
		atomic_fetch_add(&sh->fa.races, 1);
		raced = true;
	}
	fa_close(&rp.go_c[1]);
	/* A controller that missed the start is killed: the end of go_c it
	 * waits on may be held open by a child another thread forked
	 * meanwhile, so it might not see EOF.
	 */
	if (ctl > 0 && raced)
		fa_setid_judge(&s, ctl, variant);
	else if (ctl > 0)
		fa_kill_reap(ctl);
	fa_kill_reap(target);
out:
	fa_race_close(&rp);
}

/* ------------------------------------------------------------------ */
/* madvise, mremap and fork of every mapping                           */
/* ------------------------------------------------------------------ */

static const int fa_advice[] = {
	MADV_DOFORK, MADV_KEEPONFORK, MADV_DONTFORK, MADV_WIPEONFORK,
	MADV_DONTNEED, MADV_REMOVE, MADV_DONTNEED_LOCKED, MADV_COLD,
	MADV_PAGEOUT, MADV_WILLNEED, MADV_DONTDUMP, MADV_DODUMP,
	MADV_MERGEABLE, MADV_HUGEPAGE, MADV_FREE, MADV_POPULATE_READ,
	MADV_POPULATE_WRITE, MADV_NORMAL, MADV_SEQUENTIAL,
};
#define FA_NR_ADVICE	(int)(sizeof(fa_advice) / sizeof(fa_advice[0]))

/* Map @len at @off of the device into the table (lock held). */
static void fa_map_one(struct fz_proc *p, int fd, uint64_t off, size_t len, int prot,
		       enum fz_kind kind, bool garbage_ok)
{
	void *a = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	if (a != MAP_FAILED)
		fz_map_add(p, a, len, prot, kind, garbage_ok);
}

/* A stream without log of ours, made (tracing us, with a lane) if
 * there is none; NULL if that failed.  Lock held.
 */
static struct fz_stream *fa_map_stream(struct fz_thr *t, int fd)
{
	struct fa_spec sp = { .policy = POSIX_TRACE_POLICY_LOOP, .size = 4096, .log_fd = -1 };
	struct fz_proc *p = t->p;
	struct posix_trace_writer w = { .size = sizeof(w) };
	struct posix_trace_create c;
	struct fz_stream s = { .logfd = -1 };
	int i, n = 0, pick[FZ_STREAMS];

	for (i = 0; i < p->nst; i++)
		if (!p->st[i].log)
			pick[n++] = i;
	if (n)
		return &p->st[pick[rn(t, n)]];
	if (fa_create(fd, &sp, &c))
		return NULL;
	s.trid = c.trid;
	s.ro_off = c.ro_offset;
	s.ro_size = c.ro_size;
	s.cons_off = c.cons_offset;
	s.cons_size = c.cons_size;
	if (!fz_stream_add(p, &s)) {
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
		return NULL;
	}
	w.trid = c.trid;
	if (!fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid) && p->nwr < FZ_WRITERS &&
	    !fa_ioctl(fd, POSIX_TRACE_IOC_WRITER_OPEN, &w))
		p->wr[p->nwr++] = (struct fz_writer){
			.trid = w.trid, .off = w.mmap_offset, .size = w.mmap_size,
			.data_off = w.data_offset, .data_size = w.data_size,
		};
	return &p->st[p->nst - 1];
}

/* Fresh mappings of each kind: the status page, a stream's read-only
 * and consumer regions, a writer lane (lock held).
 */
static void fa_map_fresh(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	struct fz_stream *s;
	struct fz_writer *w;
	int fd = fa_dev();

	if (fd < 0)
		return;
	fa_map_one(p, fd, 0, page_size, PROT_READ, K_PROC, false);
	s = fa_map_stream(t, fd);
	if (s) {
		fa_map_one(p, fd, s->ro_off, s->ro_size, PROT_READ, K_RO, false);
		fa_map_one(p, fd, s->cons_off, s->cons_size, PROT_READ | PROT_WRITE,
			   K_CONS, !s->lib);
	}
	w = p->nwr ? &p->wr[rn(t, p->nwr)] : NULL;
	if (w)
		fa_map_one(p, fd, w->off, w->size, PROT_READ | PROT_WRITE, K_WRITER, true);
	close(fd);
}

/* mremap @m: grow, shrink or move it; 0 or the errno. */
static int fa_remap(struct fz_thr *t, struct fz_map *m, size_t pages, int how)
{
	unsigned char *to, *r;
	size_t len;
	int flags;

	switch (how) {
	case 0:		/* grow: refused for VM_DONTEXPAND */
		r = mremap(m->addr, m->len, m->len + page_size, MREMAP_MAYMOVE);
		if (r == MAP_FAILED)
			return errno;
		m->addr = r;
		m->len += page_size;
		m->zapped = true;	/* the new page has nothing behind it */
		return 0;
	case 1:		/* shrink */
		if (pages < 2)
			return EINVAL;
		len = (pages - 1 - rn(t, pages - 1)) * page_size;
		r = mremap(m->addr, m->len, len, 0);
		if (r == MAP_FAILED)
			return errno;
		m->len = len;
		return 0;
	default:	/* move, onto a place reserved for it */
		to = mmap(NULL, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (to == MAP_FAILED)
			return errno;
		flags = MREMAP_MAYMOVE | MREMAP_FIXED | (rn(t, 4) ? 0 : MREMAP_DONTUNMAP);
		r = mremap(m->addr, m->len, m->len, flags, to);
		if (r == MAP_FAILED) {
			munmap(to, m->len);
			return errno;
		}
		if (flags & MREMAP_DONTUNMAP)
			munmap(m->addr, m->len);
		m->addr = r;
		return 0;
	}
}

/* One madvise or mremap of @m, within it; 0 or the errno.  *@code says
 * what it was, for the report.
 */
static int fa_map_op(struct fz_thr *t, struct fz_map *m, int *code)
{
	size_t pages = (m->len + page_size - 1) / page_size, first, count;
	int what = rn(t, 10), adv, err;

	first = rn(t, pages);
	count = 1 + rn(t, pages - first);
	if (what >= 7) {
		*code = 100 + what - 7;
		return fa_remap(t, m, pages, what - 7);
	}
	adv = fa_advice[rn(t, 2) ? rn(t, 4) : rn(t, FA_NR_ADVICE)];
	if (!rn(t, 3)) {
		first = 0;
		count = pages;
	}
	*code = adv;
	err = fz_err(madvise(m->addr + first * page_size, count * page_size, adv));
	/* The status page's fault handler gives its page back; the others
	 * have none.
	 */
	if (!err && (adv == MADV_DONTNEED || adv == MADV_DONTNEED_LOCKED) &&
	    m->kind != K_PROC)
		m->zapped = true;
	return err;
}

/* Does the line of /proc/self/maps map a stream region or a lane (the
 * device at an offset other than 0, the status page's)?
 */
static bool fa_maps_line_stream(const char *line)
{
	size_t n = strlen(line), d = strlen(ST_DEVICE);
	const char *s = line;
	int i;

	if (n <= d || strcmp(line + n - d, ST_DEVICE) || line[n - d - 1] != ' ')
		return false;
	for (i = 0; i < 2; i++) {
		s = strchr(s, ' ');
		if (!s)
			return false;
		s++;
	}
	return strtoull(s, NULL, 16) != 0;
}

/* In a forked child: how many stream regions and lanes it has, with
 * read() and no stdio (the parent may have other threads).
 */
static int fa_count_stream_maps(void)
{
	char buf[4096], line[512];
	size_t len = 0;
	int fd, found = 0;
	ssize_t n, i;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			found += fa_maps_line_stream(line);
			len = 0;
		}
	}
	close(fd);
	return n < 0 ? -1 : found;
}

/* Fork a child that counts what it inherited: none may be there. */
static void fa_fork_check(const char *what)
{
	int status, n;
	pid_t pid = fork();

	if (pid == 0) {
		n = fa_count_stream_maps();
		_exit(n < 0 ? FA_X_NO_MAPS : n > 9 ? 9 : n);
	}
	if (pid < 0)
		return;
	if (!fa_reap(pid, FZ_STEP_BOUND_MS / 2, &status)) {
		fz_bad("seed %llu: a forked child has not exited after %d ms (state %c)",
		       (unsigned long long)fz_seed, FZ_STEP_BOUND_MS / 2, st_proc_state(pid));
		fa_kill_reap(pid);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) > 0 &&
	    WEXITSTATUS(status) != FA_X_NO_MAPS)
		fz_bad("seed %llu: a forked child inherited %d stream region or lane mapping(s); this step did %s",
		       (unsigned long long)fz_seed, WEXITSTATUS(status), what);
	else
		fz_check_status("forked child", pid, status);
	atomic_fetch_add(&sh->fa.fork_checks, 1);
}

/*
 * madvise and mremap of the mappings, then a fork: a child inherits no
 * stream region and no writer lane (issue 19, item 8; MODEL-42).
 */
void op_mapfork(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	char what[192];
	int n, i, err, code, len = 0;

	t->op = "madvise/mremap/fork";
	if (p->depth > 0)
		return;
	what[0] = '\0';
	pthread_mutex_lock(&p->lock);
	if (rn(t, 2))
		fa_map_fresh(t);
	for (n = 1 + rn(t, 4); n > 0 && p->nmap; n--) {
		i = rn(t, p->nmap);
		err = fa_map_op(t, &p->map[i], &code);
		atomic_fetch_add(&sh->fa.map_ops, 1);
		fz_note(t, OP_MADV_BASE + (code < 100 ? code : code - 50), err);
		if (len < (int)sizeof(what) - 1)
			len += snprintf(what + len, sizeof(what) - len, "%skind %d op %d: %d",
					len ? ", " : "", p->map[i].kind, code, err);
	}
	fa_fork_check(len ? what : "no operation");
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_MAPFORK, 0);
}

/* The first words of a status page, which tell one page from another. */
struct fa_page_head {
	uint32_t size, active;
	uint64_t generation;
	uint32_t nr_ids, nr_slots, unslotted, reserved0;
};

/* In the child: is @pg its own status page?  It is compared with a
 * mapping made now, which is, while that one does not change meanwhile.
 */
static bool fa_page_is_own(const void *pg, int fd)
{
	struct fa_page_head a, b, c;
	void *own = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	int i;

	if (own == MAP_FAILED)
		return true;
	for (i = 0; i < 10; i++) {
		memcpy(&a, own, sizeof(a));
		memcpy(&b, pg, sizeof(b));
		memcpy(&c, own, sizeof(c));
		if (!memcmp(&a, &c, sizeof(a)))
			return !memcmp(&a, &b, sizeof(a));
	}
	return true;
}

/*
 * The status page, told to be kept on fork (MADV_KEEPONFORK clears its
 * VM_WIPEONFORK): a child must still read its own page, never its
 * parent's (design.md section 5).  The parent changes its page after the
 * fork (a stream of its own) so that the two differ.
 */
void op_procfork(struct fz_thr *t)
{
	struct fa_spec sp = { .policy = POSIX_TRACE_POLICY_LOOP, .size = 4096, .log_fd = -1 };
	int extra = rn(t, 4), flags = rn(t, 2) ? MAP_SHARED : MAP_PRIVATE;
	int fd, sync[2], status;
	struct posix_trace_create c;
	uint32_t trid = 0;
	unsigned char *pg, *r;
	pid_t pid;

	t->op = "status page kept on fork";
	if (t->p->depth > 0)
		return;
	fz_note(t, OP_PROCFORK, extra);
	fd = fa_dev();
	pg = mmap(NULL, page_size, PROT_READ, flags, fd, 0);
	if (pg == MAP_FAILED || pipe2(sync, O_CLOEXEC)) {
		if (pg != MAP_FAILED)
			munmap(pg, page_size);
		fa_close(&fd);
		return;
	}
	madvise(pg, page_size, MADV_KEEPONFORK);
	if (extra == 1)
		madvise(pg, page_size, MADV_DOFORK);
	if (extra == 2)
		madvise(pg, page_size, MADV_DONTNEED);
	if (extra == 3) {
		r = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r != MAP_FAILED)
			r = mremap(pg, page_size, page_size, MREMAP_MAYMOVE | MREMAP_FIXED, r);
		if (r != MAP_FAILED)
			pg = r;
	}
	fz_touch(pg, page_size);	/* in the page table, to be copied */
	pid = fork();
	if (pid == 0) {
		close(sync[1]);
		fa_get(sync[0], FZ_STEP_BOUND_MS / 2);
		_exit(fa_page_is_own(pg, fd) ? 0 : 1);
	}
	close(sync[0]);
	if (pid > 0) {
		if (!fa_create(fd, &sp, &c)) {
			trid = c.trid;
			fa_ctl(fd, POSIX_TRACE_IOC_START, trid);
		}
		fa_put(sync[1]);
		if (!fa_reap(pid, FZ_STEP_BOUND_MS / 2, &status))
			fa_kill_reap(pid);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			fz_bad("seed %llu: a child reads its parent's status page after MADV_KEEPONFORK (%s, extra %d)",
			       (unsigned long long)fz_seed,
			       flags == MAP_SHARED ? "shared" : "private", extra);
		else
			fz_check_status("status page child", pid, status);
		atomic_fetch_add(&sh->fa.page_checks, 1);
	}
	close(sync[1]);
	if (trid)
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, trid);
	munmap(pg, page_size);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Logs that block                                                     */
/* ------------------------------------------------------------------ */

enum fa_sink_kind {
	SINK_STOPPED_PIPE,	/* its reader is stopped (SIGSTOP) */
	SINK_OWN_FIFO,		/* a FIFO whose only reader is us, never reading */
	SINK_HELD_PIPE,		/* we hold the read end and never read */
	SINK_HELD_SOCKET,	/* a socket whose peer never reads */
	SINK_SLOW_PIPE,		/* its reader takes 4 KiB every 50 ms */
	SINK_STOPPED_FIFO,	/* a FIFO whose reader is stopped */
	SINK_NR
};

enum fa_block_op { BLOCK_FLUSH, BLOCK_SHUTDOWN, BLOCK_EXIT, BLOCK_NR };

struct fa_sink {
	int kind;
	int w;			/* the log */
	int r;			/* a read end or peer we hold, or -1 */
	pid_t reader;		/* a reader process, or 0 */
	char fifo[64];
};

static void __attribute__((noreturn)) fa_reader(int fd, bool slow)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		if (slow)
			st_sleep_ms(50);
	_exit(0);
}

/* A FIFO's reader: it opens the FIFO itself, then reads. */
static pid_t fa_fifo_reader(const char *path)
{
	pid_t pid = fa_fork();
	int fd;

	if (pid)
		return pid;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(0);
	fa_reader(fd, false);
}

/* Open a FIFO for writing once its reader came (within 2 s). */
static int fa_fifo_writer(const char *path)
{
	int i, fd = -1;

	for (i = 0; i < 400 && fd < 0; i++) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && errno != ENXIO)
			break;
		if (fd < 0)
			st_sleep_ms(5);
	}
	if (fd >= 0)
		fcntl(fd, F_SETFL, O_WRONLY);
	return fd;
}

static bool fa_sink_open(struct fa_sink *k, bool small)
{
	static atomic_uint nr;
	int p[2];

	k->w = k->r = -1;
	k->reader = 0;
	k->fifo[0] = '\0';
	switch (k->kind) {
	case SINK_OWN_FIFO:
	case SINK_STOPPED_FIFO:
		snprintf(k->fifo, sizeof(k->fifo), "/tmp/fuzz-fifo-%d-%u", (int)getpid(),
			 atomic_fetch_add(&nr, 1));
		if (mkfifo(k->fifo, 0600)) {
			k->fifo[0] = '\0';
			return false;
		}
		if (k->kind == SINK_OWN_FIFO) {
			k->r = open(k->fifo, O_RDWR | O_CLOEXEC);
			k->w = k->r < 0 ? -1 : open(k->fifo, O_WRONLY | O_CLOEXEC);
		} else {
			k->reader = fa_fifo_reader(k->fifo);
			k->w = k->reader > 0 ? fa_fifo_writer(k->fifo) : -1;
		}
		break;
	case SINK_HELD_SOCKET:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p))
			return false;
		k->r = p[0];
		k->w = p[1];
		return true;
	default:
		if (pipe2(p, O_CLOEXEC))
			return false;
		k->w = p[1];
		if (k->kind == SINK_HELD_PIPE) {
			k->r = p[0];
			break;
		}
		k->reader = fa_fork();
		if (k->reader == 0) {
			close(p[1]);
			fa_reader(p[0], k->kind == SINK_SLOW_PIPE);
		}
		close(p[0]);
		break;
	}
	/*
	 * A page of pipe fills sooner; only where a reader takes the log's
	 * header meanwhile: the create would wait for the stall bound, and
	 * the step then be twice that.
	 */
	if (k->w >= 0 && small &&
	    (k->kind == SINK_STOPPED_PIPE || k->kind == SINK_STOPPED_FIFO))
		fcntl(k->w, F_SETPIPE_SZ, 4096);
	return k->w >= 0;
}

/* From now on nobody reads (after the create wrote the log's header). */
static void fa_sink_block(struct fa_sink *k)
{
	if (k->reader > 0 && (k->kind == SINK_STOPPED_PIPE || k->kind == SINK_STOPPED_FIFO))
		kill(k->reader, SIGSTOP);
}

/* Let go: the reader dies (a stopped one too), the read ends close, so
 * that what is left fails at once (EPIPE).
 */
static void fa_sink_close(struct fa_sink *k)
{
	fa_kill_reap(k->reader);
	k->reader = 0;
	fa_close(&k->r);
	fa_close(&k->w);
	if (k->fifo[0])
		unlink(k->fifo);
	k->fifo[0] = '\0';
}

/* An operation on a blocked log that began at @t0 ended: count it, and
 * keep the slowest.
 */
static void fa_blocked(uint64_t t0, const char *what, int variant)
{
	atomic_fetch_add(&sh->fa.blocked, 1);
	fa_max(&sh->fa.block_ms, (long)fa_ms_since(t0));
	fa_bound(t0, FA_BLOCK_BOUND_MS, what, variant);
}

struct fa_block {
	struct fa_spec sp;
	int op;
	int nev;
	uint32_t len;
	int variant;
};

static void fa_block_fill(int fd, uint32_t trid, const struct fa_block *b)
{
	int i;

	for (i = 0; i < b->nev; i++)
		fa_event(fd, trid, b->len);
}

/* We are the controller: flush or shut down with the log blocked. */
static void fa_block_self(struct fa_sink *k, struct fa_block *b)
{
	struct posix_trace_create c;
	int fd = fa_dev();
	uint64_t t0;

	b->sp.log_fd = k->w;
	if (fd < 0 || fa_create(fd, &b->sp, &c)) {
		fa_close(&fd);
		return;
	}
	fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid);
	fa_sink_block(k);
	fa_block_fill(fd, c.trid, b);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	if (b->op == BLOCK_FLUSH) {
		fa_ctl(fd, POSIX_TRACE_IOC_FLUSH, c.trid);
		fa_blocked(t0, "a flush to a blocked log", b->variant);
		fa_sink_close(k);
		t0 = st_now_ns(CLOCK_MONOTONIC);
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
		fa_bound(t0, FA_CALL_BOUND_MS, "a shutdown once the log failed", b->variant);
	} else {
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
		fa_blocked(t0, "a shutdown with a blocked log", b->variant);
	}
	close(fd);
}

/* A controller (and traced process) that fills its stream and exits, a
 * flush still waiting in another thread or not.
 */
static void *fa_flush_thread(void *arg)
{
	uint32_t *trid = arg;
	int fd = fa_dev();

	fa_ctl(fd, POSIX_TRACE_IOC_FLUSH, *trid);
	return NULL;
}

static void __attribute__((noreturn)) fa_block_controller(struct fa_block *b, int ready,
							  int go, bool flushing)
{
	struct posix_trace_create c;
	int fd = fa_dev();
	pthread_t th;

	if (fd < 0 || fa_create(fd, &b->sp, &c))
		_exit(0);
	fa_ctl(fd, POSIX_TRACE_IOC_START, c.trid);
	if (!fa_put(ready) || !fa_get(go, FZ_STEP_BOUND_MS))
		_exit(0);
	fa_block_fill(fd, c.trid, b);
	if (flushing && !pthread_create(&th, NULL, fa_flush_thread, &c.trid))
		st_sleep_ms(20);
	_exit(0);
}

static void fa_block_exit(struct fa_sink *k, struct fa_block *b, bool flushing)
{
	bool go_given = false;
	int ready[2], go[2];
	uint64_t t0;
	pid_t ctl;

	if (pipe2(ready, O_CLOEXEC))
		return;
	if (pipe2(go, O_CLOEXEC)) {
		close(ready[0]);
		close(ready[1]);
		return;
	}
	b->sp.log_fd = k->w;
	ctl = fa_fork();
	if (ctl == 0)
		fa_block_controller(b, ready[1], go[0], flushing);
	if (ctl > 0 && fa_get(ready[0], FZ_STEP_BOUND_MS / 3)) {
		fa_sink_block(k);
		fa_put(go[1]);
		go_given = true;
	}
	close(go[1]);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	/* One that never got the go is killed (see op_setid()). */
	if (ctl > 0 && !go_given)
		fa_kill_reap(ctl);
	else if (ctl > 0)
		fa_wait_exit(ctl, FA_BLOCK_BOUND_MS, "controller of a blocked log", b->variant);
	if (ctl > 0 && go_given)
		fa_blocked(t0, "the exit of a controller with a blocked log", b->variant);
	close(go[0]);
	close(ready[0]);
	close(ready[1]);
}

/*
 * A log that blocks: every flush, shutdown and the controller's exit come
 * back within the stall bound, whoever stopped reading (issue 19, items 2
 * and 5).
 */
void op_blocklog(struct fz_thr *t)
{
	struct fa_block b = { 0 };
	struct fa_sink k = { 0 };
	bool small, flushing;

	t->op = "blocking log";
	if (t->p->depth > 0)
		return;
	k.kind = rn(t, SINK_NR);
	b.op = rn(t, BLOCK_NR);
	small = rn(t, 2);
	flushing = rn(t, 2);
	b.sp.pid = 0;
	b.sp.policy = rn(t, 4) ? POSIX_TRACE_POLICY_LOOP : POSIX_TRACE_POLICY_FLUSH;
	b.sp.size = 65536;
	b.sp.kclasses = fa_kclasses(rn(t, 8));
	b.sp.max_data = 512;
	b.sp.log_policy = POSIX_TRACE_LOG_APPEND;
	b.nev = 50 + rn(t, 400);
	b.len = 64 + rn(t, 449);
	b.variant = k.kind * 16 + b.op * 4 + small * 2 + (b.sp.policy == POSIX_TRACE_POLICY_FLUSH);
	fz_note(t, OP_BLOCKLOG, b.variant);
	if (fa_sink_open(&k, small)) {
		if (b.op == BLOCK_EXIT)
			fa_block_exit(&k, &b, flushing);
		else
			fa_block_self(&k, &b);
	}
	fa_sink_close(&k);
}

/* ------------------------------------------------------------------ */
/* Creates refused while the target's threads come and go               */
/* ------------------------------------------------------------------ */

static void *fa_chain_thread(void *arg)
{
	pthread_attr_t a;
	pthread_t th;

	(void)arg;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	while (pthread_create(&th, &a, fa_chain_thread, NULL))
		sched_yield();
	return NULL;
}

/* As root, both sides are FA_UID; raw system calls: this thread only. */
static bool fa_become_user(void)
{
	return getuid() || (!syscall(SYS_setresgid, FA_UID, FA_UID, FA_UID) &&
			    !syscall(SYS_setresuid, FA_UID, FA_UID, FA_UID));
}

static void __attribute__((noreturn)) fa_refused_target(int ready)
{
	pthread_t th;

	if (!fa_become_user() || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) ||
	    pthread_create(&th, NULL, fa_chain_thread, NULL))
		_exit(FA_X_SETUP);
	fa_put(ready);
	pthread_exit(NULL);	/* the leader: a zombie */
}

/* Creates on @target for @ms: each must fail (EPERM, or ESRCH/EAGAIN
 * while it dies or churns). */
static void __attribute__((noreturn)) fa_refused_caller(pid_t target, unsigned int ms)
{
	struct fa_spec sp = { .pid = target, .policy = POSIX_TRACE_POLICY_LOOP,
			      .size = 4096, .log_fd = -1 };
	uint64_t end = fa_after_ms(ms);
	struct posix_trace_create c;
	int fd;

	if (!fa_become_user())
		_exit(FA_X_SETUP);
	fd = fa_dev();
	if (fd < 0)
		_exit(FA_X_SETUP);
	while (!fa_past(end)) {
		if (!fa_create(fd, &sp, &c)) {
			fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
			_exit(FA_X_TRACED);
		}
		atomic_fetch_add(&sh->fa.refused, 1);
	}
	_exit(0);
}

/*
 * A caller that may not trace a group whose leader exited and whose
 * threads keep exiting is refused every time: the check must judge a
 * thread that still runs the group's image, never one that let go of it
 * (6.1's /proc/<tid>/mem lets such a task through unchecked; design.md
 * section 8).
 */
void op_refused(struct fz_thr *t)
{
	unsigned int ms = 20 + rn(t, 300);
	pid_t target, caller = -1;
	int ready[2], status;

	t->op = "create refused on exiting threads";
	if (t->p->depth > 0)
		return;
	fz_note(t, OP_REFUSED, 0);
	if (pipe2(ready, O_CLOEXEC))
		return;
	target = fa_fork();
	if (target == 0)
		fa_refused_target(ready[1]);
	fa_close(&ready[1]);
	if (target > 0 && fa_get(ready[0], FZ_STEP_BOUND_MS / 3))
		caller = fa_fork();
	if (caller == 0)
		fa_refused_caller(target, ms);
	if (caller > 0) {
		if (!fa_reap(caller, FZ_STEP_BOUND_MS / 2, &status)) {
			fz_bad("seed %llu: refused creates have not returned after %d ms (%s)",
			       (unsigned long long)fz_seed, FZ_STEP_BOUND_MS / 2,
			       fa_where(caller));
			fa_kill_reap(caller);
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == FA_X_TRACED) {
			fz_bad("seed %llu: uid %d traced a non-dumpable group of its own whose threads exit",
			       (unsigned long long)fz_seed, getuid() ? (int)getuid() : FA_UID);
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) != FA_X_SETUP) {
			fz_check_status("refused caller", caller, status);
		}
	}
	if (target > 0)
		fa_kill_reap(target);
	fa_close(&ready[0]);
}

/*
 * The SIGNAL class under fire (issue 23): a child traced with it sends
 * itself blocked and ignored signals by every path a process has
 * (kill, tgkill, sigqueue with a forged si_pid, real-time signals until
 * the queue overflows, a POSIX timer whose signals the kernel generates
 * in an interrupt), while its parent sends it more, then takes them all
 * (deliver records).  The stream is small, so it fills and loops or
 * stops under the load.  The kernel must neither warn, deadlock
 * (the probes run under the target's siglock) nor lose the child.
 */
static void __attribute__((noreturn)) fa_signal_child(int go, unsigned int ms, uint32_t seed)
{
	struct itimerspec its = { .it_interval.tv_nsec = 10000, .it_value.tv_nsec = 10000 };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGURG };
	uint64_t end;
	siginfo_t si;
	timer_t tm;
	sigset_t set;
	int rt = SIGRTMIN + 1, have_timer;

	sigemptyset(&set);
	sigaddset(&set, SIGURG);
	sigaddset(&set, rt);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fa_get(go, FZ_STEP_BOUND_MS / 2);
	have_timer = !timer_create(CLOCK_MONOTONIC, &sev, &tm) &&
		     !timer_settime(tm, 0, &its, NULL);
	end = fa_after_ms(ms);
	while (!fa_past(end)) {
		memset(&si, 0, sizeof(si));
		si.si_signo = rt;
		si.si_code = SI_QUEUE;
		si.si_pid = (pid_t)(seed = seed * 1103515245 + 12345);
		syscall(SYS_rt_sigqueueinfo, getpid(), rt, &si);
		kill(getpid(), SIGURG);
		syscall(SYS_tgkill, getpid(), gettid(), SIGURG);
		if (seed & 1) {	/* take what is pending: deliver records */
			signal(rt, SIG_IGN);
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			sigprocmask(SIG_BLOCK, &set, NULL);
			signal(rt, SIG_DFL);
		}
	}
	if (have_timer)
		timer_delete(tm);
	signal(rt, SIG_IGN);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	_exit(0);
}

void op_signals(struct fz_thr *t)
{
	struct fa_spec sp = { .policy = 1 + rn(t, 2), .size = rn(t, 2) ? 4096 : 65536,
			      .log_fd = -1, .kclasses = POSIX_TRACE_KCLASS_SIGNAL |
			      fa_kclasses(rnd(t)) };
	unsigned int ms = 5 + rn(t, 50);
	struct posix_trace_create c;
	int fd, go[2], status;
	uint32_t trid = 0;
	uint64_t end;
	pid_t pid;

	t->op = "signals into a stream of class SIGNAL";
	if (t->p->depth > 0)
		return;
	fz_note(t, OP_SIGNALS, sp.policy);
	if (pipe2(go, O_CLOEXEC))
		return;
	pid = fa_fork();
	if (pid == 0) {
		close(go[1]);
		fa_signal_child(go[0], ms, (uint32_t)rnd(t));
	}
	close(go[0]);
	fd = pid > 0 ? fa_dev() : -1;
	if (fd >= 0) {
		sp.pid = pid;
		if (!fa_create(fd, &sp, &c)) {
			trid = c.trid;
			fa_ctl(fd, POSIX_TRACE_IOC_START, trid);
		}
	}
	fa_put(go[1]);
	close(go[1]);
	if (pid > 0) {
		end = fa_after_ms(ms);
		while (!fa_past(end) && !kill(pid, SIGURG))
			;
		if (!fa_reap(pid, FZ_STEP_BOUND_MS / 2, &status))
			fa_kill_reap(pid);
		else
			fz_check_status("signal child", pid, status);
		atomic_fetch_add(&sh->fa.signal_runs, 1);
	}
	if (trid)
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, trid);
	fa_close(&fd);
}

/*
 * The FAULT class under fire (issue 23): a child traced with it faults
 * as fast as a process can, from two threads: first touches, pages
 * dropped with MADV_DONTNEED and touched again, copy-on-write after a
 * fork, protection flips, and a file mapping whose cache it drops
 * (major faults), while its parent stops, starts and finally shuts the
 * stream down under it.  As root, now and then, CPU 1 goes offline and
 * online meanwhile: its perf counters are removed and created again
 * under the faults.  The kernel must neither warn nor lose the child.
 */
#define FA_FAULT_PAGES	64

static void fa_fault_loop(char *p, long pg, uint64_t end, int exe)
{
	unsigned int i, round = 0;

	while (!fa_past(end)) {
		for (i = 0; i < FA_FAULT_PAGES; i++)
			p[i * pg] = (char)i;
		if (round & 1) {
			madvise(p, FA_FAULT_PAGES * pg, MADV_DONTNEED);
		} else {	/* write faults on a page made writable again */
			mprotect(p, pg, PROT_READ);
			mprotect(p, pg, PROT_READ | PROT_WRITE);
		}
		if (exe >= 0 && !(round % 8))
			posix_fadvise(exe, 0, 0, POSIX_FADV_DONTNEED);
		round++;
	}
}

struct fa_fault_arg {
	char *p;
	long pg;
	uint64_t end;
};

static void *fa_fault_thread(void *arg)
{
	struct fa_fault_arg *a = arg;

	fa_fault_loop(a->p, a->pg, a->end, -1);
	return NULL;
}

static void __attribute__((noreturn)) fa_fault_child(int go, unsigned int ms)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct fa_fault_arg a = { .pg = pg };
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	volatile char sink = 0;
	const char *img = MAP_FAILED;
	struct stat sb;
	pthread_t th;
	size_t off;
	pid_t pid;

	a.p = mmap(NULL, 2 * FA_FAULT_PAGES * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.p == MAP_FAILED)
		_exit(0);
	if (exe >= 0 && !fstat(exe, &sb))
		img = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, exe, 0);
	fa_get(go, FZ_STEP_BOUND_MS / 2);
	a.end = fa_after_ms(ms);
	if (pthread_create(&th, NULL, fa_fault_thread, &(struct fa_fault_arg){
				   .p = a.p + FA_FAULT_PAGES * pg, .pg = pg, .end = a.end }))
		th = 0;
	pid = fork();	/* copy-on-write faults in both */
	if (pid == 0) {
		fa_fault_loop(a.p, pg, a.end, -1);
		_exit(0);
	}
	fa_fault_loop(a.p, pg, a.end, exe);
	for (off = 0; img != MAP_FAILED && off < (size_t)sb.st_size; off += pg)
		sink += img[off];
	if (th)
		pthread_join(th, NULL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	_exit(0);
}

void op_faults(struct fz_thr *t)
{
	struct fa_spec sp = { .policy = 1 + rn(t, 2), .size = rn(t, 2) ? 4096 : 65536,
			      .log_fd = -1, .kclasses = POSIX_TRACE_KCLASS_FAULT |
			      fa_kclasses(rnd(t)) };
	unsigned int i, ms = 5 + rn(t, 50);
	bool hotplug = !getuid() && !rn(t, 8);
	struct posix_trace_create c;
	int fd, go[2], status;
	uint32_t trid = 0;
	pid_t pid;

	t->op = "faults into a stream of class FAULT";
	if (t->p->depth > 0)
		return;
	fz_note(t, OP_FAULTS, sp.policy);
	if (pipe2(go, O_CLOEXEC))
		return;
	pid = fa_fork();
	if (pid == 0) {
		close(go[1]);
		fa_fault_child(go[0], ms);
	}
	close(go[0]);
	fd = pid > 0 ? fa_dev() : -1;
	if (fd >= 0) {
		sp.pid = pid;
		if (!fa_create(fd, &sp, &c)) {
			trid = c.trid;
			fa_ctl(fd, POSIX_TRACE_IOC_START, trid);
		}
	}
	fa_put(go[1]);
	close(go[1]);
	if (hotplug && st_cpu1_online(false)) {
		st_cpu1_online(true);
		atomic_fetch_add(&sh->fa.hotplugs, 1);
	}
	for (i = 0; trid && i < 4; i++) {
		usleep(1000 * rn(t, 5));
		fa_ctl(fd, rn(t, 2) ? POSIX_TRACE_IOC_STOP : POSIX_TRACE_IOC_START, trid);
	}
	if (trid && rn(t, 2)) {	/* shut down under the faults */
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, trid);
		trid = 0;
	}
	if (pid > 0) {
		if (!fa_reap(pid, FZ_STEP_BOUND_MS / 2, &status))
			fa_kill_reap(pid);
		else
			fz_check_status("fault child", pid, status);
		atomic_fetch_add(&sh->fa.fault_runs, 1);
	}
	if (trid)
		fa_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, trid);
	fa_close(&fd);
}
