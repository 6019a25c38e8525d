// SPDX-License-Identifier: GPL-2.0
/*
 * process_test - processes coming and going (spec 4.9-4.11, 5.16, 5.19,
 * 5.20; issue 4): Trace Inherit through vfork()+exec, a raw clone() and
 * threads; pids in the caller's pid namespace; a trid used through a
 * descriptor received over a Unix socket; close-on-exec descriptors;
 * tracing a process whose group leader exited, whose last thread is
 * exiting, or that was reaped.
 */
#include "pt_selftest.h"

#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <linux/posix_trace.h>

#define EVENT_NAME	"process-test"
#define RECORD_ARG	"--pt-record"		/* argv[2]: the tag */
#define COUNT_FDS_ARG	"--pt-count-fds"
#define MAX_REGIONS	16
#define NR_AGENTS	2

extern char **environ;

FIXTURE(proc) {
	trace_id_t trid;
	trace_event_id_t id;
	pid_t child;
	struct st_agent ag[NR_AGENTS];
};

FIXTURE_SETUP(proc)
{
	int i;

	self->child = -1;
	for (i = 0; i < NR_AGENTS; i++) {
		self->ag[i].pid = -1;
		self->ag[i].fd = -1;
	}
	ST_REQUIRE_MODULE();
	ASSERT_EQ(0, posix_trace_eventid_open(EVENT_NAME, &self->id));
}

FIXTURE_TEARDOWN(proc)
{
	int i;

	if (self->trid > 0)
		posix_trace_shutdown(self->trid);
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		st_wait_exit(self->child);
	}
	/* The last one first: ag[0] may be the init of a pid namespace. */
	for (i = NR_AGENTS - 1; i >= 0; i--)
		st_agent_kill(&self->ag[i]);
}

/* ------------------------------------------------------------------ */
/* Ways of making a process                                            */
/* ------------------------------------------------------------------ */

/* What this binary does when exec'd with RECORD_ARG: record the tag. */
static int record_tag(char tag)
{
	trace_event_id_t id;

	if (posix_trace_eventid_open(EVENT_NAME, &id))
		return 1;
	posix_trace_event(id, &tag, 1);
	return 0;
}

/* vfork(), then exec this binary to record @tag at once (a vfork child
 * may do nothing else).  Its pid once it exited with 0, else -1.
 */
static pid_t vfork_exec_recording(char tag)
{
	char t[2] = { tag, 0 };
	char *argv[] = { "process_test", RECORD_ARG, t, NULL };
	pid_t pid;

	fflush(NULL);
	pid = vfork();
	if (pid == 0) {
		execve("/proc/self/exe", argv, environ);
		_exit(127);
	}
	return pid > 0 && st_wait_exit(pid) == 0 ? pid : -1;
}

/* The clone system call without CLONE_THREAD or CLONE_VM, as a program
 * calling it directly does: no pthread_atfork() handler runs in the child,
 * which records @tag at once.  Its pid once it exited with 0, else -1.
 */
static pid_t clone_recording(trace_event_id_t id, char tag)
{
	pid_t pid;

	fflush(NULL);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid == 0) {
		posix_trace_event(id, &tag, 1);
		_exit(0);
	}
	return pid > 0 && st_wait_exit(pid) == 0 ? pid : -1;
}

struct thread_arg {
	trace_event_id_t id;
	pthread_t self;
};

static void *thread_recording(void *p)
{
	struct thread_arg *a = p;

	a->self = pthread_self();
	posix_trace_event(a->id, "t", 1);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Trace Inherit                                                       */
/* ------------------------------------------------------------------ */

/* REQ: RULE-72 4.9 5.19 (vfork) */
TEST_F(proc, vfork_exec_child_is_traced_from_its_first_event)
{
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	posix_trace_event(self->id, "p", 1);
	pid = vfork_exec_recording('v');
	ASSERT_GT(pid, 0);
	posix_trace_event(self->id, "q", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, 0, 'v'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'q'));
	EXPECT_EQ(3, s.n);
}

/* REQ: RULE-72 4.9 (clone without CLONE_THREAD) */
TEST_F(proc, raw_clone_child_is_traced_from_its_first_event)
{
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_INHERITED, &self->trid));
	/* The parent's thread holds writer lanes the child does not get. */
	posix_trace_event(self->id, "p", 1);
	pid = clone_recording(self->id, 'r');
	ASSERT_GT(pid, 0);
	posix_trace_event(self->id, "q", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'r'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'q'));
	EXPECT_EQ(3, s.n);
}

