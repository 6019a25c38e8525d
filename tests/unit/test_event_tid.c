// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_event_tid_np(3): the kernel thread id of the event the last
 * getnext call returned, on logs (log_writer.h writes them, in every
 * layout and block format) and on an active stream without the module
 * (lane_fake.h plays it); its errors, and what clear, rewind and readers
 * in other threads do to it.  Every call goes through EXPECT_RC, which
 * also checks that errno is left alone.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <trace.h>

#include "lane_fake.h"
#include "log_writer.h"
#include "pt_test.h"

/* Not a thread id: what *tid holds before a call that must not write it. */
#define CANARY	((pid_t)-77)

#define NE	10

/*
 * Two processes, the first with three threads whose events interleave (a
 * system call of one thread inside another's, as in a threaded program),
 * and an automatic marker of no thread: pid and tid of each event.
 */
static void sample(struct lw_event *ev)
{
	static const uint32_t pid[NE] = { 0, 4242, 4242, 4242, 4242, 4242, 5000, 4242, 5000, 4242 };
	static const uint32_t tid[NE] = { 0, 4242, 4243, 4244, 4244, 4243, 5001, 4242, 5000, 4243 };
	static const uint32_t id[NE] = { 2, 16, 16, 256, 257, 17, 16, 17, 17, 26 };
	unsigned int i;

	for (i = 0; i < NE; i++)
		ev[i] = (struct lw_event){ .id = id[i], .pid = pid[i], .tid = tid[i],
					   .ts = 5000000000ull + 1000 * i,
					   .thread = id[i] >= 256 ? 0x7f00000000ull + tid[i] : 0,
					   .flags = id[i] < 256 ? POSIX_TRACE_REC_AUTO : 0,
					   .data = "abcdefgh", .data_len = i % 5 };
}

static int open_log(const struct lw_log *w, size_t len, trace_id_t *trid)
{
	int fd = lw_memfd(w->buf, len), ret;

	if (fd < 0)
		return -1;
	ret = posix_trace_open(fd, trid);
	close(fd);
	return ret;
}

/* How the n-th event is read: the three calls a log or stream takes. */
static int read_one(trace_id_t trid, unsigned int n, int try_ok,
		    struct posix_trace_event_info *info, int *unavailable)
{
	struct timespec never = { .tv_sec = 0, .tv_nsec = 0 };
	unsigned char data[64];
	size_t len;

	switch (n % (try_ok ? 3 : 2)) {
	case 0:
		return posix_trace_getnext_event(trid, info, data, sizeof(data), &len,
						 unavailable);
	case 1:
		return posix_trace_timedgetnext_event(trid, info, data, sizeof(data), &len,
						      unavailable, &never);
	default:
		return posix_trace_trygetnext_event(trid, info, data, sizeof(data), &len,
						    unavailable);
	}
}

/* Every event of @want (@n) is read, each followed by its tid. */
static void expect_tids(trace_id_t trid, const struct lw_event *want, unsigned int n,
			int try_ok)
{
	struct posix_trace_event_info info;
	unsigned int i;
	int unavailable;
	pid_t tid;

	for (i = 0; i < n; i++) {
		unavailable = 1;
		EXPECT_RC(read_one(trid, i, try_ok, &info, &unavailable), 0);
		if (unavailable) {
			PT_FAIL("event %u: none", i);
			return;
		}
		EXPECT_EQ(info.posix_event_id, want[i].id);
		EXPECT_EQ(info.posix_pid, want[i].pid);
		tid = CANARY;
		EXPECT_RC(posix_trace_event_tid_np(trid, &tid), 0);
		if (tid != (pid_t)want[i].tid)
			PT_FAIL("event %u (id %u): tid %d, expected %u", i, want[i].id,
				(int)tid, want[i].tid);
		/* Asking again changes nothing. */
		EXPECT_RC(posix_trace_event_tid_np(trid, &tid), 0);
		EXPECT_EQ(tid, want[i].tid);
	}
}

/* The end of the log: no event, and the last one's tid still answers. */
static void expect_end(trace_id_t trid, pid_t last)
{
	struct posix_trace_event_info info;
	unsigned char data[8];
	size_t len;
	int unavailable = 0;
	pid_t tid = CANARY;

	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
					    &unavailable), 0);
	EXPECT(unavailable);
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), 0);
	EXPECT_EQ(tid, last);
}

