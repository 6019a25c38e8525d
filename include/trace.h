/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <trace.h> - the POSIX Tracing option (IEEE Std 1003.1-2008, XSH 2.11) for
 * Linux, provided by libposixtrace (link with -lposixtrace).
 *
 * glibc advertises no tracing support: its <unistd.h> defines the option
 * macros as -1.  Including this header redefines them to 200809L, so code
 * that tests _POSIX_TRACE at compile time must include <trace.h>.
 */
#ifndef _TRACE_H
#define _TRACE_H 1

#include <sys/types.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <pthread.h>

/*
 * Options (spec 1.9, 5.1).  A sub-option is 0, "ask sysconf()", until the
 * library implements it; sysconf() answers -1 for it meanwhile.
 */
#undef _POSIX_TRACE
#undef _POSIX_TRACE_EVENT_FILTER
#undef _POSIX_TRACE_LOG
#undef _POSIX_TRACE_INHERIT
#define _POSIX_TRACE			200809L
#define _POSIX_TRACE_EVENT_FILTER	200809L
#define _POSIX_TRACE_LOG		200809L
#define _POSIX_TRACE_INHERIT		200809L

/* Portable minima (spec 1.8). */
#ifndef _POSIX_TRACE_EVENT_NAME_MAX
#define _POSIX_TRACE_EVENT_NAME_MAX	30
#endif
#ifndef _POSIX_TRACE_NAME_MAX
#define _POSIX_TRACE_NAME_MAX		8
#endif
#ifndef _POSIX_TRACE_SYS_MAX
#define _POSIX_TRACE_SYS_MAX		8
#endif
#ifndef _POSIX_TRACE_USER_EVENT_MAX
#define _POSIX_TRACE_USER_EVENT_MAX	32
#endif

/*
 * This implementation's limits.  TRACE_SYS_MAX is a module parameter and
 * is therefore left undefined: ask sysconf(_SC_TRACE_SYS_MAX).
 */
#ifndef TRACE_EVENT_NAME_MAX
#define TRACE_EVENT_NAME_MAX		255
#endif
#ifndef TRACE_NAME_MAX
#define TRACE_NAME_MAX			255
#endif
#ifndef TRACE_USER_EVENT_MAX
#define TRACE_USER_EVENT_MAX		1024
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Types (spec 2.1, 5.5). */
#ifndef __trace_id_t_defined
#define __trace_id_t_defined 1
typedef int trace_id_t;
#endif

#ifndef __trace_event_id_t_defined
#define __trace_event_id_t_defined 1
typedef unsigned int trace_event_id_t;
#endif

/* Ids 0 .. 255 system, 256 .. 256 + TRACE_USER_EVENT_MAX - 1 user. */
#define __POSIX_TRACE_ID_NR		(256 + TRACE_USER_EVENT_MAX)

#ifndef __trace_event_set_t_defined
#define __trace_event_set_t_defined 1
typedef struct {
	unsigned int __magic;
	unsigned int __pad;
	unsigned long long __bits[__POSIX_TRACE_ID_NR / 64];
} trace_event_set_t;
#endif

#ifndef __trace_attr_t_defined
#define __trace_attr_t_defined 1
typedef struct {
	unsigned int __magic;
	unsigned int __flags;
	int __inheritance;
	int __stream_policy;
	int __log_policy;
	unsigned int __kernel_classes;	/* posix_trace_attr_setkernelclasses_np() */
	size_t __stream_size;
	size_t __max_data_size;
	size_t __log_size;
	struct timespec __create_time;
	struct timespec __clock_res;
	char __name[TRACE_NAME_MAX];
	char __genversion[33];
	unsigned long long __full_wait_ns;	/* posix_trace_attr_setfullwait_np() */
	unsigned long long __reserved[15];
} trace_attr_t;
#endif

