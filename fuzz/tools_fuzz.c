// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: posix-trace's own readers of a log (report in its
 * three formats and with --filter, stat, convert to CTF and Chrome JSON)
 * on the input, as the command line runs them.  log_fuzz.c calls the
 * library with buffers sized by the test; this calls the tools, whose
 * buffers are sized by what the log says, on inputs far larger than one
 * block (Makefile: -max_len), so that sizes, names of any length and
 * many-slot rings reach them.  Built with ASan and UBSan over the
 * library's and the tools' sources (Makefile).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli.h"

static int fd = -1;
static char path[64], ctf_dir[64], ctf_out[80];

/* What a finished convert --ctf leaves, so that DIR is free again. */
static void remove_ctf(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/stream", ctf_out);
	unlink(p);
	snprintf(p, sizeof(p), "%s/metadata", ctf_out);
	unlink(p);
	rmdir(ctf_out);
}

static void remove_dir(void)
{
	remove_ctf();
	rmdir(ctf_dir);
}

/* Report output goes nowhere; stderr stays (sanitizer reports), but a
 * closed one (libFuzzer -close_fd_mask) must not become the log's fd. */
static void setup(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		abort();
	if (fcntl(STDERR_FILENO, F_GETFD) < 0 && dup2(null, STDERR_FILENO) < 0)
		abort();
	close(null);
	fd = memfd_create("toolsfuzz", MFD_CLOEXEC);
	strcpy(ctf_dir, "/tmp/pt-tools-fuzz.XXXXXX");
	if (fd < 0 || !mkdtemp(ctf_dir) || atexit(remove_dir))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	snprintf(ctf_out, sizeof(ctf_out), "%s/ctf", ctf_dir);
}

/* One command line; anything but exit status 0 or 1 is a bug. */
static void run(int (*cmd)(int, char **), const char *const *args)
{
	char *argv[12];
	int argc = 0;

	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	optind = 0;		/* getopt starts afresh */
	if (cmd(argc, argv) > 1)
		abort();
	clearerr(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t size)
{
	if (fd < 0)
		setup();
	if (ftruncate(fd, 0) || (size && pwrite(fd, buf, size, 0) != (ssize_t)size))
		abort();
	run(cmd_report, (const char *const[]){ "report", path, NULL });
	run(cmd_report, (const char *const[]){ "report", "--format", "json", path, NULL });
	run(cmd_report, (const char *const[]){ "report", "--format", "csv", "--filter",
					       "user,posix_trace_start", path, NULL });
	run(cmd_stat, (const char *const[]){ "stat", path, NULL });
	run(cmd_convert, (const char *const[]){ "convert", path, "--ctf", ctf_out,
						"--chrome", "/dev/null", NULL });
	remove_ctf();
	return 0;
}
