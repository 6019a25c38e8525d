// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pre-recorded streams without the module: logs made by log_writer.h are
 * opened and read back through the <trace.h> functions, then cut, flipped
 * and forged.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "pt_test.h"
#include "log_writer.h"

static const char payload[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/* Events 0..@n-1: id 256 + i % 3, data the first i bytes of payload. */
static void mk_events(struct lw_event *ev, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].id = 256 + (first + i) % 3;
		ev[i].pid = 100 + first + i;
		ev[i].tid = 200 + first + i;
		ev[i].ts = 5000000000ull + (first + i) * 1000ull;
		ev[i].thread = 0x1000 + first + i;
		ev[i].address = 0x400000 + first + i;
		ev[i].flags = (first + i) == 4 ? POSIX_TRACE_REC_TRUNCATED : 0;
		ev[i].data = payload;
		ev[i].data_len = (first + i) % (sizeof(payload) - 1);
	}
}

static const trace_event_id_t sys_ids[] = { 1, 2, 3 };
static const char *const sys_names[] = { "posix_trace_error", "posix_trace_start",
					 "posix_trace_stop" };
static const trace_event_id_t user_ids[] = { 256, 257 };
static const char *const user_names[] = { "unnamed", "first_user" };
static const trace_event_id_t late_ids[] = { 258 };
static const char *const late_names[] = { "registered_late" };

static const struct posix_trace_status_info final_status = {
	.posix_stream_status = POSIX_TRACE_SUSPENDED,
	.posix_stream_full_status = POSIX_TRACE_FULL,
	.posix_stream_overrun_status = POSIX_TRACE_OVERRUN,
	.posix_log_full_status = POSIX_TRACE_FULL,
};

/* Block boundaries of the sample log, for the cut tests. */
static size_t late_types_at, events2_at, status_at;

