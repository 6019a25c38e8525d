/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streams, the processes they trace, and a stream's lanes: the layer
 * above lane.h.  The log writer and the process lifecycle are above it;
 * what a stream must tell its log goes through struct pt_log_ops.
 */
#ifndef PT_STREAM_H
#define PT_STREAM_H

#include <linux/bitmap.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include "lane.h"
#include "lane_source.h"

/*
 * struct pt_proc - what the module knows about one thread group.
 * Lifetime: kref.  The hash table holds one reference until the group
 * exits (pt_proc_exit_job()); each pt_attach, each stream owned by the
 * group, each queued work item and each pending task_work callback hold
 * one more.  Freed after an RCU grace period because the event path looks
 * it up under RCU.
 * @streams is an RCU list of pt_attach, modified under pt_ctl_lock.
 * @map changes only at exec of an untraced group, under pt_ctl_lock, in
 * the group's only thread (lifecycle.c).
 * @flags: PT_PROC_* bits; the *_TW bits say @exit_tw/@exec_tw is queued.
 * @slot_lock: a raw spinlock (an auto-stop refreshes slots from the record
 * path) that orders pt_detach() taking a slot from its pt_attach against
 * pt_stream_refresh_slots() writing through it, so that a slot given to
 * another stream never gets the state of the one that left it.
 */
struct pt_proc {
	struct kref ref;
	raw_spinlock_t slot_lock;
	struct hlist_node hnode;
	struct pid *tgid;
	struct pt_map *map;
	struct list_head streams;
	struct posix_trace_proc_page *page;
	unsigned long slots_used;	/* bitmap of page->slots, pt_ctl_lock */
	struct work_struct exit_work;
	struct work_struct exec_work;
	struct work_struct fork_work;
	struct callback_head exit_tw;
	struct callback_head exec_tw;
	struct callback_head settle_tw;	/* fork.c: a child joins first */
	unsigned long flags;
	/* The group's self_exec_id once the lifecycle has settled its last
	 * exec (lifecycle.c): from the kernel's commit of a new image until
	 * then they differ, and records others make for the process
	 * (pt_kev_proc_of()) are not made.
	 */
	u64 exec_id;
	struct pt_inherit __rcu *inherit;	/* streams to join (inherit.c) */
	struct rcu_head rcu;
};

enum {
	PT_PROC_EXIT_TW,	/* @exit_tw or @exit_work claimed */
	PT_PROC_EXEC_TW,	/* @exec_tw queued */
	PT_PROC_EXEC_RAISED,	/* the last exec raised privileges */
	PT_PROC_EXEC_LEADER,	/* ... and the leader made it */
	PT_PROC_EXIT_RECORDED,	/* kev_process.c: the exit record is made */
};

/* proc.c; the lifecycle (lifecycle.h) makes the procs of forked children
 * (fork.c) and runs each proc's fork work, given once at module load
 * before any proc exists.
 */
void pt_proc_init(work_func_t fork_work);
struct pt_proc *pt_proc_alloc(struct pid *tgid, struct pt_map *parent_map,
			      bool share, gfp_t gfp);
void pt_proc_setup(struct pt_proc *proc, struct pid *tgid,
		   struct pt_map *map);
struct pt_proc *pt_proc_insert(struct pt_proc *proc);
struct pt_proc *pt_proc_shell(gfp_t gfp);
void pt_proc_shell_free(struct pt_proc *proc);
struct pt_proc *pt_proc_find(struct pid *tgid);
struct pt_proc *pt_proc_find_rcu(struct pid *tgid);
bool pt_proc_kev_maybe(struct pid *tgid);
struct pt_proc *pt_proc_find_kev_rcu(struct pid *tgid);
void pt_proc_kev_mark(struct pt_proc *proc, int delta);
u64 pt_proc_exec_id(struct pid *tgid);
struct pt_proc *pt_proc_get_or_create(struct pid *tgid);
void pt_proc_put(struct pt_proc *proc);
void pt_proc_update_page(struct pt_proc *proc);
void pt_proc_publish_ids(struct pt_proc *proc);
struct pt_attach;
void pt_slot_sync_state(struct pt_attach *a);
int pt_proc_slot_get(struct pt_proc *proc);
void pt_proc_slot_put(struct pt_proc *proc, int slot);
void pt_proc_cleanup_all(void);
void pt_proc_exit_job(struct pt_proc *proc);
void pt_proc_forget_if_unused(struct pt_proc *proc);

