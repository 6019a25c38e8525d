/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The merge of all lanes (merge.c) and one attempt at reading an event
 * under the handle's lock (pt_try_read(), inline in the getnext calls).
 */
#ifndef PT_MERGE_H
#define PT_MERGE_H

#include <errno.h>
#include "lock.h"
#include "out.h"
#include "pending.h"

/* The oldest record of all lanes: 2 straight to @out, 1 queued, 0 none,
 * -1 held back (pt_inflight()) or too many skipped. */
int pt_fetch(struct pt_handle *h, const struct pt_out *out);

/* One attempt without sleeping: 0 and *@got set, or an errno.  *@held
 * says that a record is there but waits for an older one being written. */
static inline __attribute__((always_inline)) int pt_try_read(struct pt_handle *h, const struct pt_out *out, int *got,
							     int *held)
{
	int ret = 0;

	*got = 0;
	*held = 0;
	pt_lock(&h->lock);
	if (h->dead) {
		ret = EINVAL;
	} else if (h->npending) {
		pt_deliver(h, out);
		*got = 1;
	} else {
		switch (pt_fetch(h, out)) {
		case -1:
			*held = 1;
			break;
		case 1:
			pt_deliver(h, out);
			/* fall through */
		case 2:
			*got = 1;
		}
	}
	pt_unlock(&h->lock);
	return ret;
}

#endif /* PT_MERGE_H */