/* Event information returned by the getnext functions (spec 2.2). */
struct posix_trace_event_info {
	trace_event_id_t posix_event_id;
	pid_t posix_pid;
	void *posix_prog_address;
	pthread_t posix_thread_id;
	struct timespec posix_timestamp;
	int posix_truncation_status;
};

/* Stream status (spec 2.3). */
struct posix_trace_status_info {
	int posix_stream_status;
	int posix_stream_full_status;
	int posix_stream_overrun_status;
	int posix_stream_flush_status;
	int posix_stream_flush_error;
	int posix_log_overrun_status;
	int posix_log_full_status;
};

/* Constants (spec 2.4). */
#define POSIX_TRACE_RUNNING		1
#define POSIX_TRACE_SUSPENDED		2

#define POSIX_TRACE_NOT_FULL		0
#define POSIX_TRACE_FULL		1

#define POSIX_TRACE_NO_OVERRUN		0
#define POSIX_TRACE_OVERRUN		1

#define POSIX_TRACE_NOT_FLUSHING	0
#define POSIX_TRACE_FLUSHING		1

#define POSIX_TRACE_LOOP		1
#define POSIX_TRACE_UNTIL_FULL		2
#define POSIX_TRACE_FLUSH		3
#define POSIX_TRACE_APPEND		4

#define POSIX_TRACE_CLOSE_FOR_CHILD	0
#define POSIX_TRACE_INHERITED		1

#define POSIX_TRACE_NOT_TRUNCATED	0
#define POSIX_TRACE_TRUNCATED_RECORD	1
#define POSIX_TRACE_TRUNCATED_READ	2

#define POSIX_TRACE_WOPID_EVENTS	1
#define POSIX_TRACE_SYSTEM_EVENTS	2
#define POSIX_TRACE_ALL_EVENTS		3

#define POSIX_TRACE_SET_EVENTSET	1
#define POSIX_TRACE_ADD_EVENTSET	2
#define POSIX_TRACE_SUB_EVENTSET	3

#define POSIX_TRACE_ERROR		((trace_event_id_t)1)
#define POSIX_TRACE_START		((trace_event_id_t)2)
#define POSIX_TRACE_STOP		((trace_event_id_t)3)
#define POSIX_TRACE_FILTER		((trace_event_id_t)4)
#define POSIX_TRACE_OVERFLOW		((trace_event_id_t)5)
#define POSIX_TRACE_RESUME		((trace_event_id_t)6)
#define POSIX_TRACE_FLUSH_START		((trace_event_id_t)7)
#define POSIX_TRACE_FLUSH_STOP		((trace_event_id_t)8)
/* Implementation-defined: the traced process left the stream because an
 * exec raised its privileges beyond the controller's (no data). */
#define POSIX_TRACE_DETACHED		((trace_event_id_t)9)
#define POSIX_TRACE_UNNAMED_USEREVENT	((trace_event_id_t)256)
#define POSIX_TRACE_UNNAMED_USER_EVENT	POSIX_TRACE_UNNAMED_USEREVENT

/* Attributes (spec 3.1). */
int posix_trace_attr_destroy(trace_attr_t *__attr);
int posix_trace_attr_init(trace_attr_t *__attr);
int posix_trace_attr_getclockres(const trace_attr_t *__attr,
				 struct timespec *__resolution);
int posix_trace_attr_getcreatetime(const trace_attr_t *__attr,
				   struct timespec *__createtime);
int posix_trace_attr_getgenversion(const trace_attr_t *__attr,
				   char *__genversion);
int posix_trace_attr_getname(const trace_attr_t *__attr, char *__tracename);
int posix_trace_attr_setname(trace_attr_t *__attr, const char *__tracename);
int posix_trace_attr_getinherited(const trace_attr_t *__restrict __attr,
				  int *__restrict __inheritancepolicy);
int posix_trace_attr_setinherited(trace_attr_t *__attr, int __inheritancepolicy);
int posix_trace_attr_getlogfullpolicy(const trace_attr_t *__restrict __attr,
				      int *__restrict __logpolicy);
