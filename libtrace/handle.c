// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The table of active-stream handles of this process.  After fork() the
 * child keeps a copy of the table, but every handle in it belongs to the
 * parent: pt_handle_get() compares the owner with pt_self() (RULE-80),
 * which fork.c refreshes in every child, however it was made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "handle.h"

static pthread_mutex_t pt_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pt_handle **pt_table;
static size_t pt_table_len;

/* Each thread's last handle of the getnext family, and the key whose
 * destructor drops that reference when the thread exits. */
__thread struct pt_handle *pt_cached __attribute__((tls_model("initial-exec")));
static pthread_key_t pt_cached_key;
static int pt_cached_key_ok;

static void pt_cached_drop(void *h)
{
	pt_cached = NULL;
	pt_handle_put(h);
}

/* In the child, from fork.c (pt_pid refreshed first): the handles are
 * all the parent's. */
static void pt_handle_atfork_child(void)
{
	pthread_mutex_init(&pt_table_lock, NULL);
}

__attribute__((constructor)) static void pt_handle_init(void)
{
	pt_cached_key_ok = !pthread_key_create(&pt_cached_key, pt_cached_drop);
	pt_fork_on_child(PT_FORK_HANDLES, pt_handle_atfork_child);
}

struct pt_handle *pt_handle_get(trace_id_t trid)
{
	struct pt_handle *h = NULL;
	size_t i;

	if (trid <= 0 || !pt_fork_check())
		return NULL;
	pthread_mutex_lock(&pt_table_lock);
	for (i = 0; i < pt_table_len; i++) {
		if (pt_table[i] && pt_table[i]->trid == trid &&
		    pt_table[i]->owner == pt_pid) {
			h = pt_table[i];
			atomic_fetch_add(&h->refs, 1);
			break;
		}
	}
	pthread_mutex_unlock(&pt_table_lock);
	return h;
}

/*
 * pt_handle_cached() (handle.h) missed: look @trid up and make it the
 * thread's cached handle.  A drain calls getnext once per event; the cache
 * saves it the table lock, the scan and two atomic reference updates.
 * @h->trid and @h->owner never change and the cache's reference keeps @h
 * allocated, so the hit compares them without a lock; @h->dead is checked
 * under @h->lock by the caller as for any handle.  Without the key (no
 * destructor could drop the reference at thread exit) nothing is cached
 * and *@put says the caller owns the reference.
 */
struct pt_handle *pt_handle_cache(trace_id_t trid, int *put)
{
	struct pt_handle *h = pt_handle_get(trid);

	*put = 0;
	if (!h || !pt_cached_key_ok || pthread_setspecific(pt_cached_key, h)) {
		*put = !!h;
		return h;
	}
	if (pt_cached)
		pt_handle_put(pt_cached);
	pt_cached = h;
	return h;
}

void pt_handle_release_buffers(struct pt_handle *h)
{
	if (h->lanes)
		h->unmap_lanes(h);
	if (h->ro)
		munmap(h->ro, h->ro_size);
	if (h->cons)
		munmap(h->cons, h->cons_size);
	h->ro = h->cons = NULL;
	free(h->lanes);
	free(h->data);
	h->lanes = NULL;
	h->data = NULL;
}

static void pt_handle_free(struct pt_handle *h)
{
	pt_handle_release_buffers(h);
	free(h);
}

void pt_handle_put(struct pt_handle *h)
{
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		pt_handle_free(h);
}

int pt_handle_add(struct pt_handle *h)
{
	struct pt_handle **grown;
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&pt_table_lock);
	for (i = 0; i < pt_table_len && pt_table[i]; i++)
		;
	if (i == pt_table_len) {
		grown = pt_table_grow(pt_table, &pt_table_len, sizeof(*grown));
		if (!grown) {
			ret = ENOMEM;
			goto out;
		}
		pt_table = grown;
	}
	pt_table[i] = h;
out:
	pthread_mutex_unlock(&pt_table_lock);
	return ret;
}

void pt_handle_remove(struct pt_handle *h)
{
	size_t i;

	pthread_mutex_lock(&pt_table_lock);
	for (i = 0; i < pt_table_len; i++) {
		if (pt_table[i] == h) {
			pt_table[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&pt_table_lock);
	if (i < pt_table_len)
		pt_handle_put(h);
}

const struct posix_trace_lane *pt_lane(const struct pt_handle *h, unsigned int i)
{
	const struct posix_trace_stream_header *hdr = h->ro;

	return (const void *)((const char *)h->ro + hdr->lane_offset +
			      (size_t)hdr->lane_stride * i);
}

struct posix_trace_consumer *pt_consumer(const struct pt_handle *h, unsigned int i)
{
	return (void *)((char *)h->cons + h->cons_stride * i);
}
