// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The blocking and timed getnext calls when nothing is at hand: the
 * kernel's WAIT, or naps while a record is held back or a writer lane
 * keeps the kernel answering at once.  The kernel is entered only to sleep
 * when every lane is empty.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "dev.h"
#include "merge.h"
#include "wait.h"

static int pt_wait(trace_id_t trid, const struct timespec *abstime)
{
	struct posix_trace_wait w = { .size = sizeof(w), .trid = (uint32_t)trid };
	int ret, oldtype;

	if (abstime) {
		w.flags = POSIX_TRACE_WAIT_TIMEOUT;
		if (abstime->tv_sec < 0)
			w.abstime = 0;
		else if ((uint64_t)abstime->tv_sec >= UINT64_MAX / 1000000000u)
			w.abstime = UINT64_MAX;	/* beyond any clock: saturate */
		else
			w.abstime = (uint64_t)abstime->tv_sec * 1000000000u +
				    (uint64_t)abstime->tv_nsec;
	}
	/* Only the blocking calls are cancellation points (spec 5.28); the
	 * kernel dequeues nothing while we sleep, so no event is lost. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	ret = pt_ioctl(POSIX_TRACE_IOC_WAIT, &w);
	pthread_setcanceltype(oldtype, &oldtype);
	return ret;
}

/* A traced process can keep a writer lane looking non-empty to the kernel:
 * the deadline is checked here too, so a timed read always ends. */
static int pt_deadline_passed(const struct timespec *abstime)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec > abstime->tv_sec ||
	       (now.tv_sec == abstime->tv_sec && now.tv_nsec >= abstime->tv_nsec);
}

/*
 * Naps instead of WAIT.  PT_NAP_HOLD: a record is there but waits for an
 * older one a writer is still writing (pt_inflight()); the kernel would
 * answer WAIT at once (it sees the record), and the writer commits, or
 * its stamp grows stale, within PT_INFLIGHT_NS.  PT_NAP_IDLE: WAIT said
 * a lane holds something and the read found nothing to deliver (a writer
 * lane holding what the reader skips, or a head it keeps moving): the
 * kernel would answer the next WAIT at once too, so nap first, 100 us
 * doubling up to PT_IDLE_NS, the kernel's own polling period of writer
 * lanes.  A caught signal gives EINTR, as WAIT would.
 */
enum { PT_NAP_NONE, PT_NAP_HOLD, PT_NAP_IDLE };
#define PT_NAP_NS	100000u
#define PT_IDLE_NS	10000000u

/* Sleep @ns, not past @abstime (CLOCK_REALTIME) if given. */
static int pt_nap(uint64_t ns, const struct timespec *abstime)
{
	struct timespec d, now;
	int saved = errno, ret = 0;
	int64_t left;

	if (abstime) {
		clock_gettime(CLOCK_REALTIME, &now);
		left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
		       (abstime->tv_nsec - now.tv_nsec);
		if (left <= 0)
			return 0;
		if ((uint64_t)left < ns)
			ns = (uint64_t)left;
	}
	d.tv_sec = (time_t)(ns / 1000000000u);
	d.tv_nsec = (long)(ns % 1000000000u);
	if (nanosleep(&d, NULL) && errno == EINTR)
		ret = EINTR;
	errno = saved;
	return ret;
}

static uint64_t pt_idle_ns(unsigned int idle)
{
	uint64_t ns = (uint64_t)PT_NAP_NS << idle;

	return ns < PT_IDLE_NS ? ns : PT_IDLE_NS;
}

/* @h: a reference of our own to drop, or NULL for the thread's cache. */
static void pt_put_cleanup(void *h)
{
	if (h)
		pt_handle_put(h);
}

/* Nothing at hand: sleep until an event comes (mode 0) or until @abstime
 * (mode 2, 3: past it), reading again after each wake-up. */
int pt_getnext_wait(struct pt_handle *h, int put, trace_id_t trid,
			   const struct pt_out *out, int mode,
			   const struct timespec *abstime, int *got, int held)
{
	/* volatile: they survive the cleanup handler's setjmp */
	volatile int how = mode, ret = 0, tmp = 0;
	volatile int nap = held ? PT_NAP_HOLD : PT_NAP_NONE;
	volatile unsigned int idle = 0;
	const struct timespec *until;

	pthread_cleanup_push(pt_put_cleanup, put ? h : NULL);
	while (!ret && !tmp) {
		if (how == 3) {
			ret = ETIMEDOUT;
		} else if (how == 2 && (!abstime || abstime->tv_nsec < 0 ||
					abstime->tv_nsec >= 1000000000)) {
			ret = EINVAL;
		} else {
			until = how == 2 ? abstime : NULL;
			if (nap == PT_NAP_HOLD)
				ret = pt_nap(PT_NAP_NS, NULL);
			else if (nap == PT_NAP_IDLE)
				ret = pt_nap(pt_idle_ns(idle), until);
			else
				ret = pt_wait(trid, until);
			if (ret)
				break;
			if (how == 2 && pt_deadline_passed(abstime))
				how = 3;	/* one last try, then ETIMEDOUT */
			ret = pt_try_read(h, out, got, &held);
			tmp = *got;
			if (held) {
				nap = PT_NAP_HOLD;
			} else if (nap == PT_NAP_NONE && !tmp) {
				nap = PT_NAP_IDLE;
				idle += idle < 7;
			} else {
				nap = PT_NAP_NONE;
			}
		}
	}
	pthread_cleanup_pop(0);
	return ret;
}
