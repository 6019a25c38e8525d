/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posix_trace.ko internals.
 *
 * Lock order (outermost first):
 *   signal->exec_update_lock of a target (read, priv.c)  ->  pt_ctl_lock
 *   pt_log.lock (mutex, log.h)  ->  pt_ctl_lock
 *   pt_ctl_lock (mutex)  ->  pt_map.lock (mutex)
 *   pt_ctl_lock          ->  pt_lane.lock (spinlock)  ->  pt_proc_hash_lock
 *   pt_users_lock (limits.c) is innermost: nothing is taken under it.
 * The event path takes no mutex: it finds the traced process's streams
 * under RCU and writes under one lane spinlock.
 */
#ifndef PT_H
#define PT_H

#include <linux/bitmap.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>
#include <uapi/linux/posix_trace.h>
#include "lane_source.h"

#define PT_LANE_RESERVE		2048	/* room for control events */
#define PT_LANE_STRIDE		64	/* one cache line per descriptor */
#define PT_CONS_STRIDE		64
#define PT_MAX_SYS_EVENT \
	ALIGN(sizeof(struct posix_trace_record) + \
	      2 * sizeof(struct posix_trace_event_set), 8)

extern struct mutex pt_ctl_lock;	/* see the lock order above */
extern struct workqueue_struct *pt_wq;
extern unsigned int pt_max_streams;
extern unsigned long pt_max_stream_size;
extern unsigned int pt_max_writers;
extern unsigned int pt_max_writers_per_proc;
extern unsigned int pt_max_procs_per_stream;
extern unsigned int pt_max_streams_per_user;
extern unsigned long pt_max_user_memory;
extern unsigned int pt_max_names_per_user;

/* limits.c: what one user may hold (module parameters above). */
enum pt_res {
	PT_RES_STREAMS,		/* streams not shut down */
	PT_RES_MEMORY,		/* bytes of stream and writer-lane buffers */
	PT_RES_NAMES,		/* event names registered */
	PT_RES_NR
};

/*
 * struct pt_user - the resources charged to one user (real uid).
 * Lifetime: refcount; held by every stream the user created (until it is
 * freed) and every event name it registered (until its mapping is freed).
 * In the pt_users table until the last reference goes, which removes it
 * under pt_users_lock, so a lookup under that lock never sees zero.
 */
struct pt_user {
	refcount_t ref;
	struct hlist_node hnode;
	kuid_t uid;
	atomic_long_t used[PT_RES_NR];
	atomic_t releasing;	/* streams released, not freed yet */
};

struct pt_user *pt_user_current(void);
void pt_user_put(struct pt_user *u);
bool pt_user_charge(struct pt_user *u, enum pt_res res, unsigned long n);
bool pt_user_charge_memory(struct pt_user *u, unsigned long bytes);
void pt_release_begin(struct pt_user *u);
void pt_release_end(struct pt_user *u);
void pt_user_uncharge(struct pt_user *u, enum pt_res res, unsigned long n);

/* mem.c */
void *pt_vmalloc_user(size_t size);

/*
 * struct pt_map - event name <-> id mapping of one or more processes.
 * Lifetime: kref; held by every pt_proc using it, every stream tracing
 * such a process, and every map forked from it.  Names are only ever
 * appended, so an id keeps its name for the life of the map and entries
 * below @count never change: they are read without @lock.  @count is
 * published with release semantics after the entry (and the chunk that
 * holds it) is set.
 * A map made by fork() starts as a copy of the first @base entries of its
 * parent, which it reads from @parent instead of copying them.  @parent is
 * the nearest ancestor that holds one of those entries itself, so every
 * map of a chain holds at least one name: a chain is at most
 * POSIX_TRACE_USER_EVENT_MAX long, and what dead ancestors pin is bounded
 * by the names users were charged for (design.md, "Threat model").
 * Entries live in chunks of PT_MAP_CHUNK allocated on first use, so a map
 * costs memory in proportion to the names it registered itself.
 */