/* REQ: CREATE-5 RULE-72 (a clone()d child reads its own status page) */
TEST_F(proc, raw_clone_child_of_an_untraced_parent_is_traced_once_a_stream_names_it)
{
	struct st_seen s;
	int go[2];
	pid_t pid;
	char c;

	ST_REQUIRE_TRACE_CHILDREN();
	/* Untraced, with the kernel's page mapped: it wants nothing. */
	posix_trace_event(self->id, "u", 1);
	ASSERT_EQ(0, pipe(go));
	fflush(NULL);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		posix_trace_event(self->id, &c, 1);
		_exit(0);
	}
	self->child = pid;
	close(go[0]);
	ASSERT_EQ(0, st_create(pid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	c = 'c';
	ASSERT_EQ(1, write(go[1], &c, 1));
	close(go[1]);
	EXPECT_EQ(0, st_wait_exit(pid));
	self->child = -1;
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, self->id, 'c'));
	EXPECT_EQ(1, s.n);
}

/* REQ: RULE-72 4.9 (CLOSE_FOR_CHILD: vfork and clone children) */
TEST_F(proc, close_for_child_vfork_and_clone_children_untraced_parent_still_traced)
{
	struct st_seen s;
	pid_t vpid, cpid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD,
					    &self->trid));
	posix_trace_event(self->id, "p", 1);
	vpid = vfork_exec_recording('v');
	ASSERT_GT(vpid, 0);
	cpid = clone_recording(self->id, 'r');
	ASSERT_GT(cpid, 0);
	posix_trace_event(self->id, "q", 1);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(0, st_seen_count(&s, vpid, 0, 0));
	EXPECT_EQ(0, st_seen_count(&s, cpid, 0, 0));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'q'));
	EXPECT_EQ(2, s.n);
}

/* REQ: RULE-77 EVENT-4 4.9 (a thread is no child: traced whatever the policy) */
TEST_F(proc, thread_records_with_the_process_pid_under_either_policy)
{
	static const int policy[] = {
		POSIX_TRACE_INHERITED, POSIX_TRACE_CLOSE_FOR_CHILD,
	};
	struct thread_arg a = { .id = self->id };
	struct st_seen s;
	pthread_t th;
	unsigned int i;

	for (i = 0; i < sizeof(policy) / sizeof(policy[0]); i++) {
		ASSERT_EQ(0, st_create_self_started(policy[i], &self->trid));
		ASSERT_EQ(0, pthread_create(&th, NULL, thread_recording, &a));
		ASSERT_EQ(0, pthread_join(th, NULL));
		ASSERT_EQ(0, st_seen_drain(self->trid, &s));
		ASSERT_EQ(1, s.n) TH_LOG("policy %d", policy[i]);
		EXPECT_EQ(getpid(), s.pid[0]);
		EXPECT_EQ(self->id, s.id[0]);
		EXPECT_EQ('t', s.tag[0]);
		EXPECT_TRUE(pthread_equal(a.self, s.thread[0]));
		ASSERT_EQ(0, posix_trace_shutdown(self->trid));
		self->trid = 0;
	}
}

/* ------------------------------------------------------------------ */
/* Pid namespaces                                                      */
/* ------------------------------------------------------------------ */

/*
 * Make the caller's next children the processes of a new pid namespace
 * (the first one its init), in a user namespace of its own when not root.
 * Unprivileged user namespaces may be off, or refused (in a chroot, as
 * under scripts/vm-run): then the test is skipped.
 */
#define UNSHARE_PIDNS() do {						\
	if (geteuid() == 0) {						\
		ASSERT_EQ(0, unshare(CLONE_NEWPID));			\
	} else if (unshare(CLONE_NEWUSER | CLONE_NEWPID)) {		\
		ST_SKIP("no unprivileged user namespace: %s",		\
			strerror(errno));				\
	}								\
} while (0)

/* Run by the init of a pid namespace: the next process forked into it
 * gets pid *@next.
 */
