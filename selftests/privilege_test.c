// SPDX-License-Identifier: GPL-2.0
/*
 * privilege_test - "appropriate privileges" to trace another process are
 * exactly those of ptrace(PTRACE_ATTACH) (PTRACE_MODE_ATTACH_REALCREDS,
 * LSMs and Yama included).  For each case a tracer process with given
 * credentials calls both posix_trace_create(target) and
 * ptrace(PTRACE_ATTACH, target); the two must agree, and must give the
 * expected answer, or the answer posix_trace(7) documents where the module
 * cannot ask the kernel exactly ptrace's question ("Privileges").
 *
 * Needs root (to make tracers and targets of arbitrary uids and to set
 * kernel.yama.ptrace_scope, which is saved and restored).  Yama cases are
 * skipped when Yama is absent; everything is skipped when ptrace_scope is
 * already 3 (irreversible until reboot, see ptrace_scope3_test).
 */
#include <stdatomic.h>

#include "pt_selftest.h"

#define ROOT	(-1)
#define U1	12345
#define U2	12346

enum ptracer { PTRACER_NONE, PTRACER_TRACER, PTRACER_ANY };

/* Yama ptrace_scope of a case: ANY_SCOPE runs with 0 when Yama is there. */
enum { ANY_SCOPE, SCOPE0, SCOPE1, SCOPE2 };

struct pcase {
	int yama;		/* ANY_SCOPE or SCOPEn */
	int tracer_uid;		/* ROOT or a uid (gid the same) */
	bool tracer_drops_cap;	/* drop CAP_SYS_PTRACE */
	bool ancestor;		/* the tracer forks the target */
	int target_uid;		/* ROOT or a uid; ignored if ancestor */
	int target_gid;		/* 0: same as the uid */
	bool nondumpable;	/* target did PR_SET_DUMPABLE 0 */
	enum ptracer ptracer;	/* target's PR_SET_PTRACER */
	int tracer_euid;	/* not 0: effective, saved and fs uid */
	bool tracer_no_effective; /* capabilities permitted, none effective */
	bool shares_mm;		/* the target clone(CLONE_VM)s the tracer */
	int expect;		/* 0 or EPERM */
	bool documented;	/* create answers .create, which
				 * posix_trace(7) documents as different */
	int create;
};

FIXTURE(privilege) {
	int saved_scope;
	struct st_agent tracer;
	struct st_agent target;
	struct st_agent sub;	/* target forked by the tracer */
	int sub_sv[2];
};

