// SPDX-License-Identifier: GPL-2.0
/*
 * cli_test - the posix-trace command against the real module: "record"
 * traces a command (selftests/cli_traced) from its first instruction,
 * its forked and exec'd children with --inherit, forwards signals, exits
 * with the command's status and applies its options to the stream;
 * "attach" traces running processes, one log each, until they exit or
 * until SIGINT.
 * Logs are read back with the library (posix_trace_open()) and, for the
 * attributes, through "posix-trace stat".
 */
#include "pt_selftest.h"

#include <dirent.h>
#include <libgen.h>
#include <stdarg.h>

#define WAIT_MS		30000
#define LOG_EV_MAX	4096

FIXTURE(cli) {
	char dir[64];
	char log[128];
	char out[128];
	char tool[PATH_MAX];
	char traced[PATH_MAX];
};

FIXTURE_SETUP(cli)
{
	char exe[PATH_MAX], *d;
	ssize_t n;

	ST_REQUIRE_MODULE();
	ST_REQUIRE_TRACE_CHILDREN();
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = '\0';
	d = dirname(exe);
	snprintf(self->tool, sizeof(self->tool), "%s/../tools/posix-trace/posix-trace", d);
	snprintf(self->traced, sizeof(self->traced), "%s/cli_traced", d);
	ASSERT_EQ(0, access(self->tool, X_OK)) TH_LOG("%s: build it (make)", self->tool);
	ASSERT_EQ(0, access(self->traced, X_OK));
	strcpy(self->dir, "/tmp/cli_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->log, sizeof(self->log), "%s/t.log", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out", self->dir);
}

FIXTURE_TEARDOWN(cli)
{
	struct dirent *e;
	char path[512];
	DIR *d;

	if (!self->dir[0])
		return;
	d = opendir(self->dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", self->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(self->dir);
}

/* Start @argv with stdin/stdout from @in/@out (-1: /dev/null, @err: the
 * stderr file or NULL to keep ours).  The pid, or -1. */
static pid_t spawn(char *const argv[], int in, int out, const char *err)
{
	pid_t pid;
	int fd;

	fflush(NULL);
	pid = fork();
	if (pid != 0)
		return pid;
	fd = open("/dev/null", O_RDWR);
	dup2(in >= 0 ? in : fd, STDIN_FILENO);
	dup2(out >= 0 ? out : fd, STDOUT_FILENO);
	if (err) {
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDERR_FILENO);
	}
	execv(argv[0], argv);
	_exit(99);
}

/* Run the NULL-terminated command, stdout into @out (NULL: /dev/null);
 * its exit status (128 + N for signal N). */
static int run(const char *out, ...)
{
	char *argv[32];
	va_list ap;
	int n = 0, fd = -1, status;
	pid_t pid;

	va_start(ap, out);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (out)
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid = spawn(argv, -1, fd, NULL);
	if (fd >= 0)
		close(fd);
	status = pid > 0 ? st_wait_exit(pid) : -1;
	return status;
}

/* An event of a log as cli_traced records it: data "<pid> <tag>". */
struct log_ev {
	char name[64];
	pid_t pid;
	pid_t data_pid;		/* 0 if the data is not "<pid> <tag>" */
	char tag[32];
	size_t len;
	int truncation;
};

struct log_evs {
	struct log_ev ev[LOG_EV_MAX];
	int n;
};

/* Every event of the log at @path: 0 or an error number. */
static int read_log(const char *path, struct log_evs *r)
{
	struct st_ev ev;
	trace_id_t trid;
	int fd, ret;

	r->n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = posix_trace_open(fd, &trid);
	close(fd);
	if (ret)
		return ret;
	while (r->n < LOG_EV_MAX) {
		struct log_ev *e = &r->ev[r->n];
		char data[ST_EV_DATA_MAX + 1];
		int pid;

		ret = st_get(trid, &ev);
		if (ret || ev.unavailable)
			break;
		memset(e, 0, sizeof(*e));
		if (posix_trace_eventid_get_name(trid, ev.info.posix_event_id, data))
			strcpy(data, "?");
		snprintf(e->name, sizeof(e->name), "%s", data);
		e->pid = ev.info.posix_pid;
		e->len = ev.len;
		e->truncation = ev.info.posix_truncation_status;
		memcpy(data, ev.data, ev.len);
		data[ev.len] = '\0';
		if (sscanf(data, "%d %31s", &pid, e->tag) == 2)
			e->data_pid = pid;
		r->n++;
	}
	posix_trace_close(trid);
	return ret;
}

