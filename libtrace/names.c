// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event type ids of a stream: names, equality, the type list, and ids
 * defined by the controller (spec 3.4).  System ids and names are the
 * same for every stream and live here; user ids live in the module.
 */
#include <errno.h>
#include <string.h>
#include "dev.h"
#include "handle.h"
#include "log_read.h"

/* The module writes the same names into logs (uapi header);
 * POSIX_TRACE_DETACHED is implementation-defined (design.md section 9). */
static const char *const pt_system_names[] = POSIX_TRACE_SYSTEM_NAMES;

#define PT_NR_SYSTEM	(sizeof(pt_system_names) / sizeof(pt_system_names[0]) - 1)

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
	struct pt_handle *h;
	int ret = 0;

	if (!event_name)
		return EINVAL;
	if (trid < 0)
		return pt_log_get_name(trid, event, event_name);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	if (event >= 1 && event <= PT_NR_SYSTEM)
		strcpy(name, pt_system_names[event]);
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

/* The list: the POSIX system events, then the stream's user ids in the
 * order they were defined (the unnamed one first). */
PT_EXPORT int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
						   trace_event_id_t *restrict event,
						   int *restrict unavailable)
{
	struct posix_trace_eventtypes t = { .size = sizeof(t), .trid = (uint32_t)trid };
	struct pt_handle *h;
	unsigned int i;
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
	if (i < PT_NR_SYSTEM) {
		*event = i + 1;
		*unavailable = 0;
		h->typelist_next++;
	} else if (!(ret = pt_ioctl(POSIX_TRACE_IOC_EVENTTYPES, &t))) {
		*unavailable = i - PT_NR_SYSTEM >= t.nr_user;
		if (!*unavailable) {
			*event = POSIX_TRACE_ID_UNNAMED + (i - PT_NR_SYSTEM);
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