enum pt_state {
	PT_SUSPENDED,		/* created or stopped by posix_trace_stop() */
	PT_RUNNING,
	PT_AUTOSTOPPED,		/* UNTIL_FULL ran out of space; restarts */
	PT_SUSPENDED_FULL,	/* stopped while auto-stopped; no restart */
	PT_DEAD,		/* shut down */
};

struct pt_stream;

/*
 * struct pt_log_ops - what a stream tells the log that reads it (log.c),
 * a layer above: given to pt_stream_create() by the ioctl surface for a
 * stream with log and kept in @log_ops.  @full and @kick in any context;
 * @state_changed under pt_ctl_lock; the others may sleep.
 */
struct pt_log_ops {
	int (*create)(struct pt_stream *s, struct posix_trace_create *args,
		      struct pid *target);
	void (*free)(struct pt_stream *s);
	/* the final flush (shutdown), waiting until *@deadline at most */
	int (*finish)(struct pt_stream *s, const unsigned long *deadline);
	void (*full)(struct pt_stream *s);	/* the stream filled up */
	void (*kick)(struct pt_stream *s);	/* a lane passed its flush mark */
	void (*state_changed)(struct pt_stream *s);	/* state or filter */
	void (*status)(struct pt_stream *s, struct posix_trace_status *st);
};

/*
 * The kernel event classes of a stream (posix_trace_create.kernel_classes)
 * are recorded by probes of the layer above (kev.c), which registers them
 * while a stream asks: @get when the stream is created (process context,
 * may sleep; an error fails the create), @put when it is freed.
 * @exec_kept: current's exec raised privileges and @s, which records
 * kernel events, kept the right to trace it; the probe made no exec
 * record then (the right was not settled), so record it now (the
 * lifecycle, in current, under pt_ctl_lock, before the new image's first
 * instruction): @name, @len as the exec was given them; @by_leader if
 * the thread group's leader called exec.
 */
struct pt_class_ops {
	int (*get)(u32 classes);
	void (*put)(u32 classes);
	void (*exec_kept)(struct pt_stream *s, const char *name, u32 len,
			  bool by_leader);
};

/*
 * struct pt_stream - one trace stream.
 * Lifetime: kref.  The trid table holds the initial reference until
 * shutdown; every pt_attach, every ioctl in progress and every mapped area
 * of its regions or writer lanes (mmap.c) hold one more, so the buffers
 * are freed after the last munmap().
 * Freed from pt_wq after an RCU grace period (the event path and the
 * trid lookup use RCU).
 * @state changes under pt_ctl_lock, except RUNNING -> AUTOSTOPPED, which
 * the event path does with cmpxchg under a lane lock.
 * @targets is an RCU list of pt_attach, modified under pt_ctl_lock.
 * @map is the mapping of the processes it traces; it changes once at most,
 * under pt_ctl_lock, when a raised exec leaves the stream without them
 * (lifecycle.c), and the one before stays in @map_shared.
 * @writers[0 .. @nr_writers) are published under pt_ctl_lock with a
 * release store of @nr_writers and never change until the stream is freed.
 */
