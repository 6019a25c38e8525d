// SPDX-License-Identifier: GPL-2.0
/*
 * log_test - the Trace Log option end to end (issue 5): streams created
 * with posix_trace_create_withlog() write their events to a log through
 * the module's flusher; posix_trace_open() reads the log back as a
 * pre-recorded stream.
 *
 * Every test writes a log into a file under /tmp (a tmpfs in the VM),
 * shuts the stream down (or lets its controller die), opens the log and
 * compares what it reads with what was recorded.  Sequences of user events
 * carry a uint64_t sequence number (st_record_seq()), so a lost, repeated
 * or reordered event shows as a gap or a step back.
 *
 * The contract tested here (decided for issue 5, Documentation/design.md):
 *  - LOOP and UNTIL_FULL logs need a regular file opened for writing
 *    without O_APPEND; APPEND logs also take pipes and sockets, never
 *    character devices;
 *  - the stream-full policy defaults to FLUSH with a log;
 *  - posix_trace_flush() returns once the flush is done, with its first
 *    write error; getnext/timedgetnext/trygetnext on an active stream with
 *    log are EINVAL (the flusher is its only reader);
 *  - shutdown, explicit or at the controller's end, flushes and closes the
 *    log before it returns (before the parent's waitpid() returns).
 */
#include "pt_selftest.h"
#include <linux/posix_trace_log.h>

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* Data of a st_record_seq() event, and the size of its record. */
#define SEQ_LEN		sizeof(uint64_t)
#define SEQ_REC		(sizeof(struct posix_trace_record) + SEQ_LEN)
#define BATCH		100
#define SMALL_LOG	16384
#define NAME_A		"log_test.alpha"
#define NAME_B		"log_test.beta"

/* ------------------------------------------------------------------ */
/* Creating streams with a log                                         */
/* ------------------------------------------------------------------ */

/* 0 fields keep the defaults. */
struct logspec {
	int stream_policy;
	int log_policy;
	size_t stream_size;
	size_t log_size;
	size_t maxdata;
	const char *name;
	uint64_t full_wait_ns;	/* never-lose mode; 0: off */
};

static int log_attr(const struct logspec *s, trace_attr_t *a)
{
	int ret = st_attr_make(a, s->stream_size, s->stream_policy,
			       s->maxdata);

	if (!ret && s->log_policy)
		ret = posix_trace_attr_setlogfullpolicy(a, s->log_policy);
	if (!ret && s->log_size)
		ret = posix_trace_attr_setlogsize(a, s->log_size);
	if (!ret && s->name)
		ret = posix_trace_attr_setname(a, s->name);
	if (!ret && s->full_wait_ns) {
		struct timespec w = {
			.tv_sec = (time_t)(s->full_wait_ns / ST_NSEC_PER_SEC),
			.tv_nsec = (long)(s->full_wait_ns % ST_NSEC_PER_SEC),
		};

		ret = posix_trace_attr_setfullwait_np(a, &w);
	}
	return ret;
}