static int set_next_pid(void *next)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");

	if (!f || fprintf(f, "%d", *(pid_t *)next - 1) < 0 || fclose(f))
		return ST_C_FIRST_OWN;
	return 0;
}

/* REQ: CREATE-6 RULE-85 5.16 (a pid names a process of the caller's namespace) */
TEST_F(proc, inner_controller_pid_naming_an_outer_process_traces_the_inner_one)
{
	struct st_agent *init = &self->ag[0], *d = &self->ag[1];
	int inner_pid, inner_trid, matches, all, bad;
	pid_t x = getpid();	/* names us outside; d inside */
	trace_id_t trid;
	struct st_seen s;

	UNSHARE_PIDNS();
	ASSERT_EQ(0, st_agent_start_with(init, set_next_pid, &x));
	/* It answers once it set the next pid. */
	ASSERT_EQ(0, st_agent_op(init, STA_GETPID, 0, 0, 0, &inner_pid));
	ASSERT_EQ(1, inner_pid);
	ASSERT_EQ(0, st_agent_start(d));
	ASSERT_EQ(0, st_agent_op(d, STA_GETPID, 0, 0, 0, &inner_pid));
	ASSERT_EQ(x, inner_pid) TH_LOG("ns_last_pid did not give pid %d", x);

	/* Outside, d is d->pid; inside, x is d, and we are nobody. */
	ASSERT_EQ(0, st_create(d->pid, 65536, 0, 0, &trid));
	self->trid = trid;
	ASSERT_EQ(0, st_start_and_skip(trid));
	ASSERT_EQ(0, st_agent_op(init, STA_CREATE, x, 65536, 0, &inner_trid));
	ASSERT_EQ(0, st_agent_op(init, STA_START, inner_trid, 0, 0, NULL));

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "ev0", 3);
	ASSERT_EQ(0, st_agent_event(d, POSIX_TRACE_UNNAMED_USEREVENT, 0, NULL));

	/* Inside: START and d's event as pid x; nothing of ours. */
	ASSERT_EQ(0, st_agent_drain_call(init, inner_trid,
					 POSIX_TRACE_UNNAMED_USEREVENT, x,
					 &matches, &all, &bad));
	EXPECT_EQ(1, matches);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(2, all);
	/* Outside: the same event, as d->pid. */
	ASSERT_EQ(0, st_seen_drain(trid, &s));
	ASSERT_EQ(1, s.n);
	EXPECT_EQ(d->pid, s.pid[0]);
	EXPECT_EQ('e', s.tag[0]);
	/* d's outer pid names no process inside. */
	EXPECT_EQ(ESRCH, st_agent_op(init, STA_CREATE_PROBE, d->pid, 0, 0, NULL));
}

/* The first pid listed in /proc/<pid>/task/<pid>/children, or -1. */
static pid_t first_child_of(pid_t pid)
{
	char path[64];
	FILE *f;
	int c = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &c) != 1)
		c = -1;
	fclose(f);
	return c;
}

enum {
	C_NS_STREAM = ST_C_FIRST_OWN,
	C_NS_START_PID,
	C_NS_FORK,
	C_NS_PIPE,
	C_NS_DRAIN,
	C_NS_CHILD_EVENT,
	C_NS_CHILD_ERROR,
	C_NS_COUNT,
};

/*
 * The init of a pid namespace: traces itself into an INHERITED stream,
 * forks g, which records one event through its writer lane and one
 * through the kernel (unreadable data: POSIX_TRACE_ERROR with EFAULT);
 * tells the test g's pid, lets it look at the zombie, then checks what
 * its own stream says.
 */
