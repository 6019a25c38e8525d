/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Declarations shared by the files of libposixtrace.  Nothing here is
 * exported; the public interface is <trace.h>, the kernel one
 * <linux/posix_trace.h>.
 */
#ifndef PT_INTERNAL_H
#define PT_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>
#include <linux/posix_trace.h>

#define PT_EXPORT __attribute__((visibility("default")))

/* trace_attr_t */
#define PT_ATTR_MAGIC			0x50544154u	/* "PTAT" */
#define PT_ATTR_STREAM_POLICY_SET	0x1u		/* setstreamfullpolicy called */
#define PT_GENVERSION			"posix-trace-1.0"
#define PT_DEFAULT_STREAM_SIZE		(1024 * 1024)
#define PT_DEFAULT_MAX_DATA_SIZE	256
#define PT_DEFAULT_LOG_SIZE		(16 * 1024 * 1024)
#define PT_MAX_STREAM_SIZE		((size_t)1 << 30)

/* trace_event_set_t */
#define PT_EVSET_MAGIC			0x50544553u	/* "PTES" */

#define PT_RECORD_HDR_SIZE		sizeof(struct posix_trace_record)
#define PT_ROUND8(x)			(((x) + 7) & ~(size_t)7)
/* The FILTER event carries two sets and is the largest system event. */
#define PT_MAX_SYSTEM_EVENT_SIZE \
	PT_ROUND8(PT_RECORD_HDR_SIZE + 2 * sizeof(trace_event_set_t))

/* Copy out of / into a byte ring of @size bytes at offset @off < @size,
 * wrapping at the end (the lanes' record layout, design.md section 4). */
static inline void pt_ring_read(const uint8_t *ring, uint64_t size, uint64_t off,
				void *dst, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(dst, ring + off, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, ring, len - first);
}

static inline void pt_ring_write(uint8_t *ring, uint64_t size, uint64_t off,
				 const void *src, size_t len)
{
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(ring + off, src, first);
	if (first < len)
		memcpy(ring, (const uint8_t *)src + first, len - first);
}

/* A table of pointers whose free slots are NULL, full at *@len entries:
 * the table grown (new slots zeroed, *@len updated), or NULL with the old
 * one left as it was. */
static inline void *pt_table_grow(void *table, size_t *len, size_t elem)
{
	size_t n = *len * 2 + 8;
	char *grown = realloc(table, n * elem);

	if (!grown)
		return NULL;
	memset(grown + *len * elem, 0, (n - *len) * elem);
	*len = n;
	return grown;
}

/* attr.c: 0 if @attr is an initialized attributes object, else EINVAL. */
int pt_attr_check(const trace_attr_t *attr);

/* dev.c: the process's /dev/posix_trace descriptor (opened on first use,
 * O_CLOEXEC), or -errno (-ENOSYS when the module is absent). */
int pt_dev_fd(void);
/* dev.c: that descriptor if it is open, else -1 (opens nothing). */
int pt_dev_fd_opened(void);
/* dev.c: ioctl on pt_dev_fd() preserving errno; returns 0 or an errno. */
int pt_ioctl(unsigned long cmd, void *arg);
/* dev.c: POSIX_TRACE_IOC_QUERY, cached; 0 or an errno. */
int pt_query(struct posix_trace_query *q);

/*
 * fork.c: a child made without running the atfork handlers (the clone
 * system call called directly) resets the library's per-process state on
 * its first pass here.  Returns 0 only within that reset, when a signal
 * handler interrupted it: the caller must then use no per-process state.
 */
enum { PT_MARK_WIPED, PT_MARK_RESETTING, PT_MARK_SET };
extern atomic_int *pt_fork_mark;
int pt_fork_check_slow(void);

static inline int pt_fork_check(void)
{
	atomic_int *mark = pt_fork_mark;

	if (__builtin_expect(mark && atomic_load_explicit(mark, memory_order_acquire) !=
			     PT_MARK_SET, 0))
		return pt_fork_check_slow();
	return 1;
}

#endif /* PT_INTERNAL_H */
