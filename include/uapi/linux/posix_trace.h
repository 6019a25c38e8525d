/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posix_trace.h - ABI between posix_trace.ko and libposixtrace.
 *
 * Everything here is fixed-width; pointers travel as __u64.  Every ioctl
 * argument starts with a "size" member so the structures can grow: the
 * module accepts any size between the first published one and PAGE_SIZE and
 * requires the bytes it does not know to be zero (copy_struct_from_user()).
 * "reserved" members must be zero on input and are zero on output.
 *
 * Memory ordering of the shared buffers is described once, in
 * Documentation/design.md ("Ring buffer"); the comments here say who writes
 * which field.
 */
#ifndef _UAPI_LINUX_POSIX_TRACE_H
#define _UAPI_LINUX_POSIX_TRACE_H

#include <linux/const.h>
#include <linux/types.h>
#include <linux/ioctl.h>

#define POSIX_TRACE_DEVICE		"/dev/posix_trace"
#define POSIX_TRACE_ABI_VERSION		1

/* Feature bits reported by POSIX_TRACE_IOC_QUERY. */
#define POSIX_TRACE_FEAT_TRACE		_BITULL(0)	/* Trace option */
#define POSIX_TRACE_FEAT_PROC_PAGE	_BITULL(1)	/* per-process page */
#define POSIX_TRACE_FEAT_MMAP_READ	_BITULL(2)	/* mapped lanes */
#define POSIX_TRACE_FEAT_FILTER		_BITULL(3)	/* Trace Event Filter */
#define POSIX_TRACE_FEAT_WRITER		_BITULL(4)	/* writer lanes */
#define POSIX_TRACE_FEAT_INHERIT	_BITULL(5)	/* Trace Inherit */
#define POSIX_TRACE_FEAT_STATS		_BITULL(6)	/* POSIX_TRACE_IOC_STATS */
#define POSIX_TRACE_FEAT_LOG		_BITULL(7)	/* Trace Log: logs, flush */
#define POSIX_TRACE_FEAT_KERNEL_EVENTS	_BITULL(8)	/* kernel_classes */

/* Limits shared by module and library (spec 5.2). */
#define POSIX_TRACE_EVENT_NAME_MAX	255	/* without the NUL */
#define POSIX_TRACE_NAME_MAX		255	/* with the NUL, see 5.4 */
#define POSIX_TRACE_USER_EVENT_MAX	1024	/* includes the unnamed id */
#define POSIX_TRACE_MAX_DATA_MAX	65536	/* max-data-size clamp */
/* posix_trace_attr_getgenversion() of every stream, and of logs written */
#define POSIX_TRACE_GENVERSION		"posix-trace-1.0"

/* Event type id layout (spec 5.5). */
#define POSIX_TRACE_ID_ERROR		1
#define POSIX_TRACE_ID_START		2
#define POSIX_TRACE_ID_STOP		3
#define POSIX_TRACE_ID_FILTER		4
#define POSIX_TRACE_ID_OVERFLOW		5
#define POSIX_TRACE_ID_RESUME		6
#define POSIX_TRACE_ID_FLUSH_START	7
#define POSIX_TRACE_ID_FLUSH_STOP	8
#define POSIX_TRACE_ID_DETACHED		9	/* exec raised privileges */
#define POSIX_TRACE_ID_SYS_LAST		255

/*
 * Names of the system event types, as eventid_get_name() and logs give
 * them; the index is the id (1 .. POSIX_TRACE_ID_DETACHED).
 */
#define POSIX_TRACE_SYSTEM_NAMES {		\
	[POSIX_TRACE_ID_ERROR] = "posix_trace_error",		\
	[POSIX_TRACE_ID_START] = "posix_trace_start",		\
	[POSIX_TRACE_ID_STOP] = "posix_trace_stop",		\
	[POSIX_TRACE_ID_FILTER] = "posix_trace_filter",		\
	[POSIX_TRACE_ID_OVERFLOW] = "posix_trace_overflow",	\
	[POSIX_TRACE_ID_RESUME] = "posix_trace_resume",		\
	[POSIX_TRACE_ID_FLUSH_START] = "posix_trace_flush_start", \
	[POSIX_TRACE_ID_FLUSH_STOP] = "posix_trace_flush_stop",	\
	[POSIX_TRACE_ID_DETACHED] = "posix_trace_detached",	\
}

/*
 * Kernel events: what a traced process does in the kernel, recorded by
 * the module into the streams that trace it when their creator asked for
 * the event's class (posix_trace_create.kernel_classes,
 * posix_trace_attr_setkernelclasses_np(3)).  They are system events of
 * the implementation (spec MODEL-19): filtered like any other, never
 * automatic.  Their data layouts are in <linux/posix_trace_kernel.h>.
 */
