// SPDX-License-Identifier: GPL-2.0
/*
 * mmap of the device: the caller's status page (offset 0; each process
 * sees its own, forked children included); for a stream the caller
 * controls, its read-only lanes and its consumer page; writer lanes for
 * their owner and the controller (writer.c).
 * Offsets and lengths come from the kernel and must match exactly.
 */
#include <linux/sched/signal.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "surface.h"

enum pt_region { PT_REGION_PROC, PT_REGION_RO, PT_REGION_CONS, PT_REGION_WRITER };

/* Read-only mappings may never become writable through mprotect(). */
static int pt_vma_readonly(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	pt_vm_flags_clear(vma, VM_MAYWRITE);
	return 0;
}

/*
 * A child made by a clone() without CLONE_VM that runs no pthread_atfork()
 * handler (the system call called directly) would go on reading its
 * parent's page, which may want none of the events the child's streams
 * want.  So the mapping is wiped on fork and each process faults in its
 * own page.  Only the process itself: a debugger reading its memory gets
 * nothing rather than its own page mapped there.
 *
 * The page is handed to the fault path (vmf->page), never inserted with
 * vm_insert_page(): that marks the area VM_MIXEDMAP, and fork() copies
 * the page tables of such an area, so a process that cleared
 * VM_WIPEONFORK with madvise(MADV_KEEPONFORK) would hand its child its
 * own page.  The page tables of a file area that is neither VM_MIXEDMAP
 * nor VM_PFNMAP and has no anon_vma are not copied: the child faults here
 * and gets its page.
 */
static vm_fault_t pt_proc_fault(struct vm_fault *vmf)
{
	struct pt_proc *proc;
	struct page *page;

	if (current->mm != vmf->vma->vm_mm || vmf->pgoff)
		return VM_FAULT_SIGBUS;
	proc = pt_proc_get_or_create(task_tgid(current));
	if (!proc)
		return VM_FAULT_OOM;
	page = virt_to_page(proc->page);
	get_page(page);		/* the page table's reference */
	pt_proc_put(proc);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct pt_proc_vm_ops = {
	.fault = pt_proc_fault,
};

/*
 * Every area mapping a stream region or a writer lane holds a reference
 * on the stream, so the stream, and the memory charged for it, is freed
 * only after its last mapping is gone (the pages live that long anyway).
 * The kernel calls open() for each copy of the area (split, mremap) and
 * close() for each area removed.
 */
static void pt_vma_open(struct vm_area_struct *vma)
{
	struct pt_stream *s = vma->vm_private_data;

	kref_get(&s->ref);
	pt_stat_inc(PT_STAT_MAPPINGS);
}

static void pt_vma_close(struct vm_area_struct *vma)
{
	pt_stat_dec(PT_STAT_MAPPINGS);
	pt_stream_put(vma->vm_private_data);
}

static const struct vm_operations_struct pt_stream_vm_ops = {
	.open = pt_vma_open,
	.close = pt_vma_close,
};

/*
 * A stream region or writer lane is never inherited by fork(): a child
 * neither controls its parent's streams (MODEL-42) nor writes its lanes.
 * VM_DONTCOPY alone is not enough, as madvise(MADV_DOFORK) clears it;
 * madvise refuses that (EINVAL) on a VM_IO area.  VM_IO also keeps
 * get_user_pages() out (ptrace peeks, process_vm_readv() and O_DIRECT
 * from these pages fail), which none of their users need.
 */
void pt_vm_no_fork(struct vm_area_struct *vma)
{
	pt_vm_flags_set(vma, VM_DONTCOPY | VM_IO);
}

/* @vma maps memory of @s, successfully: only then may close() run. */
void pt_vma_hold_stream(struct vm_area_struct *vma, struct pt_stream *s)
{
	vma->vm_private_data = s;
	vma->vm_ops = &pt_stream_vm_ops;
	pt_vma_open(vma);
}

static int pt_mmap_proc(struct vm_area_struct *vma)
{
	struct pt_proc *proc;
	int ret;

	if (vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	ret = pt_vma_readonly(vma);
	if (ret)
		return ret;
	/* Made now, so that ENOMEM fails the mmap(), not the first read. */
	proc = pt_proc_get_or_create(task_tgid(current));
	if (!proc)
		return -ENOMEM;
	pt_proc_put(proc);
	pt_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_WIPEONFORK);
	vma->vm_ops = &pt_proc_vm_ops;
	return 0;
}

static int pt_mmap_stream(struct vm_area_struct *vma, u32 trid,
			  enum pt_region region)
{
	size_t len = vma->vm_end - vma->vm_start;
	struct pt_stream *s = pt_stream_lookup(trid);
	void *mem;
	int ret;

	if (!s)
		return -EINVAL;
	ret = -EINVAL;
	if (s->log)
		goto out;	/* the flusher is its only reader */
	mem = region == PT_REGION_RO ? s->ro : s->cons;
	if (len != (region == PT_REGION_RO ? s->ro_size : s->cons_size))
		goto out;
	if (region == PT_REGION_RO) {
		ret = pt_vma_readonly(vma);
		if (ret)
			goto out;
	} else if (!(vma->vm_flags & VM_SHARED)) {
		goto out;	/* the kernel must see the reader's writes */
	}
	/* A fork()ed child does not control the stream (MODEL-42). */
	pt_vm_no_fork(vma);
	ret = remap_vmalloc_range(vma, mem, 0);
	if (!ret)
		pt_vma_hold_stream(vma, s);
out:
	pt_stream_put(s);
	return ret;
}

int pt_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long pgoff = vma->vm_pgoff;

	if (pgoff == 0)
		return pt_mmap_proc(vma);
	switch (pgoff & 3) {
	case PT_REGION_RO:
		return pt_mmap_stream(vma, pgoff >> 2, PT_REGION_RO);
	case PT_REGION_CONS:
		return pt_mmap_stream(vma, pgoff >> 2, PT_REGION_CONS);
	default:
		pgoff >>= 2;
		return pt_writer_mmap(vma, pgoff >> PT_WRITER_INDEX_BITS,
				      pgoff & (BIT(PT_WRITER_INDEX_BITS) - 1));
	}
}