/* INFO, TYPES, 5 events, TYPES (late name), 7 events, STATUS. */
static void mk_sample(struct lw_log *w)
{
	struct lw_event ev[12];

	lw_init(w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(w, "sample", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(w, sys_ids, sys_names, 3);
	lw_types(w, user_ids, user_names, 2);
	mk_events(ev, 0, 12);
	lw_events(w, ev, 5);
	late_types_at = lw_types(w, late_ids, late_names, 1);
	events2_at = lw_events(w, ev + 5, 7);
	status_at = w->end;
	lw_status(w, &final_status);
	w->len = w->end;
}

static int open_buf(const void *buf, size_t len, trace_id_t *trid)
{
	int fd = lw_memfd(buf, len), ret;

	if (fd < 0)
		return -1;
	ret = posix_trace_open(fd, trid);
	close(fd);		/* the library keeps its own descriptor */
	return ret;
}

/* Read up to @max events; checks each against mk_events(); the count. */
static unsigned int drain_max(trace_id_t trid, unsigned int first, int check,
			      unsigned int max)
{
	struct posix_trace_event_info info;
	struct lw_event want;
	char data[64];
	size_t len;
	int unavail = 0;
	unsigned int n = 0;

	while (n < max) {
		if (posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavail) ||
		    unavail)
			break;
		if (check) {
			mk_events(&want, first + n, 1);
			EXPECT_EQ(info.posix_event_id, want.id);
			EXPECT_EQ(info.posix_pid, want.pid);
			EXPECT_EQ((uintptr_t)info.posix_prog_address, want.address);
			EXPECT_EQ((uint64_t)info.posix_thread_id, want.thread);
			EXPECT_EQ(info.posix_timestamp.tv_sec, 1700000000 + (want.ts - 5000000000ull) / 1000000000);
			EXPECT_EQ(info.posix_timestamp.tv_nsec, (want.ts - 5000000000ull) % 1000000000);
			EXPECT_EQ(info.posix_truncation_status, want.flags ?
				  POSIX_TRACE_TRUNCATED_RECORD : POSIX_TRACE_NOT_TRUNCATED);
			EXPECT_EQ(len, want.data_len);
			EXPECT(!memcmp(data, payload, len));
		}
		n++;
	}
	return n;
}

static unsigned int drain(trace_id_t trid, unsigned int first, int check)
{
	return drain_max(trid, first, check, 1000);
}

static void test_crc32c_vector(void)
{
	EXPECT_EQ(pt_crc32c(0, "123456789", 9), 0xe3069283u);
	EXPECT_EQ(pt_crc32c(pt_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

/* REQ: OPEN-1 GETATTR-1 GETSTAT-4 RULE-63 MODEL-23 EVLIST-1 EVLIST-2 EVNAME-1 GETNEXT-3 CLOSE-1 CLOSE-2 */
static void test_round_trip_gives_same_events_names_attr_status(void)
{
	struct posix_trace_status_info st;
	struct lw_log w;
	trace_attr_t attr;
	trace_event_id_t id;
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t sz;
	int unavail, pol;
	trace_id_t trid;
	struct posix_trace_event_info info;
	char data[4];

	mk_sample(&w);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT(trid < 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &sz, &unavail), 0);
	EXPECT(unavail);
	EXPECT_RC(posix_trace_get_attr(trid, &attr), 0);
	EXPECT_RC(posix_trace_attr_getname(&attr, name), 0);
	EXPECT(!strcmp(name, "sample"));
	EXPECT_RC(posix_trace_attr_getgenversion(&attr, name), 0);
	EXPECT(!strcmp(name, "posix-trace-1.0"));
	EXPECT_RC(posix_trace_attr_getstreamfullpolicy(&attr, &pol), 0);
	EXPECT_EQ(pol, POSIX_TRACE_FLUSH);
	EXPECT_RC(posix_trace_attr_getlogfullpolicy(&attr, &pol), 0);
	EXPECT_EQ(pol, POSIX_TRACE_APPEND);
	EXPECT_RC(posix_trace_attr_getinherited(&attr, &pol), 0);
	EXPECT_EQ(pol, POSIX_TRACE_INHERITED);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(&attr, &sz), 0);
	EXPECT_EQ(sz, 200);
	EXPECT_RC(posix_trace_attr_getlogsize(&attr, &sz), 0);
	EXPECT_EQ(sz, 1 << 20);
	EXPECT_RC(posix_trace_attr_getstreamsize(&attr, &sz), 0);
	EXPECT_EQ(sz, 65536);
	EXPECT_RC(posix_trace_get_status(trid, &st), 0);
	EXPECT(!memcmp(&st, &final_status, sizeof(st)));
	EXPECT_RC(posix_trace_eventid_get_name(trid, 258, name), 0);
	EXPECT(!strcmp(name, "registered_late"));
	EXPECT_RC(posix_trace_eventid_get_name(trid, 2, name), 0);
	EXPECT(!strcmp(name, "posix_trace_start"));
	EXPECT_RC(posix_trace_eventid_get_name(trid, 259, name), EINVAL);
	EXPECT(posix_trace_eventid_equal(trid, 257, 257));
	EXPECT(!posix_trace_eventid_equal(trid, 257, 258));
	{
		static const trace_event_id_t want[] = { 1, 2, 3, 256, 257, 258 };
		unsigned int i, pass;

		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < 6; i++) {
				EXPECT_RC(posix_trace_eventtypelist_getnext_id(trid, &id, &unavail), 0);
				EXPECT(!unavail);
				EXPECT_EQ(id, want[i]);
			}
			EXPECT_RC(posix_trace_eventtypelist_getnext_id(trid, &id, &unavail), 0);
			EXPECT(unavail);
			EXPECT_RC(posix_trace_eventtypelist_rewind(trid), 0);
		}
	}
	EXPECT_RC(posix_trace_close(trid), 0);
	EXPECT_RC(posix_trace_close(trid), EINVAL);
	EXPECT_RC(posix_trace_get_attr(trid, &attr), EINVAL);
	free(w.buf);
}

/* REQ: GETNEXT-C4 RULE-67 RULE-68 RULE-69 */
static void test_short_buffer_reads_truncated(void)
{
	struct posix_trace_event_info info;
	struct lw_log w;
	trace_id_t trid;
	char data[64];
	size_t len;
	int unavail, i;

	mk_sample(&w);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	for (i = 0; i < 4; i++)
		EXPECT_RC(posix_trace_getnext_event(trid, &info, data, 2, &len, &unavail), 0);
	EXPECT_EQ(len, 2);		/* event 3 has 3 bytes */
	EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_READ);
	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavail), 0);
	EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_RECORD);
	EXPECT_RC(posix_trace_close(trid), 0);
	free(w.buf);
}

