// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test of tools/posix-trace/kdata.c (run by tests/tools/cli.sh, with
 * ASan and UBSan where they build): the data of every kernel event type,
 * of every length from none to past its fixed part, in a buffer of
 * exactly that length (a log's data sits in a larger block, where a
 * sanitizer sees no overrun), all bytes 0xff so that every flag is set
 * and every string claims more than the data holds.  Decoding and both
 * outputs must stay inside the data; the fixed part must be the bytes
 * the data has, zeros after.  Prints what is wrong, exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/posix_trace.h>
#include "kdata.h"

#define MAX_LEN	(sizeof(struct posix_trace_syscall_entry) + 16)

static int fail;

/* The fixed part of @k: @n bytes of 0xff then zeros, up to @size. */
static void check_fixed(const struct kd_event *k, size_t size, size_t len)
{
	const unsigned char *p = (const unsigned char *)&k->u;
	size_t i, n = len < size ? len : size;

	for (i = 0; i < size; i++) {
		if (p[i] != (i < n ? 0xff : 0)) {
			printf("id %u, %zu bytes: byte %zu of the fixed part is %#x\n",
			       k->id, len, i, p[i]);
			fail = 1;
			return;
		}
	}
}

static size_t fixed_size(trace_event_id_t id)
{
	switch (id) {
	case POSIX_TRACE_SYSCALL_ENTRY_NP:
		return sizeof(struct posix_trace_syscall_entry);
	case POSIX_TRACE_SYSCALL_EXIT_NP:
		return sizeof(struct posix_trace_syscall_exit);
	case POSIX_TRACE_SIGNAL_GENERATE_NP:
		return sizeof(struct posix_trace_signal_generate);
	case POSIX_TRACE_SIGNAL_DELIVER_NP:
		return sizeof(struct posix_trace_signal_deliver);
	case POSIX_TRACE_PROCESS_FORK_NP:
		return sizeof(struct posix_trace_process_fork);
	case POSIX_TRACE_PROCESS_EXEC_NP:
		return sizeof(struct posix_trace_process_exec);
	case POSIX_TRACE_PROCESS_EXIT_NP:
		return sizeof(struct posix_trace_process_exit);
	}
	return 0;
}

int main(void)
{
	FILE *out = fopen("/dev/null", "w");
	struct kd_event k;
	trace_event_id_t id;
	unsigned char *data;
	size_t len, size;

	if (!out)
		return perror("/dev/null"), 1;
	for (id = POSIX_TRACE_ID_KERNEL_FIRST - 1; id <= POSIX_TRACE_ID_KERNEL_LAST + 1; id++) {
		size = fixed_size(id);
		for (len = 0; len <= MAX_LEN; len++) {
			data = malloc(len ? len : 1);
			if (!data)
				return perror("malloc"), 1;
			memset(data, 0xff, len);
			if (kd_decode(id, data, len, &k) != !!size) {
				printf("id %u: kernel event %s\n", id, size ? "not decoded" : "decoded");
				fail = 1;
			} else if (size) {
				check_fixed(&k, size, len);
				kd_text(out, &k);
				kd_json(out, &k);
			}
			free(data);
		}
	}
	fclose(out);
	return fail;
}