FIXTURE_SETUP(privilege)
{
	self->tracer.pid = self->target.pid = self->sub.pid = -1;
	self->tracer.fd = self->target.fd = self->sub.fd = -1;
	self->sub_sv[0] = self->sub_sv[1] = -1;
	self->saved_scope = -1;
	ST_REQUIRE_MODULE();
	ST_REQUIRE_ROOT();
	self->saved_scope = st_ptrace_scope();
	if (self->saved_scope == 3)
		ST_SKIP("Yama ptrace_scope is 3 until reboot");
	/* Orphaned grandchildren come back to us to be reaped. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
}

FIXTURE_TEARDOWN(privilege)
{
	pid_t sub = self->sub.pid;

	if (sub > 0)
		kill(sub, SIGKILL);
	st_agent_kill(&self->target);
	st_agent_kill(&self->tracer);
	if (sub > 0)
		waitpid(sub, NULL, 0);
	if (self->sub.fd >= 0)
		close(self->sub.fd);
	if (self->sub_sv[0] >= 0)
		close(self->sub_sv[0]);
	if (self->sub_sv[1] >= 0)
		close(self->sub_sv[1]);
	if (self->saved_scope >= 0)
		st_set_ptrace_scope(self->saved_scope);
}

static void run_case(struct __test_metadata *_metadata,
		     FIXTURE_DATA(privilege) *self, const struct pcase *c)
{
	struct st_agent *target = &self->target, *tracer = &self->tracer;
	int create_ret, ptrace_ret, tpid = -1, ret, create_expect;
	int scope = c->yama == ANY_SCOPE ? 0 : c->yama - SCOPE0;
	int dumpable = !c->nondumpable;

	if (self->saved_scope < 0) {
		if (c->yama != ANY_SCOPE || c->ptracer != PTRACER_NONE)
			ST_SKIP("Yama is not active");
	} else {
		ASSERT_EQ(0, st_set_ptrace_scope(scope));
		ASSERT_EQ(scope, st_ptrace_scope());
	}

	/* The sub-agent's socket must exist before its parent forks. */
	ASSERT_EQ(0, st_agent_socket(self->sub_sv));
	if (c->shares_mm) {
		/* The target, then the tracer in its memory: a uid change of
		 * the tracer makes that memory non-dumpable, and the
		 * tracer's STA_SETCREDS below makes it dumpable again.
		 */
		ASSERT_EQ(0, st_agent_start(target));
		if (c->target_uid != ROOT) {
			ASSERT_EQ(0, st_agent_op(target, STA_SETCREDS,
						 c->target_uid, c->target_uid,
						 1, NULL));
		}
		ASSERT_EQ(0, st_agent_op(target, STA_SPAWN_VM, self->sub_sv[1],
					 0, 0, &self->sub.pid));
		close(self->sub_sv[1]);
		self->sub_sv[1] = -1;
		self->sub.fd = self->sub_sv[0];
		self->sub_sv[0] = -1;
		tracer = &self->sub;
	} else {
		ASSERT_EQ(0, st_agent_start(tracer));
	}
	/* A tracer sharing the target's memory has the target's ids. */
	if (c->tracer_euid) {
		ASSERT_EQ(0, st_agent_op(tracer, STA_SPLIT_UIDS,
					 c->tracer_uid, c->tracer_euid, 0,
					 NULL));
	} else if (c->tracer_uid != ROOT &&
		   !(c->shares_mm && c->tracer_uid == c->target_uid)) {
		ASSERT_EQ(0, st_agent_op(tracer, STA_SETCREDS,
					 c->tracer_uid, c->tracer_uid, 1,
					 NULL));
	}
	if (c->tracer_drops_cap) {
		ASSERT_EQ(0, st_agent_op(tracer, STA_DROP_CAP,
					 CAP_SYS_PTRACE, 0, 0, NULL));
	}
	if (c->tracer_no_effective) {
		ASSERT_EQ(0, st_agent_op(tracer, STA_CLEAR_EFFECTIVE, 0, 0, 0,
					 NULL));
	}

	if (c->shares_mm) {
		/* target set up above */
	} else if (c->ancestor) {
		ASSERT_EQ(0, st_agent_op(tracer, STA_SPAWN,
					 self->sub_sv[1], 0, 0,
					 &self->sub.pid));
		close(self->sub_sv[1]);
		self->sub_sv[1] = -1;
		self->sub.fd = self->sub_sv[0];
		self->sub_sv[0] = -1;
		target = &self->sub;
		ASSERT_EQ(0, st_agent_op(target, STA_DUMPABLE, dumpable, 0,
					 0, NULL));
	} else {
		ASSERT_EQ(0, st_agent_start(target));
		if (c->target_uid != ROOT) {
			ASSERT_EQ(0, st_agent_op(target, STA_SETCREDS,
						 c->target_uid,
						 c->target_gid ? c->target_gid :
						 c->target_uid,
						 dumpable, NULL));
		} else {
			ASSERT_EQ(0, st_agent_op(target, STA_DUMPABLE,
						 dumpable, 0, 0, NULL));
		}
	}
	ASSERT_EQ(0, st_agent_op(target, STA_GETPID, 0, 0, 0, &tpid));
	ASSERT_GT(tpid, 0);

	if (c->ptracer == PTRACER_TRACER) {
		ASSERT_EQ(0, st_agent_set_ptracer(target,
						  (unsigned long)tracer->pid));
	} else if (c->ptracer == PTRACER_ANY) {
		ASSERT_EQ(0, st_agent_set_ptracer(target, PR_SET_PTRACER_ANY));
	}

	create_ret = st_agent_op(tracer, STA_CREATE_PROBE, tpid, 0, 0, NULL);
	ptrace_ret = st_agent_op(tracer, STA_PTRACE_PROBE, tpid, 0, 0, NULL);
	create_expect = c->documented ? c->create : c->expect;
	TH_LOG("scope %d: posix_trace_create %d, ptrace attach %d, expected %d, %d",
	       scope, create_ret, ptrace_ret, create_expect, c->expect);
	if (!c->documented) {
		EXPECT_EQ(ptrace_ret, create_ret)
			TH_LOG("posix_trace_create and PTRACE_ATTACH disagree");
	}
	EXPECT_EQ(c->expect, ptrace_ret) TH_LOG("test premise: ptrace");
	EXPECT_EQ(create_expect, create_ret);

	/* The target survived both probes. */
	ret = st_agent_op(target, STA_GETPID, 0, 0, 0, &tpid);
	ASSERT_EQ(0, ret);
	/* The tracer can always trace itself. */
	ASSERT_EQ(0, st_agent_op(tracer, STA_CREATE_PROBE, 0, 0, 0, NULL));
}