/* REQ: REWIND-1 */
static void test_rewind_restarts_from_oldest(void)
{
	struct lw_log w;
	trace_id_t trid;

	mk_sample(&w);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	EXPECT_RC(posix_trace_rewind(trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	EXPECT_RC(posix_trace_close(trid), 0);
	EXPECT_RC(posix_trace_rewind(trid), EINVAL);
	free(w.buf);
}

/* REQ: CLOSE-3 */
static void test_two_opens_have_independent_cursors(void)
{
	struct posix_trace_event_info info;
	struct lw_log w;
	trace_id_t a, b;
	char data[64];
	size_t len;
	int unavail;
	int fd;

	mk_sample(&w);
	fd = lw_memfd(w.buf, w.len);
	EXPECT_RC(posix_trace_open(fd, &a), 0);
	EXPECT_RC(posix_trace_open(fd, &b), 0);
	EXPECT(a != b);
	EXPECT_RC(posix_trace_getnext_event(a, &info, data, sizeof(data), &len, &unavail), 0);
	EXPECT_EQ(drain(b, 0, 1), 12);
	EXPECT_EQ(drain(a, 1, 1), 11);
	EXPECT_RC(posix_trace_close(a), 0);
	EXPECT_EQ(lseek(fd, 0, SEEK_CUR), (off_t)w.len);	/* offset untouched */
	EXPECT(fcntl(fd, F_GETFD) >= 0);			/* CLOSE-3 */
	EXPECT_RC(posix_trace_close(b), 0);
	close(fd);
	free(w.buf);
}

/* REQ: OPEN-6 5.29 */
static void test_growing_log_shows_new_blocks(void)
{
	struct posix_trace_status_info st;
	struct lw_log w;
	trace_id_t trid;
	char name[TRACE_EVENT_NAME_MAX + 1];
	int fd;

	mk_sample(&w);
	fd = lw_memfd(w.buf, events2_at + 40);	/* second events block cut */
	EXPECT_RC(posix_trace_open(fd, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 5);
	EXPECT_RC(posix_trace_get_status(trid, &st), 0);
	EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	EXPECT_EQ(pwrite(fd, w.buf + events2_at + 40, status_at - events2_at - 40,
			 (off_t)events2_at + 40), (ssize_t)(status_at - events2_at - 40));
	EXPECT_EQ(drain(trid, 5, 1), 7);
	EXPECT_RC(posix_trace_eventid_get_name(trid, 258, name), 0);
	EXPECT_EQ(pwrite(fd, w.buf + status_at, w.len - status_at, (off_t)status_at),
		  (ssize_t)(w.len - status_at));
	EXPECT_EQ(drain(trid, 12, 1), 0);
	EXPECT_RC(posix_trace_get_status(trid, &st), 0);
	EXPECT(!memcmp(&st, &final_status, sizeof(st)));
	EXPECT_RC(posix_trace_close(trid), 0);
	close(fd);
	free(w.buf);
}

/* REQ: OPEN-5 5.29 */
static void test_cut_at_every_offset_reads_complete_blocks(void)
{
	struct lw_log w;
	trace_id_t trid;
	size_t cut, info_end;
	unsigned int n, bad = 0;
	int ret;

	mk_sample(&w);
	info_end = POSIX_TRACE_LOG_HEADER_V1 + pt_le32(w.buf + POSIX_TRACE_LOG_HEADER_V1 + POSIX_TRACE_LOG_B_LENGTH);
	for (cut = 0; cut <= w.len; cut++) {
		ret = open_buf(w.buf, cut, &trid);
		if (cut < info_end) {
			bad += ret != EINVAL;
			continue;
		}
		if (ret) {
			bad++;
			continue;
		}
		/* The first EVENTS block ends where the late TYPES begins. */
		n = drain(trid, 0, 1);
		bad += n != (cut >= status_at ? 12u : cut >= late_types_at ? 5u : 0u);
		posix_trace_close(trid);
	}
	EXPECT_EQ(bad, 0);
	free(w.buf);
}

/* One bit flipped anywhere: never a crash, never a wrong event. */
/* REQ: OPEN-5 5.12 */
static void test_bit_flips_are_caught(void)
{
	struct lw_log w;
	trace_id_t trid;
	size_t at;
	unsigned int n, bit, opened = 0, bad = 0;

	mk_sample(&w);
	for (at = 0; at < w.len; at++) {
		for (bit = 0; bit < 8; bit += 3) {
			w.buf[at] ^= (uint8_t)(1 << bit);
			if (!open_buf(w.buf, w.len, &trid)) {
				opened++;
				n = drain(trid, 0, 1);
				/* a damaged block ends the log before it */
				if (at >= events2_at && at < status_at)
					bad += n != 5;
				else if (at < status_at && at >= POSIX_TRACE_LOG_HEADER_V1 + 160)
					bad += n != 0 && n != 5 && n != 12;
				posix_trace_close(trid);
			} else if (at >= POSIX_TRACE_LOG_HEADER_V1 + 160) {
				bad++;	/* only the header and INFO are required */
			}
			w.buf[at] ^= (uint8_t)(1 << bit);
		}
	}
	EXPECT(opened > 0);
	EXPECT_EQ(bad, 0);
	free(w.buf);
}

static void reseal_block(uint8_t *b)
{
	lw_put32(b + POSIX_TRACE_LOG_B_CRC, pt_log_crc(b, pt_le32(b + POSIX_TRACE_LOG_B_LENGTH), POSIX_TRACE_LOG_B_CRC));
}

/* Valid CRCs around invalid contents: lengths and counts out of range. */
/* REQ: 5.12 */
static void test_hostile_lengths_and_counts(void)
{
	struct lw_log w;
	trace_id_t trid;
	uint8_t *b;
	char name[TRACE_EVENT_NAME_MAX + 1];

	/* Record count far above what the block holds. */
	mk_sample(&w);
	b = w.buf + events2_at;
	lw_put32(b + POSIX_TRACE_LOG_B_COUNT, 0xffffffffu);
	reseal_block(b);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	posix_trace_close(trid);
	/* A record whose size runs past the block and one with data_len > size. */
	lw_put32(b + POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_R_SIZE, 1u << 30);
	reseal_block(b);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 5);
	posix_trace_close(trid);
	lw_put32(b + POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_R_SIZE, POSIX_TRACE_LOG_RECORD_HDR);
	lw_put32(b + POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_R_DATA_LEN, 9);
	reseal_block(b);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 5);
	posix_trace_close(trid);
	free(w.buf);
	/* A block length of 4 GiB - 8 and of 0. */
	mk_sample(&w);
	b = w.buf + events2_at;
	lw_put32(b + POSIX_TRACE_LOG_B_LENGTH, 0xfffffff8u);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 5);
	posix_trace_close(trid);
	lw_put32(b + POSIX_TRACE_LOG_B_LENGTH, 0);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 5);
	posix_trace_close(trid);
	free(w.buf);
	/* A type name longer than TRACE_EVENT_NAME_MAX, an id out of range. */
	mk_sample(&w);
	b = w.buf + late_types_at;
	EXPECT_EQ(pt_le16(b + POSIX_TRACE_LOG_B_TYPE), POSIX_TRACE_LOG_BT_TYPES);
	lw_put32(b + POSIX_TRACE_LOG_BLOCK_HDR, 5000);
	reseal_block(b);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_RC(posix_trace_eventid_get_name(trid, 258, name), EINVAL);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	posix_trace_close(trid);
	lw_put32(b + POSIX_TRACE_LOG_BLOCK_HDR, 258);
	lw_put16(b + POSIX_TRACE_LOG_BLOCK_HDR + 4, 60000);
	reseal_block(b);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_RC(posix_trace_eventid_get_name(trid, 258, name), EINVAL);
	posix_trace_close(trid);
	free(w.buf);
}