/*
 * A sequential log holding the sample in a 1.0 EVENTS block and then in
 * a packed one (format 1.1: a context record whenever the thread
 * changes): each event's tid, read by getnext and timedgetnext.
 */
static void test_log_sequential(void)
{
	static const trace_event_id_t ids[] = { 2, 16, 17, 26, 256, 257 };
	static const char *const names[] = { "posix_trace_start", "posix_trace_syscall_entry",
					     "posix_trace_syscall_exit",
					     "posix_trace_process_exit", "a", "b" };
	struct lw_event ev[2 * NE];
	struct lw_log w;
	trace_id_t trid;

	sample(ev);
	memcpy(ev + NE, ev, sizeof(struct lw_event) * NE);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "tids", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, ids, names, 6);
	lw_events(&w, ev, NE);
	lw_events_packed(&w, ev, NE);
	if (open_log(&w, w.end, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_tids(trid, ev, 2 * NE, 0);
	expect_end(trid, (pid_t)ev[2 * NE - 1].tid);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/* A ring log: slots of either format, read in seq order, not slot order. */
static void test_log_ring(void)
{
	struct lw_event ev[NE], want[2 * NE];
	struct lw_log w;
	trace_id_t trid;

	sample(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_RING, 4096, 4, 4096);
	lw_info(&w, "ring", POSIX_TRACE_LOOP, POSIX_TRACE_LOOP);
	/* Slot 0 holds the newer block: the packed one, first half last. */
	lw_slot_as(&w, 1, 10, ev + NE / 2, NE - NE / 2, 0);
	lw_slot_as(&w, 0, 11, ev, NE / 2, 1);
	memcpy(want, ev + NE / 2, sizeof(struct lw_event) * (NE - NE / 2));
	memcpy(want + NE - NE / 2, ev, sizeof(struct lw_event) * (NE / 2));
	if (open_log(&w, w.len, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_tids(trid, want, NE, 0);
	expect_end(trid, (pid_t)want[NE - 1].tid);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/*
 * Errors on a log: nothing read yet, after a rewind, a NULL @tid, a call
 * the log refuses (trygetnext) or that reads nothing, a closed log, trids
 * of nothing.  *tid is never written then.
 */
static void test_log_errors(void)
{
	static const trace_id_t bad[] = { 0, -1, -2, 12345, INT_MIN, INT_MAX };
	struct posix_trace_event_info info;
	struct lw_event ev[NE];
	unsigned char data[8];
	struct lw_log w;
	trace_id_t trid;
	unsigned int i;
	size_t len;
	int unavailable;
	pid_t tid = CANARY;

	sample(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "errors", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_events(&w, ev, NE);
	if (open_log(&w, w.end, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	EXPECT_RC(posix_trace_event_tid_np(trid, NULL), EINVAL);
	/* trygetnext refuses a log: still nothing read. */
	EXPECT_RC(posix_trace_trygetnext_event(trid, &info, data, sizeof(data), &len,
					       &unavailable), EINVAL);
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	expect_tids(trid, ev, 3, 0);
	EXPECT_RC(posix_trace_event_tid_np(trid, NULL), EINVAL);
	/* A failed getnext keeps the last event's. */
	EXPECT_RC(posix_trace_getnext_event(trid, NULL, data, sizeof(data), &len,
					    &unavailable), EINVAL);
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), 0);
	EXPECT_EQ(tid, ev[2].tid);
	/* Rewind: nothing read since. */
	EXPECT_RC(posix_trace_rewind(trid), 0);
	tid = CANARY;
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	expect_tids(trid, ev, NE, 0);
	expect_end(trid, (pid_t)ev[NE - 1].tid);
	expect_end(trid, (pid_t)ev[NE - 1].tid);
	EXPECT_RC(posix_trace_rewind(trid), 0);
	expect_tids(trid, ev, 2, 0);
	EXPECT_RC(posix_trace_close(trid), 0);
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_RC(posix_trace_event_tid_np(bad[i], &tid), EINVAL);
		EXPECT_EQ(tid, CANARY);
	}
	free(w.buf);
}

/* A log without events: never an event to name. */
static void test_log_empty(void)
{
	struct posix_trace_event_info info;
	unsigned char data[8];
	struct lw_log w;
	trace_id_t trid;
	size_t len;
	int unavailable = 0;
	pid_t tid = CANARY;

	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "empty", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	if (open_log(&w, w.end, &trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
					    &unavailable), 0);
	EXPECT(unavailable);
	EXPECT_RC(posix_trace_event_tid_np(trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

struct reader {
	trace_id_t trid;
	struct posix_trace_event_info info;
	int ret, unavailable;
};

static void *read_in_thread(void *arg)
{
	struct reader *r = arg;
	unsigned char data[8];
	size_t len;

	r->ret = posix_trace_getnext_event(r->trid, &r->info, data, sizeof(data), &len,
					   &r->unavailable);
	return NULL;
}

/*
 * The last event is the stream's, not the thread's: after another thread
 * read one, the first thread is told that one's tid.
 */
static void test_log_other_reader(void)
{
	struct lw_event ev[NE];
	struct reader r;
	struct lw_log w;
	pthread_t th;
	pid_t tid = CANARY;

	sample(ev);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "threads", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_events_packed(&w, ev, NE);
	if (open_log(&w, w.end, &r.trid)) {
		PT_FAIL("open");
		free(w.buf);
		return;
	}
	expect_tids(r.trid, ev, 2, 0);
	if (pthread_create(&th, NULL, read_in_thread, &r)) {
		PT_FAIL("pthread_create");
	} else {
		pthread_join(th, NULL);
		EXPECT_EQ(r.ret, 0);
		EXPECT_EQ(r.unavailable, 0);
		EXPECT_EQ(r.info.posix_event_id, ev[2].id);
		EXPECT_RC(posix_trace_event_tid_np(r.trid, &tid), 0);
		EXPECT_EQ(tid, ev[2].tid);
	}
	EXPECT_RC(posix_trace_close(r.trid), 0);
	free(w.buf);
}

/* ------------------------------------------------------------------ */
/* Active streams                                                      */
/* ------------------------------------------------------------------ */

/*
 * A stream's kernel lane and two writer lanes: kernel events of several
 * threads of the traced processes, the user events of their writers, and
 * START of no thread.  The writer lanes' pids are the kernel's word (the
 * descriptor's), their tids the writers' own.
 */
static void fill_stream(struct lf *f, struct lw_event *want, unsigned int *n)
{
	uint64_t ts = lf_now();
	uint32_t nr = 0;
	unsigned int i = 0;

	lf_start(f, ts, NULL);
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_START, .pid = 0, .tid = 0 };
	lf_kernel_tid(f, POSIX_TRACE_SYSCALL_ENTRY_NP, ts + 1, 9001, &nr, sizeof(nr));
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_SYSCALL_ENTRY_NP, .tid = 9001 };
	lf_write_tid(f, 0, POSIX_TRACE_UNNAMED_USEREVENT, ts + 2, 9002, 1);
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_UNNAMED_USEREVENT,
				       .pid = LF_PID, .tid = 9002 };
	lf_kernel_tid(f, POSIX_TRACE_SYSCALL_ENTRY_NP, ts + 3, 9003, &nr, sizeof(nr));
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_SYSCALL_ENTRY_NP, .tid = 9003 };
	lf_write_tid(f, 1, POSIX_TRACE_UNNAMED_USEREVENT, ts + 4, 9101, 2);
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_UNNAMED_USEREVENT,
				       .pid = LF_PID + 1, .tid = 9101 };
	lf_kernel_tid(f, POSIX_TRACE_SYSCALL_EXIT_NP, ts + 5, 9003, &nr, sizeof(nr));
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_SYSCALL_EXIT_NP, .tid = 9003 };
	lf_write_tid(f, 0, POSIX_TRACE_UNNAMED_USEREVENT, ts + 6, 9002, 3);
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_UNNAMED_USEREVENT,
				       .pid = LF_PID, .tid = 9002 };
	lf_kernel_tid(f, POSIX_TRACE_SYSCALL_EXIT_NP, ts + 7, 9001, &nr, sizeof(nr));
	want[i++] = (struct lw_event){ .id = POSIX_TRACE_SYSCALL_EXIT_NP, .tid = 9001 };
	*n = i;
}

/* Each event's tid, by all three calls; after the last, still its. */
static void test_stream_tids(void)
{
	struct lw_event want[16];
	unsigned int n, i;
	struct lf_ev ev;
	struct lf f;
	pid_t tid = CANARY;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	fill_stream(&f, want, &n);
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), EINVAL);
	for (i = 0; i < n; i++) {
		EXPECT_RC(read_one(f.trid, i, 1, &ev.info, &ev.unavailable), 0);
		if (ev.unavailable) {
			PT_FAIL("event %u: none", i);
			break;
		}
		EXPECT_EQ(ev.info.posix_event_id, want[i].id);
		if (want[i].id >= POSIX_TRACE_UNNAMED_USEREVENT)
			EXPECT_EQ(ev.info.posix_pid, want[i].pid);
		EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), 0);
		if (tid != (pid_t)want[i].tid)
			PT_FAIL("event %u (id %u): tid %d, expected %u", i, want[i].id,
				(int)tid, want[i].tid);
	}
	/* Nothing more: the last event's tid stays. */
	EXPECT_RC(lf_read(&f, &ev), 0);
	EXPECT(ev.unavailable);
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), 0);
	EXPECT_EQ(tid, want[n - 1].tid);
	EXPECT_RC(posix_trace_event_tid_np(f.trid, NULL), EINVAL);
	lf_teardown(&f);
	tid = CANARY;
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
}