#define POSIX_TRACE_KCLASS_SYSCALL	_BITUL(0)	/* system calls */
#define POSIX_TRACE_KCLASS_SIGNAL	_BITUL(1)	/* signals */
#define POSIX_TRACE_KCLASS_SCHED	_BITUL(2)	/* off and on a CPU */
#define POSIX_TRACE_KCLASS_FAULT	_BITUL(3)	/* page faults */
#define POSIX_TRACE_KCLASS_PROCESS	_BITUL(4)	/* fork, exec, exit */
#define POSIX_TRACE_KCLASS_ALL		(POSIX_TRACE_KCLASS_SYSCALL | \
					 POSIX_TRACE_KCLASS_SIGNAL |  \
					 POSIX_TRACE_KCLASS_SCHED |   \
					 POSIX_TRACE_KCLASS_FAULT |   \
					 POSIX_TRACE_KCLASS_PROCESS)

#define POSIX_TRACE_ID_KERNEL_FIRST	16
#define POSIX_TRACE_ID_SYSCALL_ENTRY	16	/* SYSCALL */
#define POSIX_TRACE_ID_SYSCALL_EXIT	17	/* SYSCALL */
#define POSIX_TRACE_ID_SIGNAL_GENERATE	18	/* SIGNAL */
#define POSIX_TRACE_ID_SIGNAL_DELIVER	19	/* SIGNAL */
#define POSIX_TRACE_ID_SCHED_OUT	20	/* SCHED */
#define POSIX_TRACE_ID_SCHED_IN		21	/* SCHED */
#define POSIX_TRACE_ID_SCHED_WAKEUP	22	/* SCHED */
#define POSIX_TRACE_ID_FAULT_MAJOR	23	/* FAULT */
#define POSIX_TRACE_ID_PROCESS_FORK	24	/* PROCESS */
#define POSIX_TRACE_ID_PROCESS_EXEC	25	/* PROCESS */
#define POSIX_TRACE_ID_PROCESS_EXIT	26	/* PROCESS */
#define POSIX_TRACE_ID_FAULT_MINOR	27	/* FAULT */
#define POSIX_TRACE_ID_SYSCALL		28	/* SYSCALL: entry and exit in one */
#define POSIX_TRACE_ID_KERNEL_LAST	28

/*
 * Names of the kernel event types; index: id - POSIX_TRACE_ID_KERNEL_FIRST
 * (NULL: no such type).
 */
#define POSIX_TRACE_KERNEL_NAMES {					\
	[POSIX_TRACE_ID_SYSCALL_ENTRY - 16] = "posix_trace_syscall_entry", \
	[POSIX_TRACE_ID_SYSCALL_EXIT - 16] = "posix_trace_syscall_exit",  \
	[POSIX_TRACE_ID_SIGNAL_GENERATE - 16] = "posix_trace_signal_generate", \
	[POSIX_TRACE_ID_SIGNAL_DELIVER - 16] = "posix_trace_signal_deliver", \
	[POSIX_TRACE_ID_SCHED_OUT - 16] = "posix_trace_sched_out",	  \
	[POSIX_TRACE_ID_SCHED_IN - 16] = "posix_trace_sched_in",	  \
	[POSIX_TRACE_ID_SCHED_WAKEUP - 16] = "posix_trace_sched_wakeup",  \
	[POSIX_TRACE_ID_FAULT_MAJOR - 16] = "posix_trace_fault_major",	  \
	[POSIX_TRACE_ID_PROCESS_FORK - 16] = "posix_trace_process_fork",  \
	[POSIX_TRACE_ID_PROCESS_EXEC - 16] = "posix_trace_process_exec",  \
	[POSIX_TRACE_ID_PROCESS_EXIT - 16] = "posix_trace_process_exit",  \
	[POSIX_TRACE_ID_FAULT_MINOR - 16] = "posix_trace_fault_minor",	  \
	[POSIX_TRACE_ID_SYSCALL - 16] = "posix_trace_syscall",		  \
}

/* The class of each kernel event type; index as POSIX_TRACE_KERNEL_NAMES. */
#define POSIX_TRACE_KERNEL_CLASSES {					\
	[POSIX_TRACE_ID_SYSCALL_ENTRY - 16] = POSIX_TRACE_KCLASS_SYSCALL, \
	[POSIX_TRACE_ID_SYSCALL_EXIT - 16] = POSIX_TRACE_KCLASS_SYSCALL,  \
	[POSIX_TRACE_ID_SIGNAL_GENERATE - 16] = POSIX_TRACE_KCLASS_SIGNAL, \
	[POSIX_TRACE_ID_SIGNAL_DELIVER - 16] = POSIX_TRACE_KCLASS_SIGNAL, \
	[POSIX_TRACE_ID_SCHED_OUT - 16] = POSIX_TRACE_KCLASS_SCHED,	  \
	[POSIX_TRACE_ID_SCHED_IN - 16] = POSIX_TRACE_KCLASS_SCHED,	  \
	[POSIX_TRACE_ID_SCHED_WAKEUP - 16] = POSIX_TRACE_KCLASS_SCHED,	  \
	[POSIX_TRACE_ID_FAULT_MAJOR - 16] = POSIX_TRACE_KCLASS_FAULT,	  \
	[POSIX_TRACE_ID_PROCESS_FORK - 16] = POSIX_TRACE_KCLASS_PROCESS,  \
	[POSIX_TRACE_ID_PROCESS_EXEC - 16] = POSIX_TRACE_KCLASS_PROCESS,  \
	[POSIX_TRACE_ID_PROCESS_EXIT - 16] = POSIX_TRACE_KCLASS_PROCESS,  \
	[POSIX_TRACE_ID_FAULT_MINOR - 16] = POSIX_TRACE_KCLASS_FAULT,	  \
	[POSIX_TRACE_ID_SYSCALL - 16] = POSIX_TRACE_KCLASS_SYSCALL,	  \
}

