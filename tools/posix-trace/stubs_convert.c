// SPDX-License-Identifier: LGPL-2.1-or-later
/* Placeholder until convert.c exists (helper B). */
#include "cli.h"

int cmd_convert(int argc, char **argv) { (void)argc; (void)argv; pt_err("convert: not implemented"); return PT_EXIT_FAIL; }
