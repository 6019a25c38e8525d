// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Compile-only check of <trace.h> against spec section 2 (HDR-1..7, 1.8,
 * 1.9).  tests/Makefile compiles this file as C99 and C11 with -pedantic
 * and as C++11, each time with -Wall -Wextra -Werror; it is never linked.
 * It includes nothing but <trace.h>, so it also proves the header is
 * self-contained.  Every type, member, constant and function of section 2
 * is referenced; function pointers with the exact prototypes check the
 * declarations.
 */
#include <trace.h>
#include <trace.h>	/* include guard */

#define PT_ASSERT(name, cond)	typedef char pt_assert_##name[(cond) ? 1 : -1]

/*
 * 1.9, MODEL-35/36: Trace is claimed at compile time; each sub-option is
 * 0 ("ask sysconf") until its issue lands, then 200809L, never -1.
 */
#if !defined(_POSIX_TRACE) || _POSIX_TRACE != 200809L
#error "_POSIX_TRACE"
#endif
#if !defined(_POSIX_TRACE_EVENT_FILTER) || \
    (_POSIX_TRACE_EVENT_FILTER != 0 && _POSIX_TRACE_EVENT_FILTER != 200809L)
#error "_POSIX_TRACE_EVENT_FILTER"
#endif
#if !defined(_POSIX_TRACE_LOG) || (_POSIX_TRACE_LOG != 0 && _POSIX_TRACE_LOG != 200809L)
#error "_POSIX_TRACE_LOG"
#endif
#if !defined(_POSIX_TRACE_INHERIT) || \
    (_POSIX_TRACE_INHERIT != 0 && _POSIX_TRACE_INHERIT != 200809L)
#error "_POSIX_TRACE_INHERIT"
#endif

/* 1.8, MODEL-32/33: minima exactly, limits at least the minima. */
#if _POSIX_TRACE_EVENT_NAME_MAX != 30 || _POSIX_TRACE_NAME_MAX != 8 || \
    _POSIX_TRACE_SYS_MAX != 8 || _POSIX_TRACE_USER_EVENT_MAX != 32
#error "_POSIX_TRACE_*_MAX"
#endif
#if TRACE_EVENT_NAME_MAX < _POSIX_TRACE_EVENT_NAME_MAX || \
    TRACE_NAME_MAX < _POSIX_TRACE_NAME_MAX || \
    TRACE_USER_EVENT_MAX < _POSIX_TRACE_USER_EVENT_MAX
#error "TRACE_*_MAX"
#endif
#if defined(TRACE_SYS_MAX) && TRACE_SYS_MAX < _POSIX_TRACE_SYS_MAX
#error "TRACE_SYS_MAX"
#endif

/* MODEL-38: the sysconf() names (from <unistd.h>, via <trace.h>). */
int pt_sc_names[] = {
	_SC_TRACE, _SC_TRACE_EVENT_FILTER, _SC_TRACE_LOG, _SC_TRACE_INHERIT,
	_SC_TRACE_EVENT_NAME_MAX, _SC_TRACE_NAME_MAX, _SC_TRACE_SYS_MAX,
	_SC_TRACE_USER_EVENT_MAX,
};

/* 2.1, HDR-1: the types exist; trid, event ids and sets are assignable. */
size_t pt_size;
trace_attr_t pt_attr;
trace_id_t pt_trid;
trace_event_id_t pt_event_id;
trace_event_set_t pt_set;

void pt_use_types(trace_id_t trid, trace_event_id_t id, trace_event_set_t set);
void pt_use_types(trace_id_t trid, trace_event_id_t id, trace_event_set_t set)
{
	pt_trid = trid;
	pt_event_id = id;
	pt_set = set;
	pt_size = sizeof(trace_attr_t);
}

/* REQ: HDR-2 (only <trace.h> is included) */
/* 2.2: members of struct posix_trace_event_info, with their types. */
void pt_use_event_info(struct posix_trace_event_info *e, void **out);
void pt_use_event_info(struct posix_trace_event_info *e, void **out)
{
	trace_event_id_t *id = &e->posix_event_id;
	pid_t *pid = &e->posix_pid;
	void **addr = &e->posix_prog_address;
	pthread_t *thread = &e->posix_thread_id;
	struct timespec *ts = &e->posix_timestamp;
	int *trunc = &e->posix_truncation_status;

	out[0] = id;
	out[1] = pid;
	out[2] = addr;
	out[3] = thread;
	out[4] = ts;
	out[5] = trunc;
}

