/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process's status page (event.c), for the layers above it.
 */
#ifndef PT_EVENT_H
#define PT_EVENT_H

#include <linux/posix_trace.h>

/* The process's page as a writable copy, for the fake (host benchmark)
 * mode (bench_fake.c). */
struct posix_trace_proc_page *pt_status_fake(void);

#endif /* PT_EVENT_H */