static int log_create(pid_t pid, const struct logspec *s, int fd,
		      trace_id_t *trid)
{
	trace_attr_t a;
	int ret = log_attr(s, &a);

	if (!ret)
		ret = posix_trace_create_withlog(pid, &a, fd, trid);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* create_withlog of a small stream on the caller with log policy @policy:
 * the error, after shutting down the stream if it was created. */
static int log_create_probe(int fd, int policy)
{
	struct logspec s = { .log_policy = policy,
			     .stream_size = ST_SMALL_STREAM };
	trace_id_t trid;
	int ret = log_create(0, &s, fd, &trid);

	if (!ret)
		ret = posix_trace_shutdown(trid);
	return ret;
}

struct log_attr_vals {
	int stream_policy, log_policy;
	size_t stream_size, log_size, maxdata;
	char name[TRACE_NAME_MAX];
	struct timespec created, clock_res;
};

static int log_get_attr(trace_id_t trid, struct log_attr_vals *v)
{
	trace_attr_t a;
	int ret = posix_trace_attr_init(&a);

	if (ret)
		return ret;
	ret = posix_trace_get_attr(trid, &a);
	if (!ret)
		ret = posix_trace_attr_getstreamfullpolicy(&a, &v->stream_policy);
	if (!ret)
		ret = posix_trace_attr_getlogfullpolicy(&a, &v->log_policy);
	if (!ret)
		ret = posix_trace_attr_getstreamsize(&a, &v->stream_size);
	if (!ret)
		ret = posix_trace_attr_getlogsize(&a, &v->log_size);
	if (!ret)
		ret = posix_trace_attr_getmaxdatasize(&a, &v->maxdata);
	if (!ret)
		ret = posix_trace_attr_getname(&a, v->name);
	if (!ret)
		ret = posix_trace_attr_getcreatetime(&a, &v->created);
	if (!ret)
		ret = posix_trace_attr_getclockres(&a, &v->clock_res);
	posix_trace_attr_destroy(&a);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Reading a log                                                       */
/* ------------------------------------------------------------------ */

/* What the tests need of one event of a log. */
struct lev {
	trace_event_id_t id;
	pid_t pid;
	size_t len;
	uint64_t seq;		/* first 8 data bytes, or the int of STOP
				 * (auto) and ERROR (errno) */
	uint64_t ts;		/* realtime ns */
	uint64_t thread, address;
};

/* A STOP the stream recorded by itself (full stream): a loss follows. */
static bool lev_is_auto_stop(const struct lev *e)
{
	return e->id == POSIX_TRACE_STOP && e->seq != 0;
}

/* An event announcing that events were lost before or after it. */
static bool lev_is_loss_marker(const struct lev *e)
{
	return lev_is_auto_stop(e) || e->id == POSIX_TRACE_OVERFLOW ||
	       e->id == POSIX_TRACE_ERROR;
}

static void lev_from(struct lev *e, const struct st_ev *ev)
{
	int v;

	e->id = ev->info.posix_event_id;
	e->pid = ev->info.posix_pid;
	e->thread = (uint64_t)ev->info.posix_thread_id;
	e->address = (uint64_t)(uintptr_t)ev->info.posix_prog_address;
	e->len = ev->len;
	e->ts = st_ts_ns(&ev->info.posix_timestamp);
	e->seq = 0;
	if (e->id == POSIX_TRACE_STOP || e->id == POSIX_TRACE_ERROR) {
		v = st_stop_auto(ev);	/* an int: STOP's auto, ERROR's errno */
		e->seq = (uint64_t)(int64_t)v;
	} else if (ev->len >= SEQ_LEN) {
		e->seq = st_seq_of(ev);
	}
}

/*
 * Every event of the pre-recorded stream @trid from where its cursor is,
 * into *@evs (grown with realloc, freed by the caller), *@n of them.
 * Returns 0 or the first error.
 */
static int log_read_events(trace_id_t trid, struct lev **evs, int *n)
{
	struct lev *grown;
	struct st_ev ev;
	int ret, max = *n = 0;

	for (;;) {
		ret = st_get(trid, &ev);
		if (ret)
			return ret;
		if (ev.unavailable)
			return 0;
		if (*n == max) {
			max = max ? 2 * max : 1024;
			grown = realloc(*evs, max * sizeof(**evs));
			if (!grown)
				return ENOMEM;
			*evs = grown;
		}
		lev_from(&(*evs)[(*n)++], &ev);
	}
}

/* Everything one test keeps about its log. */
struct logfix {
	char path[96];
	int wfd;		/* the log file, read-write (for create) */
	int rfd;		/* the same file, read-only (for open) */
	trace_id_t trid;	/* the active stream with log */
	trace_id_t otrid;	/* the log opened */
	struct lev *ev;		/* the log's events, once read */
	int nev;
	struct posix_trace_status_info st;	/* the log's final status */
	struct log_attr_vals live;	/* get_attr of the stream, at create */
	char mnt[48];		/* a small tmpfs the log is on, if any */
	bool mounted;
	pid_t child;		/* a controller still to kill and reap */
};

static void lf_setup(struct __test_metadata *_metadata, struct logfix *f)
{
	memset(f, 0, sizeof(*f));
	f->wfd = f->rfd = -1;
	ST_REQUIRE_MODULE();
	snprintf(f->path, sizeof(f->path), "/tmp/log_test.XXXXXX");
	f->wfd = mkostemp(f->path, O_CLOEXEC);
	ASSERT_LE(0, f->wfd) TH_LOG("mkostemp: %s", strerror(errno));
	f->rfd = open(f->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f->rfd);
}

static void lf_teardown(struct logfix *f)
{
	if (f->child > 0) {
		kill(f->child, SIGKILL);
		st_wait_exit(f->child);
	}
	if (f->trid > 0)
		posix_trace_shutdown(f->trid);
	if (f->otrid < 0)
		posix_trace_close(f->otrid);
	if (f->wfd >= 0)
		close(f->wfd);
	if (f->rfd >= 0)
		close(f->rfd);
	if (f->path[0])
		unlink(f->path);
	if (f->mounted)
		umount2(f->mnt, MNT_DETACH);
	if (f->mnt[0])
		rmdir(f->mnt);
	free(f->ev);
}

/* Create the stream of @f on the caller with a log in its file. */
static void lf_create(struct __test_metadata *_metadata, struct logfix *f,
		      const struct logspec *s)
{
	ASSERT_EQ(0, log_create(0, s, f->wfd, &f->trid));
	ASSERT_EQ(0, log_get_attr(f->trid, &f->live));
}

/* Open the log of @f, read all its events and its status. */
static void lf_open_and_read(struct __test_metadata *_metadata,
			     struct logfix *f)
{
	ASSERT_EQ(0, posix_trace_open(f->rfd, &f->otrid));
	ASSERT_EQ(0, log_read_events(f->otrid, &f->ev, &f->nev));
	ASSERT_EQ(0, posix_trace_get_status(f->otrid, &f->st));
}

/* Shut the stream of @f down (0 expected), then open and read its log. */
static void lf_shutdown_and_read(struct __test_metadata *_metadata,
				 struct logfix *f)
{
	trace_id_t trid = f->trid;

	f->trid = 0;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	lf_open_and_read(_metadata, f);
}

static void lf_dump(struct __test_metadata *_metadata,
		    const struct logfix *f, int from, int n)
{
	int i;

	if (from < 0)
		from = 0;
	for (i = from; i < f->nev && i < from + n; i++)
		TH_LOG("  ev[%d] %s len %zu seq/auto %llu", i,
		       st_id_str(f->ev[i].id), f->ev[i].len,
		       (unsigned long long)f->ev[i].seq);
	TH_LOG("  (%d events in the log)", f->nev);
}

/* Number of events of the log with id @id. */
static int lf_count(const struct logfix *f, trace_event_id_t id)
{
	int i, n = 0;

	for (i = 0; i < f->nev; i++)
		n += f->ev[i].id == id;
	return n;
}

/* Number of STOP events the stream recorded by itself. */
static int lf_count_auto_stops(const struct logfix *f)
{
	int i, n = 0;

	for (i = 0; i < f->nev; i++)
		n += lev_is_auto_stop(&f->ev[i]);
	return n;
}

/*
 * The st_record_seq() events of the log: in order, without duplicates,
 * each gap preceded by a loss marker (an automatic STOP, an OVERFLOW, an
 * ERROR) since the event before it.  *@first and
 * *@last receive the first and last sequence numbers; returns how many
 * there are.
 */
static int lf_check_seq(struct __test_metadata *_metadata,
			const struct logfix *f, uint64_t total,
			uint64_t *first, uint64_t *last)
{
	bool marker = false, any = false;
	uint64_t expect = 0;
	int i, n = 0;

	*first = *last = 0;
	for (i = 0; i < f->nev; i++) {
		const struct lev *e = &f->ev[i];

		if (lev_is_loss_marker(e))
			marker = true;
		if (e->id != POSIX_TRACE_UNNAMED_USEREVENT)
			continue;
		ASSERT_EQ(SEQ_LEN, e->len);
		if (!any)
			*first = e->seq;
		ASSERT_LE(expect, e->seq) {
			TH_LOG("event %d: seq %llu after %llu (repeated or out of order)",
			       i, (unsigned long long)e->seq,
			       (unsigned long long)expect - 1);
			lf_dump(_metadata, f, i - 4, 8);
		}
		ASSERT_TRUE(any ? e->seq == expect || marker : true) {
			TH_LOG("event %d: seq %llu, expected %llu, no loss marker between",
			       i, (unsigned long long)e->seq,
			       (unsigned long long)expect);
			lf_dump(_metadata, f, i - 4, 8);
		}
		any = true;
		marker = false;
		expect = e->seq + 1;
		*last = e->seq;
		n++;
	}
	ASSERT_LE(expect, total);
	return n;
}

/* The log holds exactly the sequence 0 .. @total - 1. */
static void lf_expect_all_seq(struct __test_metadata *_metadata,
			      const struct logfix *f, uint64_t total)
{
	uint64_t first, last;
	int n = lf_check_seq(_metadata, f, total, &first, &last);

	ASSERT_EQ((int)total, n) lf_dump(_metadata, f, f->nev - 8, 8);
	ASSERT_EQ(0u, first);
	ASSERT_EQ(total - 1, last);
}

/* Record @batches batches of BATCH sequence events from 0, each flushed. */
static void record_flushed_batches(struct __test_metadata *_metadata,
				   trace_id_t trid, int batches)
{
	int i;

	for (i = 0; i < batches; i++) {
		st_record_seq((uint64_t)i * BATCH, BATCH);
		ASSERT_EQ(0, posix_trace_flush(trid)) TH_LOG("batch %d", i);
	}
}

/* Bytes of the records of the log's events (log-format.md 5.3). */
static size_t lf_record_bytes(const struct logfix *f)
{
	size_t bytes = 0;
	int i;

	/* Packed records (format 1.1): a context record where the pid or
	 * thread changes, the address where it changes.  Each block starts
	 * both anew, which the reader does not show: up to 32 bytes a
	 * block more than this.
	 */
	for (i = 0; i < f->nev; i++) {
		const struct lev *e = &f->ev[i], *p = i ? e - 1 : NULL;

		bytes += POSIX_TRACE_LOG_P_HDR + ((e->len + 7) & ~(size_t)7);
		if (!p || p->pid != e->pid || p->thread != e->thread)
			bytes += POSIX_TRACE_LOG_C_SIZE;
		if (p ? p->address != e->address : e->address != 0)
			bytes += 8;
	}
	return bytes;
}

static void expect_log_status(struct __test_metadata *_metadata,
			      trace_id_t trid, int log_full, int log_overrun,
			      int flush_error)
{
	struct posix_trace_status_info st;

	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	if (log_full >= 0) {
		EXPECT_EQ(log_full, st.posix_log_full_status);
	}
	if (log_overrun >= 0) {
		EXPECT_EQ(log_overrun, st.posix_log_overrun_status);
	}
	if (flush_error >= 0) {
		EXPECT_EQ(flush_error, st.posix_stream_flush_error);
	}
}

/* ------------------------------------------------------------------ */
/* create_withlog: descriptors, file types, policies                   */
/* ------------------------------------------------------------------ */

FIXTURE(log) {
	struct logfix f;
};

FIXTURE_SETUP(log)
{
	lf_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN(log)
{
	lf_teardown(&self->f);
}

/* REQ: CREATELOG-2 5.11 */
TEST_F(log, create_withlog_rejects_closed_read_only_and_o_path_fds_with_ebadf)
{
	int fd;

	/*
	 * A closed descriptor far above the others, so that the library's
	 * own descriptor of the device cannot take its number.
	 */
	fd = fcntl(self->f.wfd, F_DUPFD_CLOEXEC, 900);
	ASSERT_LE(900, fd);
	ASSERT_EQ(0, close(fd));
	EXPECT_EQ(EBADF, log_create_probe(fd, POSIX_TRACE_APPEND));
	EXPECT_EQ(EBADF, log_create_probe(-1, POSIX_TRACE_APPEND));
	EXPECT_EQ(EBADF, log_create_probe(self->f.rfd, POSIX_TRACE_APPEND));
	EXPECT_EQ(EBADF, log_create_probe(self->f.rfd, POSIX_TRACE_LOOP));
	fd = open(self->f.path, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EBADF, log_create_probe(fd, POSIX_TRACE_APPEND));
	EXPECT_EQ(EBADF, log_create_probe(fd, POSIX_TRACE_UNTIL_FULL));
	close(fd);
}

/* REQ: CREATELOG-3 5.11 */
TEST_F(log, loop_and_until_full_logs_need_a_regular_file_without_o_append)
{
	int p[2], sv[2], fd;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	EXPECT_EQ(EINVAL, log_create_probe(p[1], POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, log_create_probe(p[1], POSIX_TRACE_UNTIL_FULL));
	close(p[0]);
	close(p[1]);

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	EXPECT_EQ(EINVAL, log_create_probe(sv[0], POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, log_create_probe(sv[0], POSIX_TRACE_UNTIL_FULL));
	close(sv[0]);
	close(sv[1]);

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, log_create_probe(fd, POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, log_create_probe(fd, POSIX_TRACE_UNTIL_FULL));
	close(fd);

	fd = open(self->f.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, log_create_probe(fd, POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, log_create_probe(fd, POSIX_TRACE_UNTIL_FULL));
	close(fd);

	/* The same regular file without O_APPEND serves both. */
	EXPECT_EQ(0, log_create_probe(self->f.wfd, POSIX_TRACE_LOOP));
	EXPECT_EQ(0, log_create_probe(self->f.wfd, POSIX_TRACE_UNTIL_FULL));
}

/*
 * An APPEND log written to @wfd holds what was recorded: a stream with
 * that log records APPEND_EVENTS events, shuts down, and the log is read
 * back from @rfd, or, for a pipe or socket (@copy), from a memfd the bytes
 * waiting at @rfd are copied into (posix_trace_open() reads a file).
 */
#define APPEND_EVENTS	3

static void append_roundtrip(struct __test_metadata *_metadata, int wfd,
			     int rfd, bool copy)
{
	struct logspec s = { .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	trace_id_t trid, otrid;
	trace_event_id_t id;
	struct lev *evs = NULL;
	int i, n, found = 0, fd = rfd;
	char buf[4096];
	ssize_t got;

	ASSERT_EQ(0, posix_trace_eventid_open("appended", &id));
	ASSERT_EQ(0, log_create(0, &s, wfd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < APPEND_EVENTS; i++) {
		uint64_t v = i + 1;

		posix_trace_event(id, &v, sizeof(v));
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	if (copy) {
		fd = memfd_create("append-log", MFD_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, fcntl(rfd, F_SETFL, O_NONBLOCK));
		while ((got = read(rfd, buf, sizeof(buf))) > 0)
			ASSERT_EQ(got, write(fd, buf, (size_t)got));
		ASSERT_EQ(EAGAIN, errno) TH_LOG("the whole log is waiting");
		ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	}
	ASSERT_EQ(0, posix_trace_open(fd, &otrid));
	ASSERT_EQ(0, log_read_events(otrid, &evs, &n));
	for (i = 0; i < n; i++) {
		if (evs[i].id != id)
			continue;
		EXPECT_EQ((uint64_t)found + 1, evs[i].seq);
		found++;
	}
	EXPECT_EQ(APPEND_EVENTS, found) TH_LOG("%d events in the log", n);
	EXPECT_EQ(0, posix_trace_close(otrid));
	free(evs);
	if (copy)
		close(fd);
}

/* REQ: CREATELOG-3 5.11 RULE-42 */
TEST_F(log, append_log_takes_files_with_o_append_pipes_and_sockets)
{
	int p[2], sv[2], fd;

	/* Accepted, and what they hold reads back as the log. */
	fd = open(self->f.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT_LE(0, fd);
	append_roundtrip(_metadata, fd, self->f.rfd, false);
	close(fd);
	EXPECT_EQ(0, log_create_probe(self->f.wfd, POSIX_TRACE_APPEND));

	/* A small log fits in the pipe's and the socket's buffers. */
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	append_roundtrip(_metadata, p[1], p[0], true);
	close(p[0]);
	close(p[1]);

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	append_roundtrip(_metadata, sv[0], sv[1], true);
	close(sv[0]);
	close(sv[1]);
}

/*
 * Refused even for APPEND (design.md section 9, "log file types"):
 * nothing bounds how long a character device's write may block the flush
 * worker.
 */
/* REQ: CREATELOG-3 5.11 */
TEST_F(log, append_log_refuses_character_devices)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, log_create_probe(fd, POSIX_TRACE_APPEND));
	close(fd);
}

static volatile sig_atomic_t nr_sigpipe;

static void count_sigpipe(int sig)
{
	(void)sig;
	nr_sigpipe++;
}

static void catch_sigpipe(struct __test_metadata *_metadata)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_sigpipe;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGPIPE, &sa, NULL));
	nr_sigpipe = 0;
}

/*
 * A pipe nobody reads is EINVAL (design.md section 9); the caller is not
 * sent SIGPIPE for it (the default action would kill it).
 */
/* REQ: CREATELOG-3 5.11 */
TEST_F(log, append_log_refuses_a_pipe_without_reader_without_sigpipe)
{
	int p[2];

	catch_sigpipe(_metadata);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	close(p[0]);
	EXPECT_EQ(EINVAL, log_create_probe(p[1], POSIX_TRACE_APPEND));
	close(p[1]);
	EXPECT_EQ(0, nr_sigpipe);
}

/* A socket whose peer is gone cannot take a log either: an error, and
 * no SIGPIPE for the caller. */
/* REQ: CREATELOG-3 5.11 */
TEST_F(log, append_log_on_a_socket_without_peer_fails_without_sigpipe)
{
	int sv[2];

	catch_sigpipe(_metadata);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	close(sv[1]);
	EXPECT_NE(0, log_create_probe(sv[0], POSIX_TRACE_APPEND));
	close(sv[0]);
	EXPECT_EQ(0, nr_sigpipe);
}

/* REQ: CREATE-12 CREATELOG-5 STRPOL-3 5.6 LOGSIZE-1 LOGSIZE-3 */
TEST_F(log, stream_policy_defaults_to_flush_with_log_and_is_einval_without)
{
	struct logspec s = { .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = ST_SMALL_STREAM,
			     .log_size = SMALL_LOG + 8 };
	struct log_attr_vals v;
	trace_id_t trid;
	int p[2];

	EXPECT_EQ(EINVAL, st_create(0, ST_SMALL_STREAM, POSIX_TRACE_FLUSH, 0,
				    &trid));
	lf_create(_metadata, &self->f, &s);
	EXPECT_EQ(POSIX_TRACE_FLUSH, self->f.live.stream_policy);
	EXPECT_EQ(POSIX_TRACE_UNTIL_FULL, self->f.live.log_policy);
	EXPECT_LE((size_t)SMALL_LOG + 8, self->f.live.log_size);

	/* FLUSH set explicitly is accepted with a log (a pipe here: the
	 * small log fits in its buffer). */
	s.stream_policy = POSIX_TRACE_FLUSH;
	s.log_policy = POSIX_TRACE_APPEND;
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	EXPECT_EQ(0, log_create(0, &s, p[1], &trid));
	EXPECT_EQ(0, log_get_attr(trid, &v));
	EXPECT_EQ(POSIX_TRACE_FLUSH, v.stream_policy);
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	close(p[0]);
	close(p[1]);
}

/*
 * The module keeps its own reference to the file, and writes the log from
 * offset 0 whatever the descriptor's offset and the file's old content.
 */
/* REQ: CREATELOG-2 CREATELOG-6 5.11 SHUT-6 */
TEST_F(log, log_is_written_after_the_caller_closed_its_fd)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = 65536 };
	char junk[1000];

	memset(junk, 'x', sizeof(junk));
	ASSERT_EQ((ssize_t)sizeof(junk), write(self->f.wfd, junk, sizeof(junk)));
	lf_create(_metadata, &self->f, &s);
	ASSERT_EQ(0, close(self->f.wfd));
	self->f.wfd = -1;
	ASSERT_EQ(0, posix_trace_start(self->f.trid));
	st_record_seq(0, BATCH);
	ASSERT_EQ(0, posix_trace_flush(self->f.trid));
	st_record_seq(BATCH, BATCH);
	lf_shutdown_and_read(_metadata, &self->f);
	lf_expect_all_seq(_metadata, &self->f, 2 * BATCH);
	EXPECT_EQ(POSIX_TRACE_START, self->f.ev[0].id);
	EXPECT_EQ(POSIX_TRACE_STOP, self->f.ev[self->f.nev - 1].id);
}

/* ------------------------------------------------------------------ */
/* Round trip                                                          */
/* ------------------------------------------------------------------ */

static const size_t rt_sizes[] = { 0, 1, 7, 8, 100, (size_t)-1, (size_t)-2 };
#define RT_NSIZES	(sizeof(rt_sizes) / sizeof(rt_sizes[0]))
#define RT_MAXDATA	256
#define RT_OVER		50	/* bytes past max-data-size: truncated */

/* The data length rt_sizes[i] stands for (-1: max-data, -2: beyond). */
static size_t rt_len(size_t i)
{
	if (rt_sizes[i] == (size_t)-1)
		return RT_MAXDATA;
	if (rt_sizes[i] == (size_t)-2)
		return RT_MAXDATA + RT_OVER;
	return rt_sizes[i];
}

static unsigned char rt_byte(trace_event_id_t id, size_t i, size_t k)
{
	return (unsigned char)(id * 31 + i * 7 + k);
}

static void rt_record(trace_event_id_t id)
{
	unsigned char data[RT_MAXDATA + RT_OVER];
	size_t i, k;

	for (i = 0; i < RT_NSIZES; i++) {
		for (k = 0; k < rt_len(i); k++)
			data[k] = rt_byte(id, i, k);
		posix_trace_event(id, data, rt_len(i));
	}
}

struct rt_thread {
	trace_event_id_t id;
	pthread_t self;
};

static void *rt_thread_fn(void *arg)
{
	struct rt_thread *t = arg;

	t->self = pthread_self();
	rt_record(t->id);
	return NULL;
}

/* Check events [*i, *i + RT_NSIZES) of @evs: rt_record(@id) by @thread. */
static void rt_check(struct __test_metadata *_metadata, const struct st_ev *evs,
		     int n, int *i, trace_event_id_t id, pthread_t thread)
{
	size_t s, k, len;

	for (s = 0; s < RT_NSIZES; s++, (*i)++) {
		const struct st_ev *ev = &evs[*i];

		ASSERT_LT(*i, n);
		len = rt_len(s) > RT_MAXDATA ? RT_MAXDATA : rt_len(s);
		ASSERT_EQ(id, ev->info.posix_event_id)
			TH_LOG("event %d is %s", *i,
			       st_id_str(ev->info.posix_event_id));
		EXPECT_EQ(getpid(), ev->info.posix_pid);
		EXPECT_TRUE(pthread_equal(thread, ev->info.posix_thread_id))
			TH_LOG("event %d: wrong thread", *i);
		ASSERT_EQ(len, ev->len) TH_LOG("event %d", *i);
		EXPECT_EQ(rt_len(s) > RT_MAXDATA ?
			  POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED,
			  ev->info.posix_truncation_status)
			TH_LOG("event %d", *i);
		for (k = 0; k < len; k++)
			ASSERT_EQ(rt_byte(id, s, k), ev->data[k])
				TH_LOG("event %d byte %zu", *i, k);
	}
}

/* The ids of the type list of @trid; returns how many. */
static int type_list(trace_id_t trid, trace_event_id_t *ids, int max)
{
	int n = 0, unav = 0;

	if (posix_trace_eventtypelist_rewind(trid))
		return -1;
	while (n < max) {
		if (posix_trace_eventtypelist_getnext_id(trid, &ids[n], &unav))
			return -1;
		if (unav)
			break;
		n++;
	}
	return n;
}

static bool has_id(const trace_event_id_t *ids, int n, trace_event_id_t id)
{
	while (n--)
		if (ids[n] == id)
			return true;
	return false;
}

/* REQ: MODEL-11 SHUT-1 SHUT-6 SHUT-7 RULE-44 CREATELOG-6 OPEN-1 GETATTR-1 GETSTAT-4 RULE-38 EVNAME-1 MODEL-23 EVLIST-1 5.12 */
TEST_F(log, round_trip_gives_same_events_ids_names_data_threads_attr_and_status)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_LOOP,
			     .stream_size = 65536,
			     .log_size = 262144,
			     .maxdata = RT_MAXDATA,
			     .name = "log_test round trip" };
	static struct st_ev evs[64];
	trace_event_id_t a, b, ids[__POSIX_TRACE_ID_NR];
	trace_event_id_t want_ids[6] = {
		POSIX_TRACE_START, POSIX_TRACE_STOP, POSIX_TRACE_FILTER,
		POSIX_TRACE_UNNAMED_USEREVENT,
	};
	char name[TRACE_EVENT_NAME_MAX + 1], want[TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_status_info st;
	struct rt_thread th = { 0 };
	struct log_attr_vals logged;
	trace_event_set_t none;
	uint64_t before, after, prev = 0;
	struct st_sizes sz;
	trace_id_t trid;
	pthread_t t;
	int i, n, nids;
	uint64_t one = 42;

	ASSERT_EQ(0, posix_trace_eventid_open(NAME_A, &a));
	ASSERT_EQ(0, posix_trace_eventid_open(NAME_B, &b));
	lf_create(_metadata, &self->f, &s);
	ASSERT_EQ(0, st_stream_sizes(self->f.trid, 0, &sz));
	ASSERT_EQ((size_t)RT_MAXDATA, sz.maxdata);

	before = st_realtime_ns();
	ASSERT_EQ(0, posix_trace_start(self->f.trid));
	rt_record(a);
	ASSERT_EQ(0, posix_trace_eventset_empty(&none));
	ASSERT_EQ(0, posix_trace_set_filter(self->f.trid, &none,
					    POSIX_TRACE_SET_EVENTSET));
	th.id = b;
	ASSERT_EQ(0, pthread_create(&t, NULL, rt_thread_fn, &th));
	ASSERT_EQ(0, pthread_join(t, NULL));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &one, sizeof(one));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->f.trid, a, want));
	ASSERT_STREQ(NAME_A, want);
	trid = self->f.trid;
	self->f.trid = 0;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	after = st_realtime_ns();

	ASSERT_EQ(0, posix_trace_open(self->f.rfd, &self->f.otrid));
	for (n = 0; n < (int)(sizeof(evs) / sizeof(evs[0])); n++) {
		ASSERT_EQ(0, st_get(self->f.otrid, &evs[n]));
		if (evs[n].unavailable)
			break;
		EXPECT_LE(prev, st_ts_ns(&evs[n].info.posix_timestamp))
			TH_LOG("event %d goes back in time", n);
		prev = st_ts_ns(&evs[n].info.posix_timestamp);
	}
	/* START, a x 7, FILTER, b x 7 (other thread), unnamed, STOP */
	ASSERT_EQ(2 * (int)RT_NSIZES + 4, n) {
		for (i = 0; i < n; i++)
			TH_LOG("  ev[%d] %s len %zu", i,
			       st_id_str(evs[i].info.posix_event_id),
			       evs[i].len);
	}
	i = 0;
	EXPECT_EQ(POSIX_TRACE_START, evs[i].info.posix_event_id);
	EXPECT_LE(before, st_ts_ns(&evs[i].info.posix_timestamp) +
		  ST_TS_SLACK_NS);
	i++;
	rt_check(_metadata, evs, n, &i, a, pthread_self());
	EXPECT_EQ(POSIX_TRACE_FILTER, evs[i].info.posix_event_id);
	i++;
	rt_check(_metadata, evs, n, &i, b, th.self);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, evs[i].info.posix_event_id);
	ASSERT_EQ(sizeof(one), evs[i].len);
	EXPECT_EQ(one, st_seq_of(&evs[i]));
	i++;
	ASSERT_EQ(POSIX_TRACE_STOP, evs[i].info.posix_event_id);
	EXPECT_EQ(0, st_stop_auto(&evs[i]));
	EXPECT_GE(after + ST_TS_SLACK_NS, st_ts_ns(&evs[i].info.posix_timestamp));

	/* The names of the ids, from the log's own type table. */
	nids = type_list(self->f.otrid, ids, __POSIX_TRACE_ID_NR);
	ASSERT_LT(0, nids);
	want_ids[4] = a;
	want_ids[5] = b;
	for (i = 0; i < (int)(sizeof(want_ids) / sizeof(want_ids[0])); i++) {
		EXPECT_TRUE(has_id(ids, nids, want_ids[i]))
			TH_LOG("%s missing from the type list",
			       st_id_str(want_ids[i]));
	}
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->f.otrid, a, name));
	EXPECT_STREQ(NAME_A, name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->f.otrid, b, name));
	EXPECT_STREQ(NAME_B, name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->f.otrid,
						  POSIX_TRACE_START, name));
	EXPECT_STREQ("posix_trace_start", name);

	/* The attributes of the stream, and its final status. */
	ASSERT_EQ(0, log_get_attr(self->f.otrid, &logged));
	EXPECT_STREQ(s.name, logged.name);
	EXPECT_EQ(POSIX_TRACE_UNTIL_FULL, logged.stream_policy);
	EXPECT_EQ(POSIX_TRACE_LOOP, logged.log_policy);
	EXPECT_EQ(self->f.live.stream_size, logged.stream_size);
	EXPECT_EQ(self->f.live.log_size, logged.log_size);
	EXPECT_EQ(self->f.live.maxdata, logged.maxdata);
	EXPECT_EQ(st_ts_ns(&self->f.live.created), st_ts_ns(&logged.created));
	/* The module's clock resolution, as the live stream reported it. */
	EXPECT_EQ(st_ts_ns(&self->f.live.clock_res), st_ts_ns(&logged.clock_res));
	EXPECT_LT(0u, st_ts_ns(&logged.clock_res));
	ASSERT_EQ(0, posix_trace_get_status(self->f.otrid, &st));
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_stream_full_status);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	EXPECT_EQ(0, st.posix_stream_flush_error);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, st.posix_log_full_status);
}