#define POSIX_TRACE_ID_UNNAMED		256	/* first user id */
#define POSIX_TRACE_ID_NR \
	(POSIX_TRACE_ID_UNNAMED + POSIX_TRACE_USER_EVENT_MAX)

/**
 * struct posix_trace_event_set - layout of trace_event_set_t, the data of
 * the START (current filter) and FILTER (old, new) system events.
 * @magic:	POSIX_TRACE_EVSET_MAGIC once initialised.
 * @pad:	zero.
 * @bits:	bit n set: event type id n is a member.
 */
#define POSIX_TRACE_EVSET_MAGIC		0x50544553u
struct posix_trace_event_set {
	__u32 magic;
	__u32 pad;
	__u64 bits[POSIX_TRACE_ID_NR / 64];
};

/* Stream-full and inheritance policies, same values as <trace.h>. */
#define POSIX_TRACE_POLICY_LOOP		1
#define POSIX_TRACE_POLICY_UNTIL_FULL	2
#define POSIX_TRACE_POLICY_FLUSH	3
/* Log-full policies, same values as <trace.h>. */
#define POSIX_TRACE_LOG_LOOP		1
#define POSIX_TRACE_LOG_UNTIL_FULL	2
#define POSIX_TRACE_LOG_APPEND		4
#define POSIX_TRACE_INHERIT_CLOSE	0
#define POSIX_TRACE_INHERIT_INHERITED	1

/*
 * mmap offsets.  The page offset names the object: page 0 is the calling
 * process's read-only status page; the offsets of a stream's regions are
 * returned by POSIX_TRACE_IOC_CREATE.  Lengths must match exactly.
 */
#define POSIX_TRACE_MMAP_PROC_PAGE	0ULL

/* Writer lanes per stream: hard limit of the max_writers parameter. */
#define POSIX_TRACE_MAX_WRITERS		1024

/*
 * Streams of one process that get a slot in its page; more streams may
 * trace it, but record through the kernel.
 */
#define POSIX_TRACE_PROC_STREAMS	16

/*
 * posix_trace_proc_stream.state: OFF, not recording; RECORD, running:
 * write the lane; KERNEL, stopped full (UNTIL_FULL, FLUSH): a writer whose
 * lane still holds records not consumed loses the event and counts it in
 * posix_trace_writer_ctl.dropped, else the kernel must see the event (the
 * stream restarts on it once empty).
 */
#define POSIX_TRACE_SLOT_OFF		0
#define POSIX_TRACE_SLOT_RECORD		1
#define POSIX_TRACE_SLOT_KERNEL		2

/**
 * struct posix_trace_proc_stream - one stream tracing the process
 * @trid:	Output: stream id, 0 when the slot is unused.
 * @state:	Output: POSIX_TRACE_SLOT_*.
 * @policy:	Output: POSIX_TRACE_POLICY_LOOP or _UNTIL_FULL.
 * @max_data:	Output: the stream's max-data-size.
 * @filter:	Output: bit n set: event type id n is not recorded.
 */
struct posix_trace_proc_stream {
	__u32 trid;
	__u32 state;
	__u32 policy;
	__u32 max_data;
	__u64 filter[POSIX_TRACE_ID_NR / 64];
};

/**
 * struct posix_trace_proc_page - read-only page mapped by a traced process
 * @size:	Output: sizeof this structure.
 * @active:	Output: slots whose state is not POSIX_TRACE_SLOT_OFF.
 *		0: posix_trace_event() returns at once.
 * @generation:	Output: incremented after any slot changes its @trid.
 * @nr_ids:	Output: user event ids defined in the process's mapping,
 *		counting the unnamed one (POSIX_TRACE_ID_UNNAMED + 0..n-1).
 * @nr_slots:	Output: slots in use are below this index.
 * @unslotted:	Output: running streams tracing the process beyond the
 *		POSIX_TRACE_PROC_STREAMS slots: they get every event through
 *		POSIX_TRACE_IOC_EVENT with POSIX_TRACE_EVENT_UNSLOTTED.
 * @reserved:	zero.
 * @wanted:	Output: bit n set: some stream would record event type n
 *		(a slot not OFF whose filter lacks n, or an unslotted
 *		stream); an event filtered out everywhere costs one test.
 * @slots:	Output: the streams tracing the process.
 */
