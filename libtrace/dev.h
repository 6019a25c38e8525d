/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /dev/posix_trace (dev.c): the one descriptor of the process and the
 * ioctls on it.
 */
#ifndef PT_DEV_H
#define PT_DEV_H

#include <linux/posix_trace.h>

/* dev.c: the process's /dev/posix_trace descriptor (opened on first use,
 * O_CLOEXEC), or -errno (-ENOSYS when the module is absent). */
int pt_dev_fd(void);
/* dev.c: that descriptor if it is open, else -1 (opens nothing). */
int pt_dev_fd_opened(void);
/* dev.c: ioctl on pt_dev_fd() preserving errno; returns 0 or an errno. */
int pt_ioctl(unsigned long cmd, void *arg);
/* dev.c: POSIX_TRACE_IOC_QUERY, cached; 0 or an errno. */
int pt_query(struct posix_trace_query *q);

#endif /* PT_DEV_H */
