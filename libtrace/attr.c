// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Trace stream attributes objects (spec 3.1).
 *
 * trace_attr_t is a fixed-size struct (spec 5.5), so nothing here allocates
 * and init never needs ENOMEM.  Every function returns 0 or an error number
 * and leaves errno alone (FN-1); outputs are written only on success (FN-2).
 * NULL pointers and objects without the magic (never initialized, or
 * destroyed) are rejected with EINVAL, the "may fail" error of every page.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* getgenversion copies into a TRACE_NAME_MAX buffer (GETGENVERSION-2, 5.4). */
_Static_assert(sizeof(POSIX_TRACE_GENVERSION) <= sizeof(((trace_attr_t *)0)->__genversion),
	       "POSIX_TRACE_GENVERSION does not fit trace_attr_t");
_Static_assert(sizeof(POSIX_TRACE_GENVERSION) <= TRACE_NAME_MAX,
	       "POSIX_TRACE_GENVERSION longer than TRACE_NAME_MAX - 1");

int pt_attr_check(const trace_attr_t *attr)
{
	if (!attr || attr->__magic != PT_ATTR_MAGIC)
		return EINVAL;
	return 0;
}

/*
 * Copy the NUL-terminated string of the @srcsz-byte field @src to @dst,
 * writing at most TRACE_NAME_MAX bytes: callers only promise a buffer of
 * {TRACE_NAME_MAX} characters (5.4).  The field need not be terminated
 * (posix_trace_get_attr() fills it from elsewhere), so it is bounded too.
 */
static void pt_name_out(char *dst, const char *src, size_t srcsz)
{
	size_t max = srcsz < TRACE_NAME_MAX ? srcsz : TRACE_NAME_MAX;
	size_t len = strnlen(src, max - 1);

	memmove(dst, src, len);
	dst[len] = '\0';
}

/* The timestamps are CLOCK_MONOTONIC based (5.18). */
static struct timespec pt_clock_res(void)
{
	struct timespec res = { 0, 0 };
	int saved = errno;

	if (clock_getres(CLOCK_MONOTONIC, &res) ||
	    (res.tv_sec == 0 && res.tv_nsec == 0)) {
		/* Report the finest resolution rather than none at all. */
		res.tv_sec = 0;
		res.tv_nsec = 1;
	}
	errno = saved;
	return res;
}

PT_EXPORT int posix_trace_attr_init(trace_attr_t *attr)
{
	if (!attr)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->__magic = PT_ATTR_MAGIC;
	attr->__inheritance = POSIX_TRACE_CLOSE_FOR_CHILD;
	/*
	 * The stream policy stays "unset" (flag clear): create uses LOOP,
	 * create_withlog FLUSH, and get reports LOOP meanwhile (5.6).
	 */
	attr->__stream_policy = POSIX_TRACE_LOOP;
	attr->__log_policy = POSIX_TRACE_LOOP;
	attr->__stream_size = PT_DEFAULT_STREAM_SIZE;
	attr->__max_data_size = PT_DEFAULT_MAX_DATA_SIZE;
	attr->__log_size = PT_DEFAULT_LOG_SIZE;
	attr->__clock_res = pt_clock_res();
	memcpy(attr->__genversion, POSIX_TRACE_GENVERSION, sizeof(POSIX_TRACE_GENVERSION));
	/* __name and __create_time stay zero: "" and {0,0} (SETNAME-3). */
	return 0;
}

PT_EXPORT int posix_trace_attr_destroy(trace_attr_t *attr)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/* Makes any later use except init fail with EINVAL (ATTRDES-2). */
	attr->__magic = 0;
	return 0;
}

PT_EXPORT int posix_trace_attr_getclockres(const trace_attr_t *attr,
					   struct timespec *resolution)
{
	if (pt_attr_check(attr) || !resolution)
		return EINVAL;
	*resolution = attr->__clock_res;
	return 0;
}

PT_EXPORT int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
					     struct timespec *createtime)
{
	if (pt_attr_check(attr) || !createtime)
		return EINVAL;
	*createtime = attr->__create_time;
	return 0;
}

PT_EXPORT int posix_trace_attr_getgenversion(const trace_attr_t *attr,
					     char *genversion)
{
	if (pt_attr_check(attr) || !genversion)
		return EINVAL;
	pt_name_out(genversion, attr->__genversion, sizeof(attr->__genversion));
	return 0;
}

PT_EXPORT int posix_trace_attr_getname(const trace_attr_t *attr,
				       char *tracename)
{
	if (pt_attr_check(attr) || !tracename)
		return EINVAL;
	pt_name_out(tracename, attr->__name, sizeof(attr->__name));
	return 0;
}

PT_EXPORT int posix_trace_attr_setname(trace_attr_t *attr,
				       const char *tracename)
{
	size_t len;

	if (pt_attr_check(attr) || !tracename)
		return EINVAL;
	/* Longer names are truncated, never refused (SETNAME-2, 5.4). */
	len = strnlen(tracename, sizeof(attr->__name) - 1);
	/* memmove: the caller may pass a pointer into this very object. */
	memmove(attr->__name, tracename, len);
	/* Zero the tail too, so equal names give equal objects. */
	memset(attr->__name + len, 0, sizeof(attr->__name) - len);
	return 0;
}

PT_EXPORT int posix_trace_attr_getinherited(const trace_attr_t *__restrict attr,
					    int *__restrict inheritancepolicy)
{
	if (pt_attr_check(attr) || !inheritancepolicy)
		return EINVAL;
	*inheritancepolicy = attr->__inheritance;
	return 0;
}

