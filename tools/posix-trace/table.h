/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small hash table of the exporters and the report: keys (two 64-bit
 * words) numbered 0, 1, 2, ... in the order they are first added, each
 * with a value the caller may set.  chrome.c numbers its processes and
 * (pid, thread) pairs with it, ctf.c keeps its event classes in it,
 * sctime.c its threads and system calls.
 *
 * The entries are an array in order of insertion, so a caller can walk
 * them; an index of slots (open addressing, linear probing, at most half
 * full) finds a key.  Growing doubles both and rehashes every key once.
 * Nothing is ever removed.
 */
#ifndef PT_TABLE_H
#define PT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many keys: their numbers fit the index's 32-bit slots
 * and a Chrome tid (number + 1) stays small. */
#define TABLE_MAX	(1u << 30)

struct table_entry {
	uint64_t key[2];
	void *val;			/* NULL when added */
};

struct table {
	struct table_entry *ent;	/* count of them, in order of insertion */
	size_t count;
	uint32_t *slot;			/* cap of them: 0 free, else number + 1 */
	size_t cap;			/* 0 or a power of two */
};

/* An empty table is all zero: no allocation until the first key. */
#define TABLE_INIT	{ NULL, 0, NULL, 0 }

/*
 * The number of the key (@a, @b) in *@num, adding it if it is new
 * (*@added says which): 0, or ENOMEM if it is new and there is no room
 * (no memory, or TABLE_MAX keys already); the table is unchanged then.
 */
int table_add(struct table *t, uint64_t a, uint64_t b, size_t *num, bool *added);

/* Frees the arrays, not the values. */
void table_free(struct table *t);

#endif