struct posix_trace_proc_page {
	__u32 size;
	__u32 active;
	__u64 generation;
	__u32 nr_ids;
	__u32 nr_slots;
	__u32 unslotted;
	__u32 reserved0;
	__u64 reserved[4];
	__u64 wanted[POSIX_TRACE_ID_NR / 64];
	struct posix_trace_proc_stream slots[POSIX_TRACE_PROC_STREAMS];
};

/**
 * struct posix_trace_record - one event in a lane
 * @size:	total bytes of header + data, a multiple of 8
 * @event_id:	trace_event_id_t
 * @pid:	process id in the stream's pid namespace, 0 if none
 * @tid:	kernel thread id in the stream's pid namespace, 0 if none
 * @data_len:	bytes of data following the header
 * @flags:	POSIX_TRACE_REC_* bits
 * @seq:	lane sequence number, +1 per record; gaps are lost records
 * @timestamp:	CLOCK_MONOTONIC nanoseconds
 * @thread:	pthread_t of the writer, 0 if none
 * @address:	program address of the trace point, 0 if none
 *
 * Data follows the header and is padded with zeros to 8 bytes.
 */
struct posix_trace_record {
	__u32 size;
	__u32 event_id;
	__u32 pid;
	__u32 tid;
	__u32 data_len;
	__u32 flags;
	__u64 seq;
	__u64 timestamp;
	__u64 thread;
	__u64 address;
};

#define POSIX_TRACE_REC_TRUNCATED	_BITUL(0)	/* TRUNCATED_RECORD */
#define POSIX_TRACE_REC_AUTO		_BITUL(1)	/* system, automatic */

/**
 * struct posix_trace_lane - lane descriptor in the read-only stream header
 * @data_offset:	Output: offset of the lane's ring from the start of the
 *			read-only region.
 * @data_size:		Output: ring size in bytes (records may wrap).
 * @head:		Output (kernel writes): byte position after the last
 *			committed record; positions only grow.
 * @oldest:		Output (kernel writes): position of the oldest record
 *			still intact; raised before its bytes are reused.
 * @lost_seq:		Output: seq of the first record overwritten at the
 *			reader's position since the reader last moved.
 * @lost_timestamp:	Output: timestamp of that record.
 * @base_seq:		Output: seq of the first record written after the
 *			stream was created or last cleared.
 * @inflight_ts:	Output (kernel writes): while a record is being
 *			written under the lane's lock, POSIX_TRACE_INFLIGHT_CLOCK
 *			until its timestamp is read, then that timestamp; 0
 *			once @head covers it (released after @head), as a
 *			writer lane's posix_trace_writer_ctl.inflight_ts.  A
 *			kernel without it leaves 0 here (once "reserved").
 */
struct posix_trace_lane {
	__u64 data_offset;
	__u64 data_size;
	__u64 head;
	__u64 oldest;
	__u64 lost_seq;
	__u64 lost_timestamp;
	__u64 base_seq;
	__u64 inflight_ts;
};

/**
 * struct posix_trace_stream_header - first bytes of the read-only region
 * @size:	Output: sizeof this structure (lanes follow at @lane_offset).
 * @nr_lanes:	Output: number of kernel lanes.
 * @lane_offset: Output: offset of the posix_trace_lane array.
 * @lane_stride: Output: bytes between two lane descriptors.
 * @capacity:	Output: bytes of user records a lane holds (stream-min-size).
 * @writer_offset: Output: offset of the posix_trace_writer_desc array.
 * @writer_stride: Output: bytes between two writer descriptors.
 * @max_writers: Output: entries in that array.
 * @nr_writers:	Output (kernel writes with release): entries published;
 *		an entry never changes once published.
 * @reserved:	zero.
 */
struct posix_trace_stream_header {
	__u32 size;
	__u32 nr_lanes;
	__u64 lane_offset;
	__u64 lane_stride;
	__u64 capacity;
	__u64 writer_offset;
	__u32 writer_stride;
	__u32 max_writers;
	__u32 nr_writers;
	__u32 reserved0;
	__u64 reserved[1];
};

/**
 * struct posix_trace_writer_desc - the kernel's word on one writer lane, in
 * the read-only region; the lane itself is writable by the traced process,
 * so everything a reader must trust about it is here.
 * @mmap_offset: Output: offset to mmap() the lane (controller and owner).
 * @mmap_size:	Output: length of that mapping.
 * @data_offset: Output: offset of the ring inside the mapping.
 * @data_size:	Output: ring size in bytes.
 * @pid:	Output: process writing the lane, in the stream's pid
 *		namespace; the reader reports it as posix_pid.
 * @reserved0:	zero.
 * @reserved:	zero.
 */
struct posix_trace_writer_desc {
	__u64 mmap_offset;
	__u64 mmap_size;
	__u64 data_offset;
	__u64 data_size;
	__u32 pid;
	__u32 reserved0;
	__u64 reserved[3];
};

/* posix_trace_writer_ctl.inflight_ts while the writer reads the clock. */
#define POSIX_TRACE_INFLIGHT_CLOCK	1ULL

