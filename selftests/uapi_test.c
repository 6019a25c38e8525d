// SPDX-License-Identifier: GPL-2.0
/*
 * uapi_test - the raw ioctl and mmap ABI of /dev/posix_trace, below the
 * library: argument validation, mmap rules, and a reader that writes
 * garbage into its consumer page.  The kernel must answer each with the
 * documented error and keep working.
 */
#include "pt_selftest.h"
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/posix_trace.h>
#include <stdatomic.h>

FIXTURE(uapi) {
	int fd;
	struct posix_trace_create c;
	bool created;
};

static int uapi_create(int fd, struct posix_trace_create *c, uint32_t policy)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->stream_policy = policy;
	c->stream_size = 4096;
	c->max_data_size = 64;
	return ioctl(fd, POSIX_TRACE_IOC_CREATE, c);
}

static int uapi_ctl(int fd, unsigned long cmd, uint32_t trid)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = trid };

	return ioctl(fd, cmd, &ctl);
}

FIXTURE_SETUP(uapi)
{
	ST_REQUIRE_MODULE();
	self->fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uapi_create(self->fd, &self->c, POSIX_TRACE_POLICY_LOOP));
	self->created = true;
}

FIXTURE_TEARDOWN(uapi)
{
	if (self->created)
		uapi_ctl(self->fd, POSIX_TRACE_IOC_SHUTDOWN, self->c.trid);
	if (self->fd >= 0)
		close(self->fd);
}

/* REQ: 5.5 (ABI version query) */
TEST_F(uapi, query_reports_abi_version_and_limits)
{
	struct posix_trace_query q = { .size = sizeof(q) };

	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_QUERY, &q));
	EXPECT_EQ((uint32_t)POSIX_TRACE_ABI_VERSION, q.abi_version);
	EXPECT_NE(0u, q.features & POSIX_TRACE_FEAT_TRACE);
	EXPECT_LE(8u, q.sys_max);
	EXPECT_LE(1u, q.nr_lanes);
	EXPECT_LT(0u, q.clock_res_ns);
}

TEST_F(uapi, unknown_command_is_enotty)
{
	char buf[64] = { 0 };

	ASSERT_EQ(-1, ioctl(self->fd, _IOW(POSIX_TRACE_IOC_MAGIC, 0x7f, buf), buf));
	EXPECT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, 0x5401 /* TCGETS */, buf));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(uapi, size_below_first_version_is_einval)
{
	struct posix_trace_status st = { .size = 8, .trid = self->c.trid };

	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, &st));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, size_above_page_is_einval)
{
	struct posix_trace_status st = { .size = 1 << 20, .trid = self->c.trid };

	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, &st));
	EXPECT_EQ(EINVAL, errno);
}

/* A newer library's larger struct: unknown trailing bytes must be zero. */
TEST_F(uapi, larger_struct_with_zero_tail_is_accepted_nonzero_is_e2big)
{
	struct {
		struct posix_trace_status st;
		uint64_t future[4];
	} big;

	memset(&big, 0, sizeof(big));
	big.st.size = sizeof(big);
	big.st.trid = self->c.trid;
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, &big));
	big.st.running = 0;
	big.st.overrun = 0;
	big.st.full = 0;
	big.future[2] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, &big));
	EXPECT_EQ(E2BIG, errno);
}

TEST_F(uapi, nonzero_reserved_field_is_einval)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = self->c.trid };
	struct posix_trace_create c;

	ctl.reserved[1] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_START, &ctl));
	EXPECT_EQ(EINVAL, errno);

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 4096;
	c.reserved[0] = 7;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.reserved[0] = 0;
	c.reserved0 = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.reserved0 = 0;
	c.kernel_classes = 1u << 31;	/* no such class */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
}

/* posix_trace_create grew by kernel_classes and reserved0 where reserved[]
 * began: a caller built before passes the smaller size, and a size that
 * ends inside the new fields is refused. */