/* REQ: OPEN-5 5.12 */
static void test_bad_header_is_einval(void)
{
	struct lw_log w;
	trace_id_t trid;
	uint8_t *h;

	mk_sample(&w);
	h = w.buf;
	lw_put16(h + POSIX_TRACE_LOG_H_MAJOR, 2);		/* a later major version */
	lw_put32(h + POSIX_TRACE_LOG_H_CRC, pt_log_crc(h, POSIX_TRACE_LOG_HEADER_V1, POSIX_TRACE_LOG_H_CRC));
	EXPECT_RC(open_buf(w.buf, w.len, &trid), EINVAL);
	lw_put16(h + POSIX_TRACE_LOG_H_MAJOR, 1);
	lw_put16(h + POSIX_TRACE_LOG_H_MINOR, 7);		/* a later minor: readable */
	lw_put32(h + POSIX_TRACE_LOG_H_CRC, pt_log_crc(h, POSIX_TRACE_LOG_HEADER_V1, POSIX_TRACE_LOG_H_CRC));
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	posix_trace_close(trid);
	lw_put32(h + POSIX_TRACE_LOG_H_BLOCK_MAX, 0x7ffffff8u);	/* too big a buffer */
	lw_put32(h + POSIX_TRACE_LOG_H_CRC, pt_log_crc(h, POSIX_TRACE_LOG_HEADER_V1, POSIX_TRACE_LOG_H_CRC));
	EXPECT_RC(open_buf(w.buf, w.len, &trid), EINVAL);
	EXPECT_RC(open_buf("hello", 5, &trid), EINVAL);
	EXPECT_RC(posix_trace_open(-1, &trid), EBADF);
	{
		int fd = open("/dev/null", O_WRONLY);

		EXPECT_RC(posix_trace_open(fd, &trid), EBADF);
		close(fd);
	}
	free(w.buf);
}

