// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_scope3_test - with Yama ptrace_scope 3 ("no attach"), nobody,
 * not even root, may trace another process, and posix_trace_create() of
 * another pid fails like ptrace does, while tracing oneself still works.
 *
 * Setting ptrace_scope to 3 cannot be undone until reboot: this binary is
 * listed in TESTS.isolated and runs alone in a fresh VM boot, as root.
 */
#include "pt_selftest.h"

FIXTURE(scope3) {
	struct st_agent child;
	struct st_agent other;
	trace_id_t trid[2];
};

FIXTURE_SETUP(scope3)
{
	self->child.pid = self->other.pid = -1;
	self->child.fd = self->other.fd = -1;
	ST_REQUIRE_MODULE();
	ST_REQUIRE_ROOT();
	if (st_ptrace_scope() < 0)
		ST_SKIP("Yama is not active");
}

FIXTURE_TEARDOWN(scope3)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->trid[i] > 0)
			posix_trace_shutdown(self->trid[i]);
	st_agent_kill(&self->child);
	st_agent_kill(&self->other);
}

/* REQ: CREATE-6 RULE-84 RULE-85 5.16 (Yama ptrace_scope 3) */
TEST_F(scope3, scope3_forbids_tracing_others_even_for_root)
{
	struct st_ev ev;
	int cpid, opid;

	/* A root child (we are its ancestor) and a child of another uid. */
	ASSERT_EQ(0, st_agent_start(&self->child));
	ASSERT_EQ(0, st_agent_op(&self->child, STA_GETPID, 0, 0, 0, &cpid));
	ASSERT_EQ(0, st_agent_start(&self->other));
	ASSERT_EQ(0, st_agent_op(&self->other, STA_SETCREDS, 12345, 12345, 1,
				 NULL));
	ASSERT_EQ(0, st_agent_op(&self->other, STA_GETPID, 0, 0, 0, &opid));
	/* Before: root may trace both. */
	if (st_ptrace_scope() != 3) {
		ASSERT_EQ(0, st_create_probe(cpid));
		ASSERT_EQ(0, st_create_probe(opid));
	}

	ASSERT_EQ(0, st_set_ptrace_scope(3));
	ASSERT_EQ(3, st_ptrace_scope());
	/* Declaring us as allowed tracer changes nothing at scope 3. */
	ASSERT_EQ(0, st_agent_set_ptracer(&self->other, PR_SET_PTRACER_ANY));

	EXPECT_EQ(EPERM, st_ptrace_probe(cpid)) TH_LOG("test premise");
	EXPECT_EQ(EPERM, st_create_probe(cpid));
	EXPECT_EQ(EPERM, st_ptrace_probe(opid)) TH_LOG("test premise");
	EXPECT_EQ(EPERM, st_create_probe(opid));
	/* Nor may the other-uid process trace our child. */
	EXPECT_EQ(EPERM, st_agent_op(&self->other, STA_CREATE_PROBE, cpid, 0,
				     0, NULL));

	/* Tracing oneself still works, by 0 and by one's own pid. */
	ASSERT_EQ(0, st_create(0, 65536, 0, 0, &self->trid[0]));
	ASSERT_EQ(0, st_create(getpid(), 65536, 0, 0, &self->trid[1]));
	ASSERT_EQ(0, st_start_and_skip(self->trid[0]));
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "s3", 2);
	ASSERT_EQ(0, st_try(self->trid[0], &ev));
	ASSERT_EQ(0, ev.unavailable);
	ASSERT_EQ(getpid(), ev.info.posix_pid);
	/* So does an unprivileged process. */
	EXPECT_EQ(0, st_agent_op(&self->other, STA_CREATE_PROBE, 0, 0, 0,
				 NULL));
	EXPECT_EQ(0, st_agent_op(&self->other, STA_CREATE_PROBE, opid, 0, 0,
				 NULL));
}

TEST_HARNESS_MAIN
