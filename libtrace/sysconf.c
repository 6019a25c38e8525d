// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysconf() for the eight _SC_TRACE* names (spec 1.8, 1.9, 5.1-5.3).
 *
 * glibc answers -1 for all of them, so the library exports its own
 * sysconf(), which programs linked with -lposixtrace bind to before libc's,
 * and passes every other name on to glibc's __sysconf().
 * __posix_trace_sysconf() gives the same answers without relying on that
 * interposition.
 *
 * An option or limit that is not available yields -1 with errno unchanged,
 * as sysconf() requires for unsupported options and indeterminate limits.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "dev.h"

/* glibc's real sysconf(); sysconf itself is only a weak alias of it. */
extern long __sysconf(int name);

#define PT_OPTION_VERSION	200809L

/* 0 and *q filled if the module is loaded, else an error number (5.26). */
static int pt_sysconf_query(struct posix_trace_query *q)
{
	int saved = errno;
	int err;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	err = pt_query(q);
	errno = saved;
	return err;
}

static long pt_sysconf_trace(void)
{
	struct posix_trace_query q;

	return pt_sysconf_query(&q) ? -1 : PT_OPTION_VERSION;
}

/* A sub-option is there when the loaded module says it implements it. */
static long pt_sysconf_feature(uint64_t feature)
{
	struct posix_trace_query q;

	if (pt_sysconf_query(&q) || !(q.features & feature))
		return -1;
	return PT_OPTION_VERSION;
}

/* TRACE_SYS_MAX is the module parameter max_streams (5.2). */
static long pt_sysconf_sys_max(void)
{
	struct posix_trace_query q;

	return pt_sysconf_query(&q) ? -1 : (long)q.sys_max;
}

/* 1 and *val set if @name is one of the _SC_TRACE* names, else 0. */
static int pt_sysconf(int name, long *val)
{
	switch (name) {
	case _SC_TRACE:
		*val = pt_sysconf_trace();
		return 1;
	case _SC_TRACE_EVENT_FILTER:
		*val = pt_sysconf_feature(POSIX_TRACE_FEAT_FILTER);
		return 1;
	case _SC_TRACE_INHERIT:
		*val = pt_sysconf_feature(POSIX_TRACE_FEAT_INHERIT);
		return 1;
	case _SC_TRACE_LOG:
		*val = pt_sysconf_feature(POSIX_TRACE_FEAT_LOG);
		return 1;
	/* 5.3: the actual limits, not the _POSIX_TRACE_*_MAX minima. */
	case _SC_TRACE_EVENT_NAME_MAX:
		*val = TRACE_EVENT_NAME_MAX;
		return 1;
	case _SC_TRACE_NAME_MAX:
		*val = TRACE_NAME_MAX;
		return 1;
	case _SC_TRACE_USER_EVENT_MAX:
		*val = TRACE_USER_EVENT_MAX;
		return 1;
	case _SC_TRACE_SYS_MAX:
		*val = pt_sysconf_sys_max();
		return 1;
	}
	return 0;
}

/* Shared by both entry points; static so neither goes through the PLT. */
static long pt_sysconf_any(int name)
{
	long val;

	if (pt_sysconf(name, &val))
		return val;
	return __sysconf(name);
}

PT_EXPORT long __posix_trace_sysconf(int name)
{
	return pt_sysconf_any(name);
}

PT_EXPORT long sysconf(int name)
{
	return pt_sysconf_any(name);
}
