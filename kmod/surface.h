/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl and mmap surface of /dev/posix_trace: the top layer, which
 * validates what user space asks and calls every layer below.
 */
#ifndef PT_SURFACE_H
#define PT_SURFACE_H

#include "kev.h"
#include "lifecycle.h"
#include "log.h"

/* event.c */
int pt_event_from_user(const struct posix_trace_event_req *req);

/* writer_open.c: writer lanes as user space opens and maps them. */
int pt_writer_open(struct posix_trace_writer *w);
int pt_writer_notify(const struct posix_trace_notify *n);
int pt_writer_mmap(struct vm_area_struct *vma, u32 trid, u32 index);

/* ioctl.c */
long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* mmap.c */
int pt_mmap(struct file *file, struct vm_area_struct *vma);
void pt_vma_hold_stream(struct vm_area_struct *vma, struct pt_stream *s);
void pt_vm_no_fork(struct vm_area_struct *vma);

#endif /* PT_SURFACE_H */
