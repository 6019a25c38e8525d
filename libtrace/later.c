// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions of options that are not implemented yet.  They fail with
 * ENOSYS (a documented additional error, spec 5.26) rather than pretend:
 *   Trace Log, writing (create_withlog, flush): issue 5; reading logs is
 *   log_open.c
 */
#include <errno.h>
#include "internal.h"

PT_EXPORT int posix_trace_create_withlog(pid_t pid, const trace_attr_t *restrict attr,
					 int file_desc, trace_id_t *restrict trid)
{
	(void)pid;
	(void)attr;
	(void)file_desc;
	(void)trid;
	return ENOSYS;
}

/* Pre-recorded trids (negative, log_open.c) are never flushable. */
PT_EXPORT int posix_trace_flush(trace_id_t trid)
{
	return trid < 0 ? EINVAL : ENOSYS;
}