/* Events named @name (from @pid if not 0). */
static int count(const struct log_evs *r, const char *name, pid_t pid)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += !strcmp(r->ev[i].name, name) && (!pid || r->ev[i].pid == pid);
	return n;
}

/* The first event named @name, or NULL. */
static const struct log_ev *find(const struct log_evs *r, const char *name)
{
	int i;

	for (i = 0; i < r->n; i++) {
		if (!strcmp(r->ev[i].name, name))
			return &r->ev[i];
	}
	return NULL;
}

/* Every event cli_traced recorded carries its recorder's pid. */
static int pids_match(const struct log_evs *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		if (!strncmp(r->ev[i].name, "cli/", 4) &&
		    r->ev[i].pid != r->ev[i].data_pid)
			return 0;
	}
	return 1;
}

/* Read a line from @fd (up to @ms); true if it is @want. */
static bool read_line(int fd, const char *want, int ms)
{
	char buf[64];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1 && st_wait_fd(fd, ms)) {
		n = read(fd, buf + len, 1);
		if (n != 1)
			break;
		if (buf[len] == '\n') {
			buf[len] = '\0';
			return !strcmp(buf, want);
		}
		len++;
	}
	return false;
}

/* Wait up to @ms for child @pid: its status, or -1 (still running). */
static int wait_ms(pid_t pid, unsigned int ms)
{
	unsigned int waited;
	int status;

	for (waited = 0; waited <= ms; waited += 20) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
			       128 + WTERMSIG(status);
		st_sleep_ms(20);
	}
	return -1;
}

/* Wait until the log (being written) holds a START event. */
static bool log_started(const char *path, unsigned int ms)
{
	static struct log_evs r;
	unsigned int waited;

	for (waited = 0; waited <= ms; waited += 50) {
		if (!read_log(path, &r) && find(&r, "posix_trace_start"))
			return true;
		st_sleep_ms(50);
	}
	return false;
}

/* The whole file @path in @buf (NUL-terminated). */
static void slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static struct log_evs r;

TEST_F(cli, record_with_inherit_has_the_events_of_every_process)
{
	const struct log_ev *a, *child, *exec;

	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--inherit",
			 "--", self->traced, "events", "5", NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_NE(NULL, find(&r, "posix_trace_start"));
	a = find(&r, "cli/a");
	child = find(&r, "cli/child");
	exec = find(&r, "cli/exec");
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, child) TH_LOG("the forked child was not traced");
	ASSERT_NE(NULL, exec) TH_LOG("the child's exec'd image was not traced");
	EXPECT_EQ(5, count(&r, "cli/a", a->pid));
	EXPECT_EQ(5, count(&r, "cli/b", a->pid));
	EXPECT_NE(a->pid, child->pid);
	EXPECT_EQ(child->pid, exec->pid);
	EXPECT_EQ(1, pids_match(&r));
}

/*
 * The log of a "cli_traced burst": every emitter's events, each once and
 * in order (its sequence numbers 0..@n-1, one after the other), and no
 * loss marker.  Counted as read: a million events do not fit in r.
 */
static void check_burst(struct __test_metadata *_metadata, const char *path,
			int emitters, unsigned long n)
{
	uint64_t next[16] = { 0 }, d[2];
	unsigned long total = 0, markers = 0;
	trace_event_id_t burst = 0;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_id_t trid;
	struct st_ev ev;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_open(fd, &trid));
	close(fd);
	while (!st_get(trid, &ev) && !ev.unavailable) {
		trace_event_id_t id = ev.info.posix_event_id;

		if (id == POSIX_TRACE_OVERFLOW || id == POSIX_TRACE_ERROR ||
		    (id == POSIX_TRACE_STOP && total && total < n * emitters))
			markers++;
		if (!burst && !posix_trace_eventid_get_name(trid, id, name) &&
		    !strcmp(name, "cli/burst"))
			burst = id;
		if (!burst || id != burst)
			continue;
		ASSERT_EQ(sizeof(d), ev.len);
		memcpy(d, ev.data, sizeof(d));
		ASSERT_GT((uint64_t)emitters, d[0]);
		ASSERT_EQ(next[d[0]], d[1]) TH_LOG("emitter %llu: event %llu after %llu",
			(unsigned long long)d[0], (unsigned long long)d[1],
			(unsigned long long)next[d[0]]);
		next[d[0]]++;
		total++;
	}
	posix_trace_close(trid);
	for (i = 0; i < emitters; i++)
		EXPECT_EQ(n, next[i]) TH_LOG("emitter %d", i);
	EXPECT_EQ(n * emitters, total);
	EXPECT_EQ(0ul, markers);
}

