/* SPDX-License-Identifier: GPL-2.0 */
/*
 * st_agent.h - agents: forked helper processes driven over a
 * SOCK_SEQPACKET socket, used by the selftests as traced processes, as
 * second controllers and as tracers with other credentials.  Defined in
 * st_agent.c.
 */
#ifndef ST_AGENT_H
#define ST_AGENT_H

#include <pthread.h>
#include <sys/types.h>

#include <trace.h>

#define ST_AGENT_TIMEOUT_MS	10000

enum st_agent_op {
	STA_EXIT = 1,
	STA_GETPID,		/* v[0] = pid, l = pthread_self() */
	STA_SETCREDS,		/* a = uid, b = gid, c = dumpable */
	STA_DUMPABLE,		/* a = value */
	STA_SET_PTRACER,	/* l = tracer pid or PR_SET_PTRACER_ANY */
	STA_DROP_CAP,		/* a = capability */
	STA_CREATE_PROBE,	/* a = pid: create + shutdown */
	STA_PTRACE_PROBE,	/* a = pid: attach + detach */
	STA_SPAWN,		/* a = socket fd: fork a sub-agent; v[0] = pid */
	STA_EVENTID_OPEN,	/* s = name; v[0] = id */
	STA_EVENT,		/* a = id, b = data length (data in s) */
	STA_CREATE,		/* a = pid, b = stream size; v[0] = trid */
	STA_START,		/* a = trid */
	STA_STOP,		/* a = trid */
	STA_SHUTDOWN,		/* a = trid */
	STA_DRAIN,		/* a = trid, b = id, c = pid; v[0] = matches,
				 * v[1] = all events, v[2] = data mismatches */
	STA_EVENT_BURST,	/* a = id, b = count: data = uint32 0..count-1 */
	STA_SPLIT_UIDS,		/* a = real uid and every gid, b = effective,
				 * saved and fs uid */
	STA_CLEAR_EFFECTIVE,	/* no effective capability, permitted kept */
	STA_SPAWN_VM,		/* as STA_SPAWN, sharing the agent's memory
				 * (clone(CLONE_VM) without CLONE_THREAD) */
	STA_CREATE_LOOP,	/* a = pid, b = tries of STA_CREATE_PROBE;
				 * v[0] = successes, v[1] = EPERM, v[2] = other */
};

struct st_msg {
	int op;
	int a, b, c;
	long l;
	char s[TRACE_EVENT_NAME_MAX + 1];
};

struct st_reply {
	int ret;
	int v[3];
	long l;
};

struct st_agent {
	pid_t pid;
	int fd;
};

/* A socket pair for an agent: [0] for the driver, [1] for the agent. */
int st_agent_socket(int sv[2]);

/*
 * Fork an agent (a child of the caller).  If @first is given, the agent
 * runs @first(@arg) before it answers anything, and exits with its
 * result if that is not 0.  0 or an errno.
 */
int st_agent_start_with(struct st_agent *ag, int (*first)(void *), void *arg);
int st_agent_start(struct st_agent *ag);

/* Kill and reap an agent that is a child of the caller. */
void st_agent_kill(struct st_agent *ag);

/* Send @m (0 or -1); wait up to ST_AGENT_TIMEOUT_MS for a reply (0 or -1). */
int st_agent_send(struct st_agent *ag, const struct st_msg *m);
int st_agent_recv(struct st_agent *ag, struct st_reply *r);

/* Send @m, wait for the reply.  0, or -1 on a transport error/timeout. */
int st_agent_call(struct st_agent *ag, const struct st_msg *m,
		  struct st_reply *r);

/*
 * One-line agent calls.  They return the agent's result code, or -1 when
 * the agent could not be reached; *v0 (if not NULL) receives v[0].
 */
int st_agent_op(struct st_agent *ag, int op, int a, int b, int c, int *v0);
int st_agent_set_ptracer(struct st_agent *ag, unsigned long who);
int st_agent_eventid_open(struct st_agent *ag, const char *name,
			  trace_event_id_t *id);

/* Record event @id with data "ev<n>"; *thread receives the agent's
 * pthread_self() (may be NULL). */
int st_agent_event(struct st_agent *ag, trace_event_id_t id, int n,
		   pthread_t *thread);

/* STA_DRAIN: *matches, *all and *bad receive v[0], v[1] and v[2]. */
int st_agent_drain_call(struct st_agent *ag, trace_id_t trid,
			trace_event_id_t id, pid_t pid, int *matches, int *all,
			int *bad);

#endif /* ST_AGENT_H */
