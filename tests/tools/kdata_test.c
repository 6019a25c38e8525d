// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test of tools/posix-trace/kdata.c (run by tests/tools/cli.sh, with
 * ASan and UBSan where they build): the data of every kernel event type,
 * of every length from none to past its fixed part, in a buffer of
 * exactly that length (a log's data sits in a larger block, where a
 * sanitizer sees no overrun), all bytes 0xff so that every flag is set
 * and every string claims more than the data holds.  Decoding and both
 * outputs must stay inside the data; the fixed part must be the bytes
 * the data has, zeros after.  Every type the header names is decoded, as
 * text and as a JSON object.  Prints what is wrong, exits 1.
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
	case POSIX_TRACE_SCHED_OUT_NP:
		return sizeof(struct posix_trace_sched_out);
	case POSIX_TRACE_SCHED_IN_NP:
		return sizeof(struct posix_trace_sched_in);
	case POSIX_TRACE_SCHED_WAKEUP_NP:
		return sizeof(struct posix_trace_sched_wakeup);
	case POSIX_TRACE_PROCESS_FORK_NP:
		return sizeof(struct posix_trace_process_fork);
	case POSIX_TRACE_PROCESS_EXEC_NP:
		return sizeof(struct posix_trace_process_exec);
	case POSIX_TRACE_PROCESS_EXIT_NP:
		return sizeof(struct posix_trace_process_exit);
	}
	return 0;
}

/* Both outputs of @k: some text, and a JSON object with its "event". */
static void check_outputs(const struct kd_event *k, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f) {
		perror("open_memstream");
		exit(1);
	}
	kd_text(f, k);
	fflush(f);
	if (!n) {
		printf("id %u, %zu bytes: no text\n", k->id, len);
		fail = 1;
	}
	fputc('|', f);
	kd_json(f, k);
	fclose(f);
	if (!strstr(buf, "|{\"event\":\"") || buf[strlen(buf) - 1] != '}') {
		printf("id %u, %zu bytes: JSON %s\n", k->id, len, strchr(buf, '|') + 1);
		fail = 1;
	}
	free(buf);
}

int main(void)
{
	static const char *const names[] = POSIX_TRACE_KERNEL_NAMES;
	FILE *out = fopen("/dev/null", "w");
	struct kd_event k;
	trace_event_id_t id;
	unsigned char *data;
	size_t len, size;

	if (!out)
		return perror("/dev/null"), 1;
	for (id = POSIX_TRACE_ID_KERNEL_FIRST - 1; id <= POSIX_TRACE_ID_KERNEL_LAST + 1; id++) {
		size = fixed_size(id);
		if (id >= POSIX_TRACE_ID_KERNEL_FIRST &&
		    id - POSIX_TRACE_ID_KERNEL_FIRST < sizeof(names) / sizeof(names[0]) &&
		    !names[id - POSIX_TRACE_ID_KERNEL_FIRST] != !size) {
			printf("id %u: %s by the header, %s here\n", id,
			       size ? "not named" : "named", size ? "decoded" : "not decoded");
			fail = 1;
		}
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
				check_outputs(&k, len);
			}
			free(data);
		}
	}
	fclose(out);
	return fail;
}