/* An unknown block type is skipped by its length unless critical. */
static void test_unknown_blocks_skipped(void)
{
	struct lw_log w;
	struct lw_event ev[12];
	trace_id_t trid;
	uint64_t x = 42;

	mk_events(ev, 0, 12);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "u", POSIX_TRACE_LOOP, POSIX_TRACE_LOOP);
	lw_events(&w, ev, 5);
	lw_append(&w, 77, 1, &x, sizeof(x));
	lw_events(&w, ev + 5, 7);
	w.end += lw_block_at(&w, w.end, 78, POSIX_TRACE_LOG_BF_CRITICAL, w.seq++, 1, &x, sizeof(x));
	lw_events(&w, ev, 3);
	EXPECT_RC(open_buf(w.buf, w.end, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	posix_trace_close(trid);
	free(w.buf);
}

/*
 * The LOSS block (log-format.md §5.5): posix_trace_get_losses_np() gives
 * its counts, the last block read counts, a short one is ignored, a log
 * without one is ENODATA, and an active stream's trid is EINVAL.
 */
static void test_loss_block_counts(void)
{
	uint64_t p[8] = { 64, 936, 1, 5, 2, 7, 3, 0 }, shortp[2] = { 16, 99 };
	struct posix_trace_losses_np l;
	struct lw_event ev[4];
	struct lw_log w;
	trace_id_t trid;

	mk_events(ev, 0, 4);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "l", POSIX_TRACE_LOOP, POSIX_TRACE_LOOP);
	lw_events(&w, ev, 4);
	EXPECT_RC(open_buf(w.buf, w.end, &trid), 0);
	EXPECT_RC(posix_trace_get_losses_np(trid, &l), ENODATA);
	posix_trace_close(trid);
	lw_append(&w, POSIX_TRACE_LOG_BT_LOSS, 1, shortp, sizeof(shortp));
	EXPECT_RC(open_buf(w.buf, w.end, &trid), 0);
	EXPECT_RC(posix_trace_get_losses_np(trid, &l), ENODATA);
	posix_trace_close(trid);
	p[1] = 1;
	lw_append(&w, POSIX_TRACE_LOG_BT_LOSS, 1, p, sizeof(p));
	p[1] = 936;
	lw_append(&w, POSIX_TRACE_LOG_BT_LOSS, 1, p, sizeof(p));
	EXPECT_RC(open_buf(w.buf, w.end, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 4);
	EXPECT_RC(posix_trace_get_losses_np(trid, &l), 0);
	EXPECT(l.posix_dropped == 936 && l.posix_drop_gaps == 1 &&
	       l.posix_overwritten == 5 && l.posix_overwrite_gaps == 2 &&
	       l.posix_log_discarded == 7 && l.posix_log_write_lost == 3);
	EXPECT_RC(posix_trace_get_losses_np(trid, NULL), EINVAL);
	posix_trace_close(trid);
	EXPECT_RC(posix_trace_get_losses_np(trid, &l), EINVAL);
	EXPECT_RC(posix_trace_get_losses_np(1, &l), EINVAL);
	free(w.buf);
}

/* LOOP layout: slots hold blocks in any order; the oldest seq comes first
 * and a torn slot is passed over. */
/* @packed: slots 2, 0 and 1 hold packed blocks (format 1.1), slot 3 a 1.0
 * one; else all are 1.0's.
 */
static void ring_layout_reads_oldest_first(int packed)
{
	struct lw_log w;
	struct lw_event ev[12];
	trace_event_id_t ids[] = { 256 };
	const char *names[] = { "ring_user" };
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_id_t trid;

	mk_events(ev, 0, 12);
	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_RING, 1024, 4, 512);
	lw_info(&w, "ring", POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP);
	lw_types(&w, ids, names, 1);
	/* seq 10..13 wrapped: slot 2 is the oldest. */
	lw_slot_as(&w, 2, 10, ev, 3, packed);
	lw_slot_as(&w, 3, 11, ev + 3, 3, 0);
	lw_slot_as(&w, 0, 12, ev + 6, 3, packed);
	lw_slot_as(&w, 1, 13, ev + 9, 3, packed);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	EXPECT_RC(posix_trace_rewind(trid), 0);
	EXPECT_EQ(drain(trid, 0, 1), 12);
	EXPECT_RC(posix_trace_eventid_get_name(trid, 256, name), 0);
	EXPECT(!strcmp(name, "ring_user"));
	posix_trace_close(trid);
	/* Slot 3 torn: its three events are lost, the rest in order. */
	w.buf[w.ring_offset + 3 * 512 + POSIX_TRACE_LOG_BLOCK_HDR + 8] ^= 1;
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain_max(trid, 0, 1, 3), 3);
	EXPECT_EQ(drain(trid, 6, 1), 6);
	posix_trace_close(trid);
	free(w.buf);
}

