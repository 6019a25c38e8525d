// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_event() and posix_trace_eventid_open() (spec 3.3).
 *
 * The kernel's status page of this process is mapped with MAP_FIXED over
 * pt_status, a page of the library's own data, so the untraced fast path
 * is one load from a link-time address and one compare (EVENT-6), and an
 * event filtered out by every stream one more load and test.
 * Before the first call the page says "active" to reach the slow path,
 * which maps the real page (or clears the flag when there is no module).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "dev.h"
#include "event.h"
#include "fork.h"
#include "internal.h"
#include "writer.h"

#define PT_PAGE	4096

static union {
	struct posix_trace_proc_page page;
	char bytes[PT_PAGE];
} pt_status __attribute__((aligned(PT_PAGE))) = {
	.page = { .active = 1, .wanted = { [0 ... POSIX_TRACE_ID_NR / 64 - 1] = ~0ULL } },
};

_Static_assert(__POSIX_TRACE_ID_NR == POSIX_TRACE_ID_NR, "<trace.h> and the uapi agree");

/* <trace.h>'s inline fast path reads the bitmap through this pointer; its
 * value never changes, the page behind it does. */
PT_EXPORT const unsigned long long *const __posix_trace_wanted =
	(const unsigned long long *)pt_status.page.wanted;

enum { PT_UNMAPPED, PT_MAPPING, PT_MAPPED, PT_NO_MODULE };
static atomic_int pt_status_state;

/*
 * The device could not be opened for a reason that passes (EMFILE,
 * ENFILE, ENOMEM, EAGAIN; EINTR is retried at once, dev.c), or the page
 * not mapped: a later event tries again, the first 1 ms later, then
 * twice as late each time up to PT_RETRY_MAX_NS, so a process that stays
 * out of descriptors costs a clock read per event, not a system call.
 * Meanwhile its events are lost unless the descriptor is open (then they
 * take the ioctl path).  The module missing, or the device refused
 * (EACCES, EPERM, ...), means untraced for the process's life.
 */
#define PT_RETRY_NS	1000000u
#define PT_RETRY_MAX_NS	1000000000u
static _Atomic uint64_t pt_retry_at;	/* CLOCK_MONOTONIC ns; 0: now */
static atomic_uint pt_retries;

static uint64_t pt_status_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int pt_open_passes(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM || err == EAGAIN ||
	       err == EINTR;
}

static void pt_status_retry_later(void)
{
	unsigned int n = atomic_fetch_add(&pt_retries, 1);
	uint64_t ns = n < 10 ? (uint64_t)PT_RETRY_NS << n : PT_RETRY_MAX_NS;

	if (ns > PT_RETRY_MAX_NS)
		ns = PT_RETRY_MAX_NS;
	atomic_store(&pt_retry_at, pt_status_clock() + ns);
}

static int pt_status_retry_due(void)
{
	uint64_t at = atomic_load(&pt_retry_at);

	return !at || pt_status_clock() >= at;
}

/* Async-signal-safe: open() and mmap() only; a nested call while another
 * is mapping just takes the ioctl path. */
static void pt_status_map(void)
{
	int expected = PT_UNMAPPED, fd, saved = errno;
	void *p = MAP_FAILED;

	if (!pt_status_retry_due() ||
	    !atomic_compare_exchange_strong(&pt_status_state, &expected, PT_MAPPING))
		return;
	fd = pt_dev_fd();
	if (fd < 0 && !pt_open_passes(-fd)) {
		memset(pt_status.page.wanted, 0, sizeof(pt_status.page.wanted));
		pt_status.page.active = 0;
		atomic_store(&pt_status_state, PT_NO_MODULE);
		return;
	}
	if (fd >= 0)
		p = mmap(&pt_status, PT_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
			 POSIX_TRACE_MMAP_PROC_PAGE);
	errno = saved;
	if (p == MAP_FAILED)
		pt_status_retry_later();
	else
		atomic_store(&pt_retries, 0);
	atomic_store(&pt_status_state, p == MAP_FAILED ? PT_UNMAPPED : PT_MAPPED);
}

static int pt_status_mapped(void)
{
	return atomic_load_explicit(&pt_status_state, memory_order_acquire) == PT_MAPPED;
}

/* Host benchmark: our own page instead of the kernel's. */
struct posix_trace_proc_page *pt_status_fake(void)
{
	int state = atomic_load(&pt_status_state);

	if (state != PT_MAPPED) {
		memset(&pt_status, 0, sizeof(pt_status));
		atomic_store(&pt_status_state, PT_MAPPED);
	}
	return &pt_status.page;
}

/* From fork.c: the child inherited the parent's page and lanes; map its
 * own page. */
static void pt_status_atfork_child(void)
{
	pt_writer_atfork_child();
	if (atomic_load(&pt_status_state) != PT_MAPPED)
		return;
	atomic_store(&pt_status_state, PT_UNMAPPED);
	atomic_store(&pt_retry_at, 0);
	atomic_store(&pt_retries, 0);
	pt_status_map();
}

__attribute__((constructor)) static void pt_status_init(void)
{
	pt_fork_on_child(PT_FORK_STATUS, pt_status_atfork_child);
}

static void __attribute__((noinline))
pt_event_slow(trace_event_id_t event_id, const void *data_ptr, size_t data_len,
	      void *address)
{
	struct pt_wevent ev = {
		.id = event_id, .data = data_ptr, .len = data_len, .address = address,
	};

	/* A clone()d child's first wanted event: its parent's page said so. */
	if (!pt_fork_check())
		return;
	if (__builtin_expect(!pt_status_mapped(), 0)) {
		pt_status_map();
		if (!__atomic_load_n(&pt_status.page.active, __ATOMIC_ACQUIRE))
			return;
	}
	if (pt_status_mapped())
		pt_writer_event(&pt_status.page, &ev);
	else if (pt_dev_fd_opened() >= 0)
		pt_event_ioctl(0, 0, &ev);	/* no page: the kernel does it all */
}

/*
 * Untraced or filtered out everywhere: one load and a branch (EVENT-6), the
 * test <trace.h> inlines into callers.  The page's wanted bits are all
 * clear whenever it is not active (the module's page, and pt_status_map()
 * without a module), so the bitmap alone decides.  In parentheses:
 * <trace.h> also defines posix_trace_event() as a macro.
 */
PT_EXPORT void (posix_trace_event)(trace_event_id_t event_id,
				 const void *restrict data_ptr, size_t data_len)
{
	if (__builtin_expect(!__posix_trace_wants((const unsigned long long *)
						  pt_status.page.wanted, event_id), 1))
		return;
	pt_event_slow(event_id, data_ptr, data_len, __builtin_return_address(0));
}

PT_EXPORT int posix_trace_eventid_open(const char *restrict event_name,
				       trace_event_id_t *restrict event_id)
{
	struct posix_trace_eventid e = { .size = sizeof(e) };
	size_t len;
	int ret;

	if (!event_name || !event_id)
		return EINVAL;
	pt_fork_check();
	len = strnlen(event_name, TRACE_EVENT_NAME_MAX + 1);
	if (len > TRACE_EVENT_NAME_MAX)
		return ENAMETOOLONG;
	e.name_len = (uint32_t)len;
	e.name_ptr = (uint64_t)(uintptr_t)event_name;
	ret = pt_ioctl(POSIX_TRACE_IOC_EVENTID_OPEN, &e);
	if (!ret)
		*event_id = e.event_id;
	return ret;
}
