// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace(1): record a program into a trace log, attach to one,
 * report, stat and convert logs.  Each subcommand lives in its own file.
 */
#include <string.h>
#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
} cmds[] = {
	{ "record", cmd_record, "[OPTIONS] -- CMD [ARGS]" },
	{ "attach", cmd_attach, "[OPTIONS] PID..." },
	{ "report", cmd_report, "LOG [--format text|json|csv] [--filter NAME,...] [--summary]" },
	{ "stat", cmd_stat, "LOG" },
	{ "convert", cmd_convert, "LOG --ctf DIR | --chrome FILE.json" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fputs("usage: posix-trace COMMAND ...\n", f);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  posix-trace %-8s %s\n", cmds[i].name, cmds[i].args);
	fputs("\"posix-trace COMMAND --help\" for a command's options; see posix-trace(1).\n", f);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2) {
		usage(stderr);
		return PT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return PT_EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	}
	pt_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return PT_EXIT_USAGE;
}