/**
 * struct posix_trace_writer_ctl - first page of a writer lane, shared by the
 * traced process (which writes the first cache line) and the controller
 * (which writes the second).  Neither side, nor the kernel, trusts what the
 * other wrote: every value is clamped or validated where it is used.
 * @head:	writer: byte position after the last committed record.
 * @oldest:	writer: position of the oldest record still intact; raised
 *		before its bytes are reused (LOOP).
 * @lost_seq:	writer: seq of the first record overwritten at @tail.
 * @lost_timestamp: writer: timestamp of that record.
 * @overrun:	writer: set to 1 when a record was lost; the kernel reads
 *		and clears it for posix_trace_get_status().
 * @inflight_ts: writer: timestamp of the record being written, or
 *		POSIX_TRACE_INFLIGHT_CLOCK while the writer reads the clock
 *		for it, 0 when no record is being written; cleared after
 *		@head.  The reader holds back later records of other lanes
 *		until it clears, within a time bound (it is not trusted).
 * @dropped:	writer: events it dropped without a system call while the
 *		stream was stopped full (slot state KERNEL) and this lane
 *		still held records not consumed, so the stream could not
 *		restart yet.  Only grows.  The kernel adds what it grew by
 *		since the create or the last clear to the stream's count of
 *		lost events (the log's LOSS block); a writer can only
 *		misstate its own losses with it.
 * @tail:	reader: position of the next record it will read.
 * @waiting:	reader (set by the kernel in POSIX_TRACE_IOC_WAIT): a reader
 *		sleeps; the writer then asks for a wake-up.
 * @flush_mark:	kernel, for a stream whose log is flushed by itself (stream
 *		policy FLUSH): once @head reaches this position the writer
 *		asks for a flush (POSIX_TRACE_NOTIFY_FLUSH), once per value;
 *		the kernel sets it half a lane past what it has logged.  0:
 *		never.
 * @full_wait_ns: kernel: the stream's posix_trace_create.full_wait_ns.
 *		When the lane has no room for a record, the writer asks for
 *		room (POSIX_TRACE_NOTIFY_ROOM) and waits up to this long in
 *		all before it drops the record as the policy says.
 */
struct posix_trace_writer_ctl {
	__u64 head;
	__u64 oldest;
	__u64 lost_seq;
	__u64 lost_timestamp;
	__u32 overrun;
	__u32 pad0;
	__u64 inflight_ts;
	__u64 dropped;
	__u64 pad1;
	__u64 tail;
	__u32 waiting;
	__u32 pad2;
	__u64 flush_mark;
	__u64 full_wait_ns;
	__u64 pad3[4];
};

/**
 * struct posix_trace_consumer - reader position of one lane, in the
 * read-write consumer region, one per @cons_stride bytes.
 * @tail:	Input (reader writes): position of the next record it will
 *		read.  The kernel clamps it to [oldest, head].
 */
struct posix_trace_consumer {
	__u64 tail;
	__u64 reserved[7];
};

/**
 * struct posix_trace_query - POSIX_TRACE_IOC_QUERY
 * @size:		Input: sizeof.
 * @abi_version:	Output: POSIX_TRACE_ABI_VERSION.
 * @features:		Output: POSIX_TRACE_FEAT_* bits.
 * @sys_max:		Output: TRACE_SYS_MAX (module parameter max_streams).
 * @nr_lanes:		Output: lanes per stream.
 * @max_stream_size:	Output: largest stream-min-size accepted.
 * @clock_res_ns:	Output: timestamp clock resolution in ns.
 * @reserved:		zero.
 */
struct posix_trace_query {
	__u32 size;
	__u32 abi_version;
	__u64 features;
	__u32 sys_max;
	__u32 nr_lanes;
	__u64 max_stream_size;
	__u64 clock_res_ns;
	__u64 reserved[4];
};

/**
 * struct posix_trace_create - POSIX_TRACE_IOC_CREATE
 * @size:		Input: sizeof.
 * @flags:		Input: 0.
 * @pid:		Input: process to trace (pid_t), 0 = caller.
 * @stream_policy:	Input: POSIX_TRACE_POLICY_LOOP or _UNTIL_FULL.
 * @inherit:		Input: POSIX_TRACE_INHERIT_*.
 * @trid:		Output: stream id (1 .. 2^30-1).
 * @stream_size:	Input: requested stream-min-size; Output: effective.
 * @max_data_size:	Input: requested max-data-size; Output: effective.
 * @name_ptr:		Input: pointer to the NUL-terminated trace name.
 * @creation_realtime:	Output: CLOCK_REALTIME at creation, ns.
 * @creation_monotonic:	Output: CLOCK_MONOTONIC at creation, ns.
 * @ro_offset:		Output: mmap offset of the read-only region.
 * @ro_size:		Output: its length.
 * @cons_offset:	Output: mmap offset of the consumer region.
 * @cons_size:		Output: its length.
 * @cons_stride:	Output: bytes between two posix_trace_consumer.
 * @log_fd:		Input, with POSIX_TRACE_CREATE_LOG: descriptor of the
 *			log, open for writing; the module keeps its own
 *			reference.  Else zero.
 * @log_policy:		Input, with POSIX_TRACE_CREATE_LOG:
 *			POSIX_TRACE_LOG_*.  Else zero.
 * @log_size:		Input, with POSIX_TRACE_CREATE_LOG: log-max-size
 *			(ignored for APPEND); Output: effective.  Else zero.
 * @full_wait_ns:	Input: 0, or for an UNTIL_FULL or FLUSH stream, how
 *			long a writer whose lane is full waits for room before
 *			it drops the event (never-lose mode,
 *			posix_trace_attr_setfullwait_np(3)); at most
 *			POSIX_TRACE_FULL_WAIT_MAX.  Once "reserved".
 * @kernel_classes:	Input: POSIX_TRACE_KCLASS_* bits, the kernel events
 *			the stream records for the processes it traces; 0:
 *			none.  Once "reserved".
 * @reserved0:		zero.
 * @reserved:		zero.
 *
 * Without POSIX_TRACE_CREATE_LOG the regions are for reading; with it the
 * module's flusher is the only reader, so neither region may be mapped
 * and the stream cannot be read through the library (design.md §10).
 */
