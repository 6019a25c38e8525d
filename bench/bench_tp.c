// SPDX-License-Identifier: GPL-2.0
/*
 * The LTTng-UST probe provider (libbench_tp.so).  It links liblttng-ust,
 * whose constructor registers with the session daemon and starts listener
 * threads; ptbench dlopen()s it only for the LTTng rows, so the other rows
 * run without LTTng in the process.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "bench_tp.h"