/* REQ: HDR-4 (the TRL members are present) */
/* 2.3: members of struct posix_trace_status_info, all int. */
void pt_use_status_info(struct posix_trace_status_info *s, int **out);
void pt_use_status_info(struct posix_trace_status_info *s, int **out)
{
	out[0] = &s->posix_stream_status;
	out[1] = &s->posix_stream_full_status;
	out[2] = &s->posix_stream_overrun_status;
	out[3] = &s->posix_stream_flush_status;
	out[4] = &s->posix_stream_flush_error;
	out[5] = &s->posix_log_overrun_status;
	out[6] = &s->posix_log_full_status;
}

/* 2.4: every constant, as an integer constant expression. */
int pt_int_constants[] = {
	POSIX_TRACE_RUNNING, POSIX_TRACE_SUSPENDED,
	POSIX_TRACE_FULL, POSIX_TRACE_NOT_FULL,
	POSIX_TRACE_OVERRUN, POSIX_TRACE_NO_OVERRUN,
	POSIX_TRACE_FLUSHING, POSIX_TRACE_NOT_FLUSHING,
	POSIX_TRACE_LOOP, POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH,
	POSIX_TRACE_APPEND,
	POSIX_TRACE_CLOSE_FOR_CHILD, POSIX_TRACE_INHERITED,
	POSIX_TRACE_NOT_TRUNCATED, POSIX_TRACE_TRUNCATED_RECORD,
	POSIX_TRACE_TRUNCATED_READ,
	POSIX_TRACE_WOPID_EVENTS, POSIX_TRACE_SYSTEM_EVENTS,
	POSIX_TRACE_ALL_EVENTS,
	POSIX_TRACE_SET_EVENTSET, POSIX_TRACE_ADD_EVENTSET,
	POSIX_TRACE_SUB_EVENTSET,
};

/* REQ: HDR-7 (FILTER and FLUSH_START/STOP exist) */
/* 2.4.10: event type ids, both spellings of the unnamed user event. */
trace_event_id_t pt_event_constants[] = {
	POSIX_TRACE_ERROR, POSIX_TRACE_START, POSIX_TRACE_STOP,
	POSIX_TRACE_FILTER, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME,
	POSIX_TRACE_FLUSH_START, POSIX_TRACE_FLUSH_STOP,
	POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_UNNAMED_USER_EVENT,
};

/* Each status pair is distinguishable. */
PT_ASSERT(status, POSIX_TRACE_RUNNING != POSIX_TRACE_SUSPENDED);
PT_ASSERT(full, POSIX_TRACE_FULL != POSIX_TRACE_NOT_FULL);
PT_ASSERT(overrun, POSIX_TRACE_OVERRUN != POSIX_TRACE_NO_OVERRUN);
PT_ASSERT(flushing, POSIX_TRACE_FLUSHING != POSIX_TRACE_NOT_FLUSHING);
PT_ASSERT(inherit, POSIX_TRACE_CLOSE_FOR_CHILD != POSIX_TRACE_INHERITED);

/* 2.4.5: policies distinct, FLUSH != APPEND so each setter can reject. */
PT_ASSERT(pol1, POSIX_TRACE_LOOP != POSIX_TRACE_UNTIL_FULL);
PT_ASSERT(pol2, POSIX_TRACE_LOOP != POSIX_TRACE_FLUSH);
PT_ASSERT(pol3, POSIX_TRACE_LOOP != POSIX_TRACE_APPEND);
PT_ASSERT(pol4, POSIX_TRACE_UNTIL_FULL != POSIX_TRACE_FLUSH);
PT_ASSERT(pol5, POSIX_TRACE_UNTIL_FULL != POSIX_TRACE_APPEND);
PT_ASSERT(pol6, POSIX_TRACE_FLUSH != POSIX_TRACE_APPEND);

PT_ASSERT(trunc1, POSIX_TRACE_NOT_TRUNCATED != POSIX_TRACE_TRUNCATED_RECORD);
PT_ASSERT(trunc2, POSIX_TRACE_NOT_TRUNCATED != POSIX_TRACE_TRUNCATED_READ);
PT_ASSERT(trunc3, POSIX_TRACE_TRUNCATED_RECORD != POSIX_TRACE_TRUNCATED_READ);

PT_ASSERT(fill1, POSIX_TRACE_WOPID_EVENTS != POSIX_TRACE_SYSTEM_EVENTS);
PT_ASSERT(fill2, POSIX_TRACE_WOPID_EVENTS != POSIX_TRACE_ALL_EVENTS);
PT_ASSERT(fill3, POSIX_TRACE_SYSTEM_EVENTS != POSIX_TRACE_ALL_EVENTS);