struct posix_trace_create {
	__u32 size;
	__u32 flags;
	__u32 pid;
	__u32 stream_policy;
	__u32 inherit;
	__u32 trid;
	__u64 stream_size;
	__u64 max_data_size;
	__u64 name_ptr;
	__u64 creation_realtime;
	__u64 creation_monotonic;
	__u64 ro_offset;
	__u64 ro_size;
	__u64 cons_offset;
	__u64 cons_size;
	__u64 cons_stride;
	__u32 log_fd;
	__u32 log_policy;
	__u64 log_size;
	__u64 full_wait_ns;
	__u32 kernel_classes;
	__u32 reserved0;
	__u64 reserved[1];
};

/* The longest posix_trace_create.full_wait_ns: 60 s. */
#define POSIX_TRACE_FULL_WAIT_MAX	60000000000ULL

/* posix_trace_create.flags */
#define POSIX_TRACE_CREATE_LOG		_BITUL(0)	/* a stream with log */

/**
 * struct posix_trace_ctl - start, stop, clear, shutdown
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @thread:	Input: pthread_t of the caller, stored in START/STOP.
 * @address:	Input: return address of the API call.
 * @reserved:	zero.
 */
struct posix_trace_ctl {
	__u32 size;
	__u32 trid;
	__u64 thread;
	__u64 address;
	__u64 reserved[2];
};

/* posix_trace_status.state: the kernel's view of the stream. */
#define POSIX_TRACE_STATE_SUSPENDED	0
#define POSIX_TRACE_STATE_RUNNING	1

/**
 * struct posix_trace_status - POSIX_TRACE_IOC_STATUS
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @running:	Output: 1 running, 0 suspended.
 * @full:	Output: 1 full.
 * @overrun:	Output: 1 if an event was lost since the last call (the
 *		kernel resets it on return).
 * @flushing:	Output: 1 while a flush to the log runs (stream with log).
 * @flush_error: Output: errno of the first flush error since the last
 *		call, 0 if none (reset on return).
 * @log_overrun: Output: 1 if an event was lost for the log since the
 *		last call (reset on return).
 * @log_full:	Output: 1 when the log is full (LOOP, UNTIL_FULL).
 * @reserved0:	zero.
 */
struct posix_trace_status {
	__u32 size;
	__u32 trid;
	__u32 running;
	__u32 full;
	__u32 overrun;
	__u32 flushing;
	__u32 flush_error;
	__u32 log_overrun;
	__u32 log_full;
	__u32 reserved0;
};

#define POSIX_TRACE_WAIT_TIMEOUT	_BITUL(0)	/* @abstime is valid */

/**
 * struct posix_trace_wait - POSIX_TRACE_IOC_WAIT: sleep until a lane has
 * a record beyond the reader's tail.  Returns 0 when one may be there,
 * -EINTR on a signal, -ETIMEDOUT when @abstime (CLOCK_REALTIME) passed,
 * -EINVAL when the stream was shut down.
 * @size:	Input: sizeof.
 * @flags:	Input: POSIX_TRACE_WAIT_*.
 * @trid:	Input: stream.
 * @reserved0:	zero.
 * @abstime:	Input: absolute CLOCK_REALTIME deadline in ns.
 * @reserved:	zero.
 */
struct posix_trace_wait {
	__u32 size;
	__u32 flags;
	__u32 trid;
	__u32 reserved0;
	__u64 abstime;
	__u64 reserved[2];
};

/**
 * struct posix_trace_event_req - POSIX_TRACE_IOC_EVENT
 * @size:	Input: sizeof.
 * @event_id:	Input: a user event id of the calling process.
 * @data_ptr:	Input: user data.
 * @data_len:	Input: its length.
 * @thread:	Input: pthread_self() of the caller.
 * @address:	Input: address of the trace point.
 * @trid:	Input: 0 = every stream tracing the caller, else only that
 *		stream (the others got the event through their lanes).
 * @flags:	Input: POSIX_TRACE_EVENT_*.
 * @timestamp:	Input: CLOCK_MONOTONIC time of the call in ns, 0 = now.
 *		Clamped to [creation of the stream, now].
 * @reserved:	zero.
 */