TEST_F(uapi, create_accepts_the_size_before_kernel_classes)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl) };
	const size_t old = offsetof(struct posix_trace_create, reserved);
	struct {
		struct posix_trace_create c;
		unsigned char guard[32];
	} b;
	struct posix_trace_create c;
	const unsigned char *p;

	/* What lies past the caller's size is not the kernel's to write. */
	memset(&b, 0xaa, sizeof(b));
	memset(&b.c, 0, old);
	b.c.size = old;
	b.c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	b.c.stream_size = 4096;
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &b));
	for (p = (const unsigned char *)&b + old; p < (const unsigned char *)(&b + 1); p++)
		ASSERT_EQ(0xaa, *p);
	ctl.trid = b.c.trid;
	EXPECT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl));
	memset(&c, 0, sizeof(c));
	c.size = offsetof(struct posix_trace_create, reserved0);
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 4096;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Never-lose mode (full_wait_ns): a LOOP stream is never full, so asking
 * it to wait is EINVAL, and so is a wait past POSIX_TRACE_FULL_WAIT_MAX;
 * an UNTIL_FULL stream takes any wait up to it.
 */
TEST_F(uapi, full_wait_is_einval_for_loop_streams_and_past_its_bound)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl) };
	struct posix_trace_create c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 4096;
	c.full_wait_ns = 1000000;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);

	c.stream_policy = POSIX_TRACE_POLICY_UNTIL_FULL;
	c.full_wait_ns = POSIX_TRACE_FULL_WAIT_MAX + 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);

	c.full_wait_ns = POSIX_TRACE_FULL_WAIT_MAX;
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	ctl.trid = c.trid;
	EXPECT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl));
}

/* The log fields mean something only with POSIX_TRACE_CREATE_LOG, and the
 * FLUSH stream policy needs a log. */
TEST_F(uapi, log_fields_without_log_flag_are_einval)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = self->c.trid };
	struct posix_trace_create c;
	int i;

	for (i = 0; i < 4; i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.stream_policy = POSIX_TRACE_POLICY_LOOP;
		c.stream_size = 4096;
		if (i == 0)
			c.log_fd = 1;
		else if (i == 1)
			c.log_policy = POSIX_TRACE_LOG_APPEND;
		else if (i == 2)
			c.log_size = 1 << 20;
		else
			c.stream_policy = POSIX_TRACE_POLICY_FLUSH;
		ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
		EXPECT_EQ(EINVAL, errno);
	}
	/* A stream without log cannot be flushed. */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_FLUSH, &ctl));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, log_create_validates_policy_size_and_descriptor)
{
	struct posix_trace_create c;
	int fd = open("/dev/null", O_RDONLY);

	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = POSIX_TRACE_CREATE_LOG;
	c.stream_policy = POSIX_TRACE_POLICY_FLUSH;
	c.stream_size = 4096;
	c.log_fd = (__u32)fd;
	c.log_policy = 3;	/* not a log policy */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.log_policy = POSIX_TRACE_LOG_LOOP;
	c.log_size = 8;		/* below a maximal system event */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.log_policy = POSIX_TRACE_LOG_APPEND;	/* read-only descriptor */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EBADF, errno);
	c.log_fd = (__u32)-1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EBADF, errno);
	close(fd);
}

TEST_F(uapi, unknown_flags_are_einval)
{
	struct posix_trace_wait w = { .size = sizeof(w), .trid = self->c.trid };
	struct posix_trace_create c;

	w.flags = 1u << 31;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_WAIT, &w));
	EXPECT_EQ(EINVAL, errno);

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = 2;
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 4096;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, bad_argument_pointer_is_efault)
{
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(uapi, bad_policy_and_sizes_are_einval)
{
	struct posix_trace_create c;

	ASSERT_EQ(-1, uapi_create(self->fd, &c, POSIX_TRACE_POLICY_FLUSH));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, uapi_create(self->fd, &c, 99));
	EXPECT_EQ(EINVAL, errno);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 16;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.stream_size = 1ULL << 60;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, eventid_name_too_long_or_with_nul_is_rejected)
{
	char name[300];
	struct posix_trace_eventid e = { .size = sizeof(e) };

	memset(name, 'a', sizeof(name));
	e.name_ptr = (uintptr_t)name;
	e.name_len = 256;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e));
	EXPECT_EQ(ENAMETOOLONG, errno);
	name[3] = '\0';
	e.name_len = 10;	/* length disagrees with the string */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e));
	EXPECT_EQ(EINVAL, errno);
	e.name_ptr = 8;
	e.name_len = 4;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(uapi, read_only_region_cannot_be_mapped_or_made_writable)
{
	void *p;

	p = mmap(NULL, self->c.ro_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, self->c.ro_offset);
	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, self->c.ro_size, PROT_READ, MAP_SHARED, self->fd,
		 self->c.ro_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-1, mprotect(p, self->c.ro_size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, self->c.ro_size);
}

