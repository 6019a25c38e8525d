// SPDX-License-Identifier: GPL-2.0
/*
 * wfloor BYTES FILE: write BYTES bytes to FILE in 64 KiB write(2)s from
 * one buffer, and print the time it took in ns.  bench/record's "write
 * floor" row: what putting a log's bytes into the page cache costs by
 * itself, which no recorder that keeps them can go below.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[CHUNK];
	unsigned long long left;
	uint64_t t0;
	char *end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: wfloor BYTES FILE\n");
		return 2;
	}
	left = strtoull(argv[1], &end, 10);
	if (*end || !*argv[1]) {
		fprintf(stderr, "wfloor: not a byte count: %s\n", argv[1]);
		return 2;
	}
	memset(buf, 0x5a, sizeof(buf));	/* not zero pages */
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	t0 = now_ns();
	while (left) {
		size_t n = left < CHUNK ? left : CHUNK;
		ssize_t w = write(fd, buf, n);

		if (w <= 0) {
			perror("wfloor: write");
			return 1;
		}
		left -= (size_t)w;
	}
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	close(fd);
	return 0;
}
