// SPDX-License-Identifier: LGPL-2.1-or-later
/* Reading a trace log for posix-trace(1): see logview.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/posix_trace.h>
#include "cli.h"
#include "logview.h"

int lv_open(struct logview *lv, const char *path)
{
	struct stat st;
	size_t sysev;
	int ret;

	memset(lv, 0, sizeof(*lv));
	/* O_NONBLOCK: a FIFO given as LOG must not hang the open (the
	 * reader then rejects it: it needs pread()). */
	lv->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (lv->fd < 0)
		return errno;
	if (!fstat(lv->fd, &st)) {
		if (S_ISDIR(st.st_mode)) {
			ret = EISDIR;
			goto err_open;
		}
		lv->file_size = st.st_size;
	}
	ret = posix_trace_open(lv->fd, &lv->trid);
	if (ret)
		goto err_open;
	ret = posix_trace_get_attr(lv->trid, &lv->attr);
	if (!ret)
		ret = posix_trace_get_status(lv->trid, &lv->status);
	if (!ret)
		ret = posix_trace_attr_getmaxdatasize(&lv->attr, &lv->max_data);
	if (!ret)
		ret = posix_trace_attr_getmaxsystemeventsize(&lv->attr, &sysev);
	if (ret)
		goto err_trace;
	/*
	 * max-data-size comes from the file: the library rejects a log whose
	 * value the module could not have written, and this bound keeps the
	 * sizes below from wrapping whatever the library lets through (an
	 * event with more data is then read truncated, and says so).
	 * System events (START and FILTER carry event sets) may hold more
	 * than max-data-size: room for the larger, so that nothing is
	 * truncated at read.
	 */
	if (lv->max_data > POSIX_TRACE_MAX_DATA_MAX)
		lv->max_data = POSIX_TRACE_MAX_DATA_MAX;
	if (lv->max_data < sysev)
		lv->max_data = sysev;
	if (lv->max_data > LV_DATA_MAX) {
		ret = EOVERFLOW;
		goto err_trace;
	}
	/* One byte more than any event holds: malloc(0) is not an error. */
	lv->buf = malloc(lv->max_data + 1);
	if (!lv->buf) {
		ret = ENOMEM;
		goto err_trace;
	}
	return 0;

err_trace:
	posix_trace_close(lv->trid);
err_open:
	close(lv->fd);
	lv->fd = -1;
	return ret;
}

void lv_complain(const char *cmd, const char *path, int err)
{
	if (err == EINVAL)
		pt_err("%s: %s: not a posix-trace log, or damaged beyond reading",
		       cmd, path);
	else
		pt_err("%s: %s: %s", cmd, path, strerror(err));
}

int lv_next(struct logview *lv, struct lv_event *ev)
{
	struct posix_trace_event_info info;
	size_t len = 0;
	int unavailable = 0, ret;

	ret = posix_trace_getnext_event(lv->trid, &info, lv->buf, lv->max_data,
					&len, &unavailable);
	if (ret)
		return -ret;
	if (unavailable)
		return 0;	/* a log ends: no more events */
	/* Never more than asked: what the callers size by max_data needs it. */
	if (len > lv->max_data)
		return -EIO;
	memset(ev, 0, sizeof(*ev));
	ev->seq = lv->seq++;
	ev->id = info.posix_event_id;
	if (posix_trace_eventid_get_name(lv->trid, info.posix_event_id, lv->name))
		strcpy(lv->name, "?");
	ev->name = lv->name;
	ev->pid = info.posix_pid;
	/* Kernel events have no pthread_t: their thread is this id. */
	if (posix_trace_event_tid_np(lv->trid, &ev->tid))
		ev->tid = 0;
	ev->thread = (uint64_t)info.posix_thread_id;
	ev->address = (uint64_t)(uintptr_t)info.posix_prog_address;
	ev->ts = info.posix_timestamp;
	ev->truncation = info.posix_truncation_status;
	ev->data = lv->buf;
	ev->len = len;
	return 1;
}

int lv_rewind(struct logview *lv)
{
	lv->seq = 0;
	return posix_trace_rewind(lv->trid);
}

void lv_close(struct logview *lv)
{
	if (lv->fd < 0)
		return;
	posix_trace_close(lv->trid);
	close(lv->fd);
	free(lv->buf);
	lv->fd = -1;
	lv->buf = NULL;
}

int lv_event_types(struct logview *lv,
		   void (*fn)(trace_event_id_t id, const char *name, void *arg),
		   void *arg)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	int unavailable, ret;

	ret = posix_trace_eventtypelist_rewind(lv->trid);
	while (!ret) {
		ret = posix_trace_eventtypelist_getnext_id(lv->trid, &id, &unavailable);
		if (ret || unavailable)
			break;
		ret = posix_trace_eventid_get_name(lv->trid, id, name);
		if (!ret)
			fn(id, name, arg);
	}
	return ret;
}

const char *lv_grouped(char *buf, unsigned long long v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", v), i, o = 0;

	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

void lv_print_losses(const struct logview *lv, const char *prefix)
{
	struct posix_trace_losses_np l;
	unsigned long long events, gaps;
	char a[LV_GROUPED_LEN], b[LV_GROUPED_LEN];
	const char *sep = "";

	if (posix_trace_get_losses_np(lv->trid, &l)) {
		printf("%slost events: not counted in this log\n", prefix);
		return;
	}
	events = l.posix_dropped + l.posix_overwritten + l.posix_log_discarded +
		 l.posix_log_write_lost;
	gaps = l.posix_drop_gaps + l.posix_overwrite_gaps;
	if (!events) {
		printf("%slost no events\n", prefix);
		return;
	}
	printf("%slost %s events in %s gap%s (", prefix, lv_grouped(a, events),
	       lv_grouped(b, gaps), gaps == 1 ? "" : "s");
	if (l.posix_dropped) {
		printf("%s%s while the stream was full", sep, lv_grouped(a, l.posix_dropped));
		sep = ", ";
	}
	if (l.posix_overwritten) {
		printf("%s%s overwritten before logged", sep,
		       lv_grouped(a, l.posix_overwritten));
		sep = ", ";
	}
	if (l.posix_log_discarded) {
		printf("%s%s after the log was full", sep,
		       lv_grouped(a, l.posix_log_discarded));
		sep = ", ";
	}
	if (l.posix_log_write_lost)
		printf("%s%s in blocks the file refused", sep,
		       lv_grouped(a, l.posix_log_write_lost));
	puts(")");
}