/*
 * posix_trace_clear() (what the library does once the module said yes):
 * nothing read since; the next event read answers again.
 */
static void test_stream_clear(void)
{
	struct lw_event want[16];
	unsigned int n, i;
	struct lf_ev ev;
	struct lf f;
	pid_t tid = CANARY;

	if (lf_setup(&f, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	fill_stream(&f, want, &n);
	EXPECT_RC(lf_read(&f, &ev), 0);
	EXPECT_RC(lf_read(&f, &ev), 0);
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), 0);
	EXPECT_EQ(tid, want[1].tid);
	/* The module empties every lane: oldest and tail to head. */
	for (i = 0; i < LF_WRITERS; i++)
		f.w[i].ctl->oldest = f.w[i].ctl->tail = f.w[i].ctl->head;
	f.kd->oldest = f.kd->head;
	f.kd->base_seq = f.kseq;
	pt_lock(&f.h->lock);
	pt_rlanes_cleared(f.h, lf_now());
	pt_unlock(&f.h->lock);
	tid = CANARY;
	EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), EINVAL);
	EXPECT_EQ(tid, CANARY);
	lf_kernel_tid(&f, POSIX_TRACE_SCHED_OUT_NP, lf_now(), 4711, NULL, 0);
	EXPECT_RC(lf_read(&f, &ev), 0);
	if (!ev.unavailable && ev.info.posix_event_id == POSIX_TRACE_SCHED_OUT_NP) {
		EXPECT_RC(posix_trace_event_tid_np(f.trid, &tid), 0);
		EXPECT_EQ(tid, 4711);
	} else {
		PT_FAIL("after clear: id %u, unavailable %d", ev.info.posix_event_id,
			ev.unavailable);
	}
	lf_teardown(&f);
}