/* ------------------------------------------------------------------ */
/* Every stream-full x log-full policy, with and without a log size    */
/* ------------------------------------------------------------------ */

FIXTURE(combo) {
	struct logfix f;
};

FIXTURE_VARIANT(combo) {
	int stream_policy;
	int log_policy;
	bool sized;		/* log-max-size SMALL_LOG, else the default */
};

#define COMBO(sp, lp, sz, SP, LP, SZ)					\
	FIXTURE_VARIANT_ADD(combo, sp##_stream_##lp##_log_##sz) {	\
		.stream_policy = POSIX_TRACE_##SP,			\
		.log_policy = POSIX_TRACE_##LP,				\
		.sized = SZ,						\
	}

COMBO(loop, loop, sized, LOOP, LOOP, true);
COMBO(loop, loop, default_size, LOOP, LOOP, false);
COMBO(loop, until_full, sized, LOOP, UNTIL_FULL, true);
COMBO(loop, until_full, default_size, LOOP, UNTIL_FULL, false);
COMBO(loop, append, sized, LOOP, APPEND, true);
COMBO(loop, append, default_size, LOOP, APPEND, false);
COMBO(until_full, loop, sized, UNTIL_FULL, LOOP, true);
COMBO(until_full, loop, default_size, UNTIL_FULL, LOOP, false);
COMBO(until_full, until_full, sized, UNTIL_FULL, UNTIL_FULL, true);
COMBO(until_full, until_full, default_size, UNTIL_FULL, UNTIL_FULL, false);
COMBO(until_full, append, sized, UNTIL_FULL, APPEND, true);
COMBO(until_full, append, default_size, UNTIL_FULL, APPEND, false);
COMBO(flush, loop, sized, FLUSH, LOOP, true);
COMBO(flush, loop, default_size, FLUSH, LOOP, false);
COMBO(flush, until_full, sized, FLUSH, UNTIL_FULL, true);
COMBO(flush, until_full, default_size, FLUSH, UNTIL_FULL, false);
COMBO(flush, append, sized, FLUSH, APPEND, true);
COMBO(flush, append, default_size, FLUSH, APPEND, false);

