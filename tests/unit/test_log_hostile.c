// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hostile logs against the library's reader: every block valid (CRCs
 * match), only the values are what a log from someone else might hold.
 * Sizes must be bounded by the format, and reading must cost what the
 * file is worth: the reader's file reads are counted here by standing in
 * for pread(), which the library (linked statically) then calls.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include "pt_test.h"
#include "log_writer.h"

static unsigned long long preads, pread_bytes;

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	long r = syscall(SYS_pread64, fd, buf, n, off);

	preads++;
	if (r > 0)
		pread_bytes += (unsigned long long)r;
	return r;
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

/* Events read to the end; checks they come in timestamp order. */
static unsigned int drain(trace_id_t trid)
{
	struct posix_trace_event_info info;
	long long last = -1, now;
	unsigned int n = 0;
	char data[64];
	size_t len;
	int unavail;

	while (!posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavail) &&
	       !unavail) {
		now = (long long)info.posix_timestamp.tv_sec * 1000000000 +
		      info.posix_timestamp.tv_nsec;
		if (now <= last)
			PT_FAIL("event %u at %lld after %lld", n, now, last);
		last = now;
		n++;
	}
	return n;
}

static void seq_log(struct lw_log *w)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "ev" };
	struct lw_event ev = { .id = 257, .ts = 5000000000ull, .data = "abc", .data_len = 3 };

	lw_init(w, POSIX_TRACE_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(w, "max", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(w, ids, names, 1);
	lw_events(w, &ev, 1);
}

/* INFO is the first block, right after the 64-byte header. */
static void set_max_data(struct lw_log *w, uint64_t v)
{
	lw_put64(w->buf + POSIX_TRACE_LOG_HEADER_V1 + POSIX_TRACE_LOG_BLOCK_HDR + POSIX_TRACE_LOG_I_MAX_DATA, v);
	lw_reseal(w, POSIX_TRACE_LOG_HEADER_V1);
}

/* max-data-size sizes every reader's buffer (posix-trace allocates
 * max_data + 1): a value the module never writes is not a log. */
/* REQ: OPEN-5 */
static void test_max_data_size_beyond_the_clamp_is_einval(void)
{
	static const uint64_t bad[] = { UINT64_MAX, (uint64_t)SIZE_MAX - 1,
					POSIX_TRACE_MAX_DATA_MAX + 1ull };
	trace_attr_t attr;
	struct lw_log w;
	trace_id_t trid;
	size_t max = 0;
	unsigned int i;

	seq_log(&w);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_max_data(&w, bad[i]);
		EXPECT_RC(open_log(&w, w.end, &trid), EINVAL);
	}
	set_max_data(&w, POSIX_TRACE_MAX_DATA_MAX);
	EXPECT_RC(open_log(&w, w.end, &trid), 0);
	EXPECT_RC(posix_trace_get_attr(trid, &attr), 0);
	EXPECT_RC(posix_trace_attr_getmaxdatasize(&attr, &max), 0);
	EXPECT_EQ(max, POSIX_TRACE_MAX_DATA_MAX);
	EXPECT_EQ(drain(trid), 1);
	posix_trace_close(trid);
	free(w.buf);
}

#define SLOT		128

/* A LOOP log of @nslots one-event slots, wrapped so the oldest is in the
 * middle; @meta bytes of metadata area. */
static void ring_log(struct lw_log *w, uint32_t nslots, uint32_t meta)
{
	static const trace_event_id_t ids[] = { 257 };
	static const char *const names[] = { "tick" };
	struct lw_event ev = { .id = 257 };
	uint32_t i;

	lw_init(w, POSIX_TRACE_LOG_LAYOUT_RING, meta, nslots, SLOT);
	lw_info(w, "ring", POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP);
	lw_types(w, ids, names, 1);
	for (i = 0; i < nslots; i++) {
		ev.ts = 5000000000ull + i;
		lw_slot(w, (i + nslots / 2) % nslots, 100 + i, &ev, 1);
	}
}

/*
 * The reader used to read every slot header again for each block: 2048
 * slots, 4 million reads (1 s; 65536 slots, half an hour).  Reading a
 * log is linear: a few reads per slot, whatever the number of slots.
 */
