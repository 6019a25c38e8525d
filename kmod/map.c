// SPDX-License-Identifier: GPL-2.0
/*
 * Event name <-> id mappings (spec 5.17).  Ids are dense: user id
 * POSIX_TRACE_ID_UNNAMED + i names names[i]; i == 0 is the unnamed event.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include "pt.h"

static const char pt_unnamed_name[] = "posix_trace_unnamed_userevent";

struct pt_map *pt_map_new(void)
{
	struct pt_map *map = kvzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);

	if (!map)
		return NULL;
	kref_init(&map->ref);
	mutex_init(&map->lock);
	map->count = 1;
	return map;
}

static void pt_map_release(struct kref *ref)
{
	struct pt_map *map = container_of(ref, struct pt_map, ref);
	unsigned int i;

	for (i = 1; i < map->count; i++)
		kfree(map->names[i]);
	kvfree(map);
}

void pt_map_put(struct pt_map *map)
{
	if (map)
		kref_put(&map->ref, pt_map_release);
}

/* Existing name: its id.  New name: the next id, or the unnamed id once
 * TRACE_USER_EVENT_MAX ids exist (EVOPEN-4).
 */
int pt_map_open(struct pt_map *map, const char *name, u32 *id)
{
	unsigned int i;
	char *copy;

	if (!strcmp(name, pt_unnamed_name)) {
		*id = POSIX_TRACE_ID_UNNAMED;
		return 0;
	}
	mutex_lock(&map->lock);
	for (i = 1; i < map->count; i++) {
		if (!strcmp(map->names[i], name))
			goto found;
	}
	if (map->count == POSIX_TRACE_USER_EVENT_MAX) {
		i = 0;
		goto found;
	}
	copy = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!copy) {
		mutex_unlock(&map->lock);
		return -ENOMEM;
	}
	map->names[i] = copy;
	/* Pairs with smp_load_acquire() in pt_map_valid_id(). */
	smp_store_release(&map->count, i + 1);
found:
	mutex_unlock(&map->lock);
	*id = POSIX_TRACE_ID_UNNAMED + i;
	return 0;
}

int pt_map_name(struct pt_map *map, u32 id, char *buf, size_t size)
{
	const char *name;
	int ret = 0;

	if (!pt_map_valid_id(map, id))
		return -EINVAL;
	mutex_lock(&map->lock);
	name = id == POSIX_TRACE_ID_UNNAMED ? pt_unnamed_name :
		map->names[id - POSIX_TRACE_ID_UNNAMED];
	if (strscpy(buf, name, size) < 0)
		ret = -ERANGE;
	mutex_unlock(&map->lock);
	return ret;
}

bool pt_map_valid_id(struct pt_map *map, u32 id)
{
	return id >= POSIX_TRACE_ID_UNNAMED &&
	       /* Pairs with smp_store_release() in pt_map_open(). */
	       id - POSIX_TRACE_ID_UNNAMED < smp_load_acquire(&map->count);
}