FIXTURE_SETUP(combo)
{
	lf_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN(combo)
{
	lf_teardown(&self->f);
}

/*
 * Batches that fit in the stream, each flushed: the stream loses nothing
 * whatever its policy, so the log shows its own policy alone.  A sized
 * log is given four times its size: LOOP keeps the newest events, about
 * log-max-size of them; UNTIL_FULL the oldest, at most log-max-size, and
 * ends with STOP; APPEND, and every log of the default size (16 MiB),
 * keep everything.
 */
/* REQ: LOGPOL-2 RULE-39 RULE-40 RULE-41 RULE-42 RULE-43 RULE-46 LOGSIZE-3 FLUSH-1 FLUSH-5 FLUSH-8 CREATELOG-6 */
TEST_F(combo, flushed_batches_reach_the_log_as_its_policy_promises)
{
	struct logspec s = { .stream_policy = variant->stream_policy,
			     .log_policy = variant->log_policy,
			     .stream_size = 16384,
			     .log_size = variant->sized ? SMALL_LOG : 0 };
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct logfix *f = &self->f;
	struct log_attr_vals logged;
	uint64_t first, last, total;
	trace_event_id_t a;
	size_t bytes;
	int batches, n;

	lf_create(_metadata, f, &s);
	EXPECT_EQ(variant->stream_policy, f->live.stream_policy);
	EXPECT_EQ(variant->log_policy, f->live.log_policy);
	if (variant->sized) {
		EXPECT_LE((size_t)SMALL_LOG, f->live.log_size);
	}
	batches = 10;
	if (variant->sized)
		batches = (int)(4 * f->live.log_size / (BATCH * SEQ_REC)) + 1;
	ASSERT_GE(400, batches)
		TH_LOG("log size %zu asked %d: rounded up too far",
		       f->live.log_size, SMALL_LOG);
	total = (uint64_t)batches * BATCH;

	ASSERT_EQ(0, posix_trace_eventid_open(NAME_A, &a));
	ASSERT_EQ(0, posix_trace_start(f->trid));
	posix_trace_event(a, NULL, 0);
	record_flushed_batches(_metadata, f->trid, batches);
	lf_shutdown_and_read(_metadata, f);
	/* Attributes and names survive whatever became of the events. */
	ASSERT_EQ(0, log_get_attr(f->otrid, &logged));
	EXPECT_EQ(f->live.stream_policy, logged.stream_policy);
	EXPECT_EQ(f->live.log_policy, logged.log_policy);
	EXPECT_EQ(f->live.stream_size, logged.stream_size);
	EXPECT_EQ(f->live.log_size, logged.log_size);
	ASSERT_EQ(0, posix_trace_eventid_get_name(f->otrid, a, name));
	EXPECT_STREQ(NAME_A, name);
	ASSERT_LT(0, f->nev);
	ASSERT_EQ(POSIX_TRACE_STOP, f->ev[f->nev - 1].id)
		lf_dump(_metadata, f, f->nev - 8, 8);
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, f->st.posix_stream_status);
	n = lf_check_seq(_metadata, f, total, &first, &last);
	bytes = lf_record_bytes(f);
	TH_LOG("%d of %llu events in the log, seq %llu..%llu, %zu bytes of records, log size %zu",
	       n, (unsigned long long)total, (unsigned long long)first,
	       (unsigned long long)last, bytes, f->live.log_size);

	if (variant->log_policy == POSIX_TRACE_APPEND || !variant->sized) {
		lf_expect_all_seq(_metadata, f, total);
		EXPECT_EQ(POSIX_TRACE_START, f->ev[0].id);
		EXPECT_EQ(POSIX_TRACE_NOT_FULL, f->st.posix_log_full_status);
		EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, f->st.posix_log_overrun_status);
	} else if (variant->log_policy == POSIX_TRACE_LOOP) {
		/*
		 * The newest, without a hole, about log-max-size of them:
		 * whole blocks are overwritten, so somewhat less.
		 */
		EXPECT_EQ(total - 1, last);
		EXPECT_LT(0u, first);
		EXPECT_EQ((int)(last - first + 1), n);
		EXPECT_GE(f->live.log_size * 3 / 2, bytes);
		EXPECT_LE(f->live.log_size / 2, bytes);
	} else {
		/* The oldest, without a hole, within log-max-size. */
		EXPECT_EQ(0u, first);
		EXPECT_LT(last, total - 1);
		EXPECT_EQ((int)(last + 1), n);
		EXPECT_GE(f->live.log_size, bytes);
		EXPECT_EQ(POSIX_TRACE_START, f->ev[0].id);
		EXPECT_EQ(POSIX_TRACE_FULL, f->st.posix_log_full_status);
		EXPECT_EQ(POSIX_TRACE_OVERRUN, f->st.posix_log_overrun_status);
	}
}

/* ------------------------------------------------------------------ */
/* Flushing                                                            */
/* ------------------------------------------------------------------ */

/*
 * FLUSH_START and FLUSH_STOP come in pairs, except across a stop or start
 * of the stream (markers are recorded only while it runs).  Returns the
 * number of FLUSH_START.
 */
static int lf_check_flush_pairs(struct __test_metadata *_metadata,
				const struct logfix *f)
{
	bool open = false, gap = false;
	int i, n = 0;

	for (i = 0; i < f->nev; i++) {
		switch (f->ev[i].id) {
		case POSIX_TRACE_START:
		case POSIX_TRACE_STOP:
			gap = true;
			break;
		case POSIX_TRACE_FLUSH_START:
			ASSERT_TRUE(!open || gap) {
				TH_LOG("event %d: FLUSH_START without FLUSH_STOP before", i);
				lf_dump(_metadata, f, i - 4, 8);
			}
			open = true;
			gap = false;
			n++;
			break;
		case POSIX_TRACE_FLUSH_STOP:
			ASSERT_TRUE(open || gap) {
				TH_LOG("event %d: FLUSH_STOP without FLUSH_START", i);
				lf_dump(_metadata, f, i - 4, 8);
			}
			open = false;
			gap = false;
			break;
		}
	}
	return n;
}

/* A missing tail of a sequence is announced by a loss marker after the
 * last event of the sequence. */
static void lf_check_tail(struct __test_metadata *_metadata,
			  const struct logfix *f, uint64_t last, uint64_t total)
{
	int i;

	if (last + 1 == total)
		return;
	for (i = f->nev - 1; i >= 0; i--) {
		if (lev_is_loss_marker(&f->ev[i]))
			return;
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, f->ev[i].id)
			TH_LOG("events %llu..%llu missing, no loss marker",
			       (unsigned long long)last + 1,
			       (unsigned long long)total - 1);
	}
}

/*
 * Ten streams' worth recorded without a flush: the stream loses events
 * (LOOP overwrites, UNTIL_FULL stops, FLUSH stops until its flush), and
 * the log's stored status must say so whatever get_status reset while
 * the stream lived (GETSTAT-4, RULE-38).  @poll: get_status after the
 * recording, which resets the live overrun flags.
 */
static void lf_stored_status(struct __test_metadata *_metadata,
			     struct logfix *f, int stream_policy,
			     int log_policy, bool sized, bool poll)
{
	struct logspec s = { .stream_policy = stream_policy,
			     .log_policy = log_policy,
			     .stream_size = ST_SMALL_STREAM,
			     .log_size = sized ? SMALL_LOG : 0 };
	struct posix_trace_status_info st;
	int live_overrun = 0, live_log_overrun = 0, i, losses = 0;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	st_record_seq(0, 10 * ST_SMALL_STREAM / SEQ_REC);
	if (poll) {
		ASSERT_EQ(0, posix_trace_get_status(f->trid, &st));
		live_overrun = st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN;
		live_log_overrun = st.posix_log_overrun_status == POSIX_TRACE_OVERRUN;
		if (stream_policy != POSIX_TRACE_FLUSH) {
			EXPECT_TRUE(live_overrun);
		}
	}
	lf_shutdown_and_read(_metadata, f);
	/* The stream's loss markers; not the STOP that ends a full
	 * UNTIL_FULL log (RULE-41): events the log, not the stream, lost.
	 */
	for (i = 0; i < f->nev; i++) {
		bool log_end = i == f->nev - 1 &&
			       log_policy == POSIX_TRACE_UNTIL_FULL &&
			       f->st.posix_log_full_status == POSIX_TRACE_FULL;

		losses += f->ev[i].id == POSIX_TRACE_OVERFLOW ||
			  (lev_is_auto_stop(&f->ev[i]) && !log_end);
	}
	if (live_overrun || losses || stream_policy != POSIX_TRACE_FLUSH) {
		EXPECT_EQ(POSIX_TRACE_OVERRUN, f->st.posix_stream_overrun_status)
			TH_LOG("live status %s, %d loss markers in the log: the stored status says no overrun",
			       live_overrun ? "overrun" : "not read", losses);
	}
	if (live_log_overrun) {
		EXPECT_EQ(POSIX_TRACE_OVERRUN, f->st.posix_log_overrun_status);
	}
	/* LOOP wrapped, UNTIL_FULL stopped: full when it was shut down. */
	if (stream_policy != POSIX_TRACE_FLUSH) {
		EXPECT_EQ(POSIX_TRACE_FULL, f->st.posix_stream_full_status);
	}
}

/* REQ: GETSTAT-4 RULE-38 */
TEST_F(combo, stored_status_is_the_completed_streams_after_get_status_reset_it)
{
	lf_stored_status(_metadata, &self->f, variant->stream_policy,
			 variant->log_policy, variant->sized, true);
}

/* REQ: GETSTAT-4 RULE-38 */
TEST_F(combo, stored_status_reports_an_overrun_nobody_asked_about)
{
	lf_stored_status(_metadata, &self->f, variant->stream_policy,
			 variant->log_policy, variant->sized, false);
}

struct recorder {
	int stop;
	uint64_t n;
};

#define RECORDER_MAX	100000
#define FLUSHES		20

static void *recorder_fn(void *arg)
{
	struct recorder *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) &&
	       r->n < RECORDER_MAX) {
		st_record_seq(r->n, 16);
		r->n += 16;
		/* Keep recording while the main thread flushes 20 times. */
		if (!(r->n % 256))
			st_sleep_ms(1);
	}
	return NULL;
}

/* REQ: MODEL-9 FLUSH-1 FLUSH-3 FLUSH-4 FLUSH-5 FLUSH-6 FLUSH-7 RULE-33 RULE-43 5.13 5.15 */
TEST_F(log, flush_while_recording_logs_every_event_between_flush_markers)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 262144 };
	struct posix_trace_status_info st;
	struct recorder r = { 0 };
	struct logfix *f = &self->f;
	uint64_t first, last;
	int i, n, flushing = 0;
	pthread_t t;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	ASSERT_EQ(0, pthread_create(&t, NULL, recorder_fn, &r));
	for (i = 0; i < FLUSHES; i++) {
		ASSERT_EQ(0, posix_trace_flush(f->trid)) TH_LOG("flush %d", i);
		ASSERT_EQ(0, posix_trace_get_status(f->trid, &st));
		flushing += st.posix_stream_flush_status != POSIX_TRACE_NOT_FLUSHING;
		EXPECT_EQ(0, st.posix_stream_flush_error);
		st_sleep_ms(5);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	/* Its FLUSH_STOP reaches the log at shutdown, before the STOP. */
	ASSERT_EQ(0, posix_trace_flush(f->trid));
	lf_shutdown_and_read(_metadata, f);

	n = lf_check_seq(_metadata, f, r.n, &first, &last);
	TH_LOG("%d of %llu events in the log, %d FLUSH_START", n,
	       (unsigned long long)r.n, lf_count(f, POSIX_TRACE_FLUSH_START));
	EXPECT_EQ(0u, first);
	lf_check_tail(_metadata, f, last, r.n);
	n = lf_check_flush_pairs(_metadata, f);
	/* Each flush while the stream ran recorded one FLUSH_START.  Our
	 * flush had ended when it returned; a stream that filled starts one
	 * of its own (to restart once empty), which may run by then.
	 */
	if (!lf_count_auto_stops(f)) {
		EXPECT_LE(FLUSHES + 1, n);
		EXPECT_EQ(0, flushing) TH_LOG("still flushing after flush returned");
	} else {
		EXPECT_LE(1, n);
	}
	ASSERT_LE(3, f->nev);
	EXPECT_EQ(POSIX_TRACE_STOP, f->ev[f->nev - 1].id);
	EXPECT_EQ(0u, f->ev[f->nev - 1].seq);
	/* Unless the stream stopped itself, the last flush's FLUSH_STOP
	 * was recorded, and reached the log at shutdown. */
	if (!lf_count_auto_stops(f)) {
		EXPECT_EQ(POSIX_TRACE_FLUSH_STOP, f->ev[f->nev - 2].id)
			lf_dump(_metadata, f, f->nev - 8, 8);
	}
}

/* REQ: MODEL-9 MODEL-11 RULE-27 STRPOL-2 RULE-39 5.13 */
TEST_F(log, flush_stream_flushes_by_itself_and_loses_nothing_when_recording_slowly)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 16384 };
	struct logfix *f = &self->f;
	const uint64_t total = 1000;
	uint64_t i;

	lf_create(_metadata, f, &s);
	/*
	 * Several times what the stream holds (a lane per CPU), at most
	 * 6.4 KB per 100 ms: each automatic flush has room to spare.
	 */
	ASSERT_LT(2 * f->live.stream_size, total * SEQ_REC);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	for (i = 0; i < total; i++) {
		st_record_seq(i, 1);
		st_sleep_ms(1);
	}
	lf_shutdown_and_read(_metadata, f);
	lf_expect_all_seq(_metadata, f, total);
	EXPECT_LE(1, lf_count(f, POSIX_TRACE_FLUSH_START));
	EXPECT_LE(0, lf_check_flush_pairs(_metadata, f));
}

/*
 * A FLUSH stream is flushed when a lane passes half its size, not only on
 * the 100 ms tick: half a lane every 20 ms, twenty times (ten lanes'
 * worth in 400 ms) loses nothing and never stops the stream.  With the
 * tick alone the lane fills after two or three batches and stops.
 */
/* REQ: RULE-39 5.13 */
TEST_F(log, flush_stream_is_flushed_at_half_a_lane_before_the_tick)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 65536 };
	struct logfix *f = &self->f;
	uint64_t half, i;

	lf_create(_metadata, f, &s);
	half = f->live.stream_size / 2 / SEQ_REC + 1;
	ASSERT_EQ(0, posix_trace_start(f->trid));
	for (i = 0; i < 20; i++) {
		st_record_seq(i * half, half);
		st_sleep_ms(20);
	}
	lf_shutdown_and_read(_metadata, f);
	lf_expect_all_seq(_metadata, f, 20 * half);
	EXPECT_EQ(0, lf_count_auto_stops(f));
	EXPECT_LE(10, lf_count(f, POSIX_TRACE_FLUSH_START));
}

