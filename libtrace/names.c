// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event type ids of a stream: names, equality, the type list, and ids
 * defined by the controller (spec 3.4).  System ids and names are the
 * same for every stream and live here, the kernel events' in kevent.c;
 * user ids live in the module.
 */
#include <errno.h>
#include <string.h>
#include "dev.h"
#include "handle.h"
#include "kevent.h"
#include "log_read.h"

/* The module writes the same names into logs (uapi header);
 * POSIX_TRACE_DETACHED is implementation-defined (design.md section 9).
 * Indexed by id: ids 1 .. PT_NR_SYSTEM, each named. */
static const char *const pt_system_names[] = POSIX_TRACE_SYSTEM_NAMES;

#define PT_NR_SYSTEM	(sizeof(pt_system_names) / sizeof(pt_system_names[0]) - 1)

_Static_assert(PT_NR_SYSTEM == POSIX_TRACE_ID_DETACHED &&
	       PT_NR_SYSTEM < POSIX_TRACE_ID_KERNEL_FIRST,
	       "the system names are ids 1 .. POSIX_TRACE_ID_DETACHED");

/* The name of a system event type, kernel events' included; NULL for a
 * user id or an id no type has. */
static const char *pt_system_name(trace_event_id_t event)
{
	if (event >= 1 && event <= PT_NR_SYSTEM)
		return pt_system_names[event];
	return pt_kernel_name(event);
}

/* Ids are plain integers: equal ids are the same type (EVEQ-4: never
 * fails, whatever the trid). */
PT_EXPORT int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
					trace_event_id_t event2)
{
	(void)trid;
	return event1 == event2;
}

PT_EXPORT int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event,
					   char *event_name)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_eventid e = {
		.size = sizeof(e),
		.trid = (uint32_t)trid,
		.event_id = event,
		.name_len = sizeof(name),
		.name_ptr = (uint64_t)(uintptr_t)name,
	};
	const char *sys = pt_system_name(event);
	struct pt_handle *h;
	int ret = 0;

	if (!event_name)
		return EINVAL;
	if (trid < 0)
		return pt_log_get_name(trid, event, event_name);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	/* A kernel event's name whatever the stream's classes, as
	 * POSIX_TRACE_DETACHED's whether or not it happened. */
	if (sys)
		strcpy(name, sys);
	else
		ret = pt_ioctl(POSIX_TRACE_IOC_EVENTID_NAME, &e);
	pt_handle_put(h);
	if (!ret)
		strcpy(event_name, name);
	return ret;
}

PT_EXPORT int posix_trace_trid_eventid_open(trace_id_t trid,
					    const char *restrict event_name,
					    trace_event_id_t *restrict event)
{
	struct posix_trace_eventid e = { .size = sizeof(e), .trid = (uint32_t)trid };
	struct pt_handle *h;
	size_t len;
	int ret;

	if (!event_name || !event)
		return EINVAL;
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	len = strnlen(event_name, TRACE_EVENT_NAME_MAX + 1);
	if (len > TRACE_EVENT_NAME_MAX) {
		pt_handle_put(h);
		return ENAMETOOLONG;
	}
	e.name_len = (uint32_t)len;
	e.name_ptr = (uint64_t)(uintptr_t)event_name;
	ret = pt_ioctl(POSIX_TRACE_IOC_EVENTID_OPEN, &e);
	pt_handle_put(h);
	if (!ret)
		*event = e.event_id;
	return ret;
}

/* Entry @n of the kernel event ids of @classes in increasing order (0:
 * none); their number in *@count. */
static trace_event_id_t pt_kernel_nth(unsigned int classes, unsigned int n,
				      unsigned int *count)
{
	trace_event_id_t id = 0, nth = 0;

	*count = 0;
	while ((id = pt_kernel_next(classes, id))) {
		if (*count == n)
			nth = id;
		++*count;
	}
	return nth;
}

/* The list: the system events of POSIX and POSIX_TRACE_DETACHED, the
 * kernel events of the stream's classes (the same for its whole life),
 * then the stream's user ids in the order they were defined (the unnamed
 * one first): increasing ids, as a log's list. */
PT_EXPORT int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
						   trace_event_id_t *restrict event,
						   int *restrict unavailable)
{
	struct posix_trace_eventtypes t = { .size = sizeof(t), .trid = (uint32_t)trid };
	struct pt_handle *h;
	trace_event_id_t k;
	unsigned int i, nk = 0;
	int ret = 0;

	if (!event || !unavailable)
		return EINVAL;
	if (trid < 0)
		return pt_log_typelist_next(trid, event, unavailable);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	pt_lock(&h->lock);
	i = h->typelist_next;
	k = i < PT_NR_SYSTEM ? 0 : pt_kernel_nth(h->attr.__kernel_classes,
						 i - PT_NR_SYSTEM, &nk);
	if (i < PT_NR_SYSTEM || k) {
		*event = i < PT_NR_SYSTEM ? i + 1 : k;
		*unavailable = 0;
		h->typelist_next++;
	} else if (!(ret = pt_ioctl(POSIX_TRACE_IOC_EVENTTYPES, &t))) {
		i -= PT_NR_SYSTEM + nk;
		*unavailable = i >= t.nr_user;
		if (!*unavailable) {
			*event = POSIX_TRACE_ID_UNNAMED + i;
			h->typelist_next++;
		}
	}
	pt_unlock(&h->lock);
	pt_handle_put(h);
	return ret;
}

PT_EXPORT int posix_trace_eventtypelist_rewind(trace_id_t trid)
{
	struct pt_handle *h;

	if (trid < 0)
		return pt_log_typelist_rewind(trid);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	pt_lock(&h->lock);
	h->typelist_next = 0;
	pt_unlock(&h->lock);
	pt_handle_put(h);
	return 0;
}
