/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What posix-trace record and attach share: their stream options, the
 * log file, and creating a stream with log for one process with clear
 * messages for every way it can fail.
 */
#ifndef PT_RECORDER_H
#define PT_RECORDER_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <trace.h>
#include "opts.h"

#define REC_DEFAULT_LOG	"posix-trace.log"
#define REC_DEVICE	"/dev/posix_trace"
#define REC_DEFAULT_FULL_WAIT	1	/* s: --no-loss, the default */

struct rec_opts {
	const char *log;
	bool inherit;
	int stream_policy, log_policy;	/* 0: the default */
	size_t size, max_data;		/* 0: the default */
	/* How long a full writer waits for room: --no-loss (the default,
	 * 1 s), or 0 with --may-lose; explicit when given by an option.
	 */
	struct timespec full_wait;
	bool full_wait_explicit;
	struct namelist filter;		/* types not to record */
	unsigned int kclasses;		/* --kernel: POSIX_TRACE_KERNEL_*_NP */
};

enum {
	REC_OPT_INHERIT = 256,
	REC_OPT_STREAM_POLICY,
	REC_OPT_LOG_POLICY,
	REC_OPT_SIZE,
	REC_OPT_MAX_DATA,
	REC_OPT_FILTER,
	REC_OPT_NO_LOSS,
	REC_OPT_MAY_LOSE,
	REC_OPT_KERNEL,
};

/* getopt_long() options of both; each command adds its own and the end. */
#define REC_SHORTOPTS "ho:"
#define REC_LONGOPTS							\
	{ "inherit", no_argument, NULL, REC_OPT_INHERIT },		\
	{ "stream-policy", required_argument, NULL, REC_OPT_STREAM_POLICY }, \
	{ "log-policy", required_argument, NULL, REC_OPT_LOG_POLICY },	\
	{ "size", required_argument, NULL, REC_OPT_SIZE },		\
	{ "max-data", required_argument, NULL, REC_OPT_MAX_DATA },	\
	{ "filter", required_argument, NULL, REC_OPT_FILTER },		\
	{ "no-loss", optional_argument, NULL, REC_OPT_NO_LOSS },	\
	{ "may-lose", no_argument, NULL, REC_OPT_MAY_LOSE },		\
	{ "kernel", required_argument, NULL, REC_OPT_KERNEL },		\
	{ "help", no_argument, NULL, 'h' }

void rec_opts_init(struct rec_opts *o);
void rec_opts_free(struct rec_opts *o);
/* One option of REC_SHORTOPTS/REC_LONGOPTS but 'h': PT_EXIT_OK, or
 * PT_EXIT_USAGE/PT_EXIT_FAIL after a message. */
int rec_option(struct rec_opts *o, const char *cmd, int opt, const char *arg);
/* The lines of --help that describe them. */
void rec_help(FILE *f);

/* 0, or PT_EXIT_FAIL after "cannot open /dev/posix_trace: ...". */
int rec_check_device(const char *cmd);
/* The log opened for writing, created or truncated; -1 after a message. */
int rec_open_log(const char *cmd, const char *path);
/*
 * A stream with log @fd for @pid, with the options' attributes (name
 * "posix-trace @cmd") and filter, not started: 0, or PT_EXIT_FAIL after a
 * message.
 */
int rec_create(const char *cmd, const struct rec_opts *o, pid_t pid, int fd,
	       trace_id_t *trid);

#endif
