// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Controller functions on active streams: create, start, stop, clear,
 * shutdown, get_attr, get_status (spec 3.2, 3.6).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dev.h"
#include "handle.h"
#include "log_read.h"
#include "rlane.h"

/* The read-only region is written by the kernel only; still, check the
 * layout once so a kernel bug cannot send the reader outside it. */
static int pt_check_layout(const struct pt_handle *h)
{
	const struct posix_trace_stream_header *hdr = h->ro;
	unsigned int i;

	if (hdr->size < sizeof(*hdr) || hdr->nr_lanes == 0 ||
	    hdr->lane_stride < sizeof(struct posix_trace_lane) ||
	    hdr->lane_offset + hdr->lane_stride * hdr->nr_lanes > h->ro_size ||
	    h->cons_stride < sizeof(struct posix_trace_consumer) ||
	    h->cons_stride * hdr->nr_lanes > h->cons_size ||
	    hdr->writer_stride < sizeof(struct posix_trace_writer_desc) ||
	    hdr->max_writers > POSIX_TRACE_MAX_WRITERS ||
	    hdr->writer_offset > h->ro_size ||
	    (uint64_t)hdr->writer_stride * hdr->max_writers >
	    h->ro_size - hdr->writer_offset)
		return EIO;
	for (i = 0; i < hdr->nr_lanes; i++) {
		const struct posix_trace_lane *l = pt_lane(h, i);

		if (l->data_size < PT_RECORD_HDR_SIZE ||
		    l->data_offset > h->ro_size ||
		    l->data_size > h->ro_size - l->data_offset)
			return EIO;
	}
	return 0;
}

static int pt_map_stream(struct pt_handle *h, const struct posix_trace_create *c)
{
	int fd = pt_dev_fd(), saved = errno;

	h->ro = mmap(NULL, c->ro_size, PROT_READ, MAP_SHARED, fd, c->ro_offset);
	if (h->ro == MAP_FAILED)
		h->ro = NULL;
	h->cons = mmap(NULL, c->cons_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, c->cons_offset);
	if (h->cons == MAP_FAILED)
		h->cons = NULL;
	errno = saved;
	if (!h->ro || !h->cons)
		return ENOMEM;
	h->ro_size = c->ro_size;
	h->cons_size = c->cons_size;
	h->cons_stride = c->cons_stride;
	return pt_check_layout(h);
}

static struct pt_handle *pt_handle_new(const trace_attr_t *a,
				       const struct posix_trace_create *c)
{
	struct pt_handle *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	atomic_init(&h->refs, 1);
	h->trid = (trace_id_t)c->trid;
	h->owner = pt_self();
	h->attr = *a;
	h->attr.__stream_policy = (int)c->stream_policy;
	h->attr.__flags |= PT_ATTR_STREAM_POLICY_SET;
	h->attr.__stream_size = c->stream_size;
	h->attr.__max_data_size = c->max_data_size;
	h->attr.__create_time.tv_sec = (time_t)(c->creation_realtime / 1000000000u);
	h->attr.__create_time.tv_nsec = (long)(c->creation_realtime % 1000000000u);
	h->created_real = c->creation_realtime;
	h->created_mono = c->creation_monotonic;
	h->data_cap = PT_ROUND8(c->max_data_size + 2 * sizeof(trace_event_set_t)) *
		      PT_PENDING_MAX;
	h->data = malloc(h->data_cap);
	if (!h->data) {
		free(h);
		return NULL;
	}
	return h;
}

static void pt_ctl_init(struct posix_trace_ctl *c, trace_id_t trid, void *ret_addr)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->trid = (uint32_t)trid;
	c->thread = (uint64_t)pthread_self();
	c->address = (uint64_t)(uintptr_t)ret_addr;
}

/* A stream with log is read by the module alone: nothing to map. */
static int pt_setup_handle(const trace_attr_t *a, struct posix_trace_create *c,
			   trace_id_t *trid)
{
	struct pt_handle *h = pt_handle_new(a, c);
	int ret = ENOMEM;

	if (!h)
		return ENOMEM;
	if (c->flags & POSIX_TRACE_CREATE_LOG) {
		h->withlog = 1;
		h->attr.__log_size = c->log_size;
		goto add;
	}
	ret = pt_map_stream(h, c);
	if (ret)
		goto err;
	ret = pt_rlanes_init(h);
	if (ret)
		goto err;
	pt_cursors_reset(h);
add:
	ret = pt_handle_add(h);
	if (ret)
		goto err;
	*trid = h->trid;
	return 0;
err:
	pt_handle_put(h);
	return ret;
}

