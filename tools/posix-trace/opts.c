// SPDX-License-Identifier: LGPL-2.1-or-later
/* Option values of posix-trace(1): see opts.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>
#include "opts.h"

int opt_size(const char *s, size_t *v)
{
	unsigned long long n, mul = 1;
	char *end;

	if (*s < '0' || *s > '9')	/* no sign, no blank */
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	}
	if (*end || n > SIZE_MAX / mul)
		return -1;
	*v = n * mul;
	return 0;
}

int opt_seconds(const char *s, struct timespec *v)
{
	unsigned long long ns = 0, scale = 1000000000ULL;
	const char *p = s;

	if (*p < '0' || *p > '9')	/* no sign, no blank */
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		ns = ns * 10 + (unsigned long long)(*p - '0') * scale;
		if (ns > 60 * 1000000000ULL)
			return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			scale /= 10;
			ns += (unsigned long long)(*p - '0') * scale;
		}
	}
	if (*p || !ns || ns > 60 * 1000000000ULL)
		return -1;
	v->tv_sec = (time_t)(ns / 1000000000ULL);
	v->tv_nsec = (long)(ns % 1000000000ULL);
	return 0;
}

static const struct {
	const char *name;
	int policy;
} policies[] = {
	{ "loop", POSIX_TRACE_LOOP },
	{ "until-full", POSIX_TRACE_UNTIL_FULL },
	{ "flush", POSIX_TRACE_FLUSH },
	{ "append", POSIX_TRACE_APPEND },
};

int opt_policy(const char *s, const char *const *allowed)
{
	unsigned int i;

	for (; *allowed; allowed++) {
		if (strcmp(s, *allowed))
			continue;
		for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
			if (!strcmp(s, policies[i].name))
				return policies[i].policy;
		}
	}
	return 0;
}

const char *opt_policy_name(int policy)
{
	unsigned int i;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (policies[i].policy == policy)
			return policies[i].name;
	}
	return "?";
}

static const struct {
	const char *name;
	unsigned int classes;
} kclasses[] = {
	{ "syscall", POSIX_TRACE_KERNEL_SYSCALL_NP },
	{ "signal", POSIX_TRACE_KERNEL_SIGNAL_NP },
	{ "sched", POSIX_TRACE_KERNEL_SCHED_NP },
	{ "fault", POSIX_TRACE_KERNEL_FAULT_NP },
	{ "process", POSIX_TRACE_KERNEL_PROCESS_NP },
	{ "all", POSIX_TRACE_KERNEL_ALL_NP },
};

int opt_kclasses(const char *s, unsigned int *v, const char **bad, size_t *badlen)
{
	unsigned int classes = 0, i;
	size_t len;

	for (;;) {
		len = strcspn(s, ",");
		for (i = 0; i < sizeof(kclasses) / sizeof(kclasses[0]); i++) {
			if (strlen(kclasses[i].name) == len &&
			    !strncmp(s, kclasses[i].name, len))
				break;
		}
		if (i == sizeof(kclasses) / sizeof(kclasses[0])) {
			*bad = s;
			*badlen = len;
			return -1;
		}
		classes |= kclasses[i].classes;
		if (!s[len])
			break;
		s += len + 1;
	}
	*v = classes;
	return 0;
}

const char *opt_kclasses_name(unsigned int classes)
{
	/* Every class named once, in the table's order: the buffer holds
	 * them all ("all" too: one more than the commas between the others). */
	static char buf[sizeof("syscall,signal,sched,fault,process,all")];
	unsigned int i;

	if (!classes)
		return "none";
	if (classes & ~POSIX_TRACE_KERNEL_ALL_NP)
		return "?";
	buf[0] = '\0';
	for (i = 0; i < sizeof(kclasses) / sizeof(kclasses[0]); i++) {
		if (kclasses[i].classes == POSIX_TRACE_KERNEL_ALL_NP ||
		    !(classes & kclasses[i].classes))
			continue;
		if (buf[0])
			strcat(buf, ",");
		strcat(buf, kclasses[i].name);
	}
	return buf;
}

int namelist_parse(struct namelist *l, const char *s)
{
	size_t old = l->used, len = strlen(s), n, i;
	char *buf, **v, *p;

	/* One buffer, old names then new: the old ones are re-pointed. */
	buf = realloc(l->buf, old + len + 1);
	if (!buf)
		return -1;
	l->buf = buf;
	memcpy(buf + old, s, len + 1);
	l->used = old + len + 1;
	for (n = 1, p = buf + old; (p = strchr(p, ',')); p++)
		n++;
	v = realloc(l->v, (l->n + n) * sizeof(*v));
	if (!v)
		return -1;
	l->v = v;
	for (i = 0, p = buf; i < l->n; i++, p += strlen(p) + 1)
		v[i] = p;
	for (p = buf + old; ; ) {
		v[l->n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return 0;
}

bool namelist_has(const struct namelist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i], name))
			return true;
	}
	return false;
}

void namelist_free(struct namelist *l)
{
	free(l->v);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}
