// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process's descriptor of /dev/posix_trace.  Opened on first use with
 * O_CLOEXEC; a fork()ed child shares it, which is fine because the module
 * decides everything from the calling task, never from the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "internal.h"
#include "dev.h"

static atomic_int pt_fd = -1;

int pt_dev_fd(void)
{
	int fd = atomic_load_explicit(&pt_fd, memory_order_acquire);
	int expected = -1, saved = errno, err, tries = 0;

	if (fd >= 0)
		return fd;
	do
		fd = open(POSIX_TRACE_DEVICE, O_RDWR | O_CLOEXEC);
	while (fd < 0 && errno == EINTR && ++tries < 16);
	err = errno;
	errno = saved;
	if (fd < 0)
		return (err == ENOENT || err == ENXIO || err == ENODEV) ? -ENOSYS : -err;
	if (!atomic_compare_exchange_strong(&pt_fd, &expected, fd)) {
		close(fd);	/* another thread won */
		errno = saved;
		fd = expected;
	}
	return fd;
}

int pt_dev_fd_opened(void)
{
	return atomic_load_explicit(&pt_fd, memory_order_acquire);
}

int pt_ioctl(unsigned long cmd, void *arg)
{
	int fd = pt_dev_fd(), saved = errno, ret = 0;

	if (fd < 0)
		return -fd;
	if (ioctl(fd, cmd, arg) < 0)
		ret = errno;
	errno = saved;
	return ret;
}

int pt_query(struct posix_trace_query *out)
{
	static struct posix_trace_query cache;
	static atomic_int cached;
	struct posix_trace_query q = { .size = sizeof(q) };
	int ret;

	if (!atomic_load_explicit(&cached, memory_order_acquire)) {
		ret = pt_ioctl(POSIX_TRACE_IOC_QUERY, &q);
		if (ret)
			return ret;
		cache = q;
		atomic_store_explicit(&cached, 1, memory_order_release);
	}
	*out = cache;
	return 0;
}
