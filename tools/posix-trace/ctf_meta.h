/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace convert --ctf: the trace's "metadata" file, TSDL text
 * (CTF 1.8) that describes the binary layout ctf.c writes to "stream"
 * (packet header and context, event header and fields) and the log's
 * attributes and status (env).  A change of layout is made in both;
 * the fields of the kernel events are ctf_kev.c's, which serves both.
 */
#ifndef PT_CTF_META_H
#define PT_CTF_META_H

#include <stddef.h>
#include <stdint.h>
#include "convert_out.h"
#include "logview.h"
#include "table.h"

struct ctf_meta {
	const uint8_t *uuid;		/* 16 bytes, as in every packet header */
	uint64_t base;			/* realtime ns of clock value 0 */
	uint64_t created;		/* the log's creation time, realtime ns */
	struct table_entry *const *cls;	/* event classes (id, name), by id */
	size_t ncls;
};

/* The whole metadata of the trace into @o (errors stay in o->err). */
void ctf_meta_write(struct cv_out *o, const struct ctf_meta *m, struct logview *lv);

#endif