static int ns_init(int go, int res)
{
	struct st_seen s;
	trace_id_t trid;
	struct st_ev ev;
	siginfo_t si;
	pid_t g;
	char c;

	if (read(go, &c, 1) != 1)
		return C_NS_PIPE;
	if (st_create_self_started(POSIX_TRACE_INHERITED, &trid))
		return C_NS_STREAM;
	/* Our STOP names us as our namespace knows us: pid 1. */
	if (posix_trace_stop(trid) || st_try(trid, &ev) || ev.unavailable ||
	    !st_is(&ev, POSIX_TRACE_STOP) || ev.info.posix_pid != 1 ||
	    posix_trace_start(trid) || st_try(trid, &ev) || ev.unavailable ||
	    !st_is(&ev, POSIX_TRACE_START) || ev.info.posix_pid != 1)
		return C_NS_START_PID;
	fflush(NULL);
	g = fork();
	if (g == 0) {
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "g", 1);
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, (void *)16, 4);
		_exit(0);
	}
	if (g < 0 || waitid(P_PID, g, &si, WEXITED | WNOWAIT))
		return C_NS_FORK;
	if (write(res, &g, sizeof(g)) != sizeof(g) || read(go, &c, 1) != 1)
		return C_NS_PIPE;
	if (st_wait_exit(g))
		return C_NS_FORK;
	if (st_seen_drain(trid, &s))
		return C_NS_DRAIN;
	if (st_seen_count(&s, g, POSIX_TRACE_UNNAMED_USEREVENT, 'g') != 1)
		return C_NS_CHILD_EVENT;
	if (st_seen_count(&s, g, POSIX_TRACE_ERROR, 0) != 1)
		return C_NS_CHILD_ERROR;
	return s.n == 2 ? 0 : C_NS_COUNT;
}

/* REQ: EVENT-4 RULE-72 5.16 5.21 (pids of inherited children, of events
 * the kernel records, of START/STOP, each in the reader's namespace)
 */
TEST_F(proc, inherited_child_in_a_namespace_has_each_readers_pid_on_both_paths)
{
	int go[2], res[2], i, efault = 0;
	pid_t init, g_inner, g_outer;
	struct st_seen s;
	char c = 'g';

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(res));
	UNSHARE_PIDNS();
	fflush(NULL);
	init = fork();
	ASSERT_GE(init, 0);
	if (init == 0) {
		close(go[1]);
		close(res[0]);
		_exit(ns_init(go[0], res[1]));
	}
	self->child = init;
	close(go[0]);
	close(res[1]);

	/* Outside: trace the namespace's init, and so its children. */
	ASSERT_EQ(0, st_create_inherit(init, POSIX_TRACE_INHERITED, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(1, write(go[1], &c, 1));
	if (read(res[0], &g_inner, sizeof(g_inner)) != sizeof(g_inner)) {
		self->child = -1;
		ASSERT_EQ(0, st_wait_exit(init)) TH_LOG("init of the namespace failed");
		ASSERT_TRUE(false) TH_LOG("init of the namespace sent no pid");
	}
	g_outer = first_child_of(init);
	ASSERT_EQ(1, write(go[1], &c, 1));
	EXPECT_EQ(0, st_wait_exit(init)) TH_LOG("init of the namespace failed");
	self->child = -1;
	ASSERT_GT(g_outer, 0);
	ASSERT_NE(g_inner, g_outer);

	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, g_outer, POSIX_TRACE_UNNAMED_USEREVENT, 'g'));
	for (i = 0; i < s.n; i++)
		efault += s.pid[i] == g_outer && s.id[i] == POSIX_TRACE_ERROR &&
			  s.err[i] == EFAULT;
	EXPECT_EQ(1, efault);
	EXPECT_EQ(2, s.n);
	close(go[1]);
	close(res[0]);
}

/* ------------------------------------------------------------------ */
/* The library's descriptor in other hands                             */
/* ------------------------------------------------------------------ */

static bool is_device(int dirfd, const char *name)
{
	char target[64];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n <= 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, ST_DEVICE);
}

/* The descriptors of /dev/posix_trace this process has: up to @max in
 * @fds (may be NULL); returns how many there are.
 */
static int device_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !is_device(dirfd(d), e->d_name))
			continue;
		if (fds && n < max)
			fds[n] = atoi(e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

struct region {
	uint64_t off, len;
};

/* This process's mappings of the device but its status page (offset 0):
 * a stream's read-only and consumer regions, writer lanes.
 */
static int device_regions(struct region *r, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start, end, off;
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (!strstr(line, ST_DEVICE) ||
		    sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) != 3 || !off)
			continue;
		r[n].off = off;
		r[n].len = end - start;
		n++;
	}
	fclose(f);
	return n;
}

/* 0 if @fd maps @r (then unmapped again), else the errno. */
static int try_map(int fd, const struct region *r)
{
	void *p = mmap(NULL, r->len, PROT_READ, MAP_SHARED, fd, (off_t)r->off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, r->len);
	return 0;
}

