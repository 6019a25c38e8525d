/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * posix-trace convert --ctf: the typed fields of the kernel events
 * (<linux/posix_trace_kernel.h>), so that babeltrace2 prints
 * "signo = 10" where a user event has its data bytes.  One table per
 * event type, walked both by the metadata (ctf_meta.c: the TSDL of the
 * fields) and by the stream (ctf.c: their bytes), so the two cannot
 * disagree.
 *
 * The fields come after the ones every kernel event has (ctf_meta.c):
 *   int32_t pid; int32_t tid; enum truncation; uint32_t data_length;
 * data_length is the record's data length as logged: less than the
 * structure for a record cut short (or an older layout), whose missing
 * fields are written as zeros, as the uapi header says a reader takes
 * them.  Each uapi field keeps its name (reserved ones are left out):
 * numbers as unsigned, si_code and a return value signed, addresses,
 * registers and flags in hex, the enumerated values (sched_out.reason,
 * signal_generate.result, signal_deliver.action) as CTF enumerations.
 * A path or file name that follows the structure is a text sequence
 * after all the fixed fields, its length (the bytes the data holds of
 * what path_len or name_len claims) just before it:
 *   uint32_t _path_length; utf8_t path[_path_length];
 */
#ifndef PT_CTF_KEV_H
#define PT_CTF_KEV_H

#include <stddef.h>
#include <stdint.h>
#include "convert_out.h"

/* Every CTF field is little-endian, whatever the host (ctf.c too). */
static inline void ctf_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void ctf_put64(unsigned char *p, uint64_t v)
{
	ctf_put32(p, (uint32_t)v);
	ctf_put32(p + 4, (uint32_t)(v >> 32));
}

struct ctf_kev;

/* The layout of kernel event type @id; NULL for any other id. */
const struct ctf_kev *ctf_kev_find(uint32_t id);

/* The TSDL declarations of its fields, one per line, each starting
 * with two tabs (inside the event's "fields := struct { ... }"). */
void ctf_kev_meta(struct cv_out *o, const struct ctf_kev *k);

/* The bytes its fields take for @data (@len bytes, any length). */
size_t ctf_kev_size(const struct ctf_kev *k, const unsigned char *data, size_t len);

/* Writes them at @p, little-endian: ctf_kev_size() bytes. */
void ctf_kev_put(unsigned char *p, const struct ctf_kev *k, const unsigned char *data,
		 size_t len);

#endif