#define PT_MAP_CHUNK	32
struct pt_map {
	struct kref ref;
	struct mutex lock;	/* serialises appends */
	unsigned int count;	/* ids in use, the unnamed one included */
	unsigned int base;	/* ids below come from @parent */
	struct pt_map *parent;
	char **chunks[POSIX_TRACE_USER_EVENT_MAX / PT_MAP_CHUNK];
};

struct pt_map *pt_map_alloc(gfp_t gfp);
struct pt_map *pt_map_new(gfp_t gfp);
struct pt_map *pt_map_fork(struct pt_map *parent, gfp_t gfp);
void pt_map_init_fork(struct pt_map *map, struct pt_map *parent);
void pt_map_put(struct pt_map *map);
int pt_map_open(struct pt_map *map, const char *name, u32 *id);
int pt_map_name(struct pt_map *map, u32 id, char *buf, size_t size);
bool pt_map_valid_id(struct pt_map *map, u32 id);

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
	unsigned long flags;
	struct pt_inherit __rcu *inherit;	/* streams to join (inherit.c) */
	struct rcu_head rcu;
};

enum {
	PT_PROC_EXIT_TW,	/* @exit_tw or @exit_work claimed */
	PT_PROC_EXEC_TW,	/* @exec_tw queued */
	PT_PROC_EXEC_RAISED,	/* the last exec raised privileges */
};

struct pt_proc *pt_proc_shell(gfp_t gfp);
void pt_proc_shell_free(struct pt_proc *proc);
struct pt_proc *pt_proc_find(struct pid *tgid);
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
void pt_proc_fork(struct pid *parent, struct pid *child);
void pt_proc_forget_if_unused(struct pt_proc *proc);

/*
 * struct pt_kit - what the fork probe needs for one child, allocated ahead
 * (forkkit.c).  Lifetime: in the pool, or lent to the probe and then
 * queued on the forking thread until refilled; never shared.  The pool's
 * list is under a raw spinlock.
 */
struct pt_kit {
	struct list_head node;
	struct callback_head refill;
	struct pt_proc *proc;		/* a pt_proc_shell(), NULL once used */
	struct pt_map *map;		/* a pt_map_alloc(), NULL once used */
	struct pt_inherit *inh;		/* a pt_inherit_alloc(), NULL once used */
};

int pt_kits_init(void);
void pt_kits_exit(void);
struct pt_kit *pt_kit_take(void);
void pt_kit_used(struct pt_kit *kit);
void pt_kit_missed(void);
void pt_kits_read(u32 *kits, u32 *misses);

/* inherit.c */
struct pt_inherit;
struct pt_inherit *pt_inherit_alloc(gfp_t gfp);
struct pt_inherit *pt_inherit_snapshot(struct pt_proc *parent,
				       struct pt_inherit *spare);
void pt_inherit_fill_page(struct pt_proc *child, struct pt_proc *parent,
			  const struct pt_inherit *inh);
void pt_inherit_set(struct pt_proc *child, struct pt_inherit *inh);
void pt_inherit_free(struct pt_inherit *inh);
void pt_proc_fork_work(struct work_struct *work);
void pt_proc_settle(struct pt_proc *proc);
void pt_settle_current(void);

/* Writers of one lane serialise on @lock; the kernel keeps its own copy of
 * every position and never reads one back from shared memory except the
 * reader's tail, which it clamps.
 */
struct pt_lane {
	spinlock_t lock;	/* serialises writers of this lane */
	struct posix_trace_lane *desc;
	struct posix_trace_consumer *cons;
	u8 *ring;
	u64 size;
	u64 head;
	u64 oldest;
	u64 seq;
	u64 flush_mark;		/* see pt_lane_crossed_mark() */
	u64 kicked;		/* the mark that asked last, @lock */
};

