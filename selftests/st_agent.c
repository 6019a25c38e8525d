// SPDX-License-Identifier: GPL-2.0
/*
 * st_agent.c - the selftests' agents (declared in st_agent.h): the loop a
 * forked agent runs, serving one request at a time, and the calls that
 * drive it from the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "st_agent.h"
#include "st_stream.h"
#include "st_system.h"

static void __attribute__((noreturn)) st_agent_loop(int fd);

/*
 * STA_DRAIN checks each matching event's data against the agent-side
 * pattern: the data is the decimal string "ev<n>" where n counts from 0.
 */
static void st_agent_drain(const struct st_msg *m, struct st_reply *r)
{
	struct st_ev ev;
	char want[32];
	int ret;

	for (;;) {
		ret = st_try(m->a, &ev);
		if (ret) {
			r->ret = ret;
			return;
		}
		if (ev.unavailable)
			return;
		r->v[1]++;
		if (ev.info.posix_event_id != (trace_event_id_t)m->b ||
		    ev.info.posix_pid != m->c)
			continue;
		snprintf(want, sizeof(want), "ev%d", r->v[0]);
		if (ev.len != strlen(want) || memcmp(ev.data, want, ev.len))
			r->v[2]++;
		r->v[0]++;
	}
}

/* STA_SPAWN_VM's child: the agent loop on its own stack. */
static int st_agent_vm_child(void *arg)
{
	st_agent_loop((int)(long)arg);
}

/*
 * clone(CLONE_VM) a sub-agent serving socket @sfd; its pid or -errno.
 * It shares our memory, errno and TLS included: we only wait in recv()
 * meanwhile.  The stack is never freed (the child may outlive us).
 */
static pid_t st_agent_spawn_vm(int sfd)
{
	const size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t pid;

	if (stack == MAP_FAILED)
		return -errno;
	pid = clone(st_agent_vm_child, (char *)stack + size, CLONE_VM | SIGCHLD,
		    (void *)(long)sfd);
	return pid < 0 ? -errno : pid;
}

static void __attribute__((noreturn)) st_agent_loop(int fd)
{
	static trace_id_t trids[8];
	struct st_reply r;
	struct st_msg m;
	trace_event_id_t id;
	trace_id_t trid;
	ssize_t n;
	pid_t pid;
	int i;

	(void)trids;
	for (;;) {
		n = recv(fd, &m, sizeof(m), 0);
		if (n == 0)
			_exit(0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(3);
		}
		memset(&r, 0, sizeof(r));
		switch (m.op) {
		case STA_EXIT:
			break;
		case STA_GETPID:
			r.v[0] = getpid();
			r.l = (long)pthread_self();
			break;
		case STA_SETCREDS:
			r.ret = st_set_creds(m.a, m.b, m.c);
			break;
		case STA_DUMPABLE:
			r.ret = prctl(PR_SET_DUMPABLE, m.a, 0, 0, 0) ? errno : 0;
			break;
		case STA_SET_PTRACER:
			r.ret = prctl(PR_SET_PTRACER, (unsigned long)m.l, 0, 0,
				      0) ? errno : 0;
			break;
		case STA_DROP_CAP:
			r.ret = st_drop_cap(m.a);
			break;
		case STA_CREATE_PROBE:
			r.ret = st_create_probe(m.a);
			break;
		case STA_PTRACE_PROBE:
			r.ret = st_ptrace_probe(m.a);
			break;
		case STA_SPAWN:
			pid = fork();
			if (pid == 0) {
				close(fd);
				st_agent_loop(m.a);
			}
			r.ret = pid < 0 ? errno : 0;
			r.v[0] = pid;
			break;
		case STA_SPLIT_UIDS:
			r.ret = st_split_uids(m.a, m.b);
			break;
		case STA_CLEAR_EFFECTIVE:
			r.ret = st_clear_effective();
			break;
		case STA_SPAWN_VM:
			pid = st_agent_spawn_vm(m.a);
			r.ret = pid < 0 ? -pid : 0;
			r.v[0] = pid;
			break;
		case STA_CREATE_LOOP:
			for (i = 0; i < m.b; i++) {
				int ret = st_create_probe(m.a);

				r.v[ret == 0 ? 0 : ret == EPERM ? 1 : 2]++;
			}
			break;
		case STA_EVENTID_OPEN:
			id = 0;
			r.ret = posix_trace_eventid_open(m.s, &id);
			r.v[0] = (int)id;
			break;
		case STA_EVENT:
			posix_trace_event((trace_event_id_t)m.a, m.s,
					  (size_t)m.b);
			r.l = (long)pthread_self();
			break;
		case STA_CREATE:
			trid = 0;
			r.ret = st_create(m.a, (size_t)m.b, 0, 0, &trid);
			r.v[0] = trid;
			break;
		case STA_START:
			r.ret = posix_trace_start(m.a);
			break;
		case STA_STOP:
			r.ret = posix_trace_stop(m.a);
			break;
		case STA_SHUTDOWN:
			r.ret = posix_trace_shutdown(m.a);
			break;
		case STA_DRAIN:
			st_agent_drain(&m, &r);
			break;
		case STA_EVENT_BURST:
			for (r.v[0] = 0; r.v[0] < m.b; r.v[0]++)
				posix_trace_event((trace_event_id_t)m.a,
						  &r.v[0], sizeof(r.v[0]));
			break;
		default:
			r.ret = ENOSYS;
			break;
		}
		if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
			_exit(4);
		if (m.op == STA_EXIT)
			_exit(0);
	}
}

