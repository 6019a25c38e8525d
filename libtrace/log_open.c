// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pre-recorded streams (spec 3.8): posix_trace_open(), _rewind(), _close()
 * and the trid-taking functions a pre-recorded trid accepts, which the
 * functions of getnext.c, control.c and names.c hand over here for trid < 0.
 * Active trids are positive (the module's ids), so the two never collide,
 * and every other function rejects a negative trid as it rejects any
 * unknown one.  Like active handles (handle.c), a log belongs to the
 * process that opened it: a child after fork() gets EINVAL (RULE-80).
 * No module is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include "fork.h"
#include "kevent.h"
#include "log_read.h"

static pthread_mutex_t pt_logs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pt_log **pt_logs;
static size_t pt_logs_len;
static trace_id_t pt_logs_next = -1;

static void pt_logs_atfork_child(void)
{
	pthread_mutex_init(&pt_logs_lock, NULL);
}

__attribute__((constructor)) static void pt_logs_init(void)
{
	pthread_atfork(NULL, NULL, pt_logs_atfork_child);
}

static void pt_log_put(struct pt_log *l)
{
	int err = errno;

	if (atomic_fetch_sub(&l->refs, 1) != 1)
		return;
	pt_log_free_contents(l);
	close(l->fd);
	errno = err;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static struct pt_log *pt_log_get(trace_id_t trid)
{
	struct pt_log *l = NULL;
	size_t i;

	if (trid >= 0 || !pt_fork_check())
		return NULL;
	pthread_mutex_lock(&pt_logs_lock);
	for (i = 0; i < pt_logs_len; i++) {
		if (pt_logs[i] && pt_logs[i]->trid == trid && pt_logs[i]->owner == pt_self()) {
			l = pt_logs[i];
			atomic_fetch_add(&l->refs, 1);
			break;
		}
	}
	pthread_mutex_unlock(&pt_logs_lock);
	return l;
}

static int pt_trid_used(trace_id_t trid)
{
	size_t i;

	for (i = 0; i < pt_logs_len; i++)
		if (pt_logs[i] && pt_logs[i]->trid == trid)
			return 1;
	return 0;
}

/* Insert @l with a fresh negative trid. */
static int pt_log_add(struct pt_log *l)
{
	struct pt_log **grown;
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&pt_logs_lock);
	for (i = 0; i < pt_logs_len && pt_logs[i]; i++)
		;
	if (i == pt_logs_len) {
		grown = pt_table_grow(pt_logs, &pt_logs_len, sizeof(*grown));
		if (!grown) {
			ret = ENOMEM;
			goto out;
		}
		pt_logs = grown;
	}
	/* At most pt_logs_len trids are in use: this ends. */
	do {
		l->trid = pt_logs_next;
		pt_logs_next = pt_logs_next == INT_MIN ? -1 : pt_logs_next - 1;
	} while (pt_trid_used(l->trid));
	pt_logs[i] = l;
out:
	pthread_mutex_unlock(&pt_logs_lock);
	return ret;
}

/* Saves errno and disables cancellation (pread is a cancellation point
 * and l->lock must not stay held). */
struct pt_log_call {
	int err, cancel;
};

static void pt_call_begin(struct pt_log_call *c)
{
	c->err = errno;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &c->cancel);
}

static int pt_call_end(struct pt_log_call *c, int ret)
{
	pthread_setcancelstate(c->cancel, NULL);
	errno = c->err;
	return ret;
}

PT_EXPORT int posix_trace_open(int file_desc, trace_id_t *trid)
{
	struct pt_log_call c;
	struct pt_log *l;
	int flags, ret;

	if (!trid)
		return EINVAL;
	pt_call_begin(&c);
	flags = fcntl(file_desc, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY)
		return pt_call_end(&c, EBADF);
	l = calloc(1, sizeof(*l));
	if (!l)
		return pt_call_end(&c, ENOMEM);
	/* Our own descriptor: the caller may close theirs (CLOSE-3 says we
	 * never close it), and pread() leaves its offset alone. */
	l->fd = fcntl(file_desc, F_DUPFD_CLOEXEC, 0);
	if (l->fd < 0) {
		ret = errno;
		goto err_dup;
	}
	pthread_mutex_init(&l->lock, NULL);
	atomic_init(&l->refs, 1);
	l->owner = pt_self();
	ret = pt_log_parse_open(l);
	if (ret)
		goto err_parse;
	ret = pt_log_add(l);
	if (ret)
		goto err_parse;
	*trid = l->trid;
	return pt_call_end(&c, 0);

err_parse:
	pt_log_put(l);
	return pt_call_end(&c, ret);
err_dup:
	free(l);
	return pt_call_end(&c, ret);
}