enum pt_state {
	PT_SUSPENDED,		/* created or stopped by posix_trace_stop() */
	PT_RUNNING,
	PT_AUTOSTOPPED,		/* UNTIL_FULL ran out of space; restarts */
	PT_SUSPENDED_FULL,	/* stopped while auto-stopped; no restart */
	PT_DEAD,		/* shut down */
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
	unsigned int nr_lanes;
	struct pt_lane lanes[];
};

/*
 * struct pt_writer - a writer lane: memory shared read-write by the traced
 * process that owns it and the controller (layout: struct
 * posix_trace_writer_ctl, then the ring).  Lifetime: the stream's; freed
 * with it, while mappings keep the pages.  The kernel reads the shared
 * fields with READ_ONCE() only and trusts none of them.
 */
struct pt_writer {
	struct posix_trace_writer_ctl *ctl;
	void *mem;
	size_t mem_size;
	u64 data_size;
	struct pid *tgid;
};

/*
 * struct pt_writer_cursor - the flusher's reader of a writer lane's ring,
 * by 8-byte words (take_run.c): a record is a few words, which a string
 * move takes longer to start than this takes to finish, and emulators far
 * longer (Documentation/performance.md, "The log worker").  The ring is
 * the writer's memory, which it may change at any time: each word is
 * loaded once, and what is checked is the copy loaded.
 */
struct pt_writer_cursor {
	const u64 *ring;
	size_t words;	/* in the ring */
	size_t at;	/* of the next word */
};

static __always_inline u64 pt_writer_word(struct pt_writer_cursor *c)
{
	u64 v = READ_ONCE(c->ring[c->at]);

	if (++c->at == c->words)
		c->at = 0;
	return v;
}

/* A cursor on writer @w's ring at position @pos, a multiple of 8. */
static __always_inline void pt_writer_cursor_at(const struct pt_writer *w,
						u64 pos,
						struct pt_writer_cursor *c)
{
	c->ring = (const u64 *)((const u8 *)w->mem + PAGE_SIZE);
	c->words = w->data_size / 8;
	c->at = (pos % w->data_size) / 8;
}

/* Skip @n words, fewer than the ring has. */
static __always_inline void pt_writer_skip(struct pt_writer_cursor *c, size_t n)
{
	c->at += n;
	if (c->at >= c->words)
		c->at -= c->words;
}

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
int pt_stream_create(struct posix_trace_create *args, struct pid *target);
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
	bool from_task;		/* pid/tid of current, else 0 */
	bool may_wait;		/* a full never-lose stream: pt_record() false */
	u64 timestamp;		/* 0: now */
};

bool pt_record(struct pt_stream *s, const struct pt_event *ev);
void pt_record_autostop(struct pt_stream *s);
bool pt_stream_empty(struct pt_stream *s);
bool pt_stream_has_data(struct pt_stream *s);
bool pt_stream_loop_full(struct pt_stream *s);
void pt_lanes_reset(struct pt_stream *s);
int pt_event_from_user(const struct posix_trace_event_req *req);
u64 pt_lanes_heads(struct pt_stream *s);

/*
 * Can the header @rec, the flusher's copy of a writer lane's record with
 * @avail bytes of the lane from it on, be a record the library wrote?
 * (pt_writer_peek(), and take_run.c's runs, which check their copies too;
 * inline: the worker asks it for every record.)
 */
static inline bool pt_writer_rec_honest(const struct pt_stream *s,
					const struct posix_trace_record *rec,
					u64 avail)
{
	return rec->size >= sizeof(*rec) && rec->size % 8 == 0 &&
	       rec->size <= avail &&
	       rec->data_len <= rec->size - sizeof(*rec) &&
	       rec->data_len <= s->max_data &&
	       rec->event_id >= POSIX_TRACE_ID_UNNAMED &&
	       rec->event_id < POSIX_TRACE_ID_NR &&
	       !(rec->flags & ~(u32)POSIX_TRACE_REC_TRUNCATED);
}