#define TIGHT_MAX	100000

/* REQ: RULE-27 STRPOL-2 5.13 5.15 */
TEST_F(log, flush_stream_losses_in_a_tight_loop_are_bracketed_by_stop_and_start)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	struct logfix *f = &self->f;
	uint64_t total, first, last, end;
	int n;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	/* 200 ms, time for a few automatic flushes, or at most 6.4 MB. */
	end = st_now_ns(CLOCK_MONOTONIC) + 200 * 1000000ULL;
	for (total = 0; total < TIGHT_MAX &&
	     st_now_ns(CLOCK_MONOTONIC) < end; total += 64)
		st_record_seq(total, 64);
	lf_shutdown_and_read(_metadata, f);
	n = lf_check_seq(_metadata, f, total, &first, &last);
	TH_LOG("%d of %llu events in the log, %d automatic STOP", n,
	       (unsigned long long)total, lf_count_auto_stops(f));
	EXPECT_EQ(0u, first);
	lf_check_tail(_metadata, f, last, total);
	/* More than a stream's worth: the automatic flushes freed space. */
	EXPECT_LT(f->live.stream_size / SEQ_REC, (size_t)n);
}

/* ------------------------------------------------------------------ */
/* Which trid kinds each function takes                                */
/* ------------------------------------------------------------------ */

/* REQ: RULE-47 CREATELOG-4 FLUSH-2 5.14 3.0.1 OPEN-3 CLOSE-2 SHUT-4 */
TEST_F(log, reads_are_einval_on_a_stream_with_log_and_each_kind_takes_its_functions)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	trace_id_t nolog, trid;
	struct st_ev ev;

	lf_create(_metadata, &self->f, &s);
	trid = self->f.trid;
	ASSERT_EQ(0, posix_trace_start(trid));
	st_record_seq(0, 1);
	/* Would block forever if they read: the alarm makes that EINTR. */
	st_watchdog(10);
	EXPECT_EQ(EINVAL, st_get(trid, &ev));
	EXPECT_EQ(EINVAL, st_timed_ms(trid, &ev, 100));
	EXPECT_EQ(EINVAL, st_try(trid, &ev));
	st_watchdog(0);
	EXPECT_EQ(EINVAL, posix_trace_rewind(trid));
	EXPECT_EQ(EINVAL, posix_trace_close(trid));
	EXPECT_EQ(0, posix_trace_flush(trid));

	ASSERT_EQ(0, st_create(0, ST_SMALL_STREAM, 0, 0, &nolog));
	EXPECT_EQ(EINVAL, posix_trace_flush(nolog));
	EXPECT_EQ(EINVAL, posix_trace_rewind(nolog));
	EXPECT_EQ(EINVAL, posix_trace_close(nolog));
	EXPECT_EQ(0, posix_trace_shutdown(nolog));

	self->f.trid = 0;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	EXPECT_EQ(EINVAL, posix_trace_flush(trid));
	EXPECT_EQ(EINVAL, posix_trace_shutdown(trid));

	ASSERT_EQ(0, posix_trace_open(self->f.rfd, &self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_flush(self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_start(self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_stop(self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_clear(self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_shutdown(self->f.otrid));
	EXPECT_EQ(EINVAL, st_try(self->f.otrid, &ev));
	EXPECT_EQ(0, st_get(self->f.otrid, &ev));
	EXPECT_EQ(0, ev.unavailable);
	EXPECT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	EXPECT_EQ(0, posix_trace_rewind(self->f.otrid));
	EXPECT_EQ(0, posix_trace_close(self->f.otrid));
	EXPECT_EQ(EINVAL, posix_trace_close(self->f.otrid));
	self->f.otrid = 0;
}

/* ------------------------------------------------------------------ */
/* The controller ends without shutdown                                */
/* ------------------------------------------------------------------ */

#define CTL_EVENTS	200

enum {
	C_NAME = ST_C_FIRST_OWN,
	C_CREATE,
	C_START,
	C_PIPE,
};

/* The child: create a stream with log on itself in @wfd, start it,
 * record, then say so on @ready.  0 or a C_* code. */
static int controller(int wfd, int ready)
{
	struct logspec s = { .stream_size = 65536 };
	trace_event_id_t a;
	trace_id_t trid;

	if (posix_trace_eventid_open(NAME_A, &a))
		return C_NAME;
	if (log_create(0, &s, wfd, &trid))
		return C_CREATE;
	if (posix_trace_start(trid))
		return C_START;
	posix_trace_event(a, NULL, 0);
	st_record_seq(0, CTL_EVENTS);
	if (write(ready, "r", 1) != 1)
		return C_PIPE;
	return 0;
}

enum end {
	END_SIGKILL,
	END_EXIT,	/* exit(), as a return from main() */
	END_EXEC,	/* exec of a shell that says so on its stdout */
};

/* The new image of END_EXEC: once it runs, the log must be complete. */
static void exec_image(int out)
{
	if (dup2(out, STDOUT_FILENO) < 0)
		_exit(C_PIPE);
	execl("/bin/sh", "sh", "-c", "echo x; exec sleep 30", (char *)NULL);
	_exit(C_PIPE);
}

/*
 * Fork a controller that records CTL_EVENTS events to the log of @f and
 * then ends as told without a shutdown: once waitpid() returned (or the
 * new image runs), the log is complete.
 */
static void controller_ends(struct __test_metadata *_metadata,
			    struct logfix *f, enum end end)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	int p[2], q[2], ret, status, k;
	pid_t pid;
	char b;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(q, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(p[0]);
		close(q[0]);
		ret = controller(f->wfd, p[1]);
		if (ret || end == END_EXIT)
			exit(ret);
		if (end == END_EXEC)
			exec_image(q[1]);
		for (;;)
			pause();
	}
	f->child = pid;
	close(p[1]);
	close(q[1]);
	ASSERT_TRUE(st_wait_fd(p[0], ST_AGENT_TIMEOUT_MS));
	ret = read(p[0], &b, 1);
	close(p[0]);
	ASSERT_EQ(1, ret) TH_LOG("controller exited with %d",
				 st_wait_exit(pid));
	if (end == END_EXEC) {
		/* The new image speaks: the old one's streams are gone. */
		ASSERT_TRUE(st_wait_fd(q[0], ST_AGENT_TIMEOUT_MS));
		ASSERT_EQ(1, read(q[0], &b, 1));
		EXPECT_EQ('x', b);
	} else {
		if (end == END_SIGKILL)
			kill(pid, SIGKILL);
		status = st_wait_exit(pid);
		f->child = 0;
		ASSERT_EQ(end == END_SIGKILL ? 128 + SIGKILL : 0, status);
	}
	close(q[0]);

	lf_open_and_read(_metadata, f);
	lf_expect_all_seq(_metadata, f, CTL_EVENTS);
	EXPECT_EQ(POSIX_TRACE_START, f->ev[0].id);
	/* The FLUSH policy's tick may flush between START and the first
	 * event (START is new to it), on a loaded machine. */
	for (k = 1; k < f->nev && (f->ev[k].id == POSIX_TRACE_FLUSH_START ||
				   f->ev[k].id == POSIX_TRACE_FLUSH_STOP); k++)
		;
	ASSERT_LT(k, f->nev);
	ASSERT_EQ(0, posix_trace_eventid_get_name(f->otrid, f->ev[k].id, name));
	EXPECT_STREQ(NAME_A, name);
	EXPECT_EQ(pid, f->ev[k].pid);
	EXPECT_EQ(POSIX_TRACE_STOP, f->ev[f->nev - 1].id)
		lf_dump(_metadata, f, f->nev - 4, 4);
	/* A final status was written: a log without one reads RUNNING. */
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, f->st.posix_stream_status);
	EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, f->st.posix_stream_flush_status);
}

/* REQ: SHUT-8 SHUT-6 SHUT-7 RULE-39 RULE-78 5.13 */
TEST_F(log, sigkill_of_the_controller_leaves_a_complete_log)
{
	controller_ends(_metadata, &self->f, END_SIGKILL);
}

/* REQ: SHUT-8 SHUT-6 SHUT-7 RULE-39 RULE-78 */
TEST_F(log, exit_of_the_controller_leaves_a_complete_log)
{
	controller_ends(_metadata, &self->f, END_EXIT);
}

/* REQ: SHUT-8 SHUT-6 SHUT-7 RULE-39 RULE-78 */
TEST_F(log, exec_of_the_controller_leaves_a_complete_log_before_the_new_image_runs)
{
	controller_ends(_metadata, &self->f, END_EXEC);
}

/* ------------------------------------------------------------------ */
/* Pipes                                                               */
/* ------------------------------------------------------------------ */

struct drainer {
	int in, out;
	int err;
	size_t bytes;
	int slow_ms;		/* sleep between two reads of 4 KiB at most */
};

/* Copy @in to @out until end of file; err ETIMEDOUT if nothing comes
 * for 10 s (the module kept the pipe open). */
static void *drainer_fn(void *arg)
{
	struct drainer *d = arg;
	char buf[16384];
	ssize_t n;

	for (;;) {
		if (!st_wait_fd(d->in, 10000)) {
			d->err = ETIMEDOUT;
			return NULL;
		}
		n = read(d->in, buf, d->slow_ms ? 4096 : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (d->slow_ms)
			st_sleep_ms(d->slow_ms);
		if (n <= 0) {
			d->err = n ? errno : 0;
			return NULL;
		}
		if (write(d->out, buf, n) != n) {
			d->err = errno ? errno : EIO;
			return NULL;
		}
		d->bytes += n;
	}
}

/* REQ: CREATELOG-3 5.11 RULE-42 SHUT-6 */
TEST_F(log, append_log_into_a_pipe_drained_to_a_file_opens)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 65536 };
	struct drainer d = { 0 };
	trace_id_t trid;
	pthread_t t;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	d.in = p[0];
	d.out = self->f.wfd;
	ASSERT_EQ(0, pthread_create(&t, NULL, drainer_fn, &d));
	ASSERT_EQ(0, log_create(0, &s, p[1], &trid));
	close(p[1]);
	self->f.trid = trid;
	ASSERT_EQ(0, posix_trace_start(trid));
	/* Twice a pipe's buffer: the writer waits for the drainer. */
	record_flushed_batches(_metadata, trid, 20);
	self->f.trid = 0;
	EXPECT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, pthread_join(t, NULL));
	close(p[0]);
	ASSERT_EQ(0, d.err) TH_LOG("drainer: %s", strerror(d.err));
	TH_LOG("%zu bytes through the pipe", d.bytes);

	lf_open_and_read(_metadata, &self->f);
	lf_expect_all_seq(_metadata, &self->f, 20 * BATCH);
	EXPECT_EQ(POSIX_TRACE_STOP, self->f.ev[self->f.nev - 1].id);
	EXPECT_EQ(POSIX_TRACE_SUSPENDED, self->f.st.posix_stream_status);
}

/* Copy what the pipe @fd holds, up to end of file, to @out. */
static int drain_pipe(int fd, int out)
{
	struct drainer d = { .in = fd, .out = out };

	drainer_fn(&d);
	return d.err;
}

/*
 * A reader that stops reading: the flush waits for it, but a signal ends
 * the wait (the flush, initiated, goes on: 0, and the status shows it
 * running), recording goes on meanwhile, and the shutdown gives up after
 * a bounded time (design.md section 10: 5 s per flush).  The log holds
 * what was flushed before, up to its last complete block.
 */