struct pt_stream {
	struct kref ref;
	u32 trid;
	atomic_t state;
	atomic_t overrun;
	/* An overrun happened since the create or the last clear, reported
	 * or not: the log's STATUS trailer is that of the completed stream
	 * (GETSTAT-4, RULE-38), which get_status must not have reset.
	 */
	atomic_t overrun_seen;
	/* Full when shut down, before the final flush emptied it: for the
	 * log's STATUS trailer.  Set under pt_ctl_lock, read after.
	 */
	bool full_at_shutdown;
	/* Events the stream did not take since the create or the last
	 * clear (UNTIL_FULL and FLUSH: emitted while it was full or stopped
	 * by it, or larger than a lane), and the times it filled: the log's
	 * LOSS block.  Writers report their own drops (NOTIFY_FULL).
	 */
	atomic64_t dropped;
	atomic_t drop_gaps;
	/* Stream policy FLUSH: a lane asks for a flush this far (half a
	 * lane) past what the log has taken; 0 for other streams.
	 */
	u64 flush_step;
	/* Never-lose mode: how long a full writer lane waits for room
	 * (posix_trace_create.full_wait_ns, copied into each lane's
	 * control page); 0: it drops at once.
	 */
	u64 full_wait_ns;
	u32 policy;
	u32 inherit;
	u64 capacity;		/* user record bytes per lane */
	u64 max_data;
	u64 created_real;
	u64 created_mono;
	struct pid *owner;	/* tgid of the controller */
	struct pt_user *user;	/* charged for the stream and its memory */
	unsigned long charged;	/* bytes charged to @user, pt_ctl_lock */
	struct mem_cgroup *memcg;	/* of the creator: writer lanes too */
	struct pid_namespace *pidns;
	struct pt_map *map;
	struct pt_map *map_shared;	/* @map until a raised exec (lifecycle.c) */
	struct list_head targets;
	unsigned int nr_targets;	/* on @targets, pt_ctl_lock */
	wait_queue_head_t wq;
	void *ro;
	size_t ro_size;
	void *cons;
	size_t cons_size;
	struct rcu_work free_work;
	struct posix_trace_stream_header *hdr;
	struct posix_trace_writer_desc *wdesc;
	unsigned int max_writers;
	unsigned int nr_writers;
	struct pt_writer **writers;
	/* Ids not recorded (TEF); written under pt_ctl_lock, read locklessly. */
	DECLARE_BITMAP(filter, POSIX_TRACE_ID_NR);
	char name[POSIX_TRACE_NAME_MAX];
	struct pt_log *log;	/* stream with log (log.c), else NULL */
	const struct pt_log_ops *log_ops;	/* its calls, else NULL */
	/* POSIX_TRACE_KCLASS_* it records, fixed at creation; their probes
	 * stay registered (@class_ops) until the stream is freed.
	 */
	u32 kclasses;
	const struct pt_class_ops *class_ops;
	/* What a record made under the kernel's own locks has to tell
	 * (PT_NOTE_*), told by @note_work (record.c); synced before free.
	 */
	atomic_t notes;
	struct irq_work note_work;
	unsigned int nr_lanes;
	struct pt_lane lanes[];
};

/*
 * struct pt_attach - "stream traces process".  On proc->streams and
 * stream->targets, both RCU lists changed under pt_ctl_lock; @slot is the
 * stream's entry in the process's page (-1: none), set under pt_ctl_lock,
 * cleared under pt_ctl_lock and @proc->slot_lock.  Holds a reference on
 * each side, dropped after an RCU grace period.
 */
struct pt_attach {
	struct list_head proc_node;
	struct list_head stream_node;
	struct pt_proc *proc;
	struct pt_stream *stream;
	int slot;
	struct rcu_head rcu;
};

/* stream.c, stream_attach.c, stream_control.c */
struct pt_stream *pt_stream_find(u32 trid);
struct pt_stream *pt_stream_lookup(u32 trid);
void pt_stream_put(struct pt_stream *s);
int pt_stream_create(struct posix_trace_create *args, struct pid *target,
		     const struct pt_log_ops *log_ops,
		     const struct pt_class_ops *class_ops);
int pt_attach(struct pt_stream *s, struct pt_proc *proc);
int pt_stream_start(struct pt_stream *s, const struct posix_trace_ctl *c);
int pt_stream_stop(struct pt_stream *s, const struct posix_trace_ctl *c);
int pt_stream_clear(struct pt_stream *s);
int pt_stream_shutdown(struct pt_stream *s, const struct posix_trace_ctl *c);
void pt_stream_try_restart(struct pt_stream *s);
void pt_stream_status(struct pt_stream *s, struct posix_trace_status *st);
int pt_stream_wait(struct pt_stream *s, bool timed, u64 abstime);
int pt_stream_set_filter(struct pt_stream *s, const struct posix_trace_filter *f,
			 const struct posix_trace_event_set *set);
