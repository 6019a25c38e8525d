/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reader's gate on writer lanes (gate.c): which records a traced
 * process may get delivered.  The kernel checks the stream's state and
 * filter before it records into its own lanes; a writer lane is written
 * by the traced process, which may write anything, so the reader checks
 * each of its records against the state and filter of the stream at the
 * record's timestamp (Documentation/design.md, "Writer lanes", Trust).
 */
#ifndef PT_GATE_H
#define PT_GATE_H

#include <stdint.h>
#include <linux/posix_trace.h>

enum { PT_ERA_STOPPED, PT_ERA_RUNNING, PT_ERA_UNKNOWN };

/*
 * The stream's state from @lo on, until the next era: it began at @lo
 * exactly (@hi == @lo) or at some time within [@lo, @hi].  An unknown era
 * stays so until the next one; @hi is then the end of the records whose
 * loss made it unknown.
 */
struct pt_era {
	uint64_t lo, hi;
	int state;
	uint64_t filter[POSIX_TRACE_ID_NR / 64];	/* bit set: filtered out */
};

#define PT_ERAS	32

/* Eras sorted by @lo; when full, the oldest is forgotten and @complete
 * cleared: a time before the first era is then unknown. */
struct pt_eras {
	struct pt_era e[PT_ERAS];
	unsigned int n;
	int complete;
};

struct pt_gate {
	/* From the control events the reader consumed from kernel lanes
	 * (START, STOP, FILTER, automatic ones included): exact times, but
	 * unknown where the kernel lanes lost records. */
	struct pt_eras seen;
	/* From this process's own start, stop and set_filter calls, each
	 * between a clock read before and after it: never misses one, but
	 * knows no automatic stop. */
	struct pt_eras cmd;
	uint64_t clock;		/* the reader's clock, last read */
	uint64_t refused;	/* writer-lane records not delivered */
	uint64_t withheld;	/* reports a lane asked for and did not get */
};

/* What the controller did (pt_gate_command()). */
enum { PT_CMD_START, PT_CMD_STOP, PT_CMD_FILTER };

/* CLOCK_MONOTONIC in ns: the clock of every timestamp. */
uint64_t pt_gate_clock(void);
/* The state at creation: stopped, nothing filtered. */
void pt_gate_init(struct pt_gate *g);
/* May a writer-lane record of type @id stamped @ts be delivered? */
int pt_gate_pass(struct pt_gate *g, uint64_t ts, uint32_t id);
/* A control event @id at @ts read from a kernel lane; @data, @len: its
 * data (START: the filter; FILTER: the old and the new one). */
void pt_gate_control(struct pt_gate *g, uint32_t id, uint64_t ts,
		     const void *data, uint32_t len);
/* A kernel lane lost (or the controller cleared) records stamped from
 * @from up to @until: control events among them are not known. */
void pt_gate_gap(struct pt_gate *g, uint64_t from, uint64_t until);
/* The controller's call @cmd succeeded, between @lo and @hi; @filter:
 * the filter after it (PT_CMD_FILTER). */
void pt_gate_command(struct pt_gate *g, int cmd, const uint64_t *filter,
		     uint64_t lo, uint64_t hi);

static inline int pt_gate_is_control(uint32_t id)
{
	return id == POSIX_TRACE_ID_START || id == POSIX_TRACE_ID_STOP ||
	       id == POSIX_TRACE_ID_FILTER;
}

#endif /* PT_GATE_H */