/* REQ: FLUSH-1 FLUSH-4 FLUSH-6 RULE-33 SHUT-2 SHUT-3 5.13 5.27 */
TEST_F(log, a_pipe_nobody_reads_delays_flush_and_shutdown_boundedly)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 262144 };
	struct posix_trace_status_info st;
	struct logfix *f = &self->f;
	uint64_t t0, first, last;
	trace_id_t trid;
	int p[2], ret, n;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_EQ(0, log_create(0, &s, p[1], &trid));
	close(p[1]);
	f->trid = trid;
	ASSERT_EQ(0, posix_trace_start(trid));
	/* Fits in the pipe's buffer. */
	st_record_seq(0, BATCH);
	ASSERT_EQ(0, posix_trace_flush(trid));
	/* More than the pipe's buffer (3000 packed records of 24 bytes,
	 * 72 KB; 192 KB of the stream): this flush stalls.
	 */
	st_record_seq(BATCH, 3000);
	st_watchdog(1);
	t0 = st_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, posix_trace_flush(trid));
	st_watchdog(0);
	/* Well before the 5 s the stalled write is retried. */
	EXPECT_GT(4 * ST_NSEC_PER_SEC, st_now_ns(CLOCK_MONOTONIC) - t0)
		TH_LOG("the signal did not end the flush's wait");
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_FLUSHING, st.posix_stream_flush_status);

	t0 = st_now_ns(CLOCK_MONOTONIC);
	st_record_seq(BATCH + 3000, BATCH);
	EXPECT_GT(2 * ST_NSEC_PER_SEC, st_now_ns(CLOCK_MONOTONIC) - t0)
		TH_LOG("recording waited for the flush");

	t0 = st_now_ns(CLOCK_MONOTONIC);
	f->trid = 0;
	ret = posix_trace_shutdown(trid);
	TH_LOG("shutdown: %d after %llu ms", ret,
	       (unsigned long long)(st_now_ns(CLOCK_MONOTONIC) - t0) / 1000000);
	EXPECT_TRUE(ret == 0 || ret == EIO);
	EXPECT_GT(15 * ST_NSEC_PER_SEC, st_now_ns(CLOCK_MONOTONIC) - t0);
	EXPECT_EQ(EINVAL, posix_trace_shutdown(trid));

	/* The module let go of the pipe: it reads to its end. */
	ASSERT_EQ(0, drain_pipe(p[0], f->wfd));
	close(p[0]);
	lf_open_and_read(_metadata, f);
	n = lf_check_seq(_metadata, f, 2 * BATCH + 3000, &first, &last);
	TH_LOG("%d events in the log", n);
	EXPECT_LE(BATCH, n);
	EXPECT_EQ(0u, first);
}

/* ------------------------------------------------------------------ */
/* Never-lose mode (posix_trace_attr_setfullwait_np)                   */
/* ------------------------------------------------------------------ */

/* st_record_seq() through POSIX_TRACE_IOC_EVENT on @fd: the kernel path
 * of the events a thread cannot write into a lane of its own.  -1 at the
 * first failed call.
 */
static int ioctl_seq(int fd, uint64_t first, uint64_t n)
{
	struct posix_trace_event_req req = {
		.size = sizeof(req),
		.event_id = POSIX_TRACE_UNNAMED_USEREVENT,
		.data_len = sizeof(uint64_t),
	};
	uint64_t i;

	for (i = first; i < first + n; i++) {
		req.data_ptr = (uintptr_t)&i;
		if (ioctl(fd, POSIX_TRACE_IOC_EVENT, &req))
			return -1;
	}
	return 0;
}

static void record_seq_by_ioctl(struct __test_metadata *_metadata,
				uint64_t first, uint64_t n)
{
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl_seq(fd, first, n));
	close(fd);
}

/*
 * Ten streams' worth emitted back to back into a small stream in
 * never-lose mode: writers wait for the log instead of dropping, so every
 * event reaches it, and the stream never stopped, for either full policy
 * (FLUSH flushes by itself; UNTIL_FULL is flushed because a writer asks
 * for room).  @by_ioctl: through the kernel path (a thread beyond the
 * writer lanes, a signal handler that interrupted its thread's write),
 * where the caller waits in the kernel.
 */
static void lf_never_lose_burst(struct __test_metadata *_metadata,
				struct logfix *f, int stream_policy, bool by_ioctl)
{
	struct logspec s = { .stream_policy = stream_policy,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM,
			     .full_wait_ns = 10 * ST_NSEC_PER_SEC };
	uint64_t total = 10 * ST_SMALL_STREAM / SEQ_REC;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	if (by_ioctl)
		record_seq_by_ioctl(_metadata, 0, total);
	else
		st_record_seq(0, total);
	lf_shutdown_and_read(_metadata, f);
	lf_expect_all_seq(_metadata, f, total);
	EXPECT_EQ(0, lf_count_auto_stops(f));
	EXPECT_EQ(0, lf_count(f, POSIX_TRACE_OVERFLOW));
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, f->st.posix_stream_overrun_status);
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, f->st.posix_log_overrun_status);
}

TEST_F(log, never_lose_flush_stream_keeps_every_event_of_a_burst_ten_streams_long)
{
	lf_never_lose_burst(_metadata, &self->f, POSIX_TRACE_FLUSH, false);
}

TEST_F(log, never_lose_until_full_stream_keeps_every_event_of_a_burst_ten_streams_long)
{
	lf_never_lose_burst(_metadata, &self->f, POSIX_TRACE_UNTIL_FULL, false);
}

TEST_F(log, never_lose_flush_stream_keeps_every_event_of_the_kernel_path)
{
	lf_never_lose_burst(_metadata, &self->f, POSIX_TRACE_FLUSH, true);
}

TEST_F(log, never_lose_until_full_stream_keeps_every_event_of_the_kernel_path)
{
	lf_never_lose_burst(_metadata, &self->f, POSIX_TRACE_UNTIL_FULL, true);
}

/*
 * Never-lose mode with a log nobody takes (a pipe nobody reads): a
 * writer waits its bound, no longer, then drops as the policy says, and
 * the stream stops: the program is slowed by the bound, never hung.
 */
static void lf_never_lose_stall(struct __test_metadata *_metadata,
				struct logfix *f, bool by_ioctl)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM,
			     .full_wait_ns = 300 * 1000000ULL };
	uint64_t n = 5 * (65536 + ST_SMALL_STREAM) / SEQ_REC;
	struct posix_trace_status_info st;
	uint64_t t0, took;
	trace_id_t trid;
	int p[2], ret;

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	ASSERT_EQ(0, log_create(0, &s, p[1], &trid));
	close(p[1]);
	f->trid = trid;
	ASSERT_EQ(0, posix_trace_start(trid));
	/* Five times what the pipe holds (64 KiB) and the stream. */
	t0 = st_now_ns(CLOCK_MONOTONIC);
	if (by_ioctl)
		record_seq_by_ioctl(_metadata, 0, n);
	else
		st_record_seq(0, n);
	took = st_now_ns(CLOCK_MONOTONIC) - t0;
	TH_LOG("recording took %llu ms", (unsigned long long)took / 1000000);
	/* At least one full wait, and only a few: the stream stopped. */
	EXPECT_LE(300 * 1000000ULL, took);
	EXPECT_GT(10 * ST_NSEC_PER_SEC, took);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);

	f->trid = 0;
	ret = posix_trace_shutdown(trid);
	EXPECT_TRUE(ret == 0 || ret == EIO);
	ASSERT_EQ(0, drain_pipe(p[0], f->wfd));
	close(p[0]);
}

TEST_F(log, never_lose_mode_waits_its_bound_then_drops_when_the_log_stalls)
{
	lf_never_lose_stall(_metadata, &self->f, false);
}

TEST_F(log, never_lose_kernel_path_waits_its_bound_then_drops_when_the_log_stalls)
{
	lf_never_lose_stall(_metadata, &self->f, true);
}

/*
 * A thread waiting for room on the kernel path waits killably: its
 * bound here is a minute, and SIGKILL still ends it at once.
 */
TEST_F(log, never_lose_kernel_path_wait_ends_at_once_on_sigkill)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM,
			     .full_wait_ns = 60 * ST_NSEC_PER_SEC };
	struct logfix *f = &self->f;
	int lp[2], go[2], status, ret;
	uint64_t t0, took;
	trace_id_t trid;
	pid_t child;

	ASSERT_EQ(0, pipe2(lp, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		ioctl_seq(open(ST_DEVICE, O_RDWR | O_CLOEXEC), 0,
			  10 * (65536 + ST_SMALL_STREAM) / SEQ_REC);
		_exit(0);
	}
	close(go[0]);
	ASSERT_EQ(0, log_create(child, &s, lp[1], &trid));
	close(lp[1]);
	f->trid = trid;
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	/* The pipe (64 KiB) and the stream fill in well under 3 s. */
	sleep(3);
	EXPECT_EQ(0, waitpid(child, &status, WNOHANG))
		TH_LOG("the writer did not wait for room");
	t0 = st_now_ns(CLOCK_MONOTONIC);
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	took = st_now_ns(CLOCK_MONOTONIC) - t0;
	TH_LOG("killed after %llu ms", (unsigned long long)took / 1000000);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_GT(2 * ST_NSEC_PER_SEC, took);

	f->trid = 0;
	ret = posix_trace_shutdown(trid);
	EXPECT_TRUE(ret == 0 || ret == EIO);
	ASSERT_EQ(0, drain_pipe(lp[0], f->wfd));
	close(lp[0]);
}

/* ------------------------------------------------------------------ */
/* Exact loss counts (posix_trace_get_losses_np)                       */
/* ------------------------------------------------------------------ */

/* The seq events of the log of @f, and what its LOSS block says. */
static uint64_t lf_losses(struct __test_metadata *_metadata,
			  const struct logfix *f,
			  struct posix_trace_losses_np *l)
{
	uint64_t kept = 0;
	int i;

	for (i = 0; i < f->nev; i++)
		kept += f->ev[i].id == POSIX_TRACE_UNNAMED_USEREVENT;
	EXPECT_EQ(0, posix_trace_get_losses_np(f->otrid, l));
	TH_LOG("%llu kept; dropped %llu in %llu, overwritten %llu in %llu, log discarded %llu, write lost %llu",
	       (unsigned long long)kept, l->posix_dropped, l->posix_drop_gaps,
	       l->posix_overwritten, l->posix_overwrite_gaps,
	       l->posix_log_discarded, l->posix_log_write_lost);
	return kept;
}

/*
 * A 4 KiB UNTIL_FULL stream given 1000 events and never flushed: it fills
 * and stops, and every event that did not reach the log is counted, in
 * one gap.
 */
TEST_F(log, loss_counts_of_a_full_stream_are_exact)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	struct posix_trace_losses_np l;
	struct logfix *f = &self->f;
	uint64_t kept;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	st_record_seq(0, 1000);
	lf_shutdown_and_read(_metadata, f);
	kept = lf_losses(_metadata, f, &l);
	EXPECT_GT(1000u, kept);
	EXPECT_EQ(1000u, kept + l.posix_dropped);
	EXPECT_EQ(1u, l.posix_drop_gaps);
	EXPECT_EQ(0u, l.posix_overwritten + l.posix_log_discarded +
		  l.posix_log_write_lost);
}

/*
 * A 4 KiB LOOP stream given 1000 events before its log takes any: the
 * oldest are overwritten, and the log counts exactly how many, by the
 * lane's sequence numbers.
 */
TEST_F(log, loss_counts_of_an_overwriting_stream_are_exact)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_LOOP,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	struct posix_trace_losses_np l;
	struct logfix *f = &self->f;
	uint64_t kept;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	st_record_seq(0, 1000);
	lf_shutdown_and_read(_metadata, f);
	kept = lf_losses(_metadata, f, &l);
	EXPECT_GT(1000u, kept);
	EXPECT_EQ(1000u, kept + l.posix_overwritten);
	EXPECT_EQ((uint64_t)lf_count(f, POSIX_TRACE_OVERFLOW), l.posix_overwrite_gaps);
	EXPECT_EQ(0u, l.posix_dropped + l.posix_log_discarded + l.posix_log_write_lost);
}

/*
 * A full UNTIL_FULL log: what it did not take is counted too.
 */
TEST_F(log, loss_counts_of_a_full_log_are_exact)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = 65536, .log_size = SMALL_LOG,
			     .full_wait_ns = 10 * ST_NSEC_PER_SEC };
	struct posix_trace_losses_np l;
	struct logfix *f = &self->f;
	uint64_t kept;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	st_record_seq(0, 2000);
	lf_shutdown_and_read(_metadata, f);
	kept = lf_losses(_metadata, f, &l);
	EXPECT_GT(2000u, kept);
	EXPECT_EQ(2000u, kept + l.posix_log_discarded);
	EXPECT_EQ(0u, l.posix_dropped + l.posix_overwritten + l.posix_log_write_lost);
}

static void *lf_seq_thread(void *arg)
{
	st_record_seq((uintptr_t)arg, 20000);
	return NULL;
}

/*
 * Two writers racing a small FLUSH stream that fills and stops again and
 * again: the events one of them wrote into its lane before it saw the
 * stream stop are lost too (the flusher's gate refuses them), and counted:
 * what the log kept and what it counts add up to what was emitted.
 */
TEST_F(log, loss_counts_of_two_writers_racing_a_full_stream_are_exact)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 16384 };
	struct posix_trace_losses_np l;
	struct logfix *f = &self->f;
	pthread_t t[2];
	uint64_t kept;
	int i;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, lf_seq_thread,
					    (void *)(uintptr_t)(i * 20000)));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	lf_shutdown_and_read(_metadata, f);
	kept = lf_losses(_metadata, f, &l);
	EXPECT_EQ(40000u, kept + l.posix_dropped);
	EXPECT_EQ((uint64_t)lf_count_auto_stops(f), l.posix_drop_gaps);
}

