/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Option values shared by the subcommands of posix-trace(1): sizes with
 * K/M/G suffixes, policy names, and comma-separated lists of event names.
 */
#ifndef PT_OPTS_H
#define PT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* "4096", "64K", "1M", "2G" (powers of 1024): 0 and *v, or -1. */
int opt_size(const char *s, size_t *v);

/* "1", "0.25": seconds, more than 0 and at most 60: 0 and *v, or -1. */
int opt_seconds(const char *s, struct timespec *v);

/*
 * Policy names as the options spell them: "loop", "until-full", "flush",
 * "append".  opt_policy() accepts only the names of @allowed (a
 * NULL-terminated list) and returns the POSIX_TRACE_* value, or 0.
 */
int opt_policy(const char *s, const char *const *allowed);
const char *opt_policy_name(int policy);

/*
 * Kernel event classes as --kernel spells them, comma-separated:
 * "syscall", "signal", "sched", "fault", "process", "all".  0 with their
 * POSIX_TRACE_KERNEL_*_NP bits in *@v, or -1 with the first name that is
 * none at *@bad, *@badlen bytes long.
 */
int opt_kclasses(const char *s, unsigned int *v, const char **bad, size_t *badlen);
/* @classes as --kernel spells them, "syscall,sched,fault", or "none" ("?"
 * with a bit of no class); the string is static, overwritten by the next
 * call. */
const char *opt_kclasses_name(unsigned int classes);

/* "a,b,c" split at every comma ("" is a name too, as for the API). */
struct namelist {
	char **v;
	size_t n;
	char *buf;		/* the names, each NUL-terminated */
	size_t used;		/* bytes of buf */
};
/* 0, or -1 (out of memory).  A later call adds to the list. */
int namelist_parse(struct namelist *l, const char *s);
bool namelist_has(const struct namelist *l, const char *name);
void namelist_free(struct namelist *l);

#endif
