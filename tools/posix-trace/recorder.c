// SPDX-License-Identifier: LGPL-2.1-or-later
/* Stream options and creation for record and attach: see recorder.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/posix_trace.h>
#include "cli.h"
#include "recorder.h"

static const char *const stream_policies[] = { "loop", "until-full", "flush", NULL };
static const char *const log_policies[] = { "loop", "until-full", "append", NULL };

void rec_opts_init(struct rec_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->log = REC_DEFAULT_LOG;
	o->full_wait.tv_sec = REC_DEFAULT_FULL_WAIT;
}

void rec_opts_free(struct rec_opts *o)
{
	namelist_free(&o->filter);
}

void rec_help(FILE *f)
{
	fputs("  -o LOG                the trace log (default " REC_DEFAULT_LOG
	      "; truncated if it\n"
	      "                        exists)\n"
	      "  --inherit             trace the children the process forks from now\n"
	      "                        on too (POSIX_TRACE_INHERITED)\n"
	      "  --stream-policy P     what a full stream does: loop, until-full or\n"
	      "                        flush (default flush: write it to the log)\n"
	      "  --log-policy P        what a full log does: loop (keep the newest),\n"
	      "                        until-full (stop), or append (no limit;\n"
	      "                        default)\n"
	      "  --size BYTES          stream-min-size: buffer per CPU (default 1M)\n"
	      "  --max-data BYTES      max-data-size: data kept per event, longer data\n"
	      "                        is truncated (default 256, at most 64K)\n"
	      "  --filter NAME,...     event types NOT to record (user event names, or\n"
	      "                        system ones: posix_trace_error,\n"
	      "                        posix_trace_syscall_exit...); may be repeated\n"
	      "  --kernel CLASS,...    record the kernel events of these classes too:\n"
	      "                        syscall (system calls: entry and exit), signal\n"
	      "                        (sent, delivered), sched (off and on a CPU,\n"
	      "                        woken up), fault (page faults: major, minor),\n"
	      "                        process (fork, exec, exit) or all;\n"
	      "                        may be repeated\n"
	      "  --no-loss[=SECONDS]   never-lose mode, the default with the flush and\n"
	      "                        until-full stream policies: a thread whose\n"
	      "                        buffer is full waits up to SECONDS (default 1,\n"
	      "                        at most 60) for the log to take its events\n"
	      "                        instead of losing them (the program then runs\n"
	      "                        at the pace of the log's disk)\n"
	      "  --may-lose            a full buffer loses events instead (POSIX's\n"
	      "                        behaviour; the log says how many)\n"
	      "  -h, --help            this help\n"
	      "BYTES takes a K, M or G suffix (powers of 1024).  The log size of the\n"
	      "loop and until-full log policies is the default, 16M.\n", f);
}

int rec_option(struct rec_opts *o, const char *cmd, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		o->log = arg;
		return PT_EXIT_OK;
	case REC_OPT_INHERIT:
		o->inherit = true;
		return PT_EXIT_OK;
	case REC_OPT_STREAM_POLICY:
		o->stream_policy = opt_policy(arg, stream_policies);
		if (o->stream_policy)
			return PT_EXIT_OK;
		pt_err("%s: unknown stream policy '%s' (loop, until-full or flush)",
		       cmd, arg);
		return PT_EXIT_USAGE;
	case REC_OPT_LOG_POLICY:
		o->log_policy = opt_policy(arg, log_policies);
		if (o->log_policy)
			return PT_EXIT_OK;
		pt_err("%s: unknown log policy '%s' (loop, until-full or append)",
		       cmd, arg);
		return PT_EXIT_USAGE;
	case REC_OPT_SIZE:
	case REC_OPT_MAX_DATA:
		if (!opt_size(arg, opt == REC_OPT_SIZE ? &o->size : &o->max_data))
			return PT_EXIT_OK;
		pt_err("%s: bad size '%s' (BYTES with an optional K, M or G)", cmd,
		       arg);
		return PT_EXIT_USAGE;
	case REC_OPT_FILTER:
		if (!namelist_parse(&o->filter, arg))
			return PT_EXIT_OK;
		pt_err("%s: out of memory", cmd);
		return PT_EXIT_FAIL;
	case REC_OPT_KERNEL: {
		unsigned int classes;
		const char *bad;
		size_t len;

		if (!opt_kclasses(arg, &classes, &bad, &len)) {
			o->kclasses |= classes;
			return PT_EXIT_OK;
		}
		pt_err("%s: unknown kernel event class '%.*s' (syscall, signal, sched, fault, process or all)",
		       cmd, (int)(len < 64 ? len : 64), bad);
		return PT_EXIT_USAGE;
	}
	case REC_OPT_MAY_LOSE:
		o->full_wait.tv_sec = 0;
		o->full_wait.tv_nsec = 0;
		o->full_wait_explicit = false;
		return PT_EXIT_OK;
	case REC_OPT_NO_LOSS:
		o->full_wait_explicit = true;
		if (!arg) {
			o->full_wait.tv_sec = REC_DEFAULT_FULL_WAIT;
			o->full_wait.tv_nsec = 0;
			return PT_EXIT_OK;
		}
		if (!opt_seconds(arg, &o->full_wait))
			return PT_EXIT_OK;
		pt_err("%s: bad --no-loss '%s' (SECONDS, more than 0, at most 60)",
		       cmd, arg);
		return PT_EXIT_USAGE;
	}
	return PT_EXIT_USAGE;
}

static void no_device(const char *cmd, int err)
{
	pt_err("%s: cannot open " REC_DEVICE ": %s (is the posix_trace module loaded?)",
	       cmd, strerror(err));
}

int rec_check_device(const char *cmd)
{
	int fd = open(REC_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		no_device(cmd, errno);
		return PT_EXIT_FAIL;
	}
	close(fd);
	return 0;
}

int rec_open_log(const char *cmd, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		pt_err("%s: cannot create %s: %s", cmd, path, strerror(errno));
	return fd;
}

static int make_attr(const char *cmd, const struct rec_opts *o, trace_attr_t *a)
{
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "posix-trace %s", cmd);
	ret = posix_trace_attr_init(a);
	if (!ret)
		ret = posix_trace_attr_setname(a, name);
	if (!ret && o->inherit)
		ret = posix_trace_attr_setinherited(a, POSIX_TRACE_INHERITED);
	if (!ret && o->stream_policy)
		ret = posix_trace_attr_setstreamfullpolicy(a, o->stream_policy);
	if (ret)
		goto err;
	ret = posix_trace_attr_setlogfullpolicy(a, o->log_policy ? o->log_policy :
						POSIX_TRACE_APPEND);
	if (ret)
		goto err;
	if (o->size && posix_trace_attr_setstreamsize(a, o->size)) {
		pt_err("%s: --size %zu is too small", cmd, o->size);
		goto err_destroy;
	}
	/* A loop stream is never full: it overwrites, and never waits. */
	if (o->stream_policy == POSIX_TRACE_LOOP && o->full_wait_explicit) {
		pt_err("%s: --no-loss needs --stream-policy flush or until-full", cmd);
		goto err_destroy;
	}
	if (o->stream_policy != POSIX_TRACE_LOOP &&
	    (o->full_wait.tv_sec || o->full_wait.tv_nsec) &&
	    posix_trace_attr_setfullwait_np(a, &o->full_wait)) {
		pt_err("%s: --no-loss is not accepted", cmd);
		goto err_destroy;
	}
	if (o->max_data && posix_trace_attr_setmaxdatasize(a, o->max_data)) {
		pt_err("%s: --max-data %zu is not accepted", cmd, o->max_data);
		goto err_destroy;
	}
	if (o->kclasses && posix_trace_attr_setkernelclasses_np(a, o->kclasses)) {
		pt_err("%s: --kernel is not accepted", cmd);
		goto err_destroy;
	}
	return 0;