/* What the test passes, with the descriptor, to the receiver. */
struct passed {
	trace_id_t trid;
	int nr;
	struct region region[MAX_REGIONS];
};

enum {
	R_START, R_STOP, R_CLEAR, R_SHUTDOWN, R_STATUS, R_WAIT, R_EVENTID_OPEN,
	R_EVENTID_NAME, R_EVENTTYPES, R_SET_FILTER, R_GET_FILTER,
	R_WRITER_OPEN, R_WRITER_NOTIFY, R_NR_IOCTLS
};

static const char *ioctl_name(int i)
{
	static const char *const names[] = {
		"START", "STOP", "CLEAR", "SHUTDOWN", "STATUS", "WAIT",
		"EVENTID_OPEN", "EVENTID_NAME", "EVENTTYPES", "SET_FILTER",
		"GET_FILTER", "WRITER_OPEN", "WRITER_NOTIFY",
	};

	_Static_assert(sizeof(names) / sizeof(names[0]) == R_NR_IOCTLS,
		       "one name per ioctl");
	return i >= 0 && i < R_NR_IOCTLS ? names[i] : "?";
}

/* What the receiver got: 0 or the errno of each attempt. */
struct verdict {
	int ioctl_err[R_NR_IOCTLS];
	int mmap_err[MAX_REGIONS];
	int lib[ST_NR_TRID_FNS];
	int event_err;
};

