/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wrappers for kernel interfaces that changed between the versions we
 * build for.  Each wrapper has one #if; callers never test versions.
 */
#ifndef PT_COMPAT_H
#define PT_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/* 6.3 made vma->vm_flags read-only and added vm_flags_set/clear(). */
static inline void pt_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void pt_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

#endif /* PT_COMPAT_H */