/*
 * With its defaults (never-lose mode), "posix-trace record" keeps every
 * event of programs that emit back to back, faster than the log's file
 * takes them (issue 21): one thread of 1,000,000, four of 250,000, and
 * three children of 250,000 under --inherit.
 */
TEST_F_TIMEOUT(cli, record_defaults_keep_every_event_of_one_thread_of_a_million, 300)
{
	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--",
			 self->traced, "burst", "1", "0", "1000000", NULL));
	check_burst(_metadata, self->log, 1, 1000000);
}

TEST_F_TIMEOUT(cli, record_defaults_keep_every_event_of_four_threads, 300)
{
	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--",
			 self->traced, "burst", "4", "0", "250000", NULL));
	check_burst(_metadata, self->log, 4, 250000);
}

TEST_F_TIMEOUT(cli, record_inherit_keeps_every_event_of_three_children, 300)
{
	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--inherit",
			 "--", self->traced, "burst", "1", "3", "250000", NULL));
	check_burst(_metadata, self->log, 3, 250000);
}

TEST_F(cli, record_without_inherit_traces_only_the_command)
{
	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--",
			 self->traced, "events", "3", NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(3, count(&r, "cli/a", 0));
	EXPECT_EQ(3, count(&r, "cli/b", 0));
	EXPECT_EQ(0, count(&r, "cli/child", 0));
	EXPECT_EQ(0, count(&r, "cli/exec", 0));
}

