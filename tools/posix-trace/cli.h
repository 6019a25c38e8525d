/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace(1): the subcommands and what they share.
 *
 * Exit codes (documented in posix-trace(1)):
 *   record       the traced command's own status (128 + N if signal N
 *                killed it); PT_EXIT_FAIL/PT_EXIT_USAGE if it never ran
 *   other        PT_EXIT_OK, PT_EXIT_FAIL (the work failed: unreadable
 *                log, module missing, write error...), PT_EXIT_USAGE
 */
#ifndef PT_CLI_H
#define PT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define PT_EXIT_OK	0
#define PT_EXIT_FAIL	1
#define PT_EXIT_USAGE	2

/* One subcommand: argv[0] is its name; returns the exit code. */
int cmd_record(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* "posix-trace: " + message (printf format) on stderr. */
void pt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Progress of a long job on stderr, only when stderr is a terminal:
 * progress_update() redraws at most a few times a second.
 */
struct progress {
	bool on;
	const char *what;
	unsigned long long done, total;	/* total 0: unknown */
	long long last_ns;
};
void progress_start(struct progress *p, const char *what, unsigned long long total);
void progress_update(struct progress *p, unsigned long long done);
void progress_end(struct progress *p);

#endif