int st_agent_socket(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ?
	       errno : 0;
}

int st_agent_start_with(struct st_agent *ag, int (*first)(void *), void *arg)
{
	int sv[2], ret;
	pid_t pid;

	ag->pid = -1;
	ag->fd = -1;
	ret = st_agent_socket(sv);
	if (ret)
		return ret;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (pid == 0) {
		close(sv[0]);
		ret = first ? first(arg) : 0;
		if (ret)
			_exit(ret);
		st_agent_loop(sv[1]);
	}
	close(sv[1]);
	ag->pid = pid;
	ag->fd = sv[0];
	return 0;
}

int st_agent_start(struct st_agent *ag)
{
	return st_agent_start_with(ag, NULL, NULL);
}

int st_agent_send(struct st_agent *ag, const struct st_msg *m)
{
	return send(ag->fd, m, sizeof(*m), MSG_NOSIGNAL) == sizeof(*m) ? 0 : -1;
}

int st_agent_recv(struct st_agent *ag, struct st_reply *r)
{
	struct pollfd p = { .fd = ag->fd, .events = POLLIN };
	int ret;

	memset(r, 0, sizeof(*r));
	do {
		ret = poll(&p, 1, ST_AGENT_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	if (ret != 1)
		return -1;
	if (recv(ag->fd, r, sizeof(*r), 0) != sizeof(*r))
		return -1;
	return 0;
}

int st_agent_call(struct st_agent *ag, const struct st_msg *m,
		  struct st_reply *r)
{
	if (st_agent_send(ag, m))
		return -1;
	return st_agent_recv(ag, r);
}

int st_agent_op(struct st_agent *ag, int op, int a, int b, int c, int *v0)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = op;
	m.a = a;
	m.b = b;
	m.c = c;
	if (st_agent_call(ag, &m, &r))
		return -1;
	if (v0)
		*v0 = r.v[0];
	return r.ret;
}

int st_agent_set_ptracer(struct st_agent *ag, unsigned long who)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_SET_PTRACER;
	m.l = (long)who;
	if (st_agent_call(ag, &m, &r))
		return -1;
	return r.ret;
}

int st_agent_eventid_open(struct st_agent *ag, const char *name,
			  trace_event_id_t *id)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_EVENTID_OPEN;
	snprintf(m.s, sizeof(m.s), "%s", name);
	if (st_agent_call(ag, &m, &r))
		return -1;
	*id = (trace_event_id_t)r.v[0];
	return r.ret;
}

int st_agent_event(struct st_agent *ag, trace_event_id_t id, int n,
		   pthread_t *thread)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_EVENT;
	m.a = (int)id;
	m.b = snprintf(m.s, sizeof(m.s), "ev%d", n);
	if (st_agent_call(ag, &m, &r))
		return -1;
	if (thread)
		*thread = (pthread_t)r.l;
	return r.ret;
}

int st_agent_drain_call(struct st_agent *ag, trace_id_t trid,
			trace_event_id_t id, pid_t pid, int *matches, int *all,
			int *bad)
{
	struct st_msg m;
	struct st_reply r;

	memset(&m, 0, sizeof(m));
	m.op = STA_DRAIN;
	m.a = trid;
	m.b = (int)id;
	m.c = pid;
	if (st_agent_call(ag, &m, &r))
		return -1;
	*matches = r.v[0];
	*all = r.v[1];
	*bad = r.v[2];
	return r.ret;
}

void st_agent_kill(struct st_agent *ag)
{
	if (ag->pid > 0) {
		kill(ag->pid, SIGKILL);
		while (waitpid(ag->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	if (ag->fd >= 0)
		close(ag->fd);
	ag->pid = -1;
	ag->fd = -1;
}
