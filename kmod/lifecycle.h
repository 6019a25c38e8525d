/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process lifecycle: fork (fork.c, with kits allocated ahead in
 * forkkit.c and the streams a child inherits in inherit.c), exec and exit
 * (lifecycle.c), and the kernel tracepoints that report them (hooks.c).
 * Beside the log writer, above streams (stream.h).
 */
#ifndef PT_LIFECYCLE_H
#define PT_LIFECYCLE_H

#include <linux/task_work.h>
#include "stream.h"

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
bool pt_inherit_records_kernel(const struct pt_inherit *inh);
void pt_proc_fork_work(struct work_struct *work);
void pt_proc_settle(struct pt_proc *proc);
void pt_settle_current(void);

/* fork.c */
void pt_fork_child(struct pid *parent, struct task_struct *child);

/* lifecycle.c */
int pt_tw_add(struct task_struct *task, struct callback_head *head,
	      task_work_func_t fn, enum task_work_notify_mode mode);
void pt_lifecycle_exit(struct task_struct *task);
void pt_lifecycle_exec(struct task_struct *task, bool raised, bool by_leader);
void pt_exec_detach_raised(struct pt_proc *proc);
void pt_exec_fresh_map(struct pt_proc *proc, bool raised);

/* hooks.c */
int pt_hooks_init(void);
void pt_hooks_exit(void);

#endif /* PT_LIFECYCLE_H */
