/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Declarations shared by the files of libposixtrace, at the bottom of its
 * layers: constants and helpers that call nothing of the library.  Nothing
 * here is exported; the public interface is <trace.h>, the kernel one
 * <linux/posix_trace.h>.  The device is dev.h, the ring copy ring.h, the
 * process's identity and fork handling fork.h.
 */
#ifndef PT_INTERNAL_H
#define PT_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>
#include <linux/posix_trace.h>

#define PT_EXPORT __attribute__((visibility("default")))

/* trace_attr_t */
#define PT_ATTR_MAGIC			0x50544154u	/* "PTAT" */
#define PT_ATTR_STREAM_POLICY_SET	0x1u		/* setstreamfullpolicy called */
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

#endif /* PT_INTERNAL_H */
