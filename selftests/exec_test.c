// SPDX-License-Identifier: GPL-2.0
/*
 * A traced or untraced process across exec (spec 5.17): an untraced
 * process starts the new image with a fresh, empty mapping of event
 * names; a traced one keeps its mapping.
 * The new images are this binary again, run with HELPER_ARG.
 */
#include "pt_selftest.h"

#define HELPER_ARG	"--pt-exec-helper"

enum {
	C_PIPE = PT_C_FIRST_OWN,
	C_EXEC,
};

/* ------------------------------------------------------------------ */
/* New images                                                          */
/* ------------------------------------------------------------------ */

/* "names" BACK NAME...: open each name in order, send the ids over BACK. */
static int names_image(int back, int argc, char **argv)
{
	trace_event_id_t id;
	int i;

	for (i = 0; i < argc; i++) {
		if (posix_trace_eventid_open(argv[i], &id))
			return C_SETUP;
		if (write(back, &id, sizeof(id)) != sizeof(id))
			return C_PIPE;
	}
	return 0;
}

static void exec_helper(const char *path, const char *mode, int back,
			char *const *names)
{
	char *argv[8] = { "exec_test", HELPER_ARG, (char *)mode };
	char fd[16];
	int i = 4;

	snprintf(fd, sizeof(fd), "%d", back);
	argv[3] = fd;
	while (names && *names && i < 7)
		argv[i++] = *names++;
	argv[i] = NULL;
	execv(path, argv);
	_exit(C_EXEC);
}

/* ------------------------------------------------------------------ */
/* Name mappings across exec                                           */
/* ------------------------------------------------------------------ */

FIXTURE(exec) {
	pid_t child;
	trace_id_t trid;
};

FIXTURE_SETUP(exec)
{
	self->child = -1;
	self->trid = 0;
	PT_REQUIRE_MODULE();
}

FIXTURE_TEARDOWN(exec)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->trid)
		posix_trace_shutdown(self->trid);
}

/*
 * A child opens "alpha" and "beta" (ids sent in @before), is traced by a
 * stream of ours if @traced, then execs an image that opens @after in that
 * order (ids in @ids).
 */
static void names_across_exec(struct __test_metadata *_metadata,
			      FIXTURE_DATA(exec) *self, bool traced,
			      char *const *after, trace_event_id_t before[2],
			      trace_event_id_t *ids, int n)
{
	int go[2], back[2], status, i;
	char c;

	if (traced)
		PT_REQUIRE_TRACE_CHILDREN();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(back));
	fflush(NULL);
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(go[1]);
		close(back[0]);
		if (posix_trace_eventid_open("alpha", &before[0]) ||
		    posix_trace_eventid_open("beta", &before[1]))
			_exit(C_SETUP);
		if (write(back[1], before, 2 * sizeof(*before)) !=
		    2 * sizeof(*before))
			_exit(C_PIPE);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		exec_helper("/proc/self/exe", "names", back[1], after);
	}
	close(go[0]);
	close(back[1]);
	ASSERT_EQ((ssize_t)(2 * sizeof(*before)),
		  read(back[0], before, 2 * sizeof(*before)));
	if (traced)
		ASSERT_EQ(0, pt_create(self->child, PT_SMALL_STREAM, 0, 0,
				       &self->trid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 0; i < n; i++) {
		ASSERT_EQ((ssize_t)sizeof(ids[i]),
			  read(back[0], &ids[i], sizeof(ids[i])))
			TH_LOG("new image sent %d of %d ids", i, n);
	}
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = -1;
	close(go[1]);
	close(back[0]);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status 0x%x", status);
}

/* REQ: 5.17 (untraced: a fresh mapping at exec) */
TEST_F(exec, untraced_process_gets_fresh_name_mapping_at_exec)
{
	static char *const after[] = { "gamma", "alpha", NULL };
	trace_event_id_t before[2], ids[2];

	names_across_exec(_metadata, self, false, after, before, ids, 2);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 1, before[0]);
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 2, before[1]);
	/* Ids are handed out afresh, in the new order. */
	EXPECT_EQ(before[0], ids[0]) TH_LOG("\"gamma\" did not get the first id");
	EXPECT_EQ(before[1], ids[1]) TH_LOG("\"alpha\" kept its old id");
}

/* REQ: 5.17 RULE-61 (traced: the mapping survives exec) */
TEST_F(exec, traced_process_keeps_name_mapping_at_exec)
{
	static char *const after[] = { "beta", "alpha", "gamma", NULL };
	trace_event_id_t before[2], ids[3];
	char name[TRACE_EVENT_NAME_MAX + 1];

	names_across_exec(_metadata, self, true, after, before, ids, 3);
	EXPECT_EQ(before[1], ids[0]);
	EXPECT_EQ(before[0], ids[1]);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT + 3, ids[2]);
	/* The stream names them as the process does. */
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, ids[2], name));
	EXPECT_STREQ("gamma", name);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], HELPER_ARG) &&
	    !strcmp(argv[2], "names"))
		return names_image(atoi(argv[3]), argc - 4, argv + 4);
	return test_harness_run(argc, argv);
}