err:
	pt_err("%s: cannot set the attributes: %s", cmd, strerror(ret));
err_destroy:
	posix_trace_attr_destroy(a);
	return PT_EXIT_FAIL;
}

/* The id of a filter name: a system event's (a kernel event's too), or
 * the stream's for a user name (registered now if the process has not
 * opened it yet). */
static int filter_id(trace_id_t trid, const char *name, trace_event_id_t *id)
{
	static const char *const sys[] = POSIX_TRACE_SYSTEM_NAMES;
	static const char *const kernel[] = POSIX_TRACE_KERNEL_NAMES;
	unsigned int i;

	for (i = 1; i < sizeof(sys) / sizeof(sys[0]); i++) {
		if (sys[i] && !strcmp(sys[i], name)) {
			*id = i;
			return 0;
		}
	}
	for (i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++) {
		if (kernel[i] && !strcmp(kernel[i], name)) {
			*id = POSIX_TRACE_ID_KERNEL_FIRST + i;
			return 0;
		}
	}
	return posix_trace_trid_eventid_open(trid, name, id);
}

static int set_filter(const char *cmd, const struct rec_opts *o, trace_id_t trid)
{
	trace_event_set_t set;
	trace_event_id_t id;
	size_t i;
	int ret;

	if (!o->filter.n)
		return 0;
	ret = posix_trace_eventset_empty(&set);
	for (i = 0; !ret && i < o->filter.n; i++) {
		ret = filter_id(trid, o->filter.v[i], &id);
		if (ret) {
			pt_err("%s: --filter '%s': %s", cmd, o->filter.v[i],
			       strerror(ret));
			return PT_EXIT_FAIL;
		}
		ret = posix_trace_eventset_add(id, &set);
	}
	if (!ret)
		ret = posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET);
	if (ret) {
		pt_err("%s: cannot set the filter: %s", cmd, strerror(ret));
		return PT_EXIT_FAIL;
	}
	return 0;
}

