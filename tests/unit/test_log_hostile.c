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

	lw_init(w, PT_LOG_LAYOUT_SEQ, 0, 0, 0);
	lw_info(w, "max", POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND);
	lw_types(w, ids, names, 1);
	lw_events(w, &ev, 1);
}

/* INFO is the first block, right after the 64-byte header. */
static void set_max_data(struct lw_log *w, uint64_t v)
{
	lw_put64(w->buf + PT_LOG_HEADER_MIN + PT_LOG_BLOCK_HDR + PT_LOG_I_MAX_DATA, v);
	lw_reseal(w, PT_LOG_HEADER_MIN);
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

int main(void)
{
	PT_RUN(test_max_data_size_beyond_the_clamp_is_einval,
	       "a log whose max-data-size is above 65536 is EINVAL");
	return pt_test_done();
}