PT_ASSERT(how1, POSIX_TRACE_SET_EVENTSET != POSIX_TRACE_ADD_EVENTSET);
PT_ASSERT(how2, POSIX_TRACE_SET_EVENTSET != POSIX_TRACE_SUB_EVENTSET);
PT_ASSERT(how3, POSIX_TRACE_ADD_EVENTSET != POSIX_TRACE_SUB_EVENTSET);

/* 2.4.10, 5.5: the fixed id layout; both spellings are one id. */
PT_ASSERT(ev_error, POSIX_TRACE_ERROR == 1);
PT_ASSERT(ev_start, POSIX_TRACE_START == 2);
PT_ASSERT(ev_stop, POSIX_TRACE_STOP == 3);
PT_ASSERT(ev_filter, POSIX_TRACE_FILTER == 4);
PT_ASSERT(ev_overflow, POSIX_TRACE_OVERFLOW == 5);
PT_ASSERT(ev_resume, POSIX_TRACE_RESUME == 6);
PT_ASSERT(ev_flush_start, POSIX_TRACE_FLUSH_START == 7);
PT_ASSERT(ev_flush_stop, POSIX_TRACE_FLUSH_STOP == 8);
PT_ASSERT(ev_unnamed, POSIX_TRACE_UNNAMED_USEREVENT == 256);
PT_ASSERT(ev_unnamed2,
	  POSIX_TRACE_UNNAMED_USEREVENT == POSIX_TRACE_UNNAMED_USER_EVENT);
PT_ASSERT(ev_type, sizeof(POSIX_TRACE_START) == sizeof(trace_event_id_t));

/* REQ: HDR-3 EVENT-5 EVSET-0c (C++11 needs full prototypes) */
/* 2.7: the 50 prototypes, compared through exactly typed pointers. */
#define PT_FN(name, ret, params)	ret (*pt_fn_##name) params = name

PT_FN(posix_trace_attr_destroy, int, (trace_attr_t *));
PT_FN(posix_trace_attr_init, int, (trace_attr_t *));
PT_FN(posix_trace_attr_getclockres, int,
      (const trace_attr_t *, struct timespec *));
PT_FN(posix_trace_attr_getcreatetime, int,
      (const trace_attr_t *, struct timespec *));
PT_FN(posix_trace_attr_getgenversion, int, (const trace_attr_t *, char *));
PT_FN(posix_trace_attr_getname, int, (const trace_attr_t *, char *));
PT_FN(posix_trace_attr_setname, int, (trace_attr_t *, const char *));
PT_FN(posix_trace_attr_getinherited, int, (const trace_attr_t *, int *));
PT_FN(posix_trace_attr_setinherited, int, (trace_attr_t *, int));
PT_FN(posix_trace_attr_getlogfullpolicy, int, (const trace_attr_t *, int *));
PT_FN(posix_trace_attr_setlogfullpolicy, int, (trace_attr_t *, int));
PT_FN(posix_trace_attr_getstreamfullpolicy, int, (const trace_attr_t *, int *));
PT_FN(posix_trace_attr_setstreamfullpolicy, int, (trace_attr_t *, int));
PT_FN(posix_trace_attr_getlogsize, int, (const trace_attr_t *, size_t *));
PT_FN(posix_trace_attr_setlogsize, int, (trace_attr_t *, size_t));
PT_FN(posix_trace_attr_getmaxdatasize, int, (const trace_attr_t *, size_t *));
PT_FN(posix_trace_attr_setmaxdatasize, int, (trace_attr_t *, size_t));
PT_FN(posix_trace_attr_getmaxsystemeventsize, int,
      (const trace_attr_t *, size_t *));
PT_FN(posix_trace_attr_getmaxusereventsize, int,
      (const trace_attr_t *, size_t, size_t *));
PT_FN(posix_trace_attr_getstreamsize, int, (const trace_attr_t *, size_t *));
PT_FN(posix_trace_attr_setstreamsize, int, (trace_attr_t *, size_t));

PT_FN(posix_trace_create, int, (pid_t, const trace_attr_t *, trace_id_t *));
PT_FN(posix_trace_create_withlog, int,
      (pid_t, const trace_attr_t *, int, trace_id_t *));