/*
 * A writer faster than its log: a FLUSH stream (no never-lose mode) whose
 * log is a pipe read 4 KiB every 2 ms.  It loses events, and exactly as
 * many as the log's counts say.
 */
TEST_F_TIMEOUT(log, a_log_slower_than_its_writer_loses_only_what_it_counts, 120)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 16384 };
	struct posix_trace_losses_np l;
	struct logfix *f = &self->f;
	struct drainer d = { .slow_ms = 2 };
	const uint64_t total = 20000;
	uint64_t kept;
	trace_id_t trid;
	pthread_t t;
	int p[2];

	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	d.in = p[0];
	d.out = f->wfd;
	ASSERT_EQ(0, log_create(0, &s, p[1], &trid));
	close(p[1]);
	ASSERT_EQ(0, pthread_create(&t, NULL, drainer_fn, &d));
	ASSERT_EQ(0, posix_trace_start(trid));
	st_record_seq(0, total);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	pthread_join(t, NULL);
	close(p[0]);
	ASSERT_EQ(0, d.err);
	lf_open_and_read(_metadata, f);
	kept = lf_losses(_metadata, f, &l);
	EXPECT_GT(total, kept) TH_LOG("the log kept up: the test tested nothing");
	EXPECT_EQ(total, kept + l.posix_dropped + l.posix_log_write_lost);
	/* The shutdown ends a flush stalled on the pipe at once (design.md
	 * §10): that block's events are counted as write lost, and the
	 * STOP(auto) of a gap may have been among them.
	 */
	if (l.posix_log_write_lost) {
		EXPECT_GE(l.posix_drop_gaps, (uint64_t)lf_count_auto_stops(f));
	} else {
		EXPECT_EQ((uint64_t)lf_count_auto_stops(f), l.posix_drop_gaps);
	}
}

/* ------------------------------------------------------------------ */
/* Reading a log twice                                                 */
/* ------------------------------------------------------------------ */

/* The sequence number of the next event of @trid, or ~0 for another. */
static uint64_t next_seq(struct __test_metadata *_metadata, trace_id_t trid)
{
	struct st_ev ev;

	EXPECT_EQ(0, st_get(trid, &ev));
	EXPECT_EQ(0, ev.unavailable);
	if (ev.info.posix_event_id != POSIX_TRACE_UNNAMED_USEREVENT)
		return ~0ULL;
	return st_seq_of(&ev);
}

/* REQ: OPEN-1 OPEN-2 REWIND-1 RULE-46 CLOSE-1 GETNEXT-3 */
TEST_F(log, a_log_opened_twice_has_independent_cursors_and_rewinds)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = 65536 };
	struct logfix *f = &self->f;
	trace_id_t t2;
	struct st_ev ev;
	int i, n;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	st_record_seq(0, 50);
	lf_shutdown_and_read(_metadata, f);
	ASSERT_EQ(52, f->nev);
	ASSERT_EQ(0, posix_trace_rewind(f->otrid));

	ASSERT_EQ(0, posix_trace_open(f->rfd, &t2));
	ASSERT_NE(f->otrid, t2);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, st_get(f->otrid, &ev));
	ASSERT_EQ(0, st_get(t2, &ev));
	EXPECT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	EXPECT_EQ(9u, next_seq(_metadata, f->otrid));
	EXPECT_EQ(0u, next_seq(_metadata, t2));
	EXPECT_EQ(10u, next_seq(_metadata, f->otrid));

	/* To the end, then from the start again. */
	ASSERT_EQ(0, log_read_events(f->otrid, &f->ev, &n));
	EXPECT_EQ(f->nev - 12, n);
	ASSERT_EQ(0, st_get(f->otrid, &ev));
	EXPECT_NE(0, ev.unavailable);
	ASSERT_EQ(0, posix_trace_rewind(f->otrid));
	ASSERT_EQ(0, st_get(f->otrid, &ev));
	EXPECT_EQ(0, ev.unavailable);
	EXPECT_EQ(POSIX_TRACE_START, ev.info.posix_event_id);
	EXPECT_EQ(0u, next_seq(_metadata, f->otrid));

	/* Closing one leaves the other as it was. */
	ASSERT_EQ(0, posix_trace_close(f->otrid));
	f->otrid = 0;
	EXPECT_EQ(1u, next_seq(_metadata, t2));
	ASSERT_EQ(0, posix_trace_rewind(t2));
	ASSERT_EQ(0, log_read_events(t2, &f->ev, &n));
	EXPECT_EQ(52, n);
	EXPECT_EQ(0, posix_trace_close(t2));
}

/* ------------------------------------------------------------------ */
/* Status, write errors, clear, sysconf                                */
/* ------------------------------------------------------------------ */

/*
 * Record and flush batches into the UNTIL_FULL log of @f until it says
 * it is full, each flush complete and without error, no log overrun
 * before it is full; returns the bound on batches it used.
 */
static int lf_fill_log(struct __test_metadata *_metadata, struct logfix *f)
{
	int i, max = (int)(4 * f->live.log_size / (BATCH * SEQ_REC)) + 2;
	struct posix_trace_status_info st;

	for (i = 0; i < max; i++) {
		st_record_seq((uint64_t)i * BATCH, BATCH);
		EXPECT_EQ(0, posix_trace_flush(f->trid));
		EXPECT_EQ(0, posix_trace_get_status(f->trid, &st));
		EXPECT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
		EXPECT_EQ(0, st.posix_stream_flush_error);
		if (st.posix_log_full_status == POSIX_TRACE_FULL)
			break;
		EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status)
			TH_LOG("batch %d: overrun, log not full", i);
	}
	EXPECT_LT(i, max) TH_LOG("log of %zu bytes never full", f->live.log_size);
	TH_LOG("log full after %d batches", i + 1);
	return max;
}

/* REQ: GETSTAT-3 RULE-33 RULE-34 RULE-35 RULE-36 RULE-41 FLUSH-3 FLUSH-8 GETSTAT-2 CREATE-9 */
TEST_F(log, status_shows_log_full_for_until_full_and_resets_log_overrun_on_read)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = 65536,
			     .log_size = SMALL_LOG };
	struct logfix *f = &self->f;
	int max;

	lf_create(_metadata, f, &s);
	expect_log_status(_metadata, f->trid, POSIX_TRACE_NOT_FULL,
			  POSIX_TRACE_NO_OVERRUN, 0);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	max = lf_fill_log(_metadata, f);

	/* Anything flushed now is lost for the log. */
	st_record_seq((uint64_t)max * BATCH, BATCH);
	ASSERT_EQ(0, posix_trace_flush(f->trid));
	expect_log_status(_metadata, f->trid, POSIX_TRACE_FULL,
			  POSIX_TRACE_OVERRUN, 0);
	expect_log_status(_metadata, f->trid, POSIX_TRACE_FULL,
			  POSIX_TRACE_NO_OVERRUN, 0);
}

/* REQ: CLEAR-7 CLEAR-5 */
TEST_F(log, clear_of_a_full_until_full_log_makes_it_not_full_and_logs_again)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_UNTIL_FULL,
			     .stream_size = 65536,
			     .log_size = SMALL_LOG };
	struct logfix *f = &self->f;
	uint64_t first, last;

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	lf_fill_log(_metadata, f);
	expect_log_status(_metadata, f->trid, POSIX_TRACE_FULL, -1, 0);
	ASSERT_EQ(0, posix_trace_clear(f->trid));
	expect_log_status(_metadata, f->trid, POSIX_TRACE_NOT_FULL, -1, 0);
	/* The log takes events again, from the first after the clear. */
	st_record_seq(1000000, BATCH);
	lf_shutdown_and_read(_metadata, f);
	EXPECT_EQ(BATCH, lf_check_seq(_metadata, f, 1000000 + BATCH, &first,
				      &last));
	EXPECT_EQ(1000000u, first);
	EXPECT_EQ(POSIX_TRACE_NOT_FULL, f->st.posix_log_full_status);
}

/*
 * A LOOP stream with log whose writer lane goes round several times
 * between two flushes: the log must not go on at the oldest survivor as if
 * nothing came before it, nor give up on the lane with an ERROR.  OVERFLOW
 * and RESUME go before the first survivor, as a reader of the live stream
 * would get them.  @before: what happens first (nothing, a flush, a
 * clear); the pause after the first event tells the first lost event's
 * time from the survivor's.  Returns the index of the OVERFLOW.
 */
enum wrap_after { WRAP_AT_START, WRAP_AFTER_FLUSH, WRAP_AFTER_CLEAR };

static int lf_wrap_and_check(struct __test_metadata *_metadata,
			     struct logfix *f, enum wrap_after before)
{
	const uint64_t pause_ns = 50 * 1000 * 1000ULL, base = 1000;
	struct logspec s = { .log_policy = POSIX_TRACE_APPEND,
			     .stream_policy = POSIX_TRACE_LOOP,
			     .stream_size = ST_SMALL_STREAM };
	struct timespec pause = { 0, (long)pause_ns };
	uint64_t t1, first, last, n;
	int i, o = -1;

	lf_create(_metadata, f, &s);
	n = 4 * f->live.stream_size / SEQ_REC;
	EXPECT_EQ(0, posix_trace_start(f->trid));
	if (before != WRAP_AT_START) {
		st_record_seq(0, BATCH);
		EXPECT_EQ(0, before == WRAP_AFTER_FLUSH ?
			  posix_trace_flush(f->trid) : posix_trace_clear(f->trid));
	}
	st_record_seq(base, 1);
	t1 = st_realtime_ns();
	EXPECT_EQ(0, nanosleep(&pause, NULL));
	st_record_seq(base + 1, n);
	lf_shutdown_and_read(_metadata, f);

	EXPECT_EQ(0, lf_count(f, POSIX_TRACE_ERROR))
		lf_dump(_metadata, f, 0, 8);
	lf_check_seq(_metadata, f, base + n + 1, &first, &last);
	EXPECT_EQ(base + n, last);
	for (i = 0; i < f->nev; i++) {
		if (f->ev[i].id == POSIX_TRACE_UNNAMED_USEREVENT &&
		    f->ev[i].seq >= base)
			break;
		if (f->ev[i].id == POSIX_TRACE_OVERFLOW)
			o = i;
	}
	EXPECT_LT(base, f->ev[i].seq);
	if (o < 0 || o + 2 >= f->nev) {
		TH_LOG("no OVERFLOW before the first event kept (seq %llu)",
		       (unsigned long long)f->ev[i].seq);
		lf_dump(_metadata, f, i - 6, 8);
		return -1;
	}
	EXPECT_EQ(POSIX_TRACE_RESUME, f->ev[o + 1].id);
	EXPECT_EQ(i, o + 2);
	EXPECT_EQ(f->ev[i].ts, f->ev[o + 1].ts);
	EXPECT_GE(f->ev[o + 1].ts + ST_TS_SLACK_NS, t1 + pause_ns);
	EXPECT_LE(f->ev[o].ts, f->ev[o + 1].ts);
	if (before != WRAP_AFTER_CLEAR) {
		EXPECT_LE(f->ev[o].ts, t1 + ST_TS_SLACK_NS)
			TH_LOG("OVERFLOW %llu ns after the first lost event",
			       (unsigned long long)(f->ev[o].ts - t1));
	}
	return o;
}

/* REQ: RULE-8 RULE-9 RULE-17 5.15 */
TEST_F(log, loop_stream_overwritten_before_its_first_flush_logs_overflow_and_resume)
{
	ASSERT_LE(0, lf_wrap_and_check(_metadata, &self->f, WRAP_AT_START));
}

/* REQ: RULE-8 RULE-9 RULE-17 5.15 */
TEST_F(log, loop_stream_going_round_between_two_flushes_logs_overflow_not_error)
{
	ASSERT_LE(0, lf_wrap_and_check(_metadata, &self->f, WRAP_AFTER_FLUSH));
}

/*
 * After a clear the seq of a writer lane's next record is not known to the
 * module, so OVERFLOW may carry the survivor's time (design.md §10); the
 * loss must still be reported.
 */
/* REQ: RULE-17 CLEAR-5 */
TEST_F(log, loop_stream_overwritten_after_a_clear_logs_overflow_and_resume)
{
	ASSERT_LE(0, lf_wrap_and_check(_metadata, &self->f, WRAP_AFTER_CLEAR));
}

/*
 * create_withlog on another process is create on it: ESRCH for a pid
 * that is gone, and the stream logs that process's events.
 */