static int raw(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* Every ioctl naming stream @trid, through @fd. */
static void try_ioctls(int fd, uint32_t trid, int *err)
{
	struct posix_trace_event_set set = { .magic = POSIX_TRACE_EVSET_MAGIC };
	char name[POSIX_TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = trid };
	struct posix_trace_status st = { .size = sizeof(st), .trid = trid };
	struct posix_trace_wait w = {
		.size = sizeof(w), .flags = POSIX_TRACE_WAIT_TIMEOUT,
		.trid = trid, .abstime = st_realtime_ns() + 100000000ULL,
	};
	struct posix_trace_eventid open = {
		.size = sizeof(open), .trid = trid, .name_len = 1,
		.name_ptr = (uintptr_t)"x",
	};
	struct posix_trace_eventid get = {
		.size = sizeof(get), .trid = trid,
		.event_id = POSIX_TRACE_ID_START, .name_len = sizeof(name),
		.name_ptr = (uintptr_t)name,
	};
	struct posix_trace_eventtypes types = { .size = sizeof(types), .trid = trid };
	struct posix_trace_filter setf = {
		.size = sizeof(setf), .trid = trid,
		.how = POSIX_TRACE_FILTER_SET, .set_ptr = (uintptr_t)&set,
	};
	struct posix_trace_filter getf = {
		.size = sizeof(getf), .trid = trid, .set_ptr = (uintptr_t)&set,
	};
	struct posix_trace_writer wopen = { .size = sizeof(wopen), .trid = trid };
	struct posix_trace_notify notify = {
		.size = sizeof(notify), .trid = trid, .index = 0,
		.what = POSIX_TRACE_NOTIFY_FULL,
	};

	/* Filtering every user event would show in the stream. */
	set.bits[POSIX_TRACE_ID_UNNAMED / 64] = ~0ULL;
	err[R_SET_FILTER] = raw(fd, POSIX_TRACE_IOC_SET_FILTER, &setf);
	err[R_GET_FILTER] = raw(fd, POSIX_TRACE_IOC_GET_FILTER, &getf);
	err[R_STATUS] = raw(fd, POSIX_TRACE_IOC_STATUS, &st);
	err[R_WAIT] = raw(fd, POSIX_TRACE_IOC_WAIT, &w);
	err[R_EVENTID_OPEN] = raw(fd, POSIX_TRACE_IOC_EVENTID_OPEN, &open);
	err[R_EVENTID_NAME] = raw(fd, POSIX_TRACE_IOC_EVENTID_NAME, &get);
	err[R_EVENTTYPES] = raw(fd, POSIX_TRACE_IOC_EVENTTYPES, &types);
	err[R_WRITER_OPEN] = raw(fd, POSIX_TRACE_IOC_WRITER_OPEN, &wopen);
	err[R_WRITER_NOTIFY] = raw(fd, POSIX_TRACE_IOC_WRITER_NOTIFY, &notify);
	err[R_START] = raw(fd, POSIX_TRACE_IOC_START, &ctl);
	err[R_STOP] = raw(fd, POSIX_TRACE_IOC_STOP, &ctl);
	err[R_CLEAR] = raw(fd, POSIX_TRACE_IOC_CLEAR, &ctl);
	err[R_SHUTDOWN] = raw(fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl);
}

static int send_fd(int sock, int fd, const void *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	memset(cbuf, 0, sizeof(cbuf));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* The descriptor that came with @len bytes into @buf, or -1. */
static int recv_fd(int sock, void *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)len)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* A process that never had the stream: it only gets the descriptor and
 * the trid, and tries everything.
 */
static int receiver(int sock)
{
	struct posix_trace_event_req req = {
		.size = sizeof(req), .event_id = POSIX_TRACE_ID_UNNAMED,
		.data_ptr = (uintptr_t)"R", .data_len = 1,
	};
	struct verdict v;
	struct passed p;
	int fd, i;

	st_watchdog(10);
	fd = recv_fd(sock, &p, sizeof(p));
	if (fd < 0 || p.nr < 0 || p.nr > MAX_REGIONS)
		return 1;
	memset(&v, 0, sizeof(v));
	/* Recording into it is no use either: we are not traced. */
	req.trid = p.trid;
	v.event_err = raw(fd, POSIX_TRACE_IOC_EVENT, &req);
	try_ioctls(fd, p.trid, v.ioctl_err);
	for (i = 0; i < p.nr; i++)
		v.mmap_err[i] = try_map(fd, &p.region[i]);
	st_call_all_trid_functions(p.trid, v.lib);
	return send(sock, &v, sizeof(v), MSG_NOSIGNAL) == sizeof(v) ? 0 : 2;
}

/* REQ: RULE-80 MODEL-5 5.20 (a trid is only its creator's) */
TEST_F(proc, descriptor_received_over_a_socket_controls_and_maps_nothing)
{
	trace_event_set_t set;
	struct posix_trace_status_info st;
	struct passed p;
	struct verdict v;
	struct st_seen s;
	int sv[2], fd, i, n, ismember;
	pid_t rpid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv));
	fflush(NULL);
	rpid = fork();	/* before the stream exists: it inherits nothing */
	ASSERT_GE(rpid, 0);
	if (rpid == 0) {
		close(sv[0]);
		_exit(receiver(sv[1]));
	}
	self->child = rpid;
	close(sv[1]);

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD,
					    &self->trid));
	for (i = 0; i < 3; i++)
		posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(1, device_fds(&fd, 1));
	memset(&p, 0, sizeof(p));
	p.trid = self->trid;
	p.nr = device_regions(p.region, MAX_REGIONS);
	/* The read-only and consumer regions and our writer lane at least;
	 * the owner may map each of them again: the offsets are right.
	 */
	ASSERT_GE(p.nr, 3);
	for (i = 0; i < p.nr; i++)
		ASSERT_EQ(0, try_map(fd, &p.region[i]));

	ASSERT_EQ(0, send_fd(sv[0], fd, &p, sizeof(p)));
	n = recv(sv[0], &v, sizeof(v), 0);
	EXPECT_EQ(0, st_wait_exit(rpid));
	self->child = -1;
	ASSERT_EQ((int)sizeof(v), n);
	for (i = 0; i < R_NR_IOCTLS; i++)
		EXPECT_EQ(EINVAL, v.ioctl_err[i]) TH_LOG("%s", ioctl_name(i));
	for (i = 0; i < p.nr; i++) {
		EXPECT_NE(0, v.mmap_err[i])
			TH_LOG("mapped offset %#llx", (unsigned long long)p.region[i].off);
	}
	for (i = 0; i < ST_NR_TRID_FNS; i++)
		EXPECT_EQ(EINVAL, v.lib[i]) TH_LOG("%s", st_trid_fn_name(i));

	/* The stream is as it was: running, unfiltered, our events only. */
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_get_filter(self->trid, &set));
	ASSERT_EQ(0, posix_trace_eventset_ismember(self->id, &set, &ismember));
	EXPECT_EQ(0, ismember);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(3, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(0, st_seen_count(&s, rpid, 0, 0));
	EXPECT_EQ(3, s.n);
	close(sv[0]);
}