TEST_F(uapi, mapping_with_wrong_length_or_offset_is_einval)
{
	void *p;

	p = mmap(NULL, self->c.ro_size + 4096, PROT_READ, MAP_SHARED, self->fd,
		 self->c.ro_offset);
	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd,
		 self->c.ro_offset + ((off_t)1 << 40));
	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 3 * 4096);
	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, private_consumer_mapping_is_einval)
{
	void *p = mmap(NULL, self->c.cons_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE, self->fd, self->c.cons_offset);

	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uapi, status_page_is_one_read_only_page)
{
	struct posix_trace_proc_page *pg;

	ASSERT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->fd, 0));
	ASSERT_EQ(MAP_FAILED, mmap(NULL, 8192, PROT_READ, MAP_SHARED, self->fd, 0));
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	EXPECT_EQ(sizeof(*pg), pg->size);
	/* Our own stream is suspended: nothing wants our events. */
	EXPECT_EQ(0u, pg->active);
	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid));
	EXPECT_EQ(1u, pg->active);
	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_STOP, self->c.trid));
	EXPECT_EQ(0u, pg->active);
	ASSERT_EQ(-1, mprotect(pg, 4096, PROT_READ | PROT_WRITE));
	munmap(pg, 4096);
}

/* A fork()ed child does not control its parent's stream (MODEL-42). */
TEST_F(uapi, child_cannot_use_or_map_parents_stream)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		void *p = mmap(NULL, self->c.ro_size, PROT_READ, MAP_SHARED,
			       self->fd, self->c.ro_offset);

		if (p != MAP_FAILED || errno != EINVAL)
			_exit(1);
		if (uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid) != -1 ||
		    errno != EINVAL)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The kernel clamps whatever a reader writes into its tail (design 4). */
TEST_F(uapi, garbage_consumer_tail_is_clamped_and_harmless)
{
	static const uint64_t garbage[] = { ~0ULL, 1ULL << 63, 3, 0, 12345 };
	struct posix_trace_event_req req = { .size = sizeof(req) };
	struct posix_trace_status st;
	struct posix_trace_eventid e = { .size = sizeof(e) };
	uint8_t *cons;
	unsigned int g, i, n;
	char data[32] = "payload";

	cons = mmap(NULL, self->c.cons_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->fd, self->c.cons_offset);
	ASSERT_NE(MAP_FAILED, cons);
	e.name_ptr = (uintptr_t)"uapi";
	e.name_len = 4;
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_EVENTID_OPEN, &e));
	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid));
	req.event_id = e.event_id;
	req.data_ptr = (uintptr_t)data;
	req.data_len = sizeof(data);
	n = self->c.cons_size / self->c.cons_stride;
	for (g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
		for (i = 0; i < n; i++)
			((struct posix_trace_consumer *)(cons + i * self->c.cons_stride))->tail =
				garbage[g];
		/* Enough to wrap every lane several times. */
		for (i = 0; i < 1000; i++)
			ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_EVENT, &req));
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st.trid = self->c.trid;
		ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_STATUS, &st));
		EXPECT_EQ(1u, st.running);
	}
	munmap(cons, self->c.cons_size);
}

/* UNTIL_FULL must not restart forever or hang on a lying reader. */
TEST_F(uapi, until_full_with_lying_reader_does_not_hang)
{
	struct posix_trace_event_req req = { .size = sizeof(req) };
	struct posix_trace_create c;
	uint8_t *cons;
	unsigned int i;
	int fd;

	ST_REQUIRE_MODULE();
	fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uapi_create(fd, &c, POSIX_TRACE_POLICY_UNTIL_FULL));
	cons = mmap(NULL, c.cons_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    c.cons_offset);
	ASSERT_NE(MAP_FAILED, cons);
	ASSERT_EQ(0, uapi_ctl(fd, POSIX_TRACE_IOC_START, c.trid));
	req.event_id = POSIX_TRACE_ID_UNNAMED;
	for (i = 0; i < 5000; i++) {
		((struct posix_trace_consumer *)cons)->tail = (i & 1) ? ~0ULL : i * 8;
		ASSERT_EQ(0, ioctl(fd, POSIX_TRACE_IOC_EVENT, &req));
	}
	ASSERT_EQ(0, uapi_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid));
	munmap(cons, c.cons_size);
	close(fd);
}