static void create_failed(const char *cmd, const struct rec_opts *o, pid_t pid,
			  int err)
{
	switch (err) {
	case ENOSYS:
	case ENODEV:
	case ENOENT:
		no_device(cmd, err);
		break;
	case EPERM:
	case EACCES:
		pt_err("%s: not allowed to trace process %d: %s (tracing needs the "
		       "rights of a ptrace attach: same user, or CAP_SYS_PTRACE)",
		       cmd, (int)pid, strerror(err));
		break;
	case ESRCH:
		pt_err("%s: no process %d", cmd, (int)pid);
		break;
	case EINVAL:
		pt_err("%s: cannot create the stream: %s (check --size, --max-data, "
		       "the policies, %sand that the log is a regular file)", cmd,
		       strerror(err), o->kclasses ?
		       "the --kernel classes this kernel offers (see its log), " : "");
		break;
	case EAGAIN:
		pt_err("%s: cannot create the stream: too many streams "
		       "(TRACE_SYS_MAX or the per-user limit)", cmd);
		break;
	default:
		pt_err("%s: cannot create the stream for process %d: %s", cmd,
		       (int)pid, strerror(err));
	}
}

/*
 * With --kernel: whether the module records kernel events at all
 * (POSIX_TRACE_FEAT_KERNEL_EVENTS), to say so rather than EINVAL; 0 if it
 * does or cannot tell (create then has the last word), else PT_EXIT_FAIL
 * after a message.
 */
static int check_kernel_events(const char *cmd)
{
	struct posix_trace_query q = { .size = sizeof(q) };
	int fd = open(REC_DEVICE, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return 0;
	ret = ioctl(fd, POSIX_TRACE_IOC_QUERY, &q);
	close(fd);
	if (ret || (q.features & POSIX_TRACE_FEAT_KERNEL_EVENTS))
		return 0;
	pt_err("%s: --kernel: this posix_trace module records no kernel events "
	       "(a module older than them, or a kernel without their "
	       "tracepoints)", cmd);
	return PT_EXIT_FAIL;
}

int rec_create(const char *cmd, const struct rec_opts *o, pid_t pid, int fd,
	       trace_id_t *trid)
{
	trace_attr_t a;
	int ret;

	if (o->kclasses && check_kernel_events(cmd))
		return PT_EXIT_FAIL;
	ret = make_attr(cmd, o, &a);
	if (ret)
		return ret;
	ret = posix_trace_create_withlog(pid, &a, fd, trid);
	posix_trace_attr_destroy(&a);
	if (ret) {
		create_failed(cmd, o, pid, ret);
		return PT_EXIT_FAIL;
	}
	ret = set_filter(cmd, o, *trid);
	if (ret)
		posix_trace_shutdown(*trid);
	return ret;
}