/* writer.c */
int pt_writer_open(struct posix_trace_writer *w);
int pt_writer_notify(const struct posix_trace_notify *n);
int pt_writer_mmap(struct vm_area_struct *vma, u32 trid, u32 index);
bool pt_writers_have_data(struct pt_stream *s);
bool pt_writers_loop_full(struct pt_stream *s, u64 maxrec);
bool pt_writers_overrun(struct pt_stream *s, bool clear);
void pt_writers_reset(struct pt_stream *s);
void pt_writers_set_waiting(struct pt_stream *s, u32 waiting);
void pt_writers_free(struct pt_stream *s);
bool pt_writer_span(struct pt_stream *s, unsigned int j, u64 pos, u64 end);
bool pt_writer_kept(struct pt_stream *s, unsigned int j, u64 pos);
u64 pt_writers_heads(struct pt_stream *s);

/* log.c: the log of a stream with log (struct pt_log in log.h). */
int pt_log_init(void);
void pt_log_exit(void);
int pt_log_create(struct pt_stream *s, struct posix_trace_create *args,
		  struct pid *target);
void pt_log_free(struct pt_stream *s);
int pt_log_flush(struct pt_stream *s);
int pt_log_finish(struct pt_stream *s, const unsigned long *deadline);
unsigned long pt_log_exit_deadline(void);
int pt_log_clear(struct pt_stream *s);
void pt_log_status(struct pt_stream *s, struct posix_trace_status *st);
void pt_log_stream_full(struct pt_stream *s);
void pt_log_kick(struct pt_stream *s);
int pt_log_wait_room(struct pt_stream *s, bool killable);
/* gate.c: the log's gate learns a change of state or filter. */
void pt_log_state_changed(struct pt_stream *s);

/* ptrace_check.c */
struct cred;
struct mm_struct;
struct task_struct;
int pt_ptrace_check_init(void);
void pt_ptrace_check_exit(void);
int pt_ptrace_check(struct task_struct *t, struct mm_struct *mm);
bool pt_cred_rules_allow(const struct cred *tracer, const struct cred *tcred,
			 struct mm_struct *mm, bool noaudit);

/* priv.c */
int pt_may_trace(pid_t nr, struct pid **tgid);
struct task_struct *pt_trace_lock(struct pid *tgid);
void pt_trace_unlock(struct task_struct *task);
bool pt_group_alive(struct pid *tgid);
bool pt_owner_may_trace_current(struct pid *owner);

/* lifecycle.c */
void pt_lifecycle_exit(struct task_struct *task);
void pt_lifecycle_exec(struct task_struct *task, bool raised);
void pt_exec_detach_raised(struct pt_proc *proc);
void pt_exec_fresh_map(struct pt_proc *proc, bool raised);

/* stats.c: live objects (POSIX_TRACE_IOC_STATS). */
enum pt_stat {
	PT_STAT_STREAMS,
	PT_STAT_PROCS,
	PT_STAT_ATTACHES,
	PT_STAT_WRITERS,
	PT_STAT_MAPPINGS,
	PT_STAT_MAPS,
	PT_STAT_USERS,
	PT_STAT_NR
};

extern atomic_t pt_stats[PT_STAT_NR];
/* The resolution of the timestamps: what clock_getres(CLOCK_MONOTONIC)
 * reports (not ktime_get_resolution_ns(), the clocksource's ns per cycle,
 * which is 0 for a TSC faster than 1 GHz).
 */
static inline u32 pt_clock_res_ns(void)
{
	return hrtimer_resolution;
}

static inline void pt_stat_inc(enum pt_stat i)
{
	atomic_inc(&pt_stats[i]);
}

static inline void pt_stat_dec(enum pt_stat i)
{
	atomic_dec(&pt_stats[i]);
}

void pt_stats_read(struct posix_trace_stats *st);

/* hooks.c */
int pt_hooks_init(void);
void pt_hooks_exit(void);

/* mmap.c */
int pt_mmap(struct file *file, struct vm_area_struct *vma);
void pt_vma_hold_stream(struct vm_area_struct *vma, struct pt_stream *s);
void pt_vm_no_fork(struct vm_area_struct *vma);
long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

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

#endif /* PT_H */
