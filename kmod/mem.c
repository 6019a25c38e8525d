// SPDX-License-Identifier: GPL-2.0
/*
 * Stream and writer-lane memory: zeroed, charged to the memory cgroup of
 * the task allocating it (or of the active memcg it set), and mappable
 * into user space with remap_vmalloc_range().
 *
 * vmalloc_user() does not charge the memcg, and on 6.1 the functions that
 * could add __GFP_ACCOUNT to it (__vmalloc_node_range()) or mark an
 * accounted __vmalloc() area VM_USERMAP (find_vm_area()) are not exported.
 * vmap() is: it maps pages we allocate ourselves, takes VM_USERMAP, and
 * with VM_MAP_PUT_PAGES vfree() frees the pages and the array (the BPF
 * ring buffer's technique).
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "base.h"

/* Free with vfree(). */
void *pt_vmalloc_user(size_t size)
{
	unsigned int i, n = PAGE_ALIGN(size) >> PAGE_SHIFT;
	struct page **pages;
	void *mem;

	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		/* RETRY_MAYFAIL: over memory.max, ENOMEM, not the OOM killer */
		pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				      __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!pages[i])
			goto err_pages;
		cond_resched();
	}
	mem = vmap(pages, n, VM_MAP | VM_USERMAP | VM_MAP_PUT_PAGES, PAGE_KERNEL);
	if (!mem)
		goto err_pages;
	return mem;	/* the area owns @pages now */

err_pages:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return NULL;
}