/* Each stream has its own last event: reading one leaves another's. */
static void test_streams_apart(void)
{
	struct lw_event want[16];
	struct lf a, b;
	struct lf_ev ev;
	unsigned int n;
	pid_t tid = CANARY;

	if (lf_setup(&a, POSIX_TRACE_LOOP) || lf_setup(&b, POSIX_TRACE_LOOP)) {
		PT_FAIL("setup");
		return;
	}
	fill_stream(&a, want, &n);
	fill_stream(&b, want, &n);
	EXPECT_RC(lf_read(&a, &ev), 0);
	EXPECT_RC(lf_read(&a, &ev), 0);
	EXPECT_RC(posix_trace_event_tid_np(b.trid, &tid), EINVAL);
	EXPECT_RC(lf_read(&b, &ev), 0);
	EXPECT_RC(posix_trace_event_tid_np(a.trid, &tid), 0);
	EXPECT_EQ(tid, want[1].tid);
	EXPECT_RC(posix_trace_event_tid_np(b.trid, &tid), 0);
	EXPECT_EQ(tid, want[0].tid);
	lf_teardown(&a);
	lf_teardown(&b);
}

int main(void)
{
	PT_RUN(test_log_sequential,
	       "log (EVENTS and packed blocks): each event's tid, several threads");
	PT_RUN(test_log_ring, "ring log: each event's tid, in seq order");
	PT_RUN(test_log_errors,
	       "log: EINVAL before a read, after rewind and close, NULL, bad trids");
	PT_RUN(test_log_empty, "log without events: EINVAL at its end");
	PT_RUN(test_log_other_reader, "log: another thread's read is the last event");
	PT_RUN(test_stream_tids,
	       "active stream: kernel and writer lanes' tids, by the three calls");
	PT_RUN(test_stream_clear, "active stream: clear forgets the last event");
	PT_RUN(test_streams_apart, "each stream has its own last event");
	return pt_test_done();
}