TEST_F(uapi, stats_validates_size_flags_reserved_and_output_fields)
{
	struct {
		struct posix_trace_stats st;
		uint64_t future[2];
	} big;
	struct posix_trace_stats st;

	memset(&st, 0, sizeof(st));
	st.size = offsetof(struct posix_trace_stats, reserved);
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.size = 8192;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.size = sizeof(st);
	st.flags = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.flags = 0;
	st.reserved[1] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.reserved[1] = 0;
	st.reserved0 = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.reserved0 = 0;
	st.kernel_classes = 1;	/* an output field */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	st.kernel_classes = 0;
	st.users = 1;	/* an output field */
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	memset(&big, 0, sizeof(big));
	big.st.size = sizeof(big);
	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &big));
	memset(&big, 0, sizeof(big));
	big.st.size = sizeof(big);
	big.future[1] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, &big));
	EXPECT_EQ(E2BIG, errno);
	ASSERT_EQ(-1, ioctl(self->fd, POSIX_TRACE_IOC_STATS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

/* The fixture's stream traces this process; a mapping counts while it lasts. */
TEST_F(uapi, stats_count_live_streams_links_and_mappings)
{
	struct posix_trace_query q = { .size = sizeof(q) };
	struct posix_trace_stats before, st;
	void *p;

	ASSERT_EQ(0, ioctl(self->fd, POSIX_TRACE_IOC_QUERY, &q));
	EXPECT_NE(0u, q.features & POSIX_TRACE_FEAT_STATS);
	ASSERT_EQ(0, st_stats(&before));
	EXPECT_EQ(sizeof(before), before.size);
	EXPECT_LE(1u, before.streams);
	EXPECT_LE(1u, before.active_streams);
	EXPECT_LE(1u, before.procs);
	EXPECT_LE(1u, before.attaches);
	EXPECT_LE(1u, before.maps);
	EXPECT_LE(1u, before.users);
	p = mmap(NULL, self->c.ro_size, PROT_READ, MAP_SHARED, self->fd,
		 self->c.ro_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, st_stats(&st));
	EXPECT_EQ(before.mappings + 1, st.mappings);
	/* A split area is two mappings, each holding the stream. */
	if (self->c.ro_size > 4096) {
		ASSERT_EQ(0, munmap(p, 4096));
		p = (char *)p + 4096;
		self->c.ro_size -= 4096;
		ASSERT_EQ(0, st_stats(&st));
		EXPECT_EQ(before.mappings + 1, st.mappings);
	}
	ASSERT_EQ(0, munmap(p, self->c.ro_size));
	ASSERT_EQ(0, st_stats(&st));
	EXPECT_EQ(before.mappings, st.mappings);
	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_SHUTDOWN, self->c.trid));
	self->created = false;
	ASSERT_EQ(0, st_stats(&st));
	EXPECT_EQ(before.active_streams - 1, st.active_streams);
}

struct uapi_waiter {
	int fd;
	uint32_t trid;
	int err;
	atomic_int tid;
};

static void *uapi_wait_main(void *arg)
{
	struct uapi_waiter *w = arg;
	struct posix_trace_wait wt = {
		.size = sizeof(wt),
		.flags = POSIX_TRACE_WAIT_TIMEOUT,
		.trid = w->trid,
		.abstime = st_realtime_ns() + 500 * 1000000ULL,
	};

	atomic_store(&w->tid, st_gettid());
	w->err = ioctl(w->fd, POSIX_TRACE_IOC_WAIT, &wt) ? errno : 0;
	return NULL;
}

/*
 * A signal that runs no handler does not end a wait: the SIGCHLD of a
 * child, which the forking thread blocks, goes to the waiting thread and
 * is ignored there (found by stress_test: timedgetnext said EINTR).
 */
