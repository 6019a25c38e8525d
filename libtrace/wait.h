/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting for an event (wait.c), when a read found nothing at hand.
 */
#ifndef PT_WAIT_H
#define PT_WAIT_H

#include <time.h>
#include "handle.h"
#include "out.h"

/* Sleep until an event comes (mode 0) or until @abstime (mode 2, 3: past
 * it), reading again after each wake-up.  @put: the caller's reference
 * to @h, dropped if the thread is cancelled. */
int pt_getnext_wait(struct pt_handle *h, int put, trace_id_t trid,
		    const struct pt_out *out, int mode,
		    const struct timespec *abstime, int *got, int held);

#endif /* PT_WAIT_H */
