/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel events (<linux/posix_trace.h>, POSIX_TRACE_KCLASS_*): system
 * events the module records for the classes a stream asked for at
 * creation (posix_trace_attr_setkernelclasses_np(3)).  Their ids and
 * names are the same for every stream, like the POSIX system events';
 * which of them a stream or log has follows from its classes.  Nothing
 * here is exported.
 */
#ifndef PT_KEVENT_H
#define PT_KEVENT_H

#include <trace.h>

/* The name of kernel event type @id, NULL if @id is not one. */
const char *pt_kernel_name(trace_event_id_t id);

/* The class (POSIX_TRACE_KCLASS_*) of kernel event type @id, 0 if @id is
 * not one. */
unsigned int pt_kernel_class(trace_event_id_t id);

/*
 * The smallest kernel event id above @after of one of @classes
 * (POSIX_TRACE_KCLASS_* bits), 0 if there is none: from @after 0, the
 * ids of the classes in increasing order.
 */
trace_event_id_t pt_kernel_next(unsigned int classes, trace_event_id_t after);

#endif /* PT_KEVENT_H */
