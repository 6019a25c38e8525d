// SPDX-License-Identifier: GPL-2.0
/*
 * privilege_test - "appropriate privileges" to trace another process are
 * exactly those of ptrace(PTRACE_ATTACH) (PTRACE_MODE_ATTACH_REALCREDS,
 * LSMs and Yama included).  For each case a tracer process with given
 * credentials calls both posix_trace_create(target) and
 * ptrace(PTRACE_ATTACH, target); the two must agree, and must give the
 * expected answer.
 *
 * Needs root (to make tracers and targets of arbitrary uids and to set
 * kernel.yama.ptrace_scope, which is saved and restored).  Yama cases are
 * skipped when Yama is absent; everything is skipped when ptrace_scope is
 * already 3 (irreversible until reboot, see ptrace_scope3_test).
 */
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
	int expect;		/* 0 or EPERM */
};

FIXTURE(privilege) {
	int saved_scope;
	struct pt_agent tracer;
	struct pt_agent target;
	struct pt_agent sub;	/* target forked by the tracer */
	int sub_sv[2];
};

FIXTURE_SETUP(privilege)
{
	self->tracer.pid = self->target.pid = self->sub.pid = -1;
	self->tracer.fd = self->target.fd = self->sub.fd = -1;
	self->sub_sv[0] = self->sub_sv[1] = -1;
	self->saved_scope = -1;
	PT_REQUIRE_MODULE();
	PT_REQUIRE_ROOT();
	self->saved_scope = pt_ptrace_scope();
	if (self->saved_scope == 3)
		PT_SKIP("Yama ptrace_scope is 3 until reboot");
	/* Orphaned grandchildren come back to us to be reaped. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
}

FIXTURE_TEARDOWN(privilege)
{
	pid_t sub = self->sub.pid;

	if (sub > 0)
		kill(sub, SIGKILL);
	pt_agent_kill(&self->target);
	pt_agent_kill(&self->tracer);
	if (sub > 0)
		waitpid(sub, NULL, 0);
	if (self->sub.fd >= 0)
		close(self->sub.fd);
	if (self->sub_sv[0] >= 0)
		close(self->sub_sv[0]);
	if (self->sub_sv[1] >= 0)
		close(self->sub_sv[1]);
	if (self->saved_scope >= 0)
		pt_set_ptrace_scope(self->saved_scope);
}

static void run_case(struct __test_metadata *_metadata,
		     FIXTURE_DATA(privilege) *self, const struct pcase *c)
{
	struct pt_agent *target;
	int create_ret, ptrace_ret, tpid = -1, ret;
	int scope = c->yama == ANY_SCOPE ? 0 : c->yama - SCOPE0;
	int dumpable = !c->nondumpable;

	if (self->saved_scope < 0) {
		if (c->yama != ANY_SCOPE || c->ptracer != PTRACER_NONE)
			PT_SKIP("Yama is not active");
	} else {
		ASSERT_EQ(0, pt_set_ptrace_scope(scope));
		ASSERT_EQ(scope, pt_ptrace_scope());
	}

	/* The sub-agent's socket must exist before the tracer forks. */
	ASSERT_EQ(0, pt_agent_socket(self->sub_sv));
	ASSERT_EQ(0, pt_agent_start(&self->tracer));
	if (c->tracer_uid != ROOT) {
		ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_SETCREDS,
					 c->tracer_uid, c->tracer_uid, 1,
					 NULL));
	}
	if (c->tracer_drops_cap) {
		ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_DROP_CAP,
					 CAP_SYS_PTRACE, 0, 0, NULL));
	}

	if (c->ancestor) {
		ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_SPAWN,
					 self->sub_sv[1], 0, 0,
					 &self->sub.pid));
		close(self->sub_sv[1]);
		self->sub_sv[1] = -1;
		self->sub.fd = self->sub_sv[0];
		self->sub_sv[0] = -1;
		target = &self->sub;
		ASSERT_EQ(0, pt_agent_op(target, PTA_DUMPABLE, dumpable, 0,
					 0, NULL));
	} else {
		target = &self->target;
		ASSERT_EQ(0, pt_agent_start(target));
		if (c->target_uid != ROOT) {
			ASSERT_EQ(0, pt_agent_op(target, PTA_SETCREDS,
						 c->target_uid,
						 c->target_gid ? c->target_gid :
						 c->target_uid,
						 dumpable, NULL));
		} else {
			ASSERT_EQ(0, pt_agent_op(target, PTA_DUMPABLE,
						 dumpable, 0, 0, NULL));
		}
	}
	ASSERT_EQ(0, pt_agent_op(target, PTA_GETPID, 0, 0, 0, &tpid));
	ASSERT_GT(tpid, 0);

	if (c->ptracer == PTRACER_TRACER) {
		ASSERT_EQ(0, pt_agent_set_ptracer(target,
						  (unsigned long)self->tracer.pid));
	} else if (c->ptracer == PTRACER_ANY) {
		ASSERT_EQ(0, pt_agent_set_ptracer(target, PR_SET_PTRACER_ANY));
	}

	create_ret = pt_agent_op(&self->tracer, PTA_CREATE_PROBE, tpid, 0, 0,
				 NULL);
	ptrace_ret = pt_agent_op(&self->tracer, PTA_PTRACE_PROBE, tpid, 0, 0,
				 NULL);
	TH_LOG("scope %d: posix_trace_create %d, ptrace attach %d, expected %d",
	       scope, create_ret, ptrace_ret, c->expect);
	EXPECT_EQ(ptrace_ret, create_ret)
		TH_LOG("posix_trace_create and PTRACE_ATTACH disagree");
	EXPECT_EQ(c->expect, ptrace_ret) TH_LOG("test premise: ptrace");
	EXPECT_EQ(c->expect, create_ret);

	/* The target survived both probes. */
	ret = pt_agent_op(target, PTA_GETPID, 0, 0, 0, &tpid);
	ASSERT_EQ(0, ret);
	/* The tracer can always trace itself. */
	ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_CREATE_PROBE, 0, 0, 0,
				 NULL));
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

/* REQ: RULE-84 5.16 (own process always, whatever the scope) */
TEST_F(privilege, unprivileged_tracer_may_always_trace_itself)
{
	int scope, pid;

	ASSERT_EQ(0, pt_agent_start(&self->tracer));
	ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_SETCREDS, U1, U1, 0,
				 NULL));
	ASSERT_EQ(0, pt_agent_op(&self->tracer, PTA_GETPID, 0, 0, 0, &pid));
	for (scope = 0; scope <= 2; scope++) {
		if (self->saved_scope >= 0) {
			ASSERT_EQ(0, pt_set_ptrace_scope(scope));
		}
		/* Non-dumpable does not matter for oneself either. */
		EXPECT_EQ(0, pt_agent_op(&self->tracer, PTA_CREATE_PROBE, 0,
					 0, 0, NULL));
		EXPECT_EQ(0, pt_agent_op(&self->tracer, PTA_CREATE_PROBE, pid,
					 0, 0, NULL));
		if (self->saved_scope < 0)
			break;
	}
}

TEST_HARNESS_MAIN