int posix_trace_attr_setlogfullpolicy(trace_attr_t *__attr, int __logpolicy);
int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *__restrict __attr,
					 int *__restrict __streampolicy);
int posix_trace_attr_setstreamfullpolicy(trace_attr_t *__attr, int __streampolicy);
int posix_trace_attr_getlogsize(const trace_attr_t *__restrict __attr,
				size_t *__restrict __logsize);
int posix_trace_attr_setlogsize(trace_attr_t *__attr, size_t __logsize);
int posix_trace_attr_getmaxdatasize(const trace_attr_t *__restrict __attr,
				    size_t *__restrict __maxdatasize);
int posix_trace_attr_setmaxdatasize(trace_attr_t *__attr, size_t __maxdatasize);
int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *__restrict __attr,
					   size_t *__restrict __eventsize);
int posix_trace_attr_getmaxusereventsize(const trace_attr_t *__restrict __attr,
					 size_t __data_len,
					 size_t *__restrict __eventsize);
int posix_trace_attr_getstreamsize(const trace_attr_t *__restrict __attr,
				   size_t *__restrict __streamsize);
int posix_trace_attr_setstreamsize(trace_attr_t *__attr, size_t __streamsize);

/*
 * Implementation-defined attribute (posix_trace_attr_setfullwait_np(3)):
 * never-lose mode.  A writer whose lane of an UNTIL_FULL or FLUSH stream
 * is full waits up to the given time for room instead of dropping the
 * event.  _POSIX_TRACE_FULLWAIT_NP says these functions exist.
 */
#define _POSIX_TRACE_FULLWAIT_NP	1
int posix_trace_attr_getfullwait_np(const trace_attr_t *__restrict __attr,
				    struct timespec *__restrict __wait);
int posix_trace_attr_setfullwait_np(trace_attr_t *__restrict __attr,
				    const struct timespec *__restrict __wait);

/*
 * Implementation-defined attribute (posix_trace_attr_setkernelclasses_np(3)):
 * kernel events.  A stream created with classes records what the
 * processes it traces do in the kernel, as system events of the ids below
 * (data layouts: <linux/posix_trace_kernel.h>).  Off by default.
 * _POSIX_TRACE_KERNEL_EVENTS_NP says these functions and names exist.
 */
#define _POSIX_TRACE_KERNEL_EVENTS_NP	1
#define POSIX_TRACE_KERNEL_SYSCALL_NP	0x01u	/* system calls */
#define POSIX_TRACE_KERNEL_SIGNAL_NP	0x02u	/* signals */
#define POSIX_TRACE_KERNEL_SCHED_NP	0x04u	/* off and on a CPU */
#define POSIX_TRACE_KERNEL_FAULT_NP	0x08u	/* page faults */
#define POSIX_TRACE_KERNEL_PROCESS_NP	0x10u	/* fork, exec, exit */
#define POSIX_TRACE_KERNEL_ALL_NP \
	(POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP | \
	 POSIX_TRACE_KERNEL_SCHED_NP | POSIX_TRACE_KERNEL_FAULT_NP | \
	 POSIX_TRACE_KERNEL_PROCESS_NP)