struct posix_trace_event_req {
	__u32 size;
	__u32 event_id;
	__u64 data_ptr;
	__u64 data_len;
	__u64 thread;
	__u64 address;
	__u32 trid;
	__u32 flags;
	__u64 timestamp;
	__u64 reserved[1];
};

/* With trid 0: only the streams without a slot in the caller's page. */
#define POSIX_TRACE_EVENT_UNSLOTTED	_BITUL(0)

/**
 * struct posix_trace_writer - POSIX_TRACE_IOC_WRITER_OPEN: a new writer lane
 * in stream @trid for the calling process, which must be traced by it.
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @flags:	Input: 0.
 * @index:	Output: lane index (POSIX_TRACE_IOC_WRITER_NOTIFY).
 * @mmap_offset: Output: mmap() offset of the lane (MAP_SHARED, read-write).
 * @mmap_size:	Output: its length.
 * @data_offset: Output: offset of the ring in the mapping.
 * @data_size:	Output: ring size.
 * @capacity:	Output: record bytes the lane may hold (stream-min-size).
 * @reserved:	zero.
 */
struct posix_trace_writer {
	__u32 size;
	__u32 trid;
	__u32 flags;
	__u32 index;
	__u64 mmap_offset;
	__u64 mmap_size;
	__u64 data_offset;
	__u64 data_size;
	__u64 capacity;
	__u64 reserved[2];
};

/* posix_trace_notify.what */
#define POSIX_TRACE_NOTIFY_WAKE		1	/* wake sleeping readers */
#define POSIX_TRACE_NOTIFY_FULL		2	/* UNTIL_FULL lane is full */
#define POSIX_TRACE_NOTIFY_FLUSH	3	/* lane reached its flush_mark */
#define POSIX_TRACE_NOTIFY_ROOM		4	/* full, waiting: see full_wait_ns */

/**
 * struct posix_trace_notify - POSIX_TRACE_IOC_WRITER_NOTIFY, from the
 * process owning writer lane @index of stream @trid.
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @index:	Input: the caller's lane.
 * @what:	Input: POSIX_TRACE_NOTIFY_*.
 * @reserved:	zero.
 */
struct posix_trace_notify {
	__u32 size;
	__u32 trid;
	__u32 index;
	__u32 what;
	__u64 reserved[2];
};

/**
 * struct posix_trace_eventid - POSIX_TRACE_IOC_EVENTID_OPEN / _NAME
 * @size:	Input: sizeof.
 * @trid:	Input: 0 = the calling process's mapping (eventid_open),
 *		else the mapping of that stream.
 * @event_id:	OPEN: Output; NAME: Input.
 * @name_len:	OPEN: Input, strlen of the name; NAME: Input, buffer size.
 * @name_ptr:	OPEN: Input name (not NUL-terminated necessarily);
 *		NAME: Output buffer, receives a NUL-terminated name.
 * @reserved:	zero.
 */
struct posix_trace_eventid {
	__u32 size;
	__u32 trid;
	__u32 event_id;
	__u32 name_len;
	__u64 name_ptr;
	__u64 reserved[2];
};

/**
 * struct posix_trace_eventtypes - POSIX_TRACE_IOC_EVENTTYPES
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @nr_user:	Output: user ids defined in the stream's mapping, counting
 *		the unnamed one; they are POSIX_TRACE_ID_UNNAMED + 0..n-1.
 * @reserved0:	zero.
 * @reserved:	zero.
 */
struct posix_trace_eventtypes {
	__u32 size;
	__u32 trid;
	__u32 nr_user;
	__u32 reserved0;
	__u64 reserved[2];
};

/* posix_trace_filter.how, same values as <trace.h>. */
#define POSIX_TRACE_FILTER_SET		1
#define POSIX_TRACE_FILTER_ADD		2
#define POSIX_TRACE_FILTER_SUB		3

/**
 * struct posix_trace_filter - POSIX_TRACE_IOC_SET_FILTER / _GET_FILTER
 * @size:	Input: sizeof.
 * @trid:	Input: stream.
 * @how:	SET: Input, POSIX_TRACE_FILTER_*; GET: zero.
 * @reserved0:	zero.
 * @thread:	SET: Input, pthread_t of the caller (FILTER event); GET: zero.
 * @address:	SET: Input, return address of the call; GET: zero.
 * @set_ptr:	Input: pointer to a struct posix_trace_event_set; SET reads
 *		it, GET writes the stream's filter into it.
 * @reserved:	zero.
 */
struct posix_trace_filter {
	__u32 size;
	__u32 trid;
	__u32 how;
	__u32 reserved0;
	__u64 thread;
	__u64 address;
	__u64 set_ptr;
	__u64 reserved[2];
};

