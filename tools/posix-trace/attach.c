// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace attach [OPTIONS] PID...
 *
 * One stream with log per PID (the API gives each stream its own log):
 * LOG for a single PID, LOG.PID for each of several.  Every stream is
 * created first, then all are started; they are shut down (which writes
 * the rest of each log) on SIGINT, SIGTERM or SIGHUP, or once every PID
 * has exited (pidfd_open() + poll()).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cli.h"
#include "recorder.h"

struct target {
	pid_t pid;
	int pidfd;
	int logfd;
	char *log;
	trace_id_t trid;
	bool created;
};

static void usage(FILE *f)
{
	fputs("usage: posix-trace attach [OPTIONS] PID...\n"
	      "Trace running processes into trace logs until they all exit or until\n"
	      "SIGINT (Ctrl-C), SIGTERM or SIGHUP.  With one PID the log is LOG; with\n"
	      "several, each PID gets its own log, LOG.PID.\n"
	      "\n", f);
	rec_help(f);
	fputs("\n"
	      "Tracing another user's process needs the rights of a ptrace attach\n"
	      "(CAP_SYS_PTRACE).  Exit status: 0, 1 if a process cannot be traced or a\n"
	      "log cannot be written, 2 for bad usage.\n", f);
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	if (*s < '1' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* Open everything for @t; PT_EXIT_FAIL after a message. */
static int setup(const struct rec_opts *o, struct target *t, bool several)
{
	size_t len;

	t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	if (t->pidfd < 0) {
		if (errno == ESRCH)
			pt_err("attach: no process %d", (int)t->pid);
		else if (errno == EINVAL)
			pt_err("attach: %d is not a process (a thread id?)", (int)t->pid);
		else
			pt_err("attach: pidfd_open %d: %s", (int)t->pid, strerror(errno));
		return PT_EXIT_FAIL;
	}
	len = strlen(o->log) + 16;
	t->log = malloc(len);
	if (!t->log) {
		pt_err("attach: out of memory");
		return PT_EXIT_FAIL;
	}
	if (several)
		snprintf(t->log, len, "%s.%d", o->log, (int)t->pid);
	else
		snprintf(t->log, len, "%s", o->log);
	t->logfd = rec_open_log("attach", t->log);
	if (t->logfd < 0)
		return PT_EXIT_FAIL;
	if (rec_create("attach", o, t->pid, t->logfd, &t->trid)) {
		/* Nothing was traced: leave no empty log behind. */
		unlink(t->log);
		return PT_EXIT_FAIL;
	}
	t->created = true;
	return 0;
}

/*
 * Shut down (writes the rest of the log); PT_EXIT_FAIL after a message.
 * @discard: nothing was traced (another target failed): remove the log.
 */
static int finish(struct target *t, bool discard)
{
	int ret = PT_EXIT_OK, err;

	if (t->created) {
		err = posix_trace_shutdown(t->trid);
		if (err && !discard) {
			pt_err("attach: writing the log %s: %s", t->log, strerror(err));
			ret = PT_EXIT_FAIL;
		}
	}
	if (t->logfd >= 0 && close(t->logfd) && t->created && !ret && !discard) {
		pt_err("attach: closing the log %s: %s", t->log, strerror(errno));
		ret = PT_EXIT_FAIL;
	}
	if (t->created && discard)
		unlink(t->log);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t->log);
	return ret;
}

/* Until every target has exited or a stop signal came: 0 or PT_EXIT_FAIL. */
static int wait_targets(struct target *t, int n, int sigfd)
{
	struct pollfd *p = calloc(n + 1, sizeof(*p));
	int i, left = n, r;

	if (!p) {
		pt_err("attach: out of memory");
		return PT_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		p[i].fd = t[i].pidfd;
		p[i].events = POLLIN;
	}
	p[n].fd = sigfd;
	p[n].events = POLLIN;
	while (left) {
		r = poll(p, n + 1, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			pt_err("attach: poll: %s", strerror(errno));
			break;
		}
		if (p[n].revents) {
			struct signalfd_siginfo si;

			/* Consumed, or it would stay pending. */
			if (read(sigfd, &si, sizeof(si)) < 0)
				pt_err("attach: signalfd: %s", strerror(errno));
			break;	/* SIGINT, SIGTERM or SIGHUP */
		}
		for (i = 0; i < n; i++) {
			if (p[i].revents) {
				p[i].fd = -1;	/* exited: poll ignores it now */
				left--;
			}
		}
	}
	free(p);
	return 0;
}

static int attach(const struct rec_opts *o, struct target *t, int n)
{
	int i, ret = PT_EXIT_OK, err, sigfd = -1;
	bool discard = false;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (rec_check_device("attach")) {
		ret = PT_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = setup(o, &t[i], n > 1);
	/* All or none: a log without events would only mislead. */
	discard = ret;
	for (i = 0; i < n && !ret; i++) {
		err = posix_trace_start(t[i].trid);
		if (err) {
			pt_err("attach: cannot start tracing %d: %s", (int)t[i].pid,
			       strerror(err));
			ret = PT_EXIT_FAIL;
		}
	}
	if (!ret) {
		sigfd = signalfd(-1, &set, SFD_CLOEXEC);
		if (sigfd < 0) {
			pt_err("attach: signalfd: %s", strerror(errno));
			ret = PT_EXIT_FAIL;
		} else {
			ret = wait_targets(t, n, sigfd);
			close(sigfd);
		}
	}
out:
	for (i = 0; i < n; i++) {
		if (finish(&t[i], discard))
			ret = PT_EXIT_FAIL;
	}
	/*
	 * The mask stays: a second Ctrl-C during the shutdown must not kill
	 * us with the status of a signal (the logs are complete by now).
	 */
	return ret;
}

int cmd_attach(int argc, char **argv)
{
	static const struct option longopts[] = {
		REC_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct target *t = NULL;
	struct rec_opts o;
	int opt, ret = PT_EXIT_OK, i, n;

	rec_opts_init(&o);
	while ((opt = getopt_long(argc, argv, REC_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			goto out;
		}
		ret = rec_option(&o, "attach", opt, optarg);
		if (ret)
			goto bad;
	}
	n = argc - optind;
	if (!n) {
		pt_err("attach: no PID given");
		ret = PT_EXIT_USAGE;
		goto bad;
	}
	t = calloc(n, sizeof(*t));
	if (!t) {
		pt_err("attach: out of memory");
		ret = PT_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		t[i].pidfd = t[i].logfd = -1;
		if (parse_pid(argv[optind + i], &t[i].pid)) {
			pt_err("attach: bad PID '%s'", argv[optind + i]);
			ret = PT_EXIT_USAGE;
			goto bad;
		}
	}
	ret = attach(&o, t, n);
	goto out;
bad:
	if (ret == PT_EXIT_USAGE)
		usage(stderr);
out:
	free(t);
	rec_opts_free(&o);
	return ret;
}
