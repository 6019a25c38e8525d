/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a trace log for posix-trace(1): the standard API
 * (posix_trace_open() and posix_trace_getnext_event()) wrapped into one
 * record per event with its name resolved, for report, stat and convert.
 */
#ifndef PT_LOGVIEW_H
#define PT_LOGVIEW_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <trace.h>

struct lv_event {
	uint64_t seq;			/* 0, 1, ... in log order */
	trace_event_id_t id;
	const char *name;		/* valid until the next lv_next() */
	pid_t pid;
	pid_t tid;			/* the kernel's thread id, 0 if none
					 * (posix_trace_event_tid_np()) */
	uint64_t thread;		/* posix_thread_id (the pthread_t) */
	uint64_t address;		/* posix_prog_address */
	struct timespec ts;		/* CLOCK_REALTIME */
	int truncation;			/* POSIX_TRACE_NOT_TRUNCATED, ... */
	const unsigned char *data;	/* valid until the next lv_next() */
	size_t len;
};

/* Bound of logview.max_data: sizes computed from it cannot wrap. */
#define LV_DATA_MAX	(16u << 20)

struct logview {
	trace_id_t trid;
	int fd;
	trace_attr_t attr;
	struct posix_trace_status_info status;	/* as the log recorded it */
	size_t max_data;		/* the most data an event of the log has:
					 * at most LV_DATA_MAX */
	unsigned char *buf;
	char name[TRACE_EVENT_NAME_MAX + 1];
	uint64_t seq;
	off_t file_size;		/* for progress */
};

/* 0, or an errno value (ENOENT, EINVAL for a file that is not a log...). */
int lv_open(struct logview *lv, const char *path);
/* "posix-trace: CMD: PATH: why" for an error of lv_open() or lv_next(). */
void lv_complain(const char *cmd, const char *path, int err);
/* 1: *ev is the next event; 0: end of the log; -errno on error. */
int lv_next(struct logview *lv, struct lv_event *ev);
int lv_rewind(struct logview *lv);
void lv_close(struct logview *lv);

/*
 * One line of what never reached the log (posix_trace_get_losses_np()):
 * "@prefixlost 12,345 events in 3 gaps (...)", "@prefixlost no events",
 * or, for a log without loss counts, "@prefixlost events: not counted
 * in this log".
 */
void lv_print_losses(const struct logview *lv, const char *prefix);

/* @v with a comma every three digits ("3,456") into @buf. */
#define LV_GROUPED_LEN	32
const char *lv_grouped(char *buf, unsigned long long v);

/* Every event type the log names, in id order: calls @fn for each. */
int lv_event_types(struct logview *lv,
		   void (*fn)(trace_event_id_t id, const char *name, void *arg),
		   void *arg);

#endif