/* REQ: RULE-80 MODEL-42 5.20 (a child no atfork handler told it is one) */
TEST_F(proc, raw_clone_child_gets_einval_for_every_trid_function)
{
	struct posix_trace_status_info st;
	int res[ST_NR_TRID_FNS], p[2], i, n;
	struct st_seen s;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD,
					    &self->trid));
	posix_trace_event(self->id, "p", 1);
	ASSERT_EQ(0, pipe(p));
	fflush(NULL);
	pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		st_watchdog(5);
		st_call_all_trid_functions(self->trid, res);
		_exit(write(p[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	self->child = pid;
	close(p[1]);
	n = read(p[0], res, sizeof(res));
	close(p[0]);
	EXPECT_EQ(0, st_wait_exit(pid));
	self->child = -1;
	ASSERT_EQ((int)sizeof(res), n);
	for (i = 0; i < ST_NR_TRID_FNS; i++)
		EXPECT_EQ(EINVAL, res[i]) TH_LOG("%s", st_trid_fn_name(i));

	/* Ours still: running, with its event. */
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, getpid(), self->id, 'p'));
	EXPECT_EQ(1, s.n);
}

/* REQ: 5.20 (the library's descriptors do not outlive an exec) */
TEST_F(proc, library_descriptors_are_close_on_exec)
{
	char *argv[] = { "process_test", COUNT_FDS_ARG, NULL };
	int fds[8], i, n;
	pid_t pid;

	ASSERT_EQ(0, st_create_self_started(POSIX_TRACE_CLOSE_FOR_CHILD,
					    &self->trid));
	posix_trace_event(self->id, "p", 1);
	n = device_fds(fds, 8);
	ASSERT_GE(n, 1);
	for (i = 0; i < n && i < 8; i++)
		EXPECT_TRUE(fcntl(fds[i], F_GETFD) & FD_CLOEXEC) TH_LOG("fd %d", fds[i]);
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		execve("/proc/self/exe", argv, environ);
		_exit(127);
	}
	/* Its exit status: how many it found. */
	EXPECT_EQ(0, st_wait_exit(pid));
}

/* ------------------------------------------------------------------ */
/* Processes going                                                     */
/* ------------------------------------------------------------------ */

static void *wait_and_record(void *p)
{
	int fd = *(int *)p;
	char tag;

	if (read(fd, &tag, 1) != 1)
		_exit(1);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &tag, 1);
	_exit(0);	/* the whole group */
}

/* REQ: CREATE-6 5.16 (a group whose leader exited is still there) */
TEST_F(proc, process_whose_leader_exited_is_traced_through_its_other_threads)
{
	struct st_seen s;
	int go[2], i;
	pthread_t th;
	pid_t pid;
	char tag = 'w';

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, pipe(go));
	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (pthread_create(&th, NULL, wait_and_record, &go[0]))
			_exit(2);
		pthread_exit(NULL);	/* the leader goes, the group stays */
	}
	self->child = pid;
	close(go[0]);
	for (i = 0; i < 5000 && st_proc_state(pid) != 'Z'; i++)
		st_sleep_ms(1);
	ASSERT_EQ('Z', st_proc_state(pid));

	ASSERT_EQ(0, st_create(pid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(1, write(go[1], &tag, 1));
	EXPECT_EQ(0, st_wait_exit(pid));
	self->child = -1;
	close(go[1]);
	ASSERT_EQ(0, st_seen_drain(self->trid, &s));
	EXPECT_EQ(1, st_seen_count(&s, pid, POSIX_TRACE_UNNAMED_USEREVENT, 'w'));
	EXPECT_EQ(1, s.n);
}

/* REQ: CREATE-6 RULE-85 5.16 (a traced process, exited and reaped) */
TEST_F(proc, create_on_a_reaped_traced_process_is_esrch)
{
	struct st_agent *ag = &self->ag[0];
	struct posix_trace_status_info st;
	trace_id_t trid;
	pid_t pid;

	ST_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, st_agent_start(ag));
	pid = ag->pid;
	ASSERT_EQ(0, st_create(pid, 65536, 0, 0, &self->trid));
	ASSERT_EQ(0, st_start_and_skip(self->trid));
	ASSERT_EQ(0, st_agent_event(ag, POSIX_TRACE_UNNAMED_USEREVENT, 0, NULL));
	ASSERT_EQ(0, st_agent_op(ag, STA_EXIT, 0, 0, 0, NULL));
	ASSERT_EQ(0, st_wait_exit(pid));
	ag->pid = -1;

	/* At once, while the module may still be forgetting it. */
	ASSERT_EQ(ESRCH, st_create(pid, 65536, 0, 0, &trid));
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
}