static void test_ring_layout_reads_oldest_first(void)
{
	ring_layout_reads_oldest_first(0);
	ring_layout_reads_oldest_first(1);
}

/*
 * Format 1.1's packed EVENTS blocks read back the same events as 1.0's,
 * in one log with both: contexts and addresses that change on every
 * event (mk_events()), and runs that share them.
 */
static void test_packed_blocks_read_back_the_same_events(void)
{
	struct lw_event ev[12], same[6];
	struct posix_trace_event_info info;
	struct lw_log w;
	trace_id_t trid;
	char data[64];
	size_t len;
	int unavail, i;

	lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(&w, "packed", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(&w, user_ids, user_names, 2);
	mk_events(ev, 0, 12);
	lw_events(&w, ev, 4);			/* 1.0 */
	lw_events_packed(&w, ev + 4, 5);	/* 1.1 */
	lw_events(&w, ev + 9, 3);		/* 1.0 again */
	/* one thread at one call site: one context, one address */
	for (i = 0; i < 6; i++) {
		mk_events(&same[i], 20, 1);
		same[i].ts += (uint64_t)i;
		same[i].data_len = (uint32_t)i * 5;
	}
	lw_events_packed(&w, same, 6);
	w.len = w.end;
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_EQ(drain_max(trid, 0, 1, 12), 12);
	for (i = 0; i < 6; i++) {
		EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
						    &unavail), 0);
		EXPECT(!unavail);
		EXPECT_EQ(info.posix_pid, same[i].pid);
		EXPECT_EQ((uint64_t)info.posix_thread_id, same[i].thread);
		EXPECT_EQ((uintptr_t)info.posix_prog_address, same[i].address);
		EXPECT_EQ(len, (size_t)i * 5);
		EXPECT(!memcmp(data, payload, len));
	}
	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavail), 0);
	EXPECT(unavail);
	posix_trace_close(trid);
	free(w.buf);
}

/* One packed block of @ev[0..n) between two 1.0 blocks of 2 events each;
 * the offset of its first record in @off.
 */
