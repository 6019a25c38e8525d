// SPDX-License-Identifier: LGPL-2.1-or-later
/* Placeholder until record.c/attach.c/report.c/stat.c exist (helper A). */
#include "cli.h"

int cmd_record(int argc, char **argv) { (void)argc; (void)argv; pt_err("record: not implemented"); return PT_EXIT_FAIL; }
int cmd_attach(int argc, char **argv) { (void)argc; (void)argv; pt_err("attach: not implemented"); return PT_EXIT_FAIL; }
int cmd_report(int argc, char **argv) { (void)argc; (void)argv; pt_err("report: not implemented"); return PT_EXIT_FAIL; }
int cmd_stat(int argc, char **argv) { (void)argc; (void)argv; pt_err("stat: not implemented"); return PT_EXIT_FAIL; }