void pt_stream_get_filter(struct pt_stream *s, struct posix_trace_event_set *set);
void pt_shutdown_owned_by(struct pid *tgid);
void pt_detach_proc(struct pt_proc *proc);
void pt_detach(struct pt_attach *a);
void pt_stream_refresh_slots(struct pt_stream *s);
unsigned int pt_nr_active_streams(void);
/* stream_attach.c, stream_control.c: for each other and stream.c */
void pt_update_targets(struct pt_stream *s);
void pt_record_stop(struct pt_stream *s, const struct posix_trace_ctl *c);
bool pt_stream_full(struct pt_stream *s);

/*
 * Process and thread ids of @t in @ns, as task_tgid_nr_ns() and
 * task_pid_nr_ns() give them: for the initial namespace without their
 * walk of @t's pid (most streams, and a cost in every kernel record).
 */
static inline void pt_task_ids(struct task_struct *t, struct pid_namespace *ns,
			       u32 *pid, u32 *tid)
{
	if (ns == &init_pid_ns) {
		*pid = t->tgid;
		*tid = t->pid;
	} else {
		*pid = task_tgid_nr_ns(t, ns);
		*tid = task_pid_nr_ns(t, ns);
	}
}

/* record.c */
struct pt_event {
	u32 id;
	u32 flags;
	u64 thread;
	u64 address;
	const void *data;
	u32 data_len;
	bool truncated;
	bool control;		/* may use the lane reserve */
	bool from_task;		/* pid/tid of task (or current), else 0 */
	bool may_wait;		/* a full never-lose stream: pt_record() false */
	u64 timestamp;		/* 0: now */
	struct task_struct *task; /* from_task: this task, not current */
	/* Under the kernel's own locks (the scheduler's, where waking
	 * anyone would take them again; a siglock, maybe under
	 * tasklist_lock): pt_record() leaves what it has to tell the log,
	 * the slots and the readers to an irq_work.
	 */
	bool defer_notes;
	/* An age the record tells (0: none): the u64 of the data at byte
	 * @since_off is set to the record's timestamp minus @since, once
	 * the timestamp is taken.  A time before the record, told so,
	 * needs no clock of the reader's (a call's entry: kev_syscall.c).
	 */
	u64 since;
	u32 since_off;
};

bool pt_record(struct pt_stream *s, const struct pt_event *ev);
void pt_record_notes_init(struct pt_stream *s);
void pt_record_notes_sync(struct pt_stream *s);
void pt_record_autostop(struct pt_stream *s);
bool pt_stream_empty(struct pt_stream *s);
bool pt_stream_has_data(struct pt_stream *s);
bool pt_stream_loop_full(struct pt_stream *s);
void pt_lanes_reset(struct pt_stream *s);
u64 pt_lanes_heads(struct pt_stream *s);

/* writer.c */

bool pt_writers_have_data(struct pt_stream *s);
bool pt_writers_loop_full(struct pt_stream *s, u64 maxrec);
bool pt_writers_overrun(struct pt_stream *s, bool clear);
u64 pt_writers_dropped(struct pt_stream *s);
void pt_writers_reset(struct pt_stream *s);
void pt_writers_set_waiting(struct pt_stream *s, u32 waiting);
void pt_writers_free(struct pt_stream *s);
bool pt_writer_span(struct pt_stream *s, unsigned int j, u64 pos, u64 end);
bool pt_writer_kept(struct pt_stream *s, unsigned int j, u64 pos);
u64 pt_writers_heads(struct pt_stream *s);

static inline u64 pt_ro_offset(u32 trid)
{
	return ((u64)trid << 2 | 1) << PAGE_SHIFT;
}

static inline u64 pt_cons_offset(u32 trid)
{
	return ((u64)trid << 2 | 2) << PAGE_SHIFT;
}

/* Writer lanes published so far. */
static inline unsigned int pt_nr_writers(struct pt_stream *s)
{
	/* Pairs with pt_writer_publish(): s->writers[i] below it is set. */
	return smp_load_acquire(&s->nr_writers);
}

/* Writer lanes: page offset (trid, index, 3); index < POSIX_TRACE_MAX_WRITERS. */
#define PT_WRITER_INDEX_BITS	10
static inline u64 pt_writer_offset(u32 trid, u32 index)
{
	return (((u64)trid << PT_WRITER_INDEX_BITS | index) << 2 | 3) << PAGE_SHIFT;
}

#endif /* PT_STREAM_H */