#define POSIX_TRACE_SYSCALL_ENTRY_NP	((trace_event_id_t)16)	/* SYSCALL */
#define POSIX_TRACE_SYSCALL_EXIT_NP	((trace_event_id_t)17)	/* SYSCALL */
#define POSIX_TRACE_SIGNAL_GENERATE_NP	((trace_event_id_t)18)	/* SIGNAL */
#define POSIX_TRACE_SIGNAL_DELIVER_NP	((trace_event_id_t)19)	/* SIGNAL */
#define POSIX_TRACE_SCHED_OUT_NP	((trace_event_id_t)20)	/* SCHED */
#define POSIX_TRACE_SCHED_IN_NP		((trace_event_id_t)21)	/* SCHED */
#define POSIX_TRACE_SCHED_WAKEUP_NP	((trace_event_id_t)22)	/* SCHED */
#define POSIX_TRACE_FAULT_MAJOR_NP	((trace_event_id_t)23)	/* FAULT */
#define POSIX_TRACE_PROCESS_FORK_NP	((trace_event_id_t)24)	/* PROCESS */
#define POSIX_TRACE_PROCESS_EXEC_NP	((trace_event_id_t)25)	/* PROCESS */
#define POSIX_TRACE_PROCESS_EXIT_NP	((trace_event_id_t)26)	/* PROCESS */
#define POSIX_TRACE_FAULT_MINOR_NP	((trace_event_id_t)27)	/* FAULT */
#define POSIX_TRACE_SYSCALL_NP		((trace_event_id_t)28)	/* SYSCALL */
int posix_trace_attr_getkernelclasses_np(const trace_attr_t *__restrict __attr,
					 unsigned int *__restrict __classes);
int posix_trace_attr_setkernelclasses_np(trace_attr_t *__attr,
					 unsigned int __classes);

/*
 * Implementation-defined (posix_trace_get_losses_np(3)): how many events
 * never reached a trace log, and why, as the log records them.
 * _POSIX_TRACE_LOSSES_NP says this function exists.
 */
#define _POSIX_TRACE_LOSSES_NP	1
struct posix_trace_losses_np {
	unsigned long long posix_dropped;	  /* not taken by the full stream */
	unsigned long long posix_drop_gaps;	  /* times the stream filled */
	unsigned long long posix_overwritten;	  /* overwritten before logged (LOOP) */
	unsigned long long posix_overwrite_gaps; /* OVERFLOW markers for them */
	unsigned long long posix_log_discarded; /* not taken by the full log */
	unsigned long long posix_log_write_lost; /* in blocks the file refused */
	unsigned long long __reserved[2];
};
int posix_trace_get_losses_np(trace_id_t __trid,
			      struct posix_trace_losses_np *__losses);

/*
 * Implementation-defined (posix_trace_event_tid_np(3)): the kernel thread
 * id of the event the last getnext call on a stream or log returned.
 * posix_thread_id is a pthread_t, which kernel events have none of.
 * _POSIX_TRACE_EVENT_TID_NP says this function exists.
 */
#define _POSIX_TRACE_EVENT_TID_NP	1
int posix_trace_event_tid_np(trace_id_t __trid, pid_t *__tid);

/* Streams (spec 3.2). */
int posix_trace_create(pid_t __pid, const trace_attr_t *__restrict __attr,
		       trace_id_t *__restrict __trid);
int posix_trace_create_withlog(pid_t __pid, const trace_attr_t *__restrict __attr,
			       int __file_desc, trace_id_t *__restrict __trid);
int posix_trace_flush(trace_id_t __trid);
int posix_trace_shutdown(trace_id_t __trid);
int posix_trace_clear(trace_id_t __trid);
int posix_trace_start(trace_id_t __trid);
int posix_trace_stop(trace_id_t __trid);

/* Instrumentation (spec 3.3). */
void posix_trace_event(trace_event_id_t __event_id,
		       const void *__restrict __data_ptr, size_t __data_len);
int posix_trace_eventid_open(const char *__restrict __event_name,
			     trace_event_id_t *__restrict __event_id);

/* Event type ids (spec 3.4). */
int posix_trace_eventid_equal(trace_id_t __trid, trace_event_id_t __event1,
			      trace_event_id_t __event2);
int posix_trace_eventid_get_name(trace_id_t __trid, trace_event_id_t __event,
				 char *__event_name);
int posix_trace_trid_eventid_open(trace_id_t __trid,
				  const char *__restrict __event_name,
				  trace_event_id_t *__restrict __event);
int posix_trace_eventtypelist_getnext_id(trace_id_t __trid,
					 trace_event_id_t *__restrict __event,
					 int *__restrict __unavailable);
int posix_trace_eventtypelist_rewind(trace_id_t __trid);

