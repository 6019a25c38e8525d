/* SPDX-License-Identifier: GPL-2.0 */
/*
 * st_module.h - the selftests' helpers around the kernel module itself:
 * its device, its parameters, its build for the running kernel and the
 * object counts it reports.  Defined in st_module.c.
 */
#ifndef ST_MODULE_H
#define ST_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/posix_trace.h>

#define ST_DEVICE		"/dev/posix_trace"

/* The device exists (ST_REQUIRE_MODULE() skips a test when not). */
bool st_module_loaded(void);

/* sysconf(_SC_TRACE_SYS_MAX): the streams the system allows at once. */
long st_trace_sys_max(void);

/* Module parameters (/sys/module/posix_trace/parameters/@name): 0 or -1. */
int st_param_read(const char *name, unsigned long *v);

/* Root only: the writable parameters are mode 0644. */
int st_param_write(const char *name, unsigned long v);

/*
 * The module built for the running kernel: $PT_MODULE, the copy vm-run
 * loaded (its module may be another build: scripts/check-debug), or the
 * tree's own.
 */
bool st_find_module(const char *release, char *path, size_t size);

/* POSIX_TRACE_IOC_STATS: 0 or an errno. */
int st_stats(struct posix_trace_stats *st);

/*
 * Wait up to @ms for the counts to come back to @base once everything was
 * released (RCU and work items free asynchronously); true if they did.
 * @now holds the last reading, *@waited the ms it took.
 */
bool st_stats_settle(const struct posix_trace_stats *base,
		     struct posix_trace_stats *now, unsigned int ms,
		     unsigned int *waited);

/* A reading of counts that stay put for 100 ms (what earlier tests
 * released has finished freeing), within 5 s; false if they do not.
 */
bool st_stats_quiet(struct posix_trace_stats *st);

#endif /* ST_MODULE_H */