TEST_F(cli, record_exits_with_the_status_of_the_command)
{
	ASSERT_EQ(3, run(NULL, self->tool, "record", "-o", self->log, "--",
			 self->traced, "exit", "3", NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(1, count(&r, "cli/a", 0));
}

TEST_F(cli, record_exits_with_128_plus_the_signal_that_killed_the_command)
{
	ASSERT_EQ(128 + SIGKILL, run(NULL, self->tool, "record", "-o", self->log,
				      "--", self->traced, "kill", NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(1, count(&r, "cli/a", 0));
}

TEST_F(cli, record_of_a_missing_command_exits_127_and_leaves_a_valid_log)
{
	char missing[160];

	snprintf(missing, sizeof(missing), "%s/no-such-command", self->dir);
	ASSERT_EQ(127, run(NULL, self->tool, "record", "-o", self->log, "--",
			   missing, NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_NE(NULL, find(&r, "posix_trace_start"));
	EXPECT_NE(NULL, find(&r, "posix_trace_stop"));
}

TEST_F(cli, record_forwards_sigterm_to_the_command)
{
	char *argv[] = { self->tool, "record", "-o", self->log, "--",
			 self->traced, "wait", NULL };
	int in[2], out[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(in));
	ASSERT_EQ(0, pipe(out));
	pid = spawn(argv, in[0], out[1], NULL);
	ASSERT_GT(pid, 0);
	close(in[0]);
	close(out[1]);
	ASSERT_TRUE(read_line(out[0], "ready", WAIT_MS));
	ASSERT_EQ(0, kill(pid, SIGTERM));
	/* cli_traced exits 42 from its SIGTERM handler. */
	EXPECT_EQ(42, wait_ms(pid, WAIT_MS));
	close(in[1]);
	close(out[0]);
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(1, count(&r, "cli/sigterm", 0));
	EXPECT_EQ(1, pids_match(&r));
}

TEST_F(cli, record_filter_drops_the_named_events)
{
	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--inherit",
			 "--filter", "cli/b,cli/child", "--", self->traced, "events",
			 "4", NULL));
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(4, count(&r, "cli/a", 0));
	EXPECT_EQ(0, count(&r, "cli/b", 0));
	EXPECT_EQ(0, count(&r, "cli/child", 0));
	EXPECT_EQ(1, count(&r, "cli/exec", 0));
}

TEST_F(cli, record_options_reach_the_stream_attributes)
{
	static char st[8192];

	ASSERT_EQ(0, run(NULL, self->tool, "record", "-o", self->log, "--inherit",
			 "--size", "64K", "--max-data", "4", "--stream-policy",
			 "until-full", "--log-policy", "until-full", "--",
			 self->traced, "exit", "0", NULL));
	ASSERT_EQ(0, run(self->out, self->tool, "stat", self->log, NULL));
	slurp(self->out, st, sizeof(st));
	EXPECT_NE(NULL, strstr(st, "\nstream size: 65536\n")) TH_LOG("%s", st);
	EXPECT_NE(NULL, strstr(st, "\nmax data size: 4\n")) TH_LOG("%s", st);
	EXPECT_NE(NULL, strstr(st, "\nstream full policy: until-full\n"));
	EXPECT_NE(NULL, strstr(st, "\nlog full policy: until-full\n"));
	EXPECT_NE(NULL, strstr(st, "\ninheritance: inherited\n"));
	EXPECT_NE(NULL, strstr(st, "name: posix-trace record\n"));
	/* "<pid> exit" is longer than 4 bytes: cut when recorded. */
	ASSERT_EQ(0, read_log(self->log, &r));
	ASSERT_NE(NULL, find(&r, "cli/a"));
	EXPECT_EQ(4U, find(&r, "cli/a")->len);
	EXPECT_EQ(POSIX_TRACE_TRUNCATED_RECORD, find(&r, "cli/a")->truncation);
}

/* The target, started with a pipe on its stdin and "ready" read. */
static pid_t start_waiting(struct __test_metadata *_metadata,
			   FIXTURE_DATA(cli) *self, int *in)
{
	char *argv[] = { self->traced, "wait", NULL };
	int p[2], out[2];
	pid_t pid;

	if (pipe(p) || pipe(out))
		return -1;
	pid = spawn(argv, p[0], out[1], NULL);
	close(p[0]);
	close(out[1]);
	EXPECT_TRUE(read_line(out[0], "ready", WAIT_MS));
	close(out[0]);
	*in = p[1];
	return pid;
}

/* "posix-trace attach -o LOG PID" started for @target. */
static pid_t attach_one(FIXTURE_DATA(cli) *self, pid_t target)
{
	char pidstr[16];
	char *argv[] = { self->tool, "attach", "-o", self->log, pidstr, NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)target);
	return spawn(argv, -1, -1, NULL);
}

TEST_F_TIMEOUT(cli, attach_traces_a_running_process_until_it_exits, 120)
{
	pid_t target, tool;
	int in;

	target = start_waiting(_metadata, self, &in);
	ASSERT_GT(target, 0);
	tool = attach_one(self, target);
	ASSERT_GT(tool, 0);
	ASSERT_TRUE(log_started(self->log, WAIT_MS));
	ASSERT_EQ(1, write(in, "\n", 1));
	EXPECT_EQ(0, wait_ms(target, WAIT_MS));
	/* attach notices the exit by itself. */
	EXPECT_EQ(0, wait_ms(tool, WAIT_MS));
	close(in);
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(1, count(&r, "cli/last", target));
	EXPECT_LT(0, count(&r, "cli/tick", target));
	EXPECT_EQ(1, pids_match(&r));
	EXPECT_NE(NULL, find(&r, "posix_trace_stop"));
}

TEST_F_TIMEOUT(cli, attach_stops_on_sigint_and_leaves_the_process_running, 120)
{
	pid_t target, tool;
	int in, n;

	target = start_waiting(_metadata, self, &in);
	ASSERT_GT(target, 0);
	tool = attach_one(self, target);
	ASSERT_GT(tool, 0);
	ASSERT_TRUE(log_started(self->log, WAIT_MS));
	ASSERT_EQ(0, kill(tool, SIGINT));
	EXPECT_EQ(0, wait_ms(tool, WAIT_MS));
	EXPECT_EQ(0, kill(target, 0));	/* still running */
	ASSERT_EQ(0, read_log(self->log, &r));
	n = count(&r, "cli/tick", target);
	EXPECT_NE(NULL, find(&r, "posix_trace_stop"));
	/* The stream is gone: what the target records now is not logged. */
	st_sleep_ms(300);
	ASSERT_EQ(0, read_log(self->log, &r));
	EXPECT_EQ(n, count(&r, "cli/tick", target));
	ASSERT_EQ(1, write(in, "\n", 1));
	EXPECT_EQ(0, wait_ms(target, WAIT_MS));
	close(in);
}

TEST_F_TIMEOUT(cli, attach_to_several_pids_writes_one_log_per_pid, 120)
{
	char pid1[16], pid2[16], log1[160], log2[160];
	char *argv[] = { self->tool, "attach", "-o", self->log, pid1, pid2, NULL };
	pid_t t1, t2, tool;
	int in1, in2;

	t1 = start_waiting(_metadata, self, &in1);
	ASSERT_GT(t1, 0);
	t2 = start_waiting(_metadata, self, &in2);
	ASSERT_GT(t2, 0);
	snprintf(pid1, sizeof(pid1), "%d", (int)t1);
	snprintf(pid2, sizeof(pid2), "%d", (int)t2);
	snprintf(log1, sizeof(log1), "%s.%d", self->log, (int)t1);
	snprintf(log2, sizeof(log2), "%s.%d", self->log, (int)t2);
	tool = spawn(argv, -1, -1, NULL);
	ASSERT_GT(tool, 0);
	ASSERT_TRUE(log_started(log1, WAIT_MS));
	ASSERT_TRUE(log_started(log2, WAIT_MS));
	/* One exits: attach goes on with the other. */
	ASSERT_EQ(1, write(in1, "\n", 1));
	EXPECT_EQ(0, wait_ms(t1, WAIT_MS));
	st_sleep_ms(200);
	EXPECT_EQ(0, waitpid(tool, NULL, WNOHANG));
	ASSERT_EQ(1, write(in2, "\n", 1));
	EXPECT_EQ(0, wait_ms(t2, WAIT_MS));
	EXPECT_EQ(0, wait_ms(tool, WAIT_MS));
	close(in1);
	close(in2);
	EXPECT_NE(0, access(self->log, F_OK));
	ASSERT_EQ(0, read_log(log1, &r));
	EXPECT_EQ(1, count(&r, "cli/last", t1));
	EXPECT_EQ(0, count(&r, "cli/last", t2));
	ASSERT_EQ(0, read_log(log2, &r));
	EXPECT_EQ(1, count(&r, "cli/last", t2));
	EXPECT_EQ(0, count(&r, "cli/last", t1));
}

TEST_F(cli, attach_to_a_missing_process_fails_with_a_message_and_no_log)
{
	char pidstr[16], live[16], err[512], errfile[160], log[160];
	char *argv[] = { self->tool, "attach", "-o", self->log, pidstr, NULL };
	char *argv2[] = { self->tool, "attach", "-o", self->log, live, pidstr, NULL };
	pid_t tool, target;
	int in;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)st_unused_pid());
	snprintf(errfile, sizeof(errfile), "%s/err", self->dir);
	tool = spawn(argv, -1, -1, errfile);
	ASSERT_GT(tool, 0);
	EXPECT_EQ(1, st_wait_exit(tool));
	slurp(errfile, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "no process")) TH_LOG("stderr: %s", err);
	EXPECT_NE(0, access(self->log, F_OK));

	/* With a live one too: all or nothing, no log left behind. */
	target = start_waiting(_metadata, self, &in);
	ASSERT_GT(target, 0);
	snprintf(live, sizeof(live), "%d", (int)target);
	snprintf(log, sizeof(log), "%s.%d", self->log, (int)target);
	tool = spawn(argv2, -1, -1, errfile);
	ASSERT_GT(tool, 0);
	EXPECT_EQ(1, st_wait_exit(tool));
	EXPECT_NE(0, access(log, F_OK));
	ASSERT_EQ(1, write(in, "\n", 1));
	EXPECT_EQ(0, wait_ms(target, WAIT_MS));
	close(in);
}

TEST_HARNESS_MAIN