#define PCASE(name, ...)						\
	TEST_F(privilege, name)						\
	{								\
		const struct pcase c = { __VA_ARGS__ };			\
		run_case(_metadata, self, &c);				\
	}

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(same_uid_tracer_may_trace,
      .tracer_uid = U1, .target_uid = U1, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(other_uid_tracer_is_eperm,
      .tracer_uid = U1, .target_uid = U2, .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 (gids must match too) */
PCASE(same_uid_other_gid_is_eperm,
      .tracer_uid = U1, .target_uid = U1, .target_gid = U2,
      .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(root_tracer_may_trace_other_uid,
      .tracer_uid = ROOT, .target_uid = U2, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (CAP_SYS_PTRACE is what counts) */
PCASE(root_without_cap_sys_ptrace_tracing_other_uid_is_eperm,
      .tracer_uid = ROOT, .tracer_drops_cap = true, .target_uid = U2,
      .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 (target has capabilities the tracer lacks) */
PCASE(root_without_cap_sys_ptrace_tracing_full_root_is_eperm,
      .tracer_uid = ROOT, .tracer_drops_cap = true, .target_uid = ROOT,
      .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(nondumpable_same_uid_target_is_eperm,
      .tracer_uid = U1, .target_uid = U1, .nondumpable = true,
      .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(root_tracer_may_trace_nondumpable_target,
      .tracer_uid = ROOT, .target_uid = U1, .nondumpable = true,
      .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope0_non_ancestor_same_uid_may_trace,
      .yama = SCOPE0, .tracer_uid = U1, .target_uid = U1, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope1_non_ancestor_is_eperm,
      .yama = SCOPE1, .tracer_uid = U1, .target_uid = U1, .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope1_ancestor_may_trace,
      .yama = SCOPE1, .tracer_uid = U1, .ancestor = true, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope1_declared_ptracer_may_trace,
      .yama = SCOPE1, .tracer_uid = U1, .target_uid = U1,
      .ptracer = PTRACER_TRACER, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope1_ptracer_any_may_trace,
      .yama = SCOPE1, .tracer_uid = U1, .target_uid = U1,
      .ptracer = PTRACER_ANY, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope1_root_may_trace_non_descendant,
      .yama = SCOPE1, .tracer_uid = ROOT, .target_uid = U2, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope2_ancestor_without_cap_is_eperm,
      .yama = SCOPE2, .tracer_uid = U1, .ancestor = true, .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope2_declared_ptracer_is_eperm,
      .yama = SCOPE2, .tracer_uid = U1, .target_uid = U1,
      .ptracer = PTRACER_TRACER, .expect = EPERM)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope2_root_may_trace,
      .yama = SCOPE2, .tracer_uid = ROOT, .target_uid = U2, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(yama_scope2_root_without_cap_sys_ptrace_is_eperm,
      .yama = SCOPE2, .tracer_uid = ROOT, .tracer_drops_cap = true,
      .target_uid = U2, .expect = EPERM)

/*
 * ptrace(2) compares the caller's real ids (PTRACE_MODE_REALCREDS), the
 * kernel's /proc check the fs ids: the module asks with the real ones.
 */
/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(real_uid_not_fsuid_decides_same,
      .tracer_uid = U1, .tracer_euid = U2, .target_uid = U1, .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(real_uid_not_fsuid_decides_other,
      .tracer_uid = U1, .tracer_euid = U2, .target_uid = U2,
      .target_gid = U1, .expect = EPERM)

/*
 * Documented differences (posix_trace(7), Privileges).  commoncap compares
 * the target's permitted capabilities with the caller's effective ones in
 * the kernel's /proc check, with its permitted ones for ptrace(2): a root
 * caller with nothing effective is refused a full root target.
 */
/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(root_with_capabilities_only_permitted_is_refused_documented,
      .tracer_uid = ROOT, .tracer_no_effective = true, .target_uid = ROOT,
      .expect = 0, .documented = true, .create = EPERM)

/* A process sharing the caller's memory: the credential rules decide. */
/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(memory_sharing_same_uid_may_trace,
      .yama = SCOPE0, .shares_mm = true, .tracer_uid = U1, .target_uid = U1,
      .expect = 0)

/* REQ: CREATE-6 RULE-85 5.16 */
PCASE(memory_sharing_other_uid_is_eperm,
      .shares_mm = true, .tracer_uid = U1, .target_uid = ROOT,
      .expect = EPERM)

/* ... and no LSM is asked: Yama would refuse the attach to a parent. */
/* REQ: CREATE-6 RULE-85 5.16 (Yama) */
PCASE(memory_sharing_yama_scope1_is_not_asked_documented,
      .yama = SCOPE1, .shares_mm = true, .tracer_uid = U1, .target_uid = U1,
      .expect = EPERM, .documented = true, .create = 0)

/*
 * A group whose leader has exited and whose threads each start the next
 * one and exit: the thread the check picks is mostly on its way out.  The
 * kernel's /proc check lets a task without an mm through unchecked on
 * 6.1, so a check that did not prove it checked the thread it picked
 * (before the fix: any open of <tid>/mem succeeding) let an unprivileged
 * caller trace root this way.  Each thread has a descriptor table of its
 * own, CHAIN_FDS deep, which its exit closes after it let go of its mm:
 * that is the window, from microseconds to milliseconds.
 */
#define CHAIN_FDS	1000

static atomic_uint chain_ready;

static void *chain_thread(void *p)
{
	unsigned int gen;
	pthread_attr_t a;
	pthread_t th;
	int fd;

	(void)p;
	if (unshare(CLONE_FILES))
		_exit(3);
	for (fd = dup(0); fd >= 0 && fd < CHAIN_FDS; fd = dup(0))
		;
	gen = atomic_fetch_add(&chain_ready, 1) + 1;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	while (pthread_create(&th, &a, chain_thread, NULL))
		sched_yield();
	/* Our table is ours alone once the next thread has its own. */
	while (atomic_load(&chain_ready) == gen)
		sched_yield();
	return NULL;
}

/*
 * Up to CHAIN_TRIES creates, for at most CHAIN_SECONDS: on a slow machine
 * the count, not the harness timeout, gives way.  30000 took under 6 s in
 * the TCG VM of our 2-core host, and went past the harness's 30 s on CI.
 * CHAIN_MIN_TRIES is what a run must reach to mean anything.
 */
#define CHAIN_TRIES	30000
#define CHAIN_SECONDS	12
#define CHAIN_MIN_TRIES	1000

/* REQ: CREATE-6 RULE-85 5.16 */
TEST_F_TIMEOUT(privilege, exiting_threads_of_a_group_without_leader_never_let_a_refused_caller_in, 90)
{
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) + CHAIN_SECONDS * 1000000000ull;
	int tries = 0, ok = 0, eperm = 0, other = 0, v[3];
	pid_t victim;
	pthread_t th;

	if (self->saved_scope >= 0)
		ASSERT_EQ(0, st_set_ptrace_scope(0));
	victim = fork();
	ASSERT_GE(victim, 0);
	if (victim == 0) {
		if (pthread_create(&th, NULL, chain_thread, NULL))
			_exit(2);
		pthread_exit(NULL);	/* a zombie leader */
	}
	self->sub.pid = victim;	/* killed and reaped by the teardown */
	ASSERT_EQ(0, st_agent_start(&self->tracer));
	ASSERT_EQ(0, st_agent_op(&self->tracer, STA_SETCREDS, U1, U1, 1, NULL));
	while (tries < CHAIN_TRIES &&
	       (tries < CHAIN_MIN_TRIES || st_now_ns(CLOCK_MONOTONIC) < end)) {
		struct st_msg m = { .op = STA_CREATE_LOOP, .a = victim, .b = 100 };
		struct st_reply r;

		ASSERT_EQ(0, st_agent_call(&self->tracer, &m, &r));
		memcpy(v, r.v, sizeof(v));
		ok += v[0];
		eperm += v[1];
		other += v[2];
		tries += 100;
	}
	TH_LOG("%d tries: %d created, %d EPERM, %d other", tries, ok, eperm, other);
	EXPECT_EQ(0, ok) TH_LOG("an unprivileged caller traced root");
	EXPECT_GT(eperm, 0);
	EXPECT_GE(tries, CHAIN_MIN_TRIES);
}

/* REQ: RULE-84 5.16 (own process always, whatever the scope) */
TEST_F(privilege, unprivileged_tracer_may_always_trace_itself)
{
	int scope, pid;

	ASSERT_EQ(0, st_agent_start(&self->tracer));
	ASSERT_EQ(0, st_agent_op(&self->tracer, STA_SETCREDS, U1, U1, 0,
				 NULL));
	ASSERT_EQ(0, st_agent_op(&self->tracer, STA_GETPID, 0, 0, 0, &pid));
	for (scope = 0; scope <= 2; scope++) {
		if (self->saved_scope >= 0) {
			ASSERT_EQ(0, st_set_ptrace_scope(scope));
		}
		/* Non-dumpable does not matter for oneself either. */
		EXPECT_EQ(0, st_agent_op(&self->tracer, STA_CREATE_PROBE, 0,
					 0, 0, NULL));
		EXPECT_EQ(0, st_agent_op(&self->tracer, STA_CREATE_PROBE, pid,
					 0, 0, NULL));
		if (self->saved_scope < 0)
			break;
	}
}

TEST_HARNESS_MAIN