PT_EXPORT int posix_trace_close(trace_id_t trid)
{
	struct pt_log *l = pt_log_get(trid);
	size_t i;

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&pt_logs_lock);
	for (i = 0; i < pt_logs_len && pt_logs[i] != l; i++)
		;
	if (i < pt_logs_len)
		pt_logs[i] = NULL;
	pthread_mutex_unlock(&pt_logs_lock);
	/* A concurrent close of the same trid found it gone. */
	if (i == pt_logs_len) {
		pt_log_put(l);
		return EINVAL;
	}
	pt_log_put(l);
	pt_log_put(l);
	return 0;
}

PT_EXPORT int posix_trace_rewind(trace_id_t trid)
{
	struct pt_log *l = pt_log_get(trid);

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	pt_log_rewind_cursor(l);
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return 0;
}

int pt_log_getnext(trace_id_t trid, struct posix_trace_event_info *ev, void *data,
		   size_t num_bytes, size_t *data_len, int *unavailable)
{
	struct pt_log *l = pt_log_get(trid);
	struct pt_log_call c;
	int got, ret;

	if (!l)
		return EINVAL;
	pt_call_begin(&c);
	pthread_mutex_lock(&l->lock);
	ret = pt_log_next(l, ev, data, num_bytes, data_len, &got);
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	if (!ret)
		*unavailable = !got;
	return pt_call_end(&c, ret);
}

/* posix_trace_event_tid_np(3) of a log: its reader's last event. */
int pt_log_event_tid(trace_id_t trid, pid_t *tid)
{
	struct pt_log *l = pt_log_get(trid);
	int ret = EINVAL;

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	if (l->has_event) {
		*tid = (pid_t)l->event_tid;
		ret = 0;
	}
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return ret;
}

/* The kernel classes are those the TYPES blocks read so far name. */
int pt_log_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	struct pt_log *l = pt_log_get(trid);

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	*attr = l->attr;	/* written at open, never changed */
	attr->__kernel_classes = l->kclasses;
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return 0;
}

/* GETSTAT-4: the status saved in the log, nothing reset.  A log without
 * its trailer (still being written, or cut short) reads as running. */
int pt_log_get_status(trace_id_t trid, struct posix_trace_status_info *st)
{
	struct pt_log *l = pt_log_get(trid);

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	if (l->finished) {
		*st = l->status;
	} else {
		memset(st, 0, sizeof(*st));
		st->posix_stream_status = POSIX_TRACE_RUNNING;
	}
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return 0;
}

int pt_log_get_losses(trace_id_t trid, struct posix_trace_losses_np *losses)
{
	struct pt_log *l = pt_log_get(trid);
	int ret = ENODATA;

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	if (l->has_losses) {
		*losses = l->losses;
		ret = 0;
	}
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return ret;
}

/*
 * The log's name of @event, or a kernel event's own name: a log written
 * before the module named kernel ids, or whose TYPES entry of one is lost,
 * still names its kernel events as an active stream does.
 */
int pt_log_get_name(trace_id_t trid, trace_event_id_t event, char *name)
{
	struct pt_log *l = pt_log_get(trid);
	const char *kname = pt_kernel_name(event);
	int ret = EINVAL;

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	if (event < __POSIX_TRACE_ID_NR && l->names[event]) {
		strcpy(name, l->names[event]);
		ret = 0;
	} else if (kname) {
		strcpy(name, kname);
		ret = 0;
	}
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return ret;
}

/* Whether the list of @l has @id: named in the log, or a kernel event
 * of a class the log names some id of. */
static int pt_log_has_type(const struct pt_log *l, unsigned int id)
{
	return l->names[id] || (pt_kernel_class(id) & l->kclasses);
}

/* The log's list in id order; names found later by a growing log's scan
 * appear when their ids are above the cursor.  A log without kernel
 * events lists exactly the ids it names. */
int pt_log_typelist_next(trace_id_t trid, trace_event_id_t *event, int *unavailable)
{
	struct pt_log *l = pt_log_get(trid);
	unsigned int i;

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	for (i = l->typelist_next; i < __POSIX_TRACE_ID_NR && !pt_log_has_type(l, i); i++)
		;
	*unavailable = i == __POSIX_TRACE_ID_NR;
	if (!*unavailable) {
		*event = i;
		l->typelist_next = i + 1;
	} else {
		l->typelist_next = i;
	}
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return 0;
}

int pt_log_typelist_rewind(trace_id_t trid)
{
	struct pt_log *l = pt_log_get(trid);

	if (!l)
		return EINVAL;
	pthread_mutex_lock(&l->lock);
	l->typelist_next = 0;
	pthread_mutex_unlock(&l->lock);
	pt_log_put(l);
	return 0;
}
