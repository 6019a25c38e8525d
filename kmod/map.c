// SPDX-License-Identifier: GPL-2.0
/*
 * Event name <-> id mappings (spec 5.17).  Ids are dense: user id
 * POSIX_TRACE_ID_UNNAMED + i names names[i]; i == 0 is the unnamed event.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include "base.h"

static const char pt_unnamed_name[] = "posix_trace_unnamed_userevent";

/* A registered name; pt_map.names[] points at @str.  @user was charged. */
struct pt_name {
	struct pt_user *user;
	char str[];
};

static struct pt_name *pt_name_of(char *str)
{
	return container_of(str, struct pt_name, str[0]);
}

/* A copy of @name charged to the caller's max_names_per_user: NULL with
 * *@over set when the user has no names left, NULL alone without memory.
 */
static char *pt_name_new(const char *name, bool *over)
{
	size_t len = strlen(name) + 1;
	struct pt_user *u = pt_user_current();
	struct pt_name *n;

	*over = false;
	if (!u)
		return NULL;
	if (!pt_user_charge(u, PT_RES_NAMES, 1)) {
		*over = true;
		goto err_user;
	}
	n = kmalloc(struct_size(n, str, len), GFP_KERNEL_ACCOUNT);
	if (!n)
		goto err_charge;
	n->user = u;
	memcpy(n->str, name, len);
	return n->str;

err_charge:
	pt_user_uncharge(u, PT_RES_NAMES, 1);
err_user:
	pt_user_put(u);
	return NULL;
}

/* Any context: mappings are freed from RCU callbacks. */
static void pt_name_free(char *str)
{
	struct pt_name *n = pt_name_of(str);

	pt_user_uncharge(n->user, PT_RES_NAMES, 1);
	pt_user_put(n->user);
	kfree(n);
}

/* A new, empty mapping not counted yet (forkkit.c keeps such spares). */
struct pt_map *pt_map_alloc(gfp_t gfp)
{
	struct pt_map *map = kzalloc(sizeof(*map), gfp);

	if (!map)
		return NULL;
	kref_init(&map->ref);
	mutex_init(&map->lock);
	map->count = 1;
	map->base = 1;
	return map;
}

struct pt_map *pt_map_new(gfp_t gfp)
{
	struct pt_map *map = pt_map_alloc(gfp);

	if (map)
		pt_stat_inc(PT_STAT_MAPS);
	return map;
}

/*
 * The mapping of a fork()ed child: a copy of @parent as it is now (spec
 * 5.17), made in O(1) by reading the parent's immutable entries.  Names
 * either side registers later stay private to it.  Atomic-safe.
 */
struct pt_map *pt_map_fork(struct pt_map *parent, gfp_t gfp)
{
	struct pt_map *map = pt_map_alloc(gfp);

	if (map)
		pt_map_init_fork(map, parent);
	return map;
}

/*
 * The nearest of @map and its ancestors that holds one of the entries
 * below @limit itself, or NULL if none does (only the unnamed id is
 * below @limit).  A map whose own entries all lie at or above @limit adds
 * nothing a child forked at @limit can see: the child skips it, so a
 * chain of processes that fork and exit without registering names stays
 * one link long however deep the user makes it.  At most two steps: the
 * parent's own parent was chosen the same way.
 */
static struct pt_map *pt_map_visible(struct pt_map *map, unsigned int limit)
{
	while (map && max(map->base, 1U) >= limit)
		map = map->parent;
	return map;
}

/* Make @map, from pt_map_alloc() and unused, that copy (atomic-safe). */
void pt_map_init_fork(struct pt_map *map, struct pt_map *parent)
{
	/* Pairs with smp_store_release() in pt_map_open(). */
	map->base = smp_load_acquire(&parent->count);
	map->count = map->base;
	map->parent = pt_map_visible(parent, map->base);
	if (map->parent)
		kref_get(&map->parent->ref);
	pt_stat_inc(PT_STAT_MAPS);
}

