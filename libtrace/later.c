// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions of options that are not implemented yet.  They fail with
 * ENOSYS (a documented additional error, spec 5.26) rather than pretend:
 *   Trace Event Filter (get/set_filter): issue 3
 *   Trace Log (create_withlog, flush, open, rewind, close): issue 5
 */
#include <errno.h>
#include "internal.h"

PT_EXPORT int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set)
{
	(void)trid;
	(void)set;
	return ENOSYS;
}

PT_EXPORT int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
				     int how)
{
	(void)trid;
	(void)set;
	(void)how;
	return ENOSYS;
}

PT_EXPORT int posix_trace_create_withlog(pid_t pid, const trace_attr_t *restrict attr,
					 int file_desc, trace_id_t *restrict trid)
{
	(void)pid;
	(void)attr;
	(void)file_desc;
	(void)trid;
	return ENOSYS;
}

PT_EXPORT int posix_trace_flush(trace_id_t trid)
{
	(void)trid;
	return ENOSYS;
}

PT_EXPORT int posix_trace_open(int file_desc, trace_id_t *trid)
{
	(void)file_desc;
	(void)trid;
	return ENOSYS;
}

PT_EXPORT int posix_trace_rewind(trace_id_t trid)
{
	(void)trid;
	return ENOSYS;
}

PT_EXPORT int posix_trace_close(trace_id_t trid)
{
	(void)trid;
	return ENOSYS;
}
