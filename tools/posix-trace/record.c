// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace record [OPTIONS] -- CMD [ARGS]
 *
 * The recorder forks a child that waits on a pipe, creates and starts a
 * stream with log for the child, then lets it exec CMD: CMD is traced
 * from its first instruction, and the recorder, the stream's controller,
 * is not the traced process (the controller's own exec or exit would shut
 * the stream down; the traced process's exec does not).  Signals sent to
 * the recorder are forwarded to CMD; when CMD exits, the stream is shut
 * down, which writes the rest of the log, and the recorder exits with
 * CMD's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "recorder.h"

/* Exit statuses when CMD never ran, as a shell gives them. */
#define EXIT_NOEXEC	126
#define EXIT_NOTFOUND	127

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

static void usage(FILE *f)
{
	fputs("usage: posix-trace record [OPTIONS] -- CMD [ARGS]\n"
	      "Run CMD traced from its first instruction into a trace log.\n"
	      "\n", f);
	rec_help(f);
	fputs("\n"
	      "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to posix-trace\n"
	      "are forwarded to CMD (not those the terminal sends to the whole\n"
	      "foreground process group: CMD gets them itself).\n"
	      "Exit status: CMD's own, 128+N if signal N killed it; 127 if CMD was not\n"
	      "found, 126 if it could not be executed; 1 if tracing could not be set up,\n"
	      "or if CMD succeeded but the log could not be written; 2 for bad usage.\n", f);
}

/* The child: wait for the stream, then become CMD. */
static void child(int go, const sigset_t *mask, char **cmd)
{
	char c;
	ssize_t n;

	do {
		n = read(go, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(EXIT_NOTFOUND);	/* the recorder gave up: not run */
	close(go);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(cmd[0], cmd);
	pt_err("record: cannot execute %s: %s", cmd[0], strerror(errno));
	_exit(errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/* Wait for @pid, forwarding signals; its exit status as a shell shows it. */
static int wait_forwarding(pid_t pid, const sigset_t *set)
{
	siginfo_t si;
	int status, sig;

	for (;;) {
		sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue;	/* EINTR: a signal not in @set */
		if (sig != SIGCHLD) {
			/* The terminal signals the whole foreground group. */
			if (si.si_code == SI_KERNEL && getpgid(pid) == getpgrp())
				continue;
			kill(pid, sig);
			continue;
		}
		if (waitpid(pid, &status, WNOHANG) != pid)
			continue;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
	}
}

static int record(const struct rec_opts *o, char **cmd)
{
	sigset_t set, old;
	trace_id_t trid;
	int go[2], fd, ret, status;
	unsigned int i;
	pid_t pid;

	if (rec_check_device("record"))
		return PT_EXIT_FAIL;
	fd = rec_open_log("record", o->log);
	if (fd < 0)
		return PT_EXIT_FAIL;
	/* Inherited SIG_IGN would reap CMD behind our back. */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (pipe2(go, O_CLOEXEC)) {
		pt_err("record: pipe: %s", strerror(errno));
		goto err_pipe;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pt_err("record: fork: %s", strerror(errno));
		goto err_fork;
	}
	if (pid == 0) {
		close(go[1]);
		close(fd);
		child(go[0], &old, cmd);
	}
	close(go[0]);
	if (rec_create("record", o, pid, fd, &trid))
		goto err_create;
	ret = posix_trace_start(trid);
	if (ret) {
		pt_err("record: cannot start the stream: %s", strerror(ret));
		goto err_start;
	}
	if (write(go[1], "g", 1) != 1) {
		pt_err("record: cannot release the child: %s", strerror(errno));
		goto err_start;
	}
	close(go[1]);
	status = wait_forwarding(pid, &set);
	ret = posix_trace_shutdown(trid);
	if (ret) {
		pt_err("record: writing the log %s: %s", o->log, strerror(ret));
		if (!status)
			status = PT_EXIT_FAIL;
	}
	if (close(fd) && !ret) {
		pt_err("record: closing the log %s: %s", o->log, strerror(errno));
		if (!status)
			status = PT_EXIT_FAIL;
	}
	/* The mask stays: a signal that comes now must not change the exit
	 * status to its own (CMD has exited, there is no one to forward to). */
	return status;

err_start:
	posix_trace_shutdown(trid);
err_create:
	close(go[1]);	/* the child exits without running CMD */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	goto err_pipe;
err_fork:
	close(go[0]);
	close(go[1]);
err_pipe:
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fd);
	return PT_EXIT_FAIL;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		REC_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rec_opts o;
	int opt, ret = PT_EXIT_OK;

	rec_opts_init(&o);
	/* "+": CMD's own options are not ours, even without "--". */
	while ((opt = getopt_long(argc, argv, "+" REC_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			goto out;
		}
		ret = rec_option(&o, "record", opt, optarg);
		if (ret)
			goto bad;
	}
	if (optind == argc) {
		pt_err("record: no command given");
		ret = PT_EXIT_USAGE;
		goto bad;
	}
	ret = record(&o, argv + optind);
	goto out;
bad:
	if (ret == PT_EXIT_USAGE)
		usage(stderr);
out:
	rec_opts_free(&o);
	return ret;
}
