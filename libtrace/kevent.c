// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel events (<linux/posix_trace.h>): the attribute that asks for them,
 * posix_trace_attr_{get,set}kernelclasses_np(), with the conventions of
 * attr.c (0 or an error number, errno untouched, outputs written only on
 * success), and their ids and names for the rest of the library
 * (kevent.h).
 *
 * The attribute is off (0) by default; posix_trace_create() passes it to
 * the module (posix_trace_create.kernel_classes), which refuses a class
 * it cannot record.  A set of classes is checked here against the
 * classes this library knows, so a bit of a later class is EINVAL rather
 * than a surprise at create.
 */
#include <errno.h>
#include <linux/posix_trace.h>
#include <linux/posix_trace_kernel.h>

#include "internal.h"
#include "kevent.h"

/* <trace.h>'s names are the uapi's values. */
_Static_assert(POSIX_TRACE_KERNEL_SYSCALL_NP == POSIX_TRACE_KCLASS_SYSCALL &&
	       POSIX_TRACE_KERNEL_SIGNAL_NP == POSIX_TRACE_KCLASS_SIGNAL &&
	       POSIX_TRACE_KERNEL_SCHED_NP == POSIX_TRACE_KCLASS_SCHED &&
	       POSIX_TRACE_KERNEL_FAULT_NP == POSIX_TRACE_KCLASS_FAULT &&
	       POSIX_TRACE_KERNEL_PROCESS_NP == POSIX_TRACE_KCLASS_PROCESS &&
	       POSIX_TRACE_KERNEL_ALL_NP == POSIX_TRACE_KCLASS_ALL,
	       "<trace.h> and <linux/posix_trace.h> disagree on the classes");
_Static_assert(POSIX_TRACE_SYSCALL_ENTRY_NP == POSIX_TRACE_ID_SYSCALL_ENTRY &&
	       POSIX_TRACE_SYSCALL_EXIT_NP == POSIX_TRACE_ID_SYSCALL_EXIT &&
	       POSIX_TRACE_SIGNAL_GENERATE_NP == POSIX_TRACE_ID_SIGNAL_GENERATE &&
	       POSIX_TRACE_SIGNAL_DELIVER_NP == POSIX_TRACE_ID_SIGNAL_DELIVER &&
	       POSIX_TRACE_SCHED_OUT_NP == POSIX_TRACE_ID_SCHED_OUT &&
	       POSIX_TRACE_SCHED_IN_NP == POSIX_TRACE_ID_SCHED_IN &&
	       POSIX_TRACE_SCHED_WAKEUP_NP == POSIX_TRACE_ID_SCHED_WAKEUP &&
	       POSIX_TRACE_FAULT_MAJOR_NP == POSIX_TRACE_ID_FAULT_MAJOR &&
	       POSIX_TRACE_FAULT_MINOR_NP == POSIX_TRACE_ID_FAULT_MINOR &&
	       POSIX_TRACE_PROCESS_FORK_NP == POSIX_TRACE_ID_PROCESS_FORK &&
	       POSIX_TRACE_PROCESS_EXEC_NP == POSIX_TRACE_ID_PROCESS_EXEC &&
	       POSIX_TRACE_PROCESS_EXIT_NP == POSIX_TRACE_ID_PROCESS_EXIT &&
	       POSIX_TRACE_SYSCALL_NP == POSIX_TRACE_ID_SYSCALL,
	       "<trace.h> and <linux/posix_trace.h> disagree on the ids");
/* Kernel ids are system ids, after POSIX's and POSIX_TRACE_DETACHED. */
_Static_assert(POSIX_TRACE_ID_KERNEL_FIRST > POSIX_TRACE_ID_DETACHED &&
	       POSIX_TRACE_ID_KERNEL_LAST < POSIX_TRACE_ID_UNNAMED,
	       "kernel ids outside the system range");
/*
 * A kernel event, fixed part and string, is no larger than the largest
 * system event (two event sets of data): what
 * posix_trace_attr_getmaxsystemeventsize() says holds for them too.
 */
_Static_assert(sizeof(struct posix_trace_syscall_entry) + POSIX_TRACE_SYSCALL_PATH_MAX <=
	       2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_syscall_exit) + POSIX_TRACE_SYSCALL_PATH_MAX <=
	       2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_syscall) + POSIX_TRACE_SYSCALL_PATH_MAX <=
	       2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_process_exec) + POSIX_TRACE_SYSCALL_PATH_MAX <=
	       2 * sizeof(trace_event_set_t),
	       "a kernel event larger than PT_MAX_SYSTEM_EVENT_SIZE");
_Static_assert(sizeof(struct posix_trace_signal_generate) <= 2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_signal_deliver) <= 2 * sizeof(trace_event_set_t),
	       "a signal event larger than PT_MAX_SYSTEM_EVENT_SIZE");
_Static_assert(sizeof(struct posix_trace_sched_out) <= 2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_sched_in) <= 2 * sizeof(trace_event_set_t) &&
	       sizeof(struct posix_trace_sched_wakeup) <= 2 * sizeof(trace_event_set_t),
	       "a sched event larger than PT_MAX_SYSTEM_EVENT_SIZE");
_Static_assert(sizeof(struct posix_trace_fault) <= 2 * sizeof(trace_event_set_t),
	       "a fault event larger than PT_MAX_SYSTEM_EVENT_SIZE");

/* The uapi's tables; their index is id - POSIX_TRACE_ID_KERNEL_FIRST. */
#define PT_NR_KERNEL	(POSIX_TRACE_ID_KERNEL_LAST - POSIX_TRACE_ID_KERNEL_FIRST + 1)
static const char *const pt_kernel_names[PT_NR_KERNEL] = POSIX_TRACE_KERNEL_NAMES;
static const unsigned int pt_kernel_classes[PT_NR_KERNEL] = POSIX_TRACE_KERNEL_CLASSES;

const char *pt_kernel_name(trace_event_id_t id)
{
	if (id < POSIX_TRACE_ID_KERNEL_FIRST || id > POSIX_TRACE_ID_KERNEL_LAST)
		return NULL;
	return pt_kernel_names[id - POSIX_TRACE_ID_KERNEL_FIRST];
}

unsigned int pt_kernel_class(trace_event_id_t id)
{
	if (!pt_kernel_name(id))
		return 0;
	return pt_kernel_classes[id - POSIX_TRACE_ID_KERNEL_FIRST];
}

trace_event_id_t pt_kernel_next(unsigned int classes, trace_event_id_t after)
{
	trace_event_id_t id = after < POSIX_TRACE_ID_KERNEL_FIRST ?
			      POSIX_TRACE_ID_KERNEL_FIRST : after + 1;

	for (; id <= POSIX_TRACE_ID_KERNEL_LAST; id++) {
		if (pt_kernel_class(id) & classes)
			return id;
	}
	return 0;
}

PT_EXPORT int posix_trace_attr_getkernelclasses_np(const trace_attr_t *__restrict attr,
						   unsigned int *__restrict classes)
{
	if (pt_attr_check(attr) || !classes)
		return EINVAL;
	*classes = attr->__kernel_classes;
	return 0;
}

PT_EXPORT int posix_trace_attr_setkernelclasses_np(trace_attr_t *attr,
						   unsigned int classes)
{
	if (pt_attr_check(attr) || (classes & ~POSIX_TRACE_KERNEL_ALL_NP))
		return EINVAL;
	attr->__kernel_classes = classes;
	return 0;
}