/* create and create_withlog (@c->flags says which). */
static int pt_control_create(pid_t pid, const trace_attr_t *attr,
		     struct posix_trace_create *c, trace_id_t *trid)
{
	struct posix_trace_ctl ctl;
	trace_attr_t defaults;
	int withlog = !!(c->flags & POSIX_TRACE_CREATE_LOG);
	int policy, ret;

	if (!trid)
		return EINVAL;
	if (!attr) {
		posix_trace_attr_init(&defaults);
		attr = &defaults;
	} else if (pt_attr_check(attr)) {
		return EINVAL;
	}
	/* Unset means LOOP without log, FLUSH with one (spec 5.6). */
	posix_trace_attr_getstreamfullpolicy(attr, &policy);
	if (withlog && !(attr->__flags & PT_ATTR_STREAM_POLICY_SET))
		policy = POSIX_TRACE_FLUSH;
	if (policy == POSIX_TRACE_FLUSH && !withlog)
		return EINVAL;	/* CREATE-12: FLUSH needs a log */
	c->pid = (uint32_t)pid;
	c->stream_policy = (uint32_t)policy;
	c->inherit = (uint32_t)attr->__inheritance;
	c->stream_size = attr->__stream_size;
	c->max_data_size = attr->__max_data_size;
	c->name_ptr = (uint64_t)(uintptr_t)attr->__name;
	c->full_wait_ns = attr->__full_wait_ns;
	c->kernel_classes = attr->__kernel_classes;
	ret = pt_ioctl(POSIX_TRACE_IOC_CREATE, c);
	/*
	 * A kernel that cannot record a class asked for says EOPNOTSUPP,
	 * an error POSIX does not give create: the attributes are not
	 * accepted, EINVAL, which is also what a module older than
	 * kernel_classes says (it was reserved there).
	 */
	if (ret == EOPNOTSUPP && c->kernel_classes)
		ret = EINVAL;
	if (ret)
		return ret;
	ret = pt_setup_handle(attr, c, trid);
	if (ret) {
		pt_ctl_init(&ctl, (trace_id_t)c->trid, NULL);
		pt_ioctl(POSIX_TRACE_IOC_SHUTDOWN, &ctl);
	}
	return ret;
}

PT_EXPORT int posix_trace_create(pid_t pid, const trace_attr_t *restrict attr,
				 trace_id_t *restrict trid)
{
	struct posix_trace_create c = { .size = sizeof(c) };

	return pt_control_create(pid, attr, &c, trid);
}

/* Which files serve which log policy: design.md §10 (spec 5.11). */
PT_EXPORT int posix_trace_create_withlog(pid_t pid, const trace_attr_t *restrict attr,
					 int file_desc, trace_id_t *restrict trid)
{
	struct posix_trace_create c = {
		.size = sizeof(c),
		.flags = POSIX_TRACE_CREATE_LOG,
	};

	if (file_desc < 0)
		return EBADF;
	c.log_fd = (uint32_t)file_desc;
	c.log_policy = attr && !pt_attr_check(attr) ? (uint32_t)attr->__log_policy :
						      POSIX_TRACE_LOOP;
	c.log_size = attr && !pt_attr_check(attr) ? attr->__log_size :
						    PT_DEFAULT_LOG_SIZE;
	return pt_control_create(pid, attr, &c, trid);
}

/* Waits for the module's worker, so write errors come back (spec 5.13);
 * a signal leaves the flush running and counts as initiated (FLUSH-1). */
PT_EXPORT int posix_trace_flush(trace_id_t trid)
{
	struct pt_handle *h;
	struct posix_trace_ctl c;
	int ret;

	if (trid < 0)
		return EINVAL;	/* pre-recorded */
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	pt_ctl_init(&c, trid, __builtin_return_address(0));
	ret = h->withlog ? pt_ioctl(POSIX_TRACE_IOC_FLUSH, &c) : EINVAL;
	pt_handle_put(h);
	return ret == EINTR ? 0 : ret;
}

/* What the reader's gate learns from a call that succeeded between @lo
 * and @hi (gate.c: the state the stream had when). */