PT_FN(posix_trace_flush, int, (trace_id_t));
PT_FN(posix_trace_shutdown, int, (trace_id_t));
PT_FN(posix_trace_clear, int, (trace_id_t));
PT_FN(posix_trace_start, int, (trace_id_t));
PT_FN(posix_trace_stop, int, (trace_id_t));

PT_FN(posix_trace_event, void, (trace_event_id_t, const void *, size_t));
PT_FN(posix_trace_eventid_open, int, (const char *, trace_event_id_t *));

PT_FN(posix_trace_eventid_equal, int,
      (trace_id_t, trace_event_id_t, trace_event_id_t));
PT_FN(posix_trace_eventid_get_name, int,
      (trace_id_t, trace_event_id_t, char *));
PT_FN(posix_trace_trid_eventid_open, int,
      (trace_id_t, const char *, trace_event_id_t *));
PT_FN(posix_trace_eventtypelist_getnext_id, int,
      (trace_id_t, trace_event_id_t *, int *));
PT_FN(posix_trace_eventtypelist_rewind, int, (trace_id_t));

PT_FN(posix_trace_eventset_add, int, (trace_event_id_t, trace_event_set_t *));
PT_FN(posix_trace_eventset_del, int, (trace_event_id_t, trace_event_set_t *));
PT_FN(posix_trace_eventset_empty, int, (trace_event_set_t *));
PT_FN(posix_trace_eventset_fill, int, (trace_event_set_t *, int));
PT_FN(posix_trace_eventset_ismember, int,
      (trace_event_id_t, const trace_event_set_t *, int *));
PT_FN(posix_trace_get_filter, int, (trace_id_t, trace_event_set_t *));
PT_FN(posix_trace_set_filter, int, (trace_id_t, const trace_event_set_t *, int));

PT_FN(posix_trace_get_attr, int, (trace_id_t, trace_attr_t *));
PT_FN(posix_trace_get_status, int,
      (trace_id_t, struct posix_trace_status_info *));

PT_FN(posix_trace_getnext_event, int,
      (trace_id_t, struct posix_trace_event_info *, void *, size_t, size_t *,
       int *));
PT_FN(posix_trace_timedgetnext_event, int,
      (trace_id_t, struct posix_trace_event_info *, void *, size_t, size_t *,
       int *, const struct timespec *));
PT_FN(posix_trace_trygetnext_event, int,
      (trace_id_t, struct posix_trace_event_info *, void *, size_t, size_t *,
       int *));

PT_FN(posix_trace_open, int, (int, trace_id_t *));
PT_FN(posix_trace_rewind, int, (trace_id_t));
PT_FN(posix_trace_close, int, (trace_id_t));

/* 5.1: the non-interposing sysconf() helper. */
PT_FN(__posix_trace_sysconf, long, (int));

/*
 * The implementation-defined (_np) additions, each announced by its
 * feature macro: never-lose mode, loss counts, kernel events, the thread
 * id of the event last read.
 */
#if !defined(_POSIX_TRACE_FULLWAIT_NP) || !defined(_POSIX_TRACE_LOSSES_NP) || \
    !defined(_POSIX_TRACE_KERNEL_EVENTS_NP)
#error "_POSIX_TRACE_*_NP"
#endif
PT_FN(posix_trace_attr_getfullwait_np, int,
      (const trace_attr_t *, struct timespec *));
PT_FN(posix_trace_attr_setfullwait_np, int,
      (trace_attr_t *, const struct timespec *));
PT_FN(posix_trace_get_losses_np, int,
      (trace_id_t, struct posix_trace_losses_np *));
PT_FN(posix_trace_attr_getkernelclasses_np, int,
      (const trace_attr_t *, unsigned int *));
PT_FN(posix_trace_attr_setkernelclasses_np, int, (trace_attr_t *, unsigned int));

#if !defined(_POSIX_TRACE_EVENT_TID_NP)
#error "_POSIX_TRACE_EVENT_TID_NP"
#endif
PT_FN(posix_trace_event_tid_np, int, (trace_id_t, pid_t *));