TEST_F(uapi, wait_is_not_interrupted_by_a_signal_without_handler)
{
	struct uapi_waiter w = { .fd = self->fd, .trid = self->c.trid };
	sigset_t chld, old;
	pthread_t th;
	pid_t pid;

	signal(SIGCHLD, SIG_DFL);
	ASSERT_EQ(0, pthread_create(&th, NULL, uapi_wait_main, &w));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	ASSERT_EQ(0, pthread_sigmask(SIG_BLOCK, &chld, &old));
	while (!atomic_load(&w.tid))
		st_sleep_ms(1);
	ASSERT_TRUE(st_wait_sleeping(atomic_load(&w.tid), 2000));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	pthread_join(th, NULL);
	waitpid(pid, NULL, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	EXPECT_EQ(ETIMEDOUT, w.err);
}

/* A stream pins the module even when no file or mapping is left. */
TEST_F(uapi, rmmod_is_refused_while_a_stream_exists)
{
	int fd;

	ST_REQUIRE_ROOT();
	/* Only the stream may hold the module: drop our file first. */
	fd = self->fd;
	self->fd = -1;
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(-1, syscall(SYS_delete_module, "posix_trace", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	self->fd = fd;
}

/* ------------------------------------------------------------------ */
/* Mappings a fork() must not pass on (issue 19, items 8 and 9)        */
/* ------------------------------------------------------------------ */

/* Open writer lane 0 of the fixture's stream, which traces us. */
static int uapi_writer_open(int fd, uint32_t trid, struct posix_trace_writer *w)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->trid = trid;
	return ioctl(fd, POSIX_TRACE_IOC_WRITER_OPEN, w);
}

/* Mappings of the device in this process at offsets of kind @kind (1: a
 * stream's read-only region, 2: its consumer page, 3: a writer lane).
 */
static int device_mappings(int kind)
{
	char line[512], path[256];
	unsigned long long off;
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%*x-%*x %*s %llx %*s %*s %255s", &off, path) == 2 &&
		    !strcmp(path, ST_DEVICE) && off && ((off / 4096) & 3) == (unsigned int)kind)
			n++;
	}
	fclose(f);
	return n;
}

/* A child that counts the device's mappings of each kind it inherited. */
static int inherited_mappings(void)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(device_mappings(1) + device_mappings(2) + device_mappings(3));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* REQ: MODEL-42 (a trid is not valid in a child: nor are its mappings) */
TEST_F(uapi, madvise_cannot_make_a_stream_or_lane_mapping_inheritable)
{
	struct posix_trace_writer w;
	void *ro, *cons, *lane;

	ro = mmap(NULL, self->c.ro_size, PROT_READ, MAP_SHARED, self->fd,
		  self->c.ro_offset);
	ASSERT_NE(MAP_FAILED, ro);
	cons = mmap(NULL, self->c.cons_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->fd, self->c.cons_offset);
	ASSERT_NE(MAP_FAILED, cons);
	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid));
	ASSERT_EQ(0, uapi_writer_open(self->fd, self->c.trid, &w));
	lane = mmap(NULL, w.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->fd, w.mmap_offset);
	ASSERT_NE(MAP_FAILED, lane);
	EXPECT_EQ(-1, madvise(ro, self->c.ro_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(cons, self->c.cons_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, madvise(lane, w.mmap_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	/* KEEPONFORK clears a flag these mappings never have. */
	madvise(ro, self->c.ro_size, MADV_KEEPONFORK);
	madvise(lane, w.mmap_size, MADV_KEEPONFORK);
	EXPECT_EQ(3, device_mappings(1) + device_mappings(2) + device_mappings(3));
	EXPECT_EQ(0, inherited_mappings());
	munmap(lane, w.mmap_size);
	munmap(cons, self->c.cons_size);
	munmap(ro, self->c.ro_size);
}

/*
 * The status page, told to be kept on fork (MADV_KEEPONFORK clears its
 * VM_WIPEONFORK), shared or private: the child, which nothing traces,
 * reads a page with no slot, never its parent's, where the fixture's
 * stream has one.  Before the fix the page was inserted with
 * vm_insert_page(), fork() copied the page table of that VM_MIXEDMAP area,
 * and the child read its parent's page (issue 19, found by fuzz_test).
 */
TEST_F(uapi, a_status_page_kept_on_fork_shows_the_child_its_own_page)
{
	const int flags[] = { MAP_SHARED, MAP_PRIVATE };
	struct posix_trace_proc_page *pg;
	unsigned int i;
	int status;
	pid_t pid;

	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid));
	for (i = 0; i < 2; i++) {
		pg = mmap(NULL, 4096, PROT_READ, flags[i], self->fd, 0);
		ASSERT_NE(MAP_FAILED, pg);
		ASSERT_EQ(0, madvise(pg, 4096, MADV_KEEPONFORK));
		ASSERT_LE(1u, *(volatile __u32 *)&pg->nr_slots);	/* in the page table */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(*(volatile __u32 *)&pg->nr_slots == 0 ? 0 : 1);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) {
			TH_LOG("%s mapping: the child read its parent's page",
			       flags[i] == MAP_SHARED ? "shared" : "private");
		}
		munmap(pg, 4096);
	}
}

/*
 * A process the stream does not trace, mapping one of its lanes: the same
 * answer whatever the length, and the same as for a stream that does not
 * exist.  Before the fix the right length gave EACCES and every other
 * EINVAL, which told anyone a stream's lanes and their size.
 */
