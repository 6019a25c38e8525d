/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posix_trace.ko's bottom layer: what every layer above may use (the
 * layers: Documentation/design.md, "Architecture"; scripts/check-layers
 * holds each file to them).  Module parameters, the control lock, what a
 * user is charged, names and ids (map.c), the privilege checks (priv.c,
 * ptrace_check.c) and the counters of live objects (stats.c).
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
#ifndef PT_BASE_H
#define PT_BASE_H

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <uapi/linux/posix_trace.h>

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
extern unsigned int pt_max_kev_streams_per_user;

/* limits.c: what one user may hold (module parameters above). */
enum pt_res {
	PT_RES_STREAMS,		/* streams not shut down */
	PT_RES_MEMORY,		/* bytes of stream and writer-lane buffers */
	PT_RES_NAMES,		/* event names registered */
	PT_RES_KEV_STREAMS,	/* of PT_RES_STREAMS, those with kernel events */
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

/* ptrace_check.c */
struct cred;
struct mm_struct;
struct task_struct;
int pt_ptrace_check_init(void);
void pt_ptrace_check_exit(void);
int pt_ptrace_check(struct task_struct *t, struct mm_struct *mm);
bool pt_cred_rules_allow(const struct cred *tracer, const struct cred *tcred,
			 struct mm_struct *mm, bool noaudit);

/*
 * tracepoints.c: a probe on a kernel tracepoint found by name; @class
 * groups the hooks registered together (kev.c's classes; 0 in hooks.c).
 */
struct pt_tp_hook {
	const char *name;
	void *probe;
	u32 class;
	struct tracepoint *tp;
};

void pt_tp_find(struct pt_tp_hook *hooks, unsigned int n);
int pt_tp_register(struct pt_tp_hook *hooks, unsigned int n, u32 class);
void pt_tp_unregister(struct pt_tp_hook *hooks, unsigned int n, u32 class);

/* priv.c */
struct linux_binprm;
bool pt_exec_raised(struct task_struct *p, const struct linux_binprm *bprm);
int pt_may_trace(pid_t nr, struct pid **tgid);
struct task_struct *pt_trace_lock(struct pid *tgid);
void pt_trace_unlock(struct task_struct *task);
bool pt_group_alive(struct pid *tgid);
bool pt_owner_may_trace_current(struct pid *owner);

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

/* A count a writer lane may claim any value of: it sticks at the top. */
static inline u64 pt_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

#endif /* PT_BASE_H */
