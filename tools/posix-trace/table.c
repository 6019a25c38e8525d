// SPDX-License-Identifier: LGPL-2.1-or-later
/* The exporters' and the report's hash table: see table.h. */
#include <errno.h>
#include <stdlib.h>
#include "table.h"

#define TABLE_MIN_CAP	64

static size_t hash(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ b;

	/* The finalizer of MurmurHash3: every bit of x reaches the low bits
	 * the mask keeps (pthread_t values differ in their high bits). */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (size_t)x;
}

/* The slot of (@a, @b): the one holding it, or the free one to put it in. */
static uint32_t *find(const struct table *t, uint64_t a, uint64_t b)
{
	size_t mask = t->cap - 1, i = hash(a, b) & mask;
	const struct table_entry *e;

	for (;; i = (i + 1) & mask) {
		if (!t->slot[i])
			return &t->slot[i];
		e = &t->ent[t->slot[i] - 1];
		if (e->key[0] == a && e->key[1] == b)
			return &t->slot[i];
	}
}

/*
 * Doubles the index and the entries (cap / 2 of them: the index stays at
 * most half full) and rehashes the keys from the entries.  Sizes are
 * checked before they are multiplied; 0 or ENOMEM, the table unchanged.
 */
static int grow(struct table *t)
{
	size_t cap = t->cap ? 2 * t->cap : TABLE_MIN_CAP, i;
	struct table_entry *ent;
	uint32_t *slot;

	if (cap / 2 > TABLE_MAX || cap > SIZE_MAX / sizeof(*slot) ||
	    cap / 2 > SIZE_MAX / sizeof(*ent))
		return ENOMEM;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return ENOMEM;
	ent = realloc(t->ent, cap / 2 * sizeof(*ent));
	if (!ent) {
		free(slot);
		return ENOMEM;
	}
	free(t->slot);
	t->slot = slot;
	t->ent = ent;
	t->cap = cap;
	for (i = 0; i < t->count; i++)
		*find(t, ent[i].key[0], ent[i].key[1]) = (uint32_t)(i + 1);
	return 0;
}

int table_add(struct table *t, uint64_t a, uint64_t b, size_t *num, bool *added)
{
	uint32_t *s;
	int ret;

	*added = false;
	if (t->cap && *(s = find(t, a, b))) {
		*num = *s - 1;
		return 0;
	}
	if (t->count + 1 > t->cap / 2) {
		ret = grow(t);
		if (ret)
			return ret;
	}
	s = find(t, a, b);
	*num = t->count++;
	*s = (uint32_t)t->count;
	t->ent[*num] = (struct table_entry){ .key = { a, b } };
	*added = true;
	return 0;
}

void table_free(struct table *t)
{
	free(t->ent);
	free(t->slot);
	*t = (struct table)TABLE_INIT;
}