/* The last thread of a group whose leader exited: as many descriptors as
 * it may have, so that closing them at exit takes a while; tells the test
 * its tid, then leaves by the raw system call, not exit_group().
 */
/* See create_on_a_group_whose_last_thread_is_exiting_is_esrch. */
#define WINDOW_FDS	(1 << 18)
#define WINDOW_ROUNDS	20

static void *last_thread_slow_exit(void *p)
{
	int fd = *(int *)p, last = -1, i;
	pid_t tid = st_gettid();
	struct rlimit rl;

	/* Its exit closes every descriptor after exit_mm(): the more, the
	 * longer the window the test looks into.  Root may raise the hard
	 * limit up to fs.nr_open; others get their hard limit.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (!geteuid() && rl.rlim_max < WINDOW_FDS)
			rl.rlim_cur = rl.rlim_max = WINDOW_FDS;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = dup(fd); i >= 0; i = dup(fd))
		last = i;
	for (i = 0; i < 8 && last > fd; i++)	/* room to read /proc */
		close(last--);
	while (st_proc_state(getpid()) != 'Z')	/* the leader went first */
		st_sleep_ms(1);
	if (write(fd, &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	syscall(SYS_exit, 0);
	return NULL;
}

/* Has thread @tid of @pid let go of its memory (it is in do_exit())? */
static bool task_mm_gone(pid_t pid, pid_t tid)
{
	char path[96], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return !strstr(buf, "VmSize:");
}

/* Is thread @tid of @pid still listed in its group? */
static bool task_listed(pid_t pid, pid_t tid)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * REQ: CREATE-6 5.16 (a group whose last thread is exiting has exited)
 * The leader left by pthread_exit() and the last thread by a raw exit():
 * once that thread is in do_exit() the group is gone for good (6.1 sets
 * SIGNAL_GROUP_EXIT there), so naming it gives ESRCH, as after the reap,
 * although the zombie leader still has a thread; a stream created then
 * would trace a group whose exit the module had already handled.
 */
TEST_F(proc, create_on_a_group_whose_last_thread_is_exiting_is_esrch)
{
	int round, hits = 0, sv[2];
	uint64_t end;
	pthread_t th;
	pid_t pid, tid;

	ST_REQUIRE_TRACE_CHILDREN();
	/* Every round must answer ESRCH; at least one must have looked
	 * while the thread was still exiting, or the test has not tested
	 * the window it is about (a failure, never a skip).
	 */
	for (round = 0; round < WINDOW_ROUNDS && hits < 3; round++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
		fflush(NULL);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			close(sv[0]);
			if (pthread_create(&th, NULL, last_thread_slow_exit, &sv[1]))
				_exit(2);
			pthread_exit(NULL);
		}
		self->child = pid;
		close(sv[1]);
		ASSERT_EQ((ssize_t)sizeof(tid), read(sv[0], &tid, sizeof(tid)));
		close(sv[0]);
		end = st_now_ns(CLOCK_MONOTONIC) + 5 * ST_NSEC_PER_SEC;
		while (!task_mm_gone(pid, tid))
			ASSERT_LT(st_now_ns(CLOCK_MONOTONIC), end);
		/* Past exit_mm(): in do_exit(), for good. */
		ASSERT_EQ(ESRCH, st_create_probe(pid)) TH_LOG("round %d", round);
		if (task_listed(pid, tid))
			hits++;	/* the whole attempt fell before the exit was final */
		ASSERT_EQ(0, st_wait_exit(pid));
		self->child = -1;
	}
	TH_LOG("%d of %d rounds looked while the thread was exiting", hits, round);
	ASSERT_GT(hits, 0) TH_LOG("the exit was always over before the check");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], RECORD_ARG))
		return record_tag(argv[2][0]);
	if (argc == 2 && !strcmp(argv[1], COUNT_FDS_ARG))
		return device_fds(NULL, 0);
	return test_harness_run(argc, argv);
}
