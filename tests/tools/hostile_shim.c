// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Helper of tests/tools/hostile.sh, linked into a build of posix-trace:
 * stands in for the library's getter with a max-data-size no log may
 * have, so that the tool's own bounds are tested whatever the library
 * lets through (posix-trace used to allocate max_data + 1 bytes: 0).
 */
#include <stdint.h>
#include <trace.h>

int posix_trace_attr_getmaxdatasize(const trace_attr_t *restrict attr,
				    size_t *restrict maxdatasize)
{
	(void)attr;
	*maxdatasize = SIZE_MAX;
	return 0;
}
