// SPDX-License-Identifier: GPL-2.0
/*
 * st_module.c - the module's device, parameters, build and object counts
 * for the selftests (declared in st_module.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <trace.h>

#include "st_module.h"
#include "st_system.h"

bool st_module_loaded(void)
{
	return access(ST_DEVICE, F_OK) == 0;
}

int st_param_read(const char *name, unsigned long *v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/posix_trace/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ret = fscanf(f, "%lu", v) == 1 ? 0 : -1;
	fclose(f);
	return ret;
}

int st_param_write(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/posix_trace/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%lu\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

bool st_find_module(const char *release, char *path, size_t size)
{
	const char *cand[] = { getenv("PT_MODULE"), "/run/vmrun/module.ko",
			       "kmod/posix_trace.ko" };
	char vermagic[128];
	size_t i;

	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		char cmd[PATH_MAX + 64];
		FILE *p;

		if (!cand[i] || access(cand[i], R_OK))
			continue;
		snprintf(cmd, sizeof(cmd), "modinfo -F vermagic '%s' 2>/dev/null",
			 cand[i]);
		p = popen(cmd, "re");
		if (!p)
			continue;
		vermagic[0] = '\0';
		if (!fgets(vermagic, sizeof(vermagic), p))
			vermagic[0] = '\0';
		pclose(p);
		if (strncmp(vermagic, release, strlen(release)) == 0 &&
		    vermagic[strlen(release)] == ' ') {
			snprintf(path, size, "%s", cand[i]);
			return true;
		}
	}
	return false;
}

int st_stats(struct posix_trace_stats *st)
{
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(fd, POSIX_TRACE_IOC_STATS, st))
		ret = errno;
	close(fd);
	return ret;
}

/* The module's object counts are the same (fork kits are not objects). */
static bool st_stats_same(const struct posix_trace_stats *a,
			  const struct posix_trace_stats *b)
{
	return a->streams == b->streams && a->active_streams == b->active_streams &&
	       a->procs == b->procs && a->attaches == b->attaches &&
	       a->writers == b->writers && a->mappings == b->mappings &&
	       a->maps == b->maps && a->users == b->users;
}

bool st_stats_settle(const struct posix_trace_stats *base,
		     struct posix_trace_stats *now, unsigned int ms,
		     unsigned int *waited)
{
	for (*waited = 0; *waited < ms; *waited += 50) {
		if (st_stats(now))
			return false;
		if (st_stats_same(base, now))
			return true;
		st_sleep_ms(50);
	}
	return false;
}

bool st_stats_quiet(struct posix_trace_stats *st)
{
	struct posix_trace_stats next;
	unsigned int waited;

	if (st_stats(st))
		return false;
	for (waited = 0; waited < 5000; waited += 100) {
		st_sleep_ms(100);
		if (st_stats(&next))
			return false;
		if (st_stats_same(st, &next))
			return true;
		*st = next;
	}
	return false;
}

long st_trace_sys_max(void)
{
	return sysconf(_SC_TRACE_SYS_MAX);
}