TEST_F(uapi, a_lane_of_a_stream_that_does_not_trace_the_caller_answers_as_if_absent)
{
	struct posix_trace_writer w;
	int status;
	pid_t pid;

	ASSERT_EQ(0, uapi_ctl(self->fd, POSIX_TRACE_IOC_START, self->c.trid));
	ASSERT_EQ(0, uapi_writer_open(self->fd, self->c.trid, &w));
	pid = fork();	/* not traced: the stream does not inherit */
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), bad = 0;
		size_t len;

		for (len = 4096; len <= w.mmap_size + 16 * 4096; len += 4096) {
			void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, w.mmap_offset);

			if (p != MAP_FAILED || errno != EINVAL) {
				fprintf(stderr, "# length %zu (lane %llu): %s\n", len,
					(unsigned long long)w.mmap_size,
					p == MAP_FAILED ? strerror(errno) : "mapped");
				bad++;
			}
		}
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A reader that consumes a whole lane at once: the next event forgets
 * only a few of the consumed records (the rest when their space is
 * needed), so no event walks the lane with interrupts off.  Before the
 * fix one event walked all of them (issue 19, item 10).
 */
#define WALK_RECORDS	15000
#define WALK_REC_SIZE	56	/* a record header, no data */
#define WALK_BATCH	16	/* kmod/record.c PT_RECLAIM_BATCH */

TEST_F(uapi, one_event_forgets_a_bounded_number_of_consumed_records)
{
	struct posix_trace_event_req req = { .size = sizeof(req) };
	const struct posix_trace_stream_header *hdr;
	struct posix_trace_create c;
	const struct posix_trace_lane *lane = NULL;
	uint64_t before, after, t0, took;
	unsigned int i;
	uint8_t *cons;
	const uint8_t *ro;
	int fd, cpu = -1;

	ASSERT_EQ(0, st_pin_nth_cpu(0, &cpu));
	fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.stream_policy = POSIX_TRACE_POLICY_LOOP;
	c.stream_size = 1 << 20;
	c.max_data_size = 64;
	ASSERT_EQ(0, ioctl(fd, POSIX_TRACE_IOC_CREATE, &c));
	ro = mmap(NULL, c.ro_size, PROT_READ, MAP_SHARED, fd, c.ro_offset);
	ASSERT_NE(MAP_FAILED, ro);
	cons = mmap(NULL, c.cons_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    c.cons_offset);
	ASSERT_NE(MAP_FAILED, cons);
	ASSERT_EQ(0, uapi_ctl(fd, POSIX_TRACE_IOC_START, c.trid));
	req.event_id = POSIX_TRACE_ID_UNNAMED;
	req.trid = c.trid;
	for (i = 0; i < WALK_RECORDS; i++)
		ASSERT_EQ(0, ioctl(fd, POSIX_TRACE_IOC_EVENT, &req));
	hdr = (const void *)ro;
	for (i = 0; i < hdr->nr_lanes; i++) {
		const struct posix_trace_lane *l = (const void *)
			(ro + hdr->lane_offset + i * hdr->lane_stride);

		if (l->head - l->oldest >= WALK_RECORDS * WALK_REC_SIZE)
			lane = l;
		if (lane)
			break;
	}
	ASSERT_NE(NULL, lane) TH_LOG("no lane holds the %d records (cpu %d)",
				     WALK_RECORDS, cpu);
	/* Consume everything at once. */
	((struct posix_trace_consumer *)(cons + i * c.cons_stride))->tail = lane->head;
	before = lane->oldest;
	t0 = st_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ioctl(fd, POSIX_TRACE_IOC_EVENT, &req));
	took = st_now_ns(CLOCK_MONOTONIC) - t0;
	after = lane->oldest;
	TH_LOG("one event after consuming %d records: oldest moved %llu records, %llu us",
	       WALK_RECORDS, (unsigned long long)((after - before) / WALK_REC_SIZE),
	       (unsigned long long)took / 1000);
	/* The batch, plus what the event's own room may need. */
	EXPECT_GE((uint64_t)2 * WALK_BATCH * WALK_REC_SIZE, after - before);
	uapi_ctl(fd, POSIX_TRACE_IOC_SHUTDOWN, c.trid);
	munmap(cons, c.cons_size);
	munmap((void *)ro, c.ro_size);
	close(fd);
}

TEST_HARNESS_MAIN