static void test_ring_log_reads_each_slot_a_bounded_number_of_times(void)
{
	const uint32_t nslots = 2048;
	struct lw_log w;
	trace_id_t trid;

	ring_log(&w, nslots, 4096);
	EXPECT_RC(open_log(&w, w.len, &trid), 0);
	preads = 0;
	EXPECT_EQ(drain(trid), nslots);
	printf("# %u slots: %llu reads\n", nslots, preads);
	EXPECT(preads <= 5ull * nslots + 64);
	/* Again after a rewind: the same cost. */
	EXPECT_RC(posix_trace_rewind(trid), 0);
	preads = 0;
	EXPECT_EQ(drain(trid), nslots);
	EXPECT(preads <= 5ull * nslots + 64);
	posix_trace_close(trid);
	free(w.buf);
}

/*
 * A metadata block that fails its CRC stops the metadata scan, which
 * resumes when the reader reaches the end of the events (the log may be
 * growing).  It used to resume at every block: a 1 MiB bad block in a
 * 512-slot log was read 512 times.  Now: the bytes read are a small
 * multiple of the file.
 */
static void test_bad_metadata_block_is_not_read_again_per_block(void)
{
	const uint32_t nslots = 512, bad_len = 1u << 20;
	uint8_t *h, *payload = calloc(1, bad_len);
	struct lw_log w;
	trace_id_t trid;
	size_t at;

	ring_log(&w, nslots, bad_len + 4096);
	h = w.buf;
	lw_put32(h + POSIX_TRACE_LOG_H_BLOCK_MAX, POSIX_TRACE_LOG_BLOCK_LIMIT);
	lw_put32(h + POSIX_TRACE_LOG_H_CRC, pt_log_crc(h, POSIX_TRACE_LOG_HEADER_V1, POSIX_TRACE_LOG_H_CRC));
	at = lw_append(&w, POSIX_TRACE_LOG_BT_TYPES, 0, payload, bad_len - POSIX_TRACE_LOG_BLOCK_HDR);
	w.buf[at + POSIX_TRACE_LOG_BLOCK_HDR + 100] ^= 1;	/* CRC mismatch */
	EXPECT_RC(open_log(&w, w.len, &trid), 0);
	preads = pread_bytes = 0;
	EXPECT_EQ(drain(trid), nslots);
	printf("# %zu bytes of log: %llu bytes read\n", w.len, pread_bytes);
	EXPECT(pread_bytes <= 4ull * w.len);
	posix_trace_close(trid);
	free(payload);
	free(w.buf);
}

/* The cost bound keeps the rules: a torn slot is passed over when a
 * later one is valid, and one whose seq changed since the order was
 * taken (the writer went round) is not read as the old block. */
static void test_ring_order_taken_once_still_skips_torn_and_rewritten_slots(void)
{
	struct lw_event ev = { .id = 257, .ts = 9000000000ull };
	struct posix_trace_event_info info;
	struct lw_log w;
	trace_id_t trid;
	char data[8];
	size_t len;
	int fd, unavail;

	ring_log(&w, 8, 4096);
	/* seq 100..107 in slots 4..7, 0..3; tear seq 102 (slot 6). */
	w.buf[w.ring_offset + 6 * SLOT + POSIX_TRACE_LOG_BLOCK_HDR + 9] ^= 1;
	fd = lw_memfd(w.buf, w.len);
	EXPECT(fd >= 0);
	EXPECT_RC(posix_trace_open(fd, &trid), 0);
	EXPECT_EQ(drain(trid), 7);
	/* The writer goes round: slot 4 (seq 100) now holds seq 108. */
	EXPECT_RC(posix_trace_rewind(trid), 0);
	EXPECT_RC(posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavail), 0);
	EXPECT(!unavail);
	lw_slot(&w, 4, 108, &ev, 1);
	EXPECT(pwrite(fd, w.buf + w.ring_offset + 4 * SLOT, SLOT,
		      (off_t)(w.ring_offset + 4 * SLOT)) == SLOT);
	/* 101, 103..107 from the order taken, then 108 from a new pass. */
	EXPECT_EQ(drain(trid), 7);
	posix_trace_close(trid);
	close(fd);
	free(w.buf);
}

int main(void)
{
	PT_RUN(test_max_data_size_beyond_the_clamp_is_einval,
	       "a log whose max-data-size is above 65536 is EINVAL");
	PT_RUN(test_ring_log_reads_each_slot_a_bounded_number_of_times,
	       "a LOOP log of 2048 slots reads each slot a bounded number of times");
	PT_RUN(test_bad_metadata_block_is_not_read_again_per_block,
	       "a bad metadata block is not read again for every ring block");
	PT_RUN(test_ring_order_taken_once_still_skips_torn_and_rewritten_slots,
	       "the ring order taken once still skips torn and rewritten slots");
	return pt_test_done();
}
