// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on kernel tracepoints, found by name with
 * for_each_kernel_tracepoint() and attached with
 * tracepoint_probe_register() as lttng-modules does: the lifecycle's
 * (hooks.c, always) and the kernel events' (kev.c, per class, while a
 * stream asks).  A table is found once; its hooks of one class are then
 * registered and unregistered together.
 */
#include <linux/tracepoint.h>
#include "base.h"

struct pt_tp_table {
	struct pt_tp_hook *hooks;
	unsigned int n;
};

static void pt_tp_match(struct tracepoint *tp, void *priv)
{
	struct pt_tp_table *t = priv;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (!strcmp(tp->name, t->hooks[i].name))
			t->hooks[i].tp = tp;
	}
}

/* Fill in each hook's tracepoint; a hook this kernel lacks keeps NULL. */
void pt_tp_find(struct pt_tp_hook *hooks, unsigned int n)
{
	struct pt_tp_table t = { .hooks = hooks, .n = n };

	for_each_kernel_tracepoint(pt_tp_match, &t);
}

/* Unregister the hooks of @class, in the reverse of the order they were
 * registered in (a table lists first the hooks that must be there for
 * the others' sake: kev.c); the caller waits for running probes
 * (tracepoint_synchronize_unregister()) before it frees what they use.
 */
void pt_tp_unregister(struct pt_tp_hook *hooks, unsigned int n, u32 class)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		if (hooks[i].class == class)
			tracepoint_probe_unregister(hooks[i].tp, hooks[i].probe, NULL);
	}
}

/* Register the hooks of @class, all or none. */
int pt_tp_register(struct pt_tp_hook *hooks, unsigned int n, u32 class)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (hooks[i].class != class)
			continue;
		ret = -ENOENT;
		if (!hooks[i].tp) {
			pr_err("posix_trace: tracepoint %s not found\n", hooks[i].name);
			goto err_register;
		}
		ret = tracepoint_probe_register(hooks[i].tp, hooks[i].probe, NULL);
		if (ret)
			goto err_register;
	}
	return 0;

err_register:
	pt_tp_unregister(hooks, i, class);
	return ret;
}