/**
 * struct posix_trace_stats - POSIX_TRACE_IOC_STATS: objects the module holds
 * now, system-wide.  Any process may ask: counts only, no pids.  Every
 * count except @active_streams includes objects already released whose
 * freeing is still pending (RCU, the module's workqueue).
 * @size:		Input: sizeof.
 * @flags:		Input: 0.
 * @streams:		Output: streams not freed yet (a shut-down stream
 *			lives until its last mapping is gone).
 * @active_streams:	Output: streams not shut down (counted against
 *			TRACE_SYS_MAX).
 * @procs:		Output: thread groups the module keeps state for.
 * @attaches:		Output: (stream, traced process) links.
 * @writers:		Output: writer lanes.
 * @mappings:		Output: mapped areas of stream regions and writer
 *			lanes (one per vma, in every process).
 * @maps:		Output: event name mappings.
 * @users:		Output: users charged for streams, memory or names.
 * @fork_kits:		Output: fork kits ready in the pool (design.md §3).
 * @fork_misses:	Output: forks of known processes that found the pool
 *			empty since the module was loaded.
 * @kernel_classes:	Output: POSIX_TRACE_KCLASS_* whose probes are
 *			registered (some stream records the class).  Once
 *			"reserved".
 * @reserved0:		zero.
 * @reserved:		zero.
 */
struct posix_trace_stats {
	__u32 size;
	__u32 flags;
	__u32 streams;
	__u32 active_streams;
	__u32 procs;
	__u32 attaches;
	__u32 writers;
	__u32 mappings;
	__u32 maps;
	__u32 users;
	__u32 fork_kits;
	__u32 fork_misses;
	__u32 kernel_classes;
	__u32 reserved0;
	__u64 reserved[2];
};

#define POSIX_TRACE_IOC_MAGIC	0xB9

#define POSIX_TRACE_IOC_QUERY	_IOWR(POSIX_TRACE_IOC_MAGIC, 0x00, struct posix_trace_query)
#define POSIX_TRACE_IOC_CREATE	_IOWR(POSIX_TRACE_IOC_MAGIC, 0x01, struct posix_trace_create)
#define POSIX_TRACE_IOC_START	_IOW(POSIX_TRACE_IOC_MAGIC, 0x02, struct posix_trace_ctl)
#define POSIX_TRACE_IOC_STOP	_IOW(POSIX_TRACE_IOC_MAGIC, 0x03, struct posix_trace_ctl)
#define POSIX_TRACE_IOC_CLEAR	_IOW(POSIX_TRACE_IOC_MAGIC, 0x04, struct posix_trace_ctl)
#define POSIX_TRACE_IOC_SHUTDOWN _IOW(POSIX_TRACE_IOC_MAGIC, 0x05, struct posix_trace_ctl)
#define POSIX_TRACE_IOC_STATUS	_IOWR(POSIX_TRACE_IOC_MAGIC, 0x06, struct posix_trace_status)
#define POSIX_TRACE_IOC_WAIT	_IOW(POSIX_TRACE_IOC_MAGIC, 0x07, struct posix_trace_wait)
#define POSIX_TRACE_IOC_EVENT	_IOW(POSIX_TRACE_IOC_MAGIC, 0x08, struct posix_trace_event_req)
#define POSIX_TRACE_IOC_EVENTID_OPEN _IOWR(POSIX_TRACE_IOC_MAGIC, 0x09, struct posix_trace_eventid)
#define POSIX_TRACE_IOC_EVENTID_NAME _IOW(POSIX_TRACE_IOC_MAGIC, 0x0a, struct posix_trace_eventid)
#define POSIX_TRACE_IOC_EVENTTYPES _IOWR(POSIX_TRACE_IOC_MAGIC, 0x0b, struct posix_trace_eventtypes)
#define POSIX_TRACE_IOC_SET_FILTER _IOW(POSIX_TRACE_IOC_MAGIC, 0x0c, struct posix_trace_filter)
#define POSIX_TRACE_IOC_GET_FILTER _IOW(POSIX_TRACE_IOC_MAGIC, 0x0d, struct posix_trace_filter)
#define POSIX_TRACE_IOC_WRITER_OPEN _IOWR(POSIX_TRACE_IOC_MAGIC, 0x0e, struct posix_trace_writer)
#define POSIX_TRACE_IOC_WRITER_NOTIFY _IOW(POSIX_TRACE_IOC_MAGIC, 0x0f, struct posix_trace_notify)
#define POSIX_TRACE_IOC_STATS	_IOWR(POSIX_TRACE_IOC_MAGIC, 0x10, struct posix_trace_stats)
/*
 * Flush a stream with log; returns when the flush is done, with its first
 * write error (-ENOSPC, -EFBIG, -EIO), or -EINTR if a signal came first
 * (the flush then completes in the background).
 */
#define POSIX_TRACE_IOC_FLUSH	_IOW(POSIX_TRACE_IOC_MAGIC, 0x11, struct posix_trace_ctl)

#endif /* _UAPI_LINUX_POSIX_TRACE_H */