PT_EXPORT int posix_trace_attr_setinherited(trace_attr_t *attr,
					    int inheritancepolicy)
{
	if (pt_attr_check(attr))
		return EINVAL;
	if (inheritancepolicy != POSIX_TRACE_CLOSE_FOR_CHILD &&
	    inheritancepolicy != POSIX_TRACE_INHERITED)
		return EINVAL;
	attr->__inheritance = inheritancepolicy;
	return 0;
}

PT_EXPORT int posix_trace_attr_getlogfullpolicy(const trace_attr_t *__restrict attr,
						int *__restrict logpolicy)
{
	if (pt_attr_check(attr) || !logpolicy)
		return EINVAL;
	*logpolicy = attr->__log_policy;
	return 0;
}

PT_EXPORT int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr,
						int logpolicy)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/* FLUSH is a stream policy only; its value differs from APPEND. */
	if (logpolicy != POSIX_TRACE_LOOP &&
	    logpolicy != POSIX_TRACE_UNTIL_FULL &&
	    logpolicy != POSIX_TRACE_APPEND)
		return EINVAL;
	attr->__log_policy = logpolicy;
	return 0;
}

PT_EXPORT int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *__restrict attr,
						   int *__restrict streampolicy)
{
	if (pt_attr_check(attr) || !streampolicy)
		return EINVAL;
	/* Unset: report the default of a stream without log (5.6). */
	if (!(attr->__flags & PT_ATTR_STREAM_POLICY_SET))
		*streampolicy = POSIX_TRACE_LOOP;
	else
		*streampolicy = attr->__stream_policy;
	return 0;
}

PT_EXPORT int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr,
						   int streampolicy)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/*
	 * FLUSH is accepted here although only a stream with log can use
	 * it: posix_trace_create() rejects it (5.6).  APPEND is a log policy.
	 */
	if (streampolicy != POSIX_TRACE_LOOP &&
	    streampolicy != POSIX_TRACE_UNTIL_FULL &&
	    streampolicy != POSIX_TRACE_FLUSH)
		return EINVAL;
	attr->__stream_policy = streampolicy;
	attr->__flags |= PT_ATTR_STREAM_POLICY_SET;
	return 0;
}

PT_EXPORT int posix_trace_attr_getlogsize(const trace_attr_t *__restrict attr,
					  size_t *__restrict logsize)
{
	if (pt_attr_check(attr) || !logsize)
		return EINVAL;
	*logsize = attr->__log_size;
	return 0;
}

PT_EXPORT int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/* A LOOP/UNTIL_FULL log must hold a maximal event plus its STOP (5.23). */
	if (logsize < 2 * PT_MAX_SYSTEM_EVENT_SIZE)
		return EINVAL;
	attr->__log_size = logsize;
	return 0;
}

PT_EXPORT int posix_trace_attr_getmaxdatasize(const trace_attr_t *__restrict attr,
					      size_t *__restrict maxdatasize)
{
	if (pt_attr_check(attr) || !maxdatasize)
		return EINVAL;
	*maxdatasize = attr->__max_data_size;
	return 0;
}

PT_EXPORT int posix_trace_attr_setmaxdatasize(trace_attr_t *attr,
					      size_t maxdatasize)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/*
	 * Stored as requested, 0 included (events without data): the module
	 * clamps it to POSIX_TRACE_MAX_DATA_MAX at create and get_attr shows
	 * the effective value (MAXDATA-4).
	 */
	attr->__max_data_size = maxdatasize;
	return 0;
}

PT_EXPORT int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *__restrict attr,
						     size_t *__restrict eventsize)
{
	if (pt_attr_check(attr) || !eventsize)
		return EINVAL;
	/* The FILTER event, two event sets of data, is the largest (5.23). */
	*eventsize = PT_MAX_SYSTEM_EVENT_SIZE;
	return 0;
}

static size_t pt_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

PT_EXPORT int posix_trace_attr_getmaxusereventsize(const trace_attr_t *__restrict attr,
						   size_t data_len,
						   size_t *__restrict eventsize)
{
	size_t max_data;

	if (pt_attr_check(attr) || !eventsize)
		return EINVAL;
	/*
	 * Data beyond max-data-size is truncated when recorded and costs
	 * nothing (MAXUSREV-1); the module's clamp applies as well.  Taking
	 * the minimum first also keeps a huge data_len from overflowing.
	 */
	max_data = pt_min(attr->__max_data_size, POSIX_TRACE_MAX_DATA_MAX);
	*eventsize = PT_ROUND8(PT_RECORD_HDR_SIZE + pt_min(data_len, max_data));
	return 0;
}

PT_EXPORT int posix_trace_attr_getstreamsize(const trace_attr_t *__restrict attr,
					     size_t *__restrict streamsize)
{
	if (pt_attr_check(attr) || !streamsize)
		return EINVAL;
	*streamsize = attr->__stream_size;
	return 0;
}

PT_EXPORT int posix_trace_attr_setstreamsize(trace_attr_t *attr,
					     size_t streamsize)
{
	if (pt_attr_check(attr))
		return EINVAL;
	/* A stream must hold at least one maximal system event (STRSIZE). */
	if (streamsize < PT_MAX_SYSTEM_EVENT_SIZE ||
	    streamsize > PT_MAX_STREAM_SIZE)
		return EINVAL;
	attr->__stream_size = streamsize;
	return 0;
}