/* Event sets and filters (spec 3.5). */
int posix_trace_eventset_add(trace_event_id_t __event_id,
			     trace_event_set_t *__set);
int posix_trace_eventset_del(trace_event_id_t __event_id,
			     trace_event_set_t *__set);
int posix_trace_eventset_empty(trace_event_set_t *__set);
int posix_trace_eventset_fill(trace_event_set_t *__set, int __what);
int posix_trace_eventset_ismember(trace_event_id_t __event_id,
				  const trace_event_set_t *__restrict __set,
				  int *__restrict __ismember);
int posix_trace_get_filter(trace_id_t __trid, trace_event_set_t *__set);
int posix_trace_set_filter(trace_id_t __trid, const trace_event_set_t *__set,
			   int __how);

/* Attributes and status of a stream (spec 3.6). */
int posix_trace_get_attr(trace_id_t __trid, trace_attr_t *__attr);
int posix_trace_get_status(trace_id_t __trid,
			   struct posix_trace_status_info *__statusinfo);

/* Reading events (spec 3.7). */
int posix_trace_getnext_event(trace_id_t __trid,
			      struct posix_trace_event_info *__restrict __event,
			      void *__restrict __data, size_t __num_bytes,
			      size_t *__restrict __data_len,
			      int *__restrict __unavailable);
int posix_trace_timedgetnext_event(trace_id_t __trid,
				   struct posix_trace_event_info *__restrict __event,
				   void *__restrict __data, size_t __num_bytes,
				   size_t *__restrict __data_len,
				   int *__restrict __unavailable,
				   const struct timespec *__restrict __abstime);
int posix_trace_trygetnext_event(trace_id_t __trid,
				 struct posix_trace_event_info *__restrict __event,
				 void *__restrict __data, size_t __num_bytes,
				 size_t *__restrict __data_len,
				 int *__restrict __unavailable);

/* Trace logs (spec 3.8). */
int posix_trace_open(int __file_desc, trace_id_t *__trid);
int posix_trace_rewind(trace_id_t __trid);
int posix_trace_close(trace_id_t __trid);

/*
 * sysconf() for the eight _SC_TRACE* names without interposing glibc's
 * sysconf(); every other name is passed on to it.
 */
long __posix_trace_sysconf(int __name);

/*
 * posix_trace_event() is also a macro (XSH 2.1.1 allows it): the test
 * "does any stream of this process want this event type?" is inlined into
 * the caller, so an untraced or filtered-out event costs one load and a
 * branch, without a call.  __posix_trace_wanted points into the page the
 * module shares with the process (one bit per event type id, set while a
 * running stream wants it); the library calls itself for everything else.
 * (posix_trace_event)(...) or -DPOSIX_TRACE_NO_INLINE call the function.
 * Not an interface: only this header may use these names.
 */
extern const unsigned long long *const __posix_trace_wanted;

#if defined(__GNUC__)
/* 0 if bitmap @__wanted says no stream wants event type @__id; ids past
 * the bitmap are the library's to judge.  The library's function uses it
 * too, on its own view of the same page. */
static __inline__ __attribute__((__always_inline__)) int
__posix_trace_wants(const unsigned long long *__wanted, trace_event_id_t __id)
{
	return __id >= __POSIX_TRACE_ID_NR ||
	       ((__atomic_load_n(&__wanted[__id / 64], __ATOMIC_RELAXED) >>
		 (__id % 64)) & 1);
}

#ifndef POSIX_TRACE_NO_INLINE
static __inline__ __attribute__((__always_inline__)) void
__posix_trace_event_inline(trace_event_id_t __id, const void *__data,
			   size_t __len)
{
	if (__builtin_expect(!__posix_trace_wants(__posix_trace_wanted, __id), 1))
		return;
	(posix_trace_event)(__id, __data, __len);
}
#define posix_trace_event(event_id, data_ptr, data_len) \
	__posix_trace_event_inline((event_id), (data_ptr), (data_len))
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif /* _TRACE_H */