/* The classes are bits, ALL their union; the ids are system ids. */
unsigned int pt_kernel_classes[] = {
	POSIX_TRACE_KERNEL_SYSCALL_NP, POSIX_TRACE_KERNEL_SIGNAL_NP,
	POSIX_TRACE_KERNEL_SCHED_NP, POSIX_TRACE_KERNEL_FAULT_NP,
	POSIX_TRACE_KERNEL_PROCESS_NP, POSIX_TRACE_KERNEL_ALL_NP,
};
trace_event_id_t pt_kernel_ids[] = {
	POSIX_TRACE_SYSCALL_ENTRY_NP, POSIX_TRACE_SYSCALL_EXIT_NP,
	POSIX_TRACE_SIGNAL_GENERATE_NP, POSIX_TRACE_SIGNAL_DELIVER_NP,
	POSIX_TRACE_SCHED_OUT_NP, POSIX_TRACE_SCHED_IN_NP,
	POSIX_TRACE_SCHED_WAKEUP_NP, POSIX_TRACE_FAULT_MAJOR_NP,
	POSIX_TRACE_PROCESS_FORK_NP, POSIX_TRACE_PROCESS_EXEC_NP,
	POSIX_TRACE_PROCESS_EXIT_NP, POSIX_TRACE_FAULT_MINOR_NP,
	POSIX_TRACE_SYSCALL_NP,
};
PT_ASSERT(kclass_bits, (POSIX_TRACE_KERNEL_SYSCALL_NP &
			POSIX_TRACE_KERNEL_PROCESS_NP) == 0);
PT_ASSERT(kclass_bits2, (POSIX_TRACE_KERNEL_SYSCALL_NP &
			 POSIX_TRACE_KERNEL_SIGNAL_NP) == 0);
PT_ASSERT(kclass_bits3, (POSIX_TRACE_KERNEL_SIGNAL_NP &
			 POSIX_TRACE_KERNEL_PROCESS_NP) == 0);
PT_ASSERT(kclass_bits4, (POSIX_TRACE_KERNEL_SCHED_NP &
			 (POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP |
			  POSIX_TRACE_KERNEL_PROCESS_NP)) == 0);
PT_ASSERT(kclass_bits5, (POSIX_TRACE_KERNEL_FAULT_NP &
			 (POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP |
			  POSIX_TRACE_KERNEL_SCHED_NP |
			  POSIX_TRACE_KERNEL_PROCESS_NP)) == 0);
PT_ASSERT(kclass_syscall, POSIX_TRACE_KERNEL_SYSCALL_NP == 0x01u);
PT_ASSERT(kclass_signal, POSIX_TRACE_KERNEL_SIGNAL_NP == 0x02u);
PT_ASSERT(kclass_sched, POSIX_TRACE_KERNEL_SCHED_NP == 0x04u);
PT_ASSERT(kclass_fault, POSIX_TRACE_KERNEL_FAULT_NP == 0x08u);
PT_ASSERT(kclass_process, POSIX_TRACE_KERNEL_PROCESS_NP == 0x10u);
PT_ASSERT(kclass_all, POSIX_TRACE_KERNEL_ALL_NP ==
	  (POSIX_TRACE_KERNEL_SYSCALL_NP | POSIX_TRACE_KERNEL_SIGNAL_NP |
	   POSIX_TRACE_KERNEL_SCHED_NP | POSIX_TRACE_KERNEL_FAULT_NP |
	   POSIX_TRACE_KERNEL_PROCESS_NP));
PT_ASSERT(kid_entry, POSIX_TRACE_SYSCALL_ENTRY_NP == 16);
PT_ASSERT(kid_exit, POSIX_TRACE_SYSCALL_EXIT_NP == 17);
PT_ASSERT(kid_generate, POSIX_TRACE_SIGNAL_GENERATE_NP == 18);
PT_ASSERT(kid_deliver, POSIX_TRACE_SIGNAL_DELIVER_NP == 19);
PT_ASSERT(kid_sched_out, POSIX_TRACE_SCHED_OUT_NP == 20);
PT_ASSERT(kid_sched_in, POSIX_TRACE_SCHED_IN_NP == 21);
PT_ASSERT(kid_wakeup, POSIX_TRACE_SCHED_WAKEUP_NP == 22);
PT_ASSERT(kid_fault_major, POSIX_TRACE_FAULT_MAJOR_NP == 23);
PT_ASSERT(kid_fork, POSIX_TRACE_PROCESS_FORK_NP == 24);
PT_ASSERT(kid_exec, POSIX_TRACE_PROCESS_EXEC_NP == 25);
PT_ASSERT(kid_pexit, POSIX_TRACE_PROCESS_EXIT_NP == 26);
PT_ASSERT(kid_fault_minor, POSIX_TRACE_FAULT_MINOR_NP == 27);
PT_ASSERT(kid_call, POSIX_TRACE_SYSCALL_NP == 28);
PT_ASSERT(kid_type, sizeof(POSIX_TRACE_SYSCALL_ENTRY_NP) == sizeof(trace_event_id_t));
