/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pre-recorded streams: a trace log opened by posix_trace_open().  The
 * parsing (log_read.c) trusts nothing in the file: every length and count
 * is bounded before use, and a block counts only once its CRC matches.
 */
#ifndef PT_LOG_READ_H
#define PT_LOG_READ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "internal.h"

/* A ring slot holding an EVENTS block, found by a ring scan. */
struct pt_log_slot {
	uint64_t seq;
	uint32_t index;
};

/*
 * Lifetime: reference counted.  The table of log_open.c holds one
 * reference from posix_trace_open() to posix_trace_close(); each API call
 * holds one while it runs.  Everything below @lock is used under it.
 */
struct pt_log {
	trace_id_t trid;
	pid_t owner;
	atomic_int refs;
	pthread_mutex_t lock;
	int fd;				/* our dup of the caller's descriptor */
	/* From the header. */
	unsigned int layout;
	uint32_t header_size, block_max, tag;
	uint64_t ring_offset, meta_limit;
	uint32_t slot_size, nslots;
	/* From INFO, TYPES and STATUS blocks. */
	trace_attr_t attr;
	uint64_t created_real, created_mono;
	struct posix_trace_status_info status;
	int finished;			/* a STATUS block was read */
	struct posix_trace_losses_np losses;	/* from the LOSS block */
	int has_losses;
	char *names[__POSIX_TRACE_ID_NR];
	/* Kernel event classes (POSIX_TRACE_KCLASS_*) of which the TYPES
	 * blocks name at least one id: those the stream recorded. */
	unsigned int kclasses;
	unsigned int typelist_next;
	uint64_t meta_end;		/* metadata scanned up to here */
	int meta_done;			/* nothing more to scan */
	struct pt_log_slot *slots;	/* ring: nslots, the order of a pass */
	/* Read cursor. */
	uint64_t next_pos;		/* sequential: next block's offset */
	uint64_t last_seq;		/* ring: seq of the last block read */
	int have_last;
	uint32_t nsnap, snap_pos;	/* ring: @slots in seq order, next one */
	uint8_t *blk;			/* the current EVENTS block */
	size_t blk_cap;
	uint32_t blk_len, blk_off, blk_left;
	/* A packed block (format 1.1): the context its records share. */
	int packed, ctx_set;
	uint32_t ctx_pid, ctx_tid;
	uint64_t ctx_thread, ctx_address;
	/* The tid of the event the last getnext returned, if @has_event:
	 * none since open or rewind (posix_trace_event_tid_np()). */
	int has_event;
	uint32_t event_tid;
};

/* log_read.c */
int pt_log_parse_open(struct pt_log *l);
void pt_log_rewind_cursor(struct pt_log *l);
void pt_log_free_contents(struct pt_log *l);
int pt_log_next(struct pt_log *l, struct posix_trace_event_info *ev, void *data,
		size_t num_bytes, size_t *data_len, int *got);

/* log_open.c: the dispatch of the trid-taking functions for trid < 0. */
int pt_log_get_losses(trace_id_t trid, struct posix_trace_losses_np *losses);
int pt_log_getnext(trace_id_t trid, struct posix_trace_event_info *ev, void *data,
		   size_t num_bytes, size_t *data_len, int *unavailable);
int pt_log_get_attr(trace_id_t trid, trace_attr_t *attr);
int pt_log_get_status(trace_id_t trid, struct posix_trace_status_info *st);
int pt_log_get_name(trace_id_t trid, trace_event_id_t event, char *name);
int pt_log_typelist_next(trace_id_t trid, trace_event_id_t *event, int *unavailable);
int pt_log_typelist_rewind(trace_id_t trid);
int pt_log_event_tid(trace_id_t trid, pid_t *tid);

#endif /* PT_LOG_READ_H */