static void pt_control_done(struct pt_handle *h, unsigned long cmd, uint64_t lo,
			    uint64_t hi)
{
	if (h->withlog)
		return;		/* nothing to read */
	if (cmd == POSIX_TRACE_IOC_CLEAR)
		pt_rlanes_cleared(h, hi);
	else
		pt_gate_command(&h->gate, cmd == POSIX_TRACE_IOC_START ?
				PT_CMD_START : PT_CMD_STOP, NULL, lo, hi);
}

static int pt_control(trace_id_t trid, unsigned long cmd, void *ret_addr)
{
	struct pt_handle *h = pt_handle_get(trid);
	struct posix_trace_ctl c;
	uint64_t lo;
	int ret;

	if (!h)
		return EINVAL;
	pt_ctl_init(&c, trid, ret_addr);
	pt_lock(&h->lock);
	lo = pt_gate_clock();
	ret = h->dead ? EINVAL : pt_ioctl(cmd, &c);
	if (!ret)
		pt_control_done(h, cmd, lo, pt_gate_clock());
	pt_unlock(&h->lock);
	pt_handle_put(h);
	return ret;
}

PT_EXPORT int posix_trace_start(trace_id_t trid)
{
	return pt_control(trid, POSIX_TRACE_IOC_START, __builtin_return_address(0));
}

PT_EXPORT int posix_trace_stop(trace_id_t trid)
{
	return pt_control(trid, POSIX_TRACE_IOC_STOP, __builtin_return_address(0));
}

PT_EXPORT int posix_trace_clear(trace_id_t trid)
{
	return pt_control(trid, POSIX_TRACE_IOC_CLEAR, __builtin_return_address(0));
}

/* The kernel wakes blocked readers with EINVAL; the mappings go away under
 * the handle lock so no reader can be inside them. */
PT_EXPORT int posix_trace_shutdown(trace_id_t trid)
{
	struct pt_handle *h = pt_handle_get(trid);
	struct posix_trace_ctl c;
	int ret;

	if (!h)
		return EINVAL;
	pt_ctl_init(&c, trid, __builtin_return_address(0));
	pt_lock(&h->lock);
	ret = h->dead ? EINVAL : pt_ioctl(POSIX_TRACE_IOC_SHUTDOWN, &c);
	/* A write error of the final flush: the stream is gone all the same
	 * (SHUT-2), the error is reported. */
	if (!ret || (h->withlog && ret != EINVAL)) {
		h->dead = 1;
		pt_handle_release_buffers(h);
	}
	pt_unlock(&h->lock);
	if (h->dead)
		pt_handle_remove(h);
	pt_handle_put(h);
	return ret;
}

PT_EXPORT int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	struct pt_handle *h;

	if (!attr)
		return EINVAL;
	if (trid < 0)
		return pt_log_get_attr(trid, attr);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	*attr = h->attr;
	pt_handle_put(h);
	return 0;
}

PT_EXPORT int posix_trace_get_status(trace_id_t trid,
				     struct posix_trace_status_info *statusinfo)
{
	struct posix_trace_status st = { .size = sizeof(st) };
	struct pt_handle *h;
	int ret;

	if (!statusinfo)
		return EINVAL;
	if (trid < 0)
		return pt_log_get_status(trid, statusinfo);
	h = pt_handle_get(trid);
	if (!h)
		return EINVAL;
	st.trid = (uint32_t)trid;
	ret = pt_ioctl(POSIX_TRACE_IOC_STATUS, &st);
	pt_handle_put(h);
	if (ret)
		return ret;
	memset(statusinfo, 0, sizeof(*statusinfo));
	statusinfo->posix_stream_status = st.running ? POSIX_TRACE_RUNNING :
						       POSIX_TRACE_SUSPENDED;
	statusinfo->posix_stream_full_status = st.full ? POSIX_TRACE_FULL :
							 POSIX_TRACE_NOT_FULL;
	statusinfo->posix_stream_overrun_status = st.overrun ? POSIX_TRACE_OVERRUN :
							       POSIX_TRACE_NO_OVERRUN;
	statusinfo->posix_stream_flush_status = st.flushing ? POSIX_TRACE_FLUSHING :
							      POSIX_TRACE_NOT_FLUSHING;
	statusinfo->posix_stream_flush_error = (int)st.flush_error;
	statusinfo->posix_log_overrun_status = st.log_overrun ? POSIX_TRACE_OVERRUN :
							       POSIX_TRACE_NO_OVERRUN;
	statusinfo->posix_log_full_status = st.log_full ? POSIX_TRACE_FULL :
							  POSIX_TRACE_NOT_FULL;
	return 0;
}