/* REQ: CREATELOG-1 CREATE-1 */
TEST_F(log, create_withlog_on_a_child_logs_the_childs_events)
{
	struct logspec s = { .log_policy = POSIX_TRACE_APPEND,
			     .stream_policy = POSIX_TRACE_LOOP };
	struct logfix *f = &self->f;
	trace_id_t trid;
	int go[2], i, mine = 0;
	pid_t pid;
	char c;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(0);
	ASSERT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(ESRCH, log_create(pid, &s, f->wfd, &trid));

	ASSERT_EQ(0, pipe(go));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		st_record_seq(0, BATCH);
		_exit(0);
	}
	close(go[0]);
	f->child = pid;
	ASSERT_EQ(0, log_create(pid, &s, f->wfd, &f->trid));
	ASSERT_EQ(0, posix_trace_start(f->trid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(0, st_wait_exit(pid));
	f->child = 0;
	lf_shutdown_and_read(_metadata, f);
	for (i = 0; i < f->nev; i++)
		mine += f->ev[i].id != POSIX_TRACE_START &&
			f->ev[i].id != POSIX_TRACE_STOP && f->ev[i].pid == pid;
	EXPECT_EQ(BATCH, mine);
}

/* Fill the pipe behind @fd without blocking (the module writes through an
 * open file of its own, which stays blocking for it). */
static void fill_pipe(struct __test_metadata *_metadata, int fd)
{
	char junk[4096];

	memset(junk, 'j', sizeof(junk));
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	while (write(fd, junk, sizeof(junk)) > 0)
		;
	ASSERT_EQ(EAGAIN, errno);
}

/*
 * A FLUSH stream whose flush cannot keep up (its log is a pipe nobody
 * reads) loses events, and says so: overrun, reset once read.
 */
/* REQ: RULE-28 RULE-31 5.13 */
TEST_F(log, flush_stream_that_loses_events_while_flushing_reports_overrun)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_FLUSH,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = ST_SMALL_STREAM };
	struct posix_trace_status_info st;
	struct logfix *f = &self->f;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, log_create(0, &s, p[1], &f->trid));
	fill_pipe(_metadata, p[1]);	/* every flush now stalls */
	ASSERT_EQ(0, posix_trace_start(f->trid));
	/* Ten streams' worth at once: the stream fills, and its flush
	 * cannot free it. */
	st_record_seq(0, 10 * ST_SMALL_STREAM / SEQ_REC);
	ASSERT_EQ(0, posix_trace_get_status(f->trid, &st));
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
	ASSERT_EQ(0, posix_trace_get_status(f->trid, &st));
	EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	posix_trace_shutdown(f->trid);	/* bounded: the pipe stalls it */
	f->trid = 0;
	close(p[0]);
	close(p[1]);
}

/* Tracing marks the log file's times as writing and reading a file do. */
/* REQ: MODEL-49 */
TEST_F(log, flush_shutdown_and_reads_update_the_log_file_times)
{
	struct logspec s = { .log_policy = POSIX_TRACE_APPEND };
	struct logfix *f = &self->f;
	struct stat before, after;
	bool root = geteuid() == 0;
	char mnt[] = "/tmp/log_test.atime.XXXXXX", path[64];

	if (root) {
		/* strictatime: every read marks st_atime */
		close(f->wfd);
		close(f->rfd);
		unlink(f->path);
		ASSERT_NE(NULL, mkdtemp(mnt));
		ASSERT_EQ(0, mount("none", mnt, "tmpfs", MS_STRICTATIME, NULL));
		snprintf(f->mnt, sizeof(f->mnt), "%s", mnt);
		f->mounted = true;
		snprintf(path, sizeof(path), "%s/log", mnt);
		snprintf(f->path, sizeof(f->path), "%s", path);
		f->wfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		ASSERT_LE(0, f->wfd);
		f->rfd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, f->rfd);
	}
	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	ASSERT_EQ(0, fstat(f->wfd, &before));
	usleep(20000);
	st_record_seq(0, BATCH);
	ASSERT_EQ(0, posix_trace_flush(f->trid));
	ASSERT_EQ(0, fstat(f->wfd, &after));
	EXPECT_LT(st_ts_ns(&before.st_mtim), st_ts_ns(&after.st_mtim));
	EXPECT_LT(st_ts_ns(&before.st_ctim), st_ts_ns(&after.st_ctim));
	before = after;
	usleep(20000);
	lf_shutdown_and_read(_metadata, f);
	ASSERT_EQ(0, fstat(f->wfd, &after));
	EXPECT_LT(st_ts_ns(&before.st_mtim), st_ts_ns(&after.st_mtim));
	if (root)	/* the log was opened and read since */
		EXPECT_LT(st_ts_ns(&before.st_atim), st_ts_ns(&after.st_atim));
}

/* Move the log of @f to a new 64 KiB tmpfs (root only). */
static void lf_move_to_small_fs(struct __test_metadata *_metadata,
				struct logfix *f)
{
	close(f->wfd);
	close(f->rfd);
	f->wfd = f->rfd = -1;
	unlink(f->path);
	snprintf(f->mnt, sizeof(f->mnt), "/tmp/log_test.mnt.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(f->mnt));
	ASSERT_EQ(0, mount("none", f->mnt, "tmpfs", 0, "size=64k"))
		TH_LOG("mount: %s", strerror(errno));
	f->mounted = true;
	snprintf(f->path, sizeof(f->path), "%s/log", f->mnt);
	f->wfd = open(f->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, f->wfd);
	f->rfd = open(f->path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f->rfd);
}

/* Record and flush batches until a flush fails, which must be ENOSPC;
 * returns the number of batches flushed before. */
static int flush_until_enospc(struct __test_metadata *_metadata,
			      trace_id_t trid)
{
	int i, ret = 0;

	for (i = 0; i < 64; i++) {
		st_record_seq((uint64_t)i * BATCH, BATCH);
		ret = posix_trace_flush(trid);
		if (ret)
			break;
	}
	ASSERT_EQ(ENOSPC, ret) TH_LOG("after %d batches", i);
	TH_LOG("ENOSPC after %d batches", i);
	return i;
}

/* REQ: GETSTAT-3 FLUSH-9 RULE-34 RULE-35 SHUT-2 3.2.3 3.2.4 */
TEST_F(log, full_file_system_gives_enospc_and_keeps_the_events_before_it)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 65536 };
	struct logfix *f = &self->f;
	uint64_t first, last;
	int ret, ok, n;

	ST_REQUIRE_ROOT();
	lf_move_to_small_fs(_metadata, f);
	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	ok = flush_until_enospc(_metadata, f->trid);
	/* Stored as well as returned; reset once read. */
	expect_log_status(_metadata, f->trid, -1, POSIX_TRACE_OVERRUN, ENOSPC);
	expect_log_status(_metadata, f->trid, -1, -1, 0);

	ret = posix_trace_shutdown(f->trid);
	f->trid = 0;
	EXPECT_TRUE(ret == 0 || ret == ENOSPC) TH_LOG("shutdown: %d", ret);
	lf_open_and_read(_metadata, f);
	n = lf_check_seq(_metadata, f, (uint64_t)(ok + 1) * BATCH, &first,
			 &last);
	EXPECT_EQ(0u, first);
	EXPECT_EQ((int)(last + 1), n);
	EXPECT_LE(ok * BATCH, n);
}

/*
 * The write error is recorded as an ERROR event in the running stream: it
 * reaches the log once the file system has room again, between the events
 * before the error and those after it.
 */
/* REQ: FLUSH-9 RULE-34 5.13 5.24 */
TEST_F(log, write_error_reaches_the_log_as_an_error_event_once_there_is_room)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 65536 };
	struct logfix *f = &self->f;
	char filler[96], junk[4096];
	uint64_t first, last, after;
	int fd, i, ok, n, err = -1;

	ST_REQUIRE_ROOT();
	lf_move_to_small_fs(_metadata, f);
	/* Half of the file system, given back after the error. */
	snprintf(filler, sizeof(filler), "%s/filler", f->mnt);
	fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	memset(junk, 'x', sizeof(junk));
	for (i = 0; i < 8; i++)
		ASSERT_EQ((ssize_t)sizeof(junk), write(fd, junk, sizeof(junk)));
	close(fd);

	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	ok = flush_until_enospc(_metadata, f->trid);
	ASSERT_EQ(0, unlink(filler));
	after = (uint64_t)(ok + 1) * BATCH;
	st_record_seq(after, BATCH);
	EXPECT_EQ(0, posix_trace_flush(f->trid));
	lf_shutdown_and_read(_metadata, f);

	n = lf_check_seq(_metadata, f, after + BATCH, &first, &last);
	EXPECT_EQ(0u, first);
	EXPECT_EQ(after + BATCH - 1, last);
	EXPECT_LE((ok + 1) * BATCH, n);
	ASSERT_EQ(1, lf_count(f, POSIX_TRACE_ERROR))
		lf_dump(_metadata, f, f->nev - 8, 8);
	for (i = 0; i < f->nev; i++) {
		if (f->ev[i].id == POSIX_TRACE_ERROR)
			err = (int)f->ev[i].seq;
		if (f->ev[i].id == POSIX_TRACE_UNNAMED_USEREVENT &&
		    f->ev[i].seq == after)
			break;
	}
	EXPECT_EQ(ENOSPC, err) TH_LOG("no ERROR(ENOSPC) before event %llu",
				      (unsigned long long)after);
}

static volatile sig_atomic_t nr_sigxfsz;

static void count_sigxfsz(int sig)
{
	(void)sig;
	nr_sigxfsz++;
}

/*
 * The module's worker writes the log, not the caller: the controller's
 * file size limit neither stops the log nor sends it SIGXFSZ (spec 5.13).
 */
/* REQ: FLUSH-1 5.13 */
TEST_F(log, controller_file_size_limit_does_not_apply_to_the_log)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_APPEND,
			     .stream_size = 65536 };
	struct rlimit rl = { .rlim_cur = 16384, .rlim_max = RLIM_INFINITY };
	struct logfix *f = &self->f;
	struct sigaction sa;
	struct stat st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_sigxfsz;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGXFSZ, &sa, NULL));
	nr_sigxfsz = 0;
	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &rl));
	ASSERT_EQ(0, posix_trace_start(f->trid));
	record_flushed_batches(_metadata, f->trid, 10);
	lf_shutdown_and_read(_metadata, f);
	EXPECT_EQ(0, nr_sigxfsz);
	ASSERT_EQ(0, fstat(f->rfd, &st));
	EXPECT_LT((off_t)rl.rlim_cur, st.st_size);
	lf_expect_all_seq(_metadata, f, 10 * BATCH);
	/* The limit does hold for the caller's own writes. */
	EXPECT_EQ(-1, pwrite(f->wfd, "x", 1, st.st_size));
	EXPECT_EQ(EFBIG, errno);
	EXPECT_EQ(1, nr_sigxfsz);
}

/* REQ: CLEAR-2 CLEAR-5 CLEAR-6 CLEAR-1 RULE-44 */
TEST_F(log, clear_empties_the_log_too_but_keeps_the_names)
{
	struct logspec s = { .stream_policy = POSIX_TRACE_UNTIL_FULL,
			     .log_policy = POSIX_TRACE_LOOP,
			     .stream_size = 65536 };
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct logfix *f = &self->f;
	uint64_t first, last;
	trace_event_id_t a;
	int i, n;

	ASSERT_EQ(0, posix_trace_eventid_open(NAME_A, &a));
	lf_create(_metadata, f, &s);
	ASSERT_EQ(0, posix_trace_start(f->trid));
	posix_trace_event(a, NULL, 0);
	st_record_seq(0, BATCH);
	ASSERT_EQ(0, posix_trace_flush(f->trid));
	st_record_seq(BATCH, BATCH);
	ASSERT_EQ(0, posix_trace_clear(f->trid));
	st_record_seq(1000, BATCH);
	lf_shutdown_and_read(_metadata, f);

	/* The first event after the markers of a flush, if one ran. */
	for (i = 0; i < f->nev; i++)
		if (f->ev[i].id != POSIX_TRACE_FLUSH_START &&
		    f->ev[i].id != POSIX_TRACE_FLUSH_STOP)
			break;
	ASSERT_LT(i, f->nev);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, f->ev[i].id)
		lf_dump(_metadata, f, 0, 4);
	EXPECT_EQ(1000u, f->ev[i].seq);
	EXPECT_EQ(0, lf_count(f, a));
	EXPECT_EQ(0, lf_count(f, POSIX_TRACE_START));
	n = lf_check_seq(_metadata, f, 1000 + BATCH, &first, &last);
	EXPECT_EQ(BATCH, n);
	EXPECT_EQ(1000u, first);
	EXPECT_EQ(POSIX_TRACE_STOP, f->ev[f->nev - 1].id);
	ASSERT_EQ(0, posix_trace_eventid_get_name(f->otrid, a, name));
	EXPECT_STREQ(NAME_A, name);
}

/* REQ: 1.9 5.1 */
TEST_F(log, trace_log_option_is_advertised)
{
	EXPECT_LT(0L, (long)_POSIX_TRACE_LOG);
	EXPECT_LT(0L, sysconf(_SC_TRACE_LOG));
}

TEST_HARNESS_MAIN