static char **pt_map_slot(struct pt_map *map, unsigned int i)
{
	return &map->chunks[i / PT_MAP_CHUNK][i % PT_MAP_CHUNK];
}

/* Name of entry @i, which is below @map->count. */
static const char *pt_map_entry(struct pt_map *map, unsigned int i)
{
	if (!i)
		return pt_unnamed_name;
	while (i < map->base && map->parent)
		map = map->parent;
	return *pt_map_slot(map, i);
}

/* Index of @name among the first @limit entries of @map, or 0. */
static unsigned int pt_map_find(struct pt_map *map, const char *name,
				unsigned int limit)
{
	unsigned int i;

	for (; map; limit = map->base, map = map->parent) {
		for (i = max(map->base, 1U); i < limit; i++) {
			if (!strcmp(*pt_map_slot(map, i), name))
				return i;
		}
	}
	return 0;
}

/* Free @map alone; its parent's reference is the caller's to drop. */
static void pt_map_free(struct pt_map *map)
{
	unsigned int i;

	for (i = max(map->base, 1U); i < map->count; i++)
		pt_name_free(*pt_map_slot(map, i));
	for (i = 0; i < ARRAY_SIZE(map->chunks); i++)
		kfree(map->chunks[i]);
	kfree(map);
	pt_stat_dec(PT_STAT_MAPS);
}

/*
 * Any context (RCU callbacks drop mappings).  A loop, not a recursion: the
 * last reference to a map may be the last one to a chain of ancestors
 * whose processes exited, and the stack must not grow with it.
 */
void pt_map_put(struct pt_map *map)
{
	while (map && refcount_dec_and_test(&map->ref.refcount)) {
		struct pt_map *parent = map->parent;

		pt_map_free(map);
		map = parent;
	}
}

/* Existing name: its id.  New name: the next id, or the unnamed id once
 * TRACE_USER_EVENT_MAX ids exist (EVOPEN-4) or once the caller's user has
 * registered max_names_per_user names (the same answer: the limit is
 * reached, and the spec makes that a success).
 */
int pt_map_open(struct pt_map *map, const char *name, u32 *id)
{
	unsigned int i;
	bool over;
	char *copy;

	if (!strcmp(name, pt_unnamed_name)) {
		*id = POSIX_TRACE_ID_UNNAMED;
		return 0;
	}
	mutex_lock(&map->lock);
	i = pt_map_find(map, name, map->count);
	if (i)
		goto found;
	i = map->count;
	if (i == POSIX_TRACE_USER_EVENT_MAX) {
		i = 0;
		goto found;
	}
	if (!map->chunks[i / PT_MAP_CHUNK]) {
		map->chunks[i / PT_MAP_CHUNK] =
			kcalloc(PT_MAP_CHUNK, sizeof(char *), GFP_KERNEL_ACCOUNT);
		if (!map->chunks[i / PT_MAP_CHUNK])
			goto err_nomem;
	}
	copy = pt_name_new(name, &over);
	if (!copy && over) {
		i = 0;
		goto found;
	}
	if (!copy)
		goto err_nomem;
	*pt_map_slot(map, i) = copy;
	/* Pairs with smp_load_acquire() in pt_map_valid_id(). */
	smp_store_release(&map->count, i + 1);
found:
	mutex_unlock(&map->lock);
	*id = POSIX_TRACE_ID_UNNAMED + i;
	return 0;

err_nomem:
	mutex_unlock(&map->lock);
	return -ENOMEM;
}

int pt_map_name(struct pt_map *map, u32 id, char *buf, size_t size)
{
	if (!pt_map_valid_id(map, id))
		return -EINVAL;
	if (strscpy(buf, pt_map_entry(map, id - POSIX_TRACE_ID_UNNAMED), size) < 0)
		return -ERANGE;
	return 0;
}

bool pt_map_valid_id(struct pt_map *map, u32 id)
{
	return id >= POSIX_TRACE_ID_UNNAMED &&
	       /* Pairs with smp_store_release() in pt_map_open(). */
	       id - POSIX_TRACE_ID_UNNAMED < smp_load_acquire(&map->count);
}
