// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test of tools/posix-trace/table.c (run by tests/tools/convert.sh): keys
 * are numbered in order of first insertion through many rounds of growth,
 * found again with their values, keys that share a word stay apart, an
 * emptied table can be used again, and a growth whose allocation fails
 * gives ENOMEM and leaves the table as it was.  Prints what is wrong,
 * exits 1.  Linked with -Wl,--wrap=calloc,--wrap=realloc (convert.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "table.h"

void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* Allocations table.c may still make; -1: no limit. */
static long allocs_left = -1;

void *__wrap_calloc(size_t n, size_t size)
{
	if (allocs_left == 0)
		return NULL;
	if (allocs_left > 0)
		allocs_left--;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	if (allocs_left == 0)
		return NULL;
	if (allocs_left > 0)
		allocs_left--;
	return __real_realloc(p, size);
}

#define N 200000

static int bad(const char *what, size_t i)
{
	printf("table_test: %s at %zu\n", what, i);
	return 1;
}

/* Keys sharing their first (pid) or second (thread) word with others. */
static void key(size_t i, uint64_t *a, uint64_t *b)
{
	*a = i % 7;
	*b = 0x7f0000000000ull + (i / 7) * 0x1000;
}

static int round_trip(struct table *t)
{
	uint64_t a, b;
	bool added;
	size_t i, n;

	for (i = 0; i < N; i++) {
		key(i, &a, &b);
		if (table_add(t, a, b, &n, &added) || !added || n != i)
			return bad("add", i);
		t->ent[n].val = &t->ent;	/* any non-NULL */
	}
	for (i = 0; i < N; i++) {
		key(i, &a, &b);
		if (table_add(t, a, b, &n, &added) || added || n != i ||
		    !t->ent[n].val || t->ent[n].key[0] != a || t->ent[n].key[1] != b)
			return bad("find", i);
	}
	if (t->count != N || t->cap < 2 * N)
		return bad("count or cap", t->count);
	return 0;
}

/* The 33rd key grows the table from 64 slots: its first or second
 * allocation fails, then it goes in. */
static int no_memory(long left)
{
	struct table t = TABLE_INIT;
	bool added;
	size_t i, n;
	int ret = 0;

	for (i = 0; i < 32 && !ret; i++)
		if (table_add(&t, i, 0, &n, &added) || n != i)
			ret = bad("fill", i);
	allocs_left = left;
	if (!ret && (table_add(&t, 32, 0, &n, &added) != ENOMEM || added ||
		     t.count != 32 || t.cap != 64))
		ret = bad("ENOMEM, table unchanged", t.count);
	allocs_left = -1;
	for (i = 0; i < 32 && !ret; i++)
		if (table_add(&t, i, 0, &n, &added) || added || n != i)
			ret = bad("found after ENOMEM", i);
	if (!ret && (table_add(&t, 32, 0, &n, &added) || !added || n != 32))
		ret = bad("add after ENOMEM", 32);
	table_free(&t);
	return ret;
}

int main(void)
{
	struct table t = TABLE_INIT;
	int ret;

	ret = round_trip(&t);
	table_free(&t);
	if (!ret && (t.ent || t.slot || t.count || t.cap))
		ret = bad("table_free leaves", t.count);
	if (!ret)
		ret = round_trip(&t);
	table_free(&t);
	if (!ret)
		ret = no_memory(0);
	if (!ret)
		ret = no_memory(1);
	return ret;
}
