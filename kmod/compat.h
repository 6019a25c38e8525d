/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wrappers for kernel interfaces that changed between the versions we
 * build for.  Each wrapper has one #ifdef on a PT_HAVE_* feature macro
 * that the Makefile derives from the kernel's headers (not from version
 * numbers, which distributions backport around); callers never test.
 */
#ifndef PT_COMPAT_H
#define PT_COMPAT_H

#include <linux/mm.h>
#include <linux/uio.h>

/* Since 6.3 vma->vm_flags is read-only; vm_flags_set/clear() replace it. */
static inline void pt_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
#ifdef PT_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void pt_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#ifdef PT_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* iov_iter directions were renamed in 6.2; the values are the same. */
#ifndef ITER_SOURCE
#define PT_ITER_SOURCE	WRITE
#else
#define PT_ITER_SOURCE	ITER_SOURCE
#endif

#endif /* PT_COMPAT_H */
