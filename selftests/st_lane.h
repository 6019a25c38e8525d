/* SPDX-License-Identifier: GPL-2.0 */
/*
 * st_lane.h - writer lanes as the selftests see them, and the helpers of
 * the tests that play a traced process writing into its own lane
 * (writer_test, hostile_lane_test, hostile_log_lane_test, logflush_test).
 * Defined in st_lane.c.
 *
 * The lanes of the calling process are found in /proc/self/maps: shared
 * read-write mappings of /dev/posix_trace whose page offset has the low
 * two bits 3 (uapi: the offset names the object).  The first page is the
 * struct posix_trace_writer_ctl, the ring follows.  A process that both
 * writes and reads a stream maps each of its lanes twice (writer and
 * reader); both mappings show the same memory.
 */
#ifndef ST_LANE_H
#define ST_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/posix_trace.h>

#include <trace.h>

#include "st_stream.h"

#define ST_REC_HDR	sizeof(struct posix_trace_record)
#define ST_CTL_PAGE	4096
#define ST_ROUND8(n)	(((n) + 7) & ~(size_t)7)

struct st_lane {
	struct posix_trace_writer_ctl *ctl;
	uint8_t *ring;
	size_t size;
	unsigned long long offset;	/* mmap offset, bytes */
};

/*
 * Writer lanes mapped in this process, one entry per distinct mmap offset
 * (the writer's and the reader's mapping of a lane count once).  Returns
 * how many were found (at most @max are stored), or -1.
 */
int st_find_lanes(struct st_lane *lanes, int max);

/* The one writer lane of this process; false if there is not exactly one. */
bool st_find_the_lane(struct st_lane *l);

/* Inline: the tests poll it in loops, as the library's writer reads it. */
static inline uint64_t st_lane_head(const struct st_lane *l)
{
	return __atomic_load_n(&l->ctl->head, __ATOMIC_ACQUIRE);
}

/* Copy @len bytes of @src into the ring at @pos, wrapping at its end. */
void st_lane_put(const struct st_lane *l, uint64_t pos, const void *src,
		 size_t len);

/*
 * A record as a writer writes it, at @pos of @l: type @id, stamp @ts, the
 * @len bytes of @pay, pid and tid 1 (readers put the writer's own), seq
 * by position (every record of the lane as long as this one).
 * st_lane_forge() writes it at the head and commits it.
 */
void st_lane_record(const struct st_lane *l, uint64_t pos, uint32_t id,
		    uint64_t ts, const void *pay, size_t len);
void st_lane_forge(const struct st_lane *l, uint32_t id, uint64_t ts,
		   const void *pay, size_t len);

/* The lane tests' controller and traced child step each other through a
 * shared area: wait until *@v >= @want; false after @ms.
 */
bool st_wait_flag(atomic_int *v, int want, unsigned int ms);

/* @ev in a few words, with the error an ERROR event carries (a per-thread
 * buffer). */
const char *st_ev_desc(const struct st_ev *ev);

/* For children that are meant to crash. */
void st_no_core_dumps(void);

/* A MAP_SHARED anonymous area, shared with children forked later. */
void *st_shared_area(size_t len);

/*
 * A timed read in another thread, so that a reader spinning in the library
 * (never sleeping, never timing out) is caught instead of hanging the
 * test.  Returns false if the read did not return within @ms + 10 s; the
 * thread is then left behind (the test fails).
 */
bool st_timed_read_returns(trace_id_t trid, unsigned int ms, int *ret,
			   struct st_ev *ev);

/* Wait for child @pid; its exit code, or 1000 + signal if killed. */
int st_wait_child(pid_t pid);

/*
 * Fork a child that waits for a byte on a pipe before running @fn(@arg).
 * *go receives the write end.  Returns the pid or -1.
 */
pid_t st_fork_waiting(int (*fn)(void *), void *arg, int *go);

/* Write the byte st_fork_waiting()'s child waits for, close @fd: 0 or -1. */
int st_go(int fd);

#endif /* ST_LANE_H */
