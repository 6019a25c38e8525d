// SPDX-License-Identifier: GPL-2.0
/*
 * convert_test - "posix-trace convert" on a log the module has just
 * written (issue 7): two threads record CONV_EVENTS user events each,
 * with data of 8 to 40 bytes, under three event names (one holding a
 * quote, a backslash and a byte that is not UTF-8), into an APPEND log;
 * the test then converts the log to CTF and Chrome JSON and reads both
 * back with babeltrace2 and python3 (tests/tools/convert_check.py), and
 * every event must equal what posix_trace_getnext_event() returns from the
 * log: name, ns timestamp, pid, thread, address, truncation, data.
 *
 * The host tests (tests/tools/convert.sh) do the same on logs kept in the
 * tree; this one covers what only a fresh log has: two lanes merged in
 * time order, the flusher's block layout, many CTF packets.  Runs from
 * the repository root (scripts/run-selftests); skips without the module,
 * the command, babeltrace2 or python3.
 */
#include "pt_selftest.h"

#include <sys/stat.h>

#define CONV_EVENTS	3000
#define CONV_DIR	"/tmp/convert_test"

static const char *const conv_names[] = {
	"convert_test.small", "convert_test.large", "convert \"test\" \\ \xff",
};

struct conv_thread {
	trace_event_id_t ids[3];
	unsigned int salt;
};

static void *conv_writer(void *arg)
{
	const struct conv_thread *t = arg;
	unsigned char data[40];
	unsigned int i, k;

	for (i = 0; i < CONV_EVENTS; i++) {
		for (k = 0; k < sizeof(data); k++)
			data[k] = (unsigned char)(i * 31 + k * 7 + t->salt);
		posix_trace_event(t->ids[i % 3], data, 8 + (i * 13 + t->salt) % 33);
	}
	return NULL;
}

/* Writes CONV_DIR/log; returns 0 or an error. */
static int conv_record(void)
{
	struct conv_thread t[2];
	pthread_t th[2];
	trace_attr_t a;
	trace_id_t trid;
	unsigned int i, k;
	int fd, ret;

	fd = open(CONV_DIR "/log", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	/* 1 MiB holds every event: the log gets them all, none lost. */
	ret = st_attr_make(&a, 1 << 20, 0, 64);
	if (!ret)
		ret = posix_trace_attr_setlogfullpolicy(&a, POSIX_TRACE_APPEND);
	if (!ret)
		ret = posix_trace_create_withlog(0, &a, fd, &trid);
	posix_trace_attr_destroy(&a);
	if (ret)
		goto out;
	ret = posix_trace_start(trid);
	for (i = 0; !ret && i < 2; i++) {
		t[i].salt = i * 101;
		for (k = 0; !ret && k < 3; k++)
			ret = posix_trace_eventid_open(conv_names[k], &t[i].ids[k]);
	}
	for (i = 0; !ret && i < 2; i++)
		ret = pthread_create(&th[i], NULL, conv_writer, &t[i]);
	while (i--)
		pthread_join(th[i], NULL);
	/* Shutdown flushes and closes the log before it returns. */
	k = posix_trace_shutdown(trid);
	ret = ret ? ret : (int)k;
out:
	close(fd);
	return ret;
}

static void hex(FILE *f, const void *p, size_t n)
{
	const unsigned char *s = p;

	if (!n)
		fputc('-', f);
	while (n--)
		fprintf(f, "%02x", *s++);
}

/* The reference of tests/tools/convert.sh: one line per event of the
 * log; returns the number of events, or -1. */
static long conv_reference(const char *log, const char *out)
{
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1], data[ST_EV_DATA_MAX];
	int fd = open(log, O_RDONLY | O_CLOEXEC), unavailable = 0;
	FILE *f = fopen(out, "w");
	trace_id_t trid;
	size_t len;
	long n = 0;

	if (fd < 0 || !f || posix_trace_open(fd, &trid))
		return -1;
	while (!posix_trace_getnext_event(trid, &info, data, sizeof(data), &len,
					  &unavailable) && !unavailable) {
		if (posix_trace_eventid_get_name(trid, info.posix_event_id, name))
			strcpy(name, "?");
		fprintf(f, "%llu ", (unsigned long long)st_ts_ns(&info.posix_timestamp));
		hex(f, name, strlen(name));
		fprintf(f, " %d %llx %llx %d ", (int)info.posix_pid,
			(unsigned long long)(uintptr_t)info.posix_thread_id,
			(unsigned long long)(uintptr_t)info.posix_prog_address,
			info.posix_truncation_status);
		hex(f, data, len);
		fputc('\n', f);
		n++;
	}
	posix_trace_close(trid);
	close(fd);
	return fclose(f) ? -1 : n;
}

FIXTURE(convert) {
	int unused;
};

FIXTURE_SETUP(convert)
{
	ST_REQUIRE_MODULE();
	if (access("tools/posix-trace/posix-trace", X_OK))
		ST_SKIP("tools/posix-trace/posix-trace not built (run from the repository root)");
	if (system("command -v babeltrace2 >/dev/null && command -v python3 >/dev/null"))
		ST_SKIP("babeltrace2 or python3 missing (scripts/deps)");
	ASSERT_EQ(0, system("rm -rf " CONV_DIR " && mkdir " CONV_DIR));
}

FIXTURE_TEARDOWN(convert)
{
	if (system("rm -rf " CONV_DIR))
		TH_LOG("could not remove " CONV_DIR);
}

/* babeltrace2 and python3 under QEMU TCG on a loaded host: minutes. */
TEST_F_TIMEOUT(convert, fresh_module_log_reads_back_exactly_from_ctf_and_chrome_json, 600)
{
	long n;

	ASSERT_EQ(0, conv_record());
	n = conv_reference(CONV_DIR "/log", CONV_DIR "/ref");
	TH_LOG("%ld events in the log", n);
	/* Both threads' events and the system ones (START...). */
	ASSERT_LE(2 * CONV_EVENTS, n);
	ASSERT_EQ(0, system("tools/posix-trace/posix-trace convert " CONV_DIR "/log --ctf "
			    CONV_DIR "/ctf --chrome " CONV_DIR "/json"));
	/* Several packets of 64 KiB: the stream is far larger than one. */
	ASSERT_EQ(0, system("test $(stat -c %s " CONV_DIR "/ctf/stream) -gt 200000"));
	ASSERT_EQ(0, system("babeltrace2 --clock-seconds --no-delta " CONV_DIR "/ctf | "
			    "python3 tests/tools/convert_check.py bt2 >" CONV_DIR "/bt && "
			    "cmp " CONV_DIR "/ref " CONV_DIR "/bt"));
	ASSERT_EQ(0, system("python3 tests/tools/convert_check.py chrome " CONV_DIR "/ref "
			    CONV_DIR "/json"));
}

TEST_HARNESS_MAIN