static void mk_packed_sample(struct lw_log *w, struct lw_event *ev, size_t *off)
{
	lw_init(w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(w, "packed", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(w, user_ids, user_names, 2);
	mk_events(ev, 0, 8);
	lw_events(w, ev, 2);
	*off = lw_events_packed(w, ev + 2, 4) + POSIX_TRACE_LOG_BLOCK_HDR;
	lw_events(w, ev + 6, 2);
	w->len = w->end;
}

/* Events read from a forged packed block: never a wrong one. */
static unsigned int read_forged(struct lw_log *w, size_t block)
{
	trace_id_t trid;
	unsigned int n;

	lw_reseal(w, block);
	if (open_buf(w->buf, w->len, &trid))
		return 1000;
	n = drain_max(trid, 0, 1, 2);		/* the 1.0 block before */
	n += drain(trid, 6, 0);			/* what is left, unchecked */
	posix_trace_close(trid);
	return n;
}

/*
 * Hostile packed blocks: an event before any context, a context with a
 * reserved word set, unknown flag bits, a data length or an address past
 * the block, a block of nothing but contexts.  Each ends its block (the
 * events before the forgery in it still count), never the log, and no
 * read goes past the block.
 */
static void test_hostile_packed_blocks_end_their_block(void)
{
	struct lw_event ev[8];
	struct lw_log w;
	size_t off, blk;
	uint8_t *p;

	/* no context: the block's events are all lost, the next block read */
	mk_packed_sample(&w, ev, &off);
	blk = off - POSIX_TRACE_LOG_BLOCK_HDR;
	memset(w.buf + off, 0, POSIX_TRACE_LOG_C_SIZE);
	lw_put32(w.buf + off, 0);	/* an empty event where the context was */
	lw_put32(w.buf + off + POSIX_TRACE_LOG_P_ID, 257);
	lw_put32(w.buf + off + 16, 0);
	EXPECT_EQ(read_forged(&w, blk), 2 + 2);
	free(w.buf);
	/* reserved word of the context */
	mk_packed_sample(&w, ev, &off);
	blk = off - POSIX_TRACE_LOG_BLOCK_HDR;
	lw_put32(w.buf + off + POSIX_TRACE_LOG_C_RESERVED, 1);
	EXPECT_EQ(read_forged(&w, blk), 2 + 2);
	free(w.buf);
	/* unknown flag bits in the first event's word */
	mk_packed_sample(&w, ev, &off);
	blk = off - POSIX_TRACE_LOG_BLOCK_HDR;
	p = w.buf + off + POSIX_TRACE_LOG_C_SIZE;
	lw_put32(p, pt_le32(p) | 0x40000000u);
	EXPECT_EQ(read_forged(&w, blk), 2 + 2);
	free(w.buf);
	/* data length past the block's end, on the first event */
	mk_packed_sample(&w, ev, &off);
	blk = off - POSIX_TRACE_LOG_BLOCK_HDR;
	p = w.buf + off + POSIX_TRACE_LOG_C_SIZE;
	lw_put32(p, (pt_le32(p) & ~POSIX_TRACE_LOG_P_LEN_MASK) | POSIX_TRACE_LOG_P_LEN_MASK);
	EXPECT_EQ(read_forged(&w, blk), 2 + 2);
	free(w.buf);
	/* a count above what the block holds: its 4 events, then the next */
	mk_packed_sample(&w, ev, &off);
	blk = off - POSIX_TRACE_LOG_BLOCK_HDR;
	lw_put32(w.buf + blk + POSIX_TRACE_LOG_B_COUNT, 0xffffffffu);
	EXPECT_EQ(read_forged(&w, blk), 2 + 4 + 2);
	free(w.buf);
	/* a block of contexts only, its count claiming events */
	{
		static uint8_t ctx[60000];
		unsigned int i, n = sizeof(ctx) / POSIX_TRACE_LOG_C_SIZE;
		trace_id_t trid;

		memset(ctx, 0, sizeof(ctx));
		for (i = 0; i < n; i++)
			lw_put32(ctx + i * POSIX_TRACE_LOG_C_SIZE, POSIX_TRACE_LOG_PF_CONTEXT);
		lw_init(&w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
		lw_info(&w, "contexts", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
		mk_events(ev, 0, 2);
		lw_block_at(&w, w.end, POSIX_TRACE_LOG_BT_PACKED, POSIX_TRACE_LOG_BF_CRITICAL,
			    w.seq++, 1000, ctx, sizeof(ctx));
		w.end += POSIX_TRACE_LOG_BLOCK_HDR + sizeof(ctx);
		lw_events(&w, ev, 2);
		w.len = w.end;
		EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
		EXPECT_EQ(drain(trid, 0, 1), 2);
		posix_trace_close(trid);
		free(w.buf);
	}
}

/* REQ: OPEN-4 TRYGET-3 TGETNEXT-5 3.0.1 */
static void test_other_functions_reject_prerecorded_trid(void)
{
	struct posix_trace_event_info info;
	struct timespec ts = { 0, 0 };
	trace_event_set_t set;
	trace_event_id_t id;
	struct lw_log w;
	trace_id_t trid;
	char data[8];
	size_t len;
	int unavail;

	mk_sample(&w);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	EXPECT_RC(posix_trace_trygetnext_event(trid, &info, data, sizeof(data), &len,
					       &unavail), EINVAL);
	EXPECT_RC(posix_trace_timedgetnext_event(trid, &info, data, sizeof(data), &len,
						 &unavail, &ts), 0);
	EXPECT(!unavail);
	EXPECT_RC(posix_trace_start(trid), EINVAL);
	EXPECT_RC(posix_trace_stop(trid), EINVAL);
	EXPECT_RC(posix_trace_clear(trid), EINVAL);
	EXPECT_RC(posix_trace_shutdown(trid), EINVAL);
	EXPECT_RC(posix_trace_flush(trid), EINVAL);
	EXPECT_RC(posix_trace_get_filter(trid, &set), EINVAL);
	posix_trace_eventset_empty(&set);
	EXPECT_RC(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), EINVAL);
	EXPECT_RC(posix_trace_trid_eventid_open(trid, "x", &id), EINVAL);
	/* And the analyzer functions reject active-looking trids. */
	EXPECT_RC(posix_trace_rewind(1), EINVAL);
	EXPECT_RC(posix_trace_close(1), EINVAL);
	EXPECT_RC(posix_trace_close(-12345), EINVAL);
	posix_trace_close(trid);
	free(w.buf);
}

/* Writing logs needs the module (the host has none); a negative
 * descriptor is EBADF before anything else. */
static void test_create_withlog_without_module(void)
{
	trace_id_t trid;
	int fd = open("/dev/null", O_WRONLY);

	EXPECT(fd >= 0);
	EXPECT_RC(posix_trace_create_withlog(0, NULL, -1, &trid), EBADF);
	EXPECT_RC(posix_trace_create_withlog(0, NULL, fd, &trid), ENOSYS);
	EXPECT_RC(posix_trace_flush(1), EINVAL);
	close(fd);
}

/* REQ: FN-5 */
static void test_child_after_fork_gets_einval(void)
{
	struct posix_trace_event_info info;
	trace_attr_t attr;
	struct lw_log w;
	trace_id_t trid;
	char data[8];
	size_t len;
	int unavail, status;
	pid_t pid;

	mk_sample(&w);
	EXPECT_RC(open_buf(w.buf, w.len, &trid), 0);
	pid = fork();
	if (!pid) {
		_exit(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
						&unavail) == EINVAL &&
		      posix_trace_get_attr(trid, &attr) == EINVAL &&
		      posix_trace_close(trid) == EINVAL ? 0 : 1);
	}
	EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0);
	EXPECT_RC(posix_trace_get_attr(trid, &attr), 0);
	posix_trace_close(trid);
	free(w.buf);
}

int main(void)
{
	PT_RUN(test_crc32c_vector, "CRC32C matches its test vector");
	PT_RUN(test_round_trip_gives_same_events_names_attr_status,
	       "a written log reads back with the same events, names, attributes, status");
	PT_RUN(test_short_buffer_reads_truncated, "a short buffer gives TRUNCATED_READ");
	PT_RUN(test_rewind_restarts_from_oldest, "rewind restarts from the oldest event");
	PT_RUN(test_two_opens_have_independent_cursors,
	       "two opens of one log read independently; the caller's fd is untouched");
	PT_RUN(test_growing_log_shows_new_blocks,
	       "a log still being written shows new blocks and its trailer later");
	PT_RUN(test_cut_at_every_offset_reads_complete_blocks,
	       "a log cut at any byte reads its complete blocks, never more");
	PT_RUN(test_bit_flips_are_caught, "a flipped bit never yields a wrong event");
	PT_RUN(test_hostile_lengths_and_counts, "hostile lengths and counts are bounded");
	PT_RUN(test_packed_blocks_read_back_the_same_events,
	       "packed blocks (format 1.1) read back the same events as 1.0's");
	PT_RUN(test_hostile_packed_blocks_end_their_block,
	       "a forged packed block ends itself, never the log");
	PT_RUN(test_bad_header_is_einval, "a bad header or a later major version is EINVAL");
	PT_RUN(test_loss_block_counts, "LOSS block: posix_trace_get_losses_np()");
	PT_RUN(test_unknown_blocks_skipped,
	       "unknown blocks are skipped, a critical one ends the log");
	PT_RUN(test_ring_layout_reads_oldest_first,
	       "a LOOP ring log reads oldest first and skips a torn slot");
	PT_RUN(test_other_functions_reject_prerecorded_trid,
	       "controller and active-only functions reject a pre-recorded trid");
	PT_RUN(test_child_after_fork_gets_einval, "a child after fork gets EINVAL");
	PT_RUN(test_create_withlog_without_module,
	       "create_withlog: EBADF for a negative fd, ENOSYS without the module");
	return pt_test_done();
}
