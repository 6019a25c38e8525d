// SPDX-License-Identifier: LGPL-2.1-or-later
/* The TSDL metadata of posix-trace convert --ctf: see ctf_meta.h. */
#include <stdio.h>
#include "ctf_kev.h"
#include "ctf_meta.h"
#include "exporter.h"

/* A TSDL string literal: C escapes, every byte outside printable ASCII
 * as 3-digit octal so that any name reads back byte for byte. */
static void tsdl_str(struct cv_out *o, const char *s)
{
	const unsigned char *c;

	cv_out_putc(o, '"');
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			cv_out_putc(o, '\\');
			cv_out_putc(o, (char)*c);
		} else if (*c < 0x20 || *c >= 0x7f) {
			cv_out_printf(o, "\\%03o", *c);
		} else {
			cv_out_putc(o, (char)*c);
		}
	}
	cv_out_putc(o, '"');
}

static void uuid_str(const uint8_t u[16], char s[37])
{
	unsigned int i;
	char *p = s;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", u[i]);
	}
}

static const char *policy_name(int p)
{
	switch (p) {
	case POSIX_TRACE_LOOP:		return "LOOP";
	case POSIX_TRACE_UNTIL_FULL:	return "UNTIL_FULL";
	case POSIX_TRACE_FLUSH:		return "FLUSH";
	case POSIX_TRACE_APPEND:	return "APPEND";
	default:			return "?";
	}
}

#define TRUNCATION_ENUM \
	"enum : uint8_t { NOT_TRUNCATED = 0, TRUNCATED_RECORD = 1, TRUNCATED_READ = 2 } truncation;\n"

/* A user or system event: its data as bytes. */
static void user_fields(struct cv_out *o)
{
	cv_out_puts(o, "\t\tint32_t pid;\n\t\tuint64_hex_t thread;\n\t\tuint64_hex_t address;\n"
		    "\t\t" TRUNCATION_ENUM
		    "\t\tuint32_t _data_length;\n\t\tuint8_t data[_data_length];\n");
}

/* A kernel event: its structure's fields (ctf_kev.h), after what every
 * kernel event has: its thread as the kernel's tid, no pthread_t or
 * address, always 0 for these (and a fault has an address of its own). */
static void kernel_fields(struct cv_out *o, const struct ctf_kev *k)
{
	cv_out_puts(o, "\t\tint32_t pid;\n\t\tint32_t tid;\n\t\t" TRUNCATION_ENUM
		    "\t\tuint32_t data_length;\n");
	ctf_kev_meta(o, k);
}

static void write_classes(struct cv_out *o, struct table_entry *const *v, size_t n)
{
	const struct ctf_kev *k;
	size_t i;

	for (i = 0; i < n; i++) {
		cv_out_printf(o, "\nevent {\n\tname = ");
		tsdl_str(o, v[i]->val);
		cv_out_printf(o, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
			      (unsigned int)v[i]->key[0]);
		k = ctf_kev_find((uint32_t)v[i]->key[0]);
		if (k)
			kernel_fields(o, k);
		else
			user_fields(o);
		cv_out_puts(o, "\t};\n};\n");
	}
}

static void write_env(struct cv_out *o, const struct ctf_meta *m, struct logview *lv)
{
	const struct posix_trace_status_info *st = &lv->status;
	char name[TRACE_NAME_MAX] = "";
	struct timespec res = { 0, 0 };
	int sp = 0, lp = 0, inh = 0;
	size_t max_data = 0;

	posix_trace_attr_getname(&lv->attr, name);
	posix_trace_attr_getstreamfullpolicy(&lv->attr, &sp);
	posix_trace_attr_getlogfullpolicy(&lv->attr, &lp);
	posix_trace_attr_getinherited(&lv->attr, &inh);
	posix_trace_attr_getclockres(&lv->attr, &res);
	posix_trace_attr_getmaxdatasize(&lv->attr, &max_data);
	cv_out_printf(o, "env {\n\ttracer_name = \"posix-trace\";\n\ttrace_name = ");
	tsdl_str(o, name);
	cv_out_printf(o, ";\n\tcreation_time_ns = %llu;\n\tclock_resolution_ns = %llu;\n"
		      "\tinherited = %d;\n\tstream_full_policy = \"%s\";\n"
		      "\tlog_full_policy = \"%s\";\n\tmax_data_size = %llu;\n"
		      "\tstream_status = %d;\n\tstream_full_status = %d;\n"
		      "\tstream_overrun_status = %d;\n\tstream_flush_status = %d;\n"
		      "\tstream_flush_error = %d;\n\tlog_overrun_status = %d;\n"
		      "\tlog_full_status = %d;\n};\n\n",
		      (unsigned long long)m->created, (unsigned long long)cv_ns(&res),
		      inh == POSIX_TRACE_INHERITED, policy_name(sp), policy_name(lp),
		      (unsigned long long)max_data, st->posix_stream_status,
		      st->posix_stream_full_status, st->posix_stream_overrun_status,
		      st->posix_stream_flush_status, st->posix_stream_flush_error,
		      st->posix_log_overrun_status, st->posix_log_full_status);
}

/* The basic types and the trace: byte order, uuid, the packet header
 * (flush_packet() in ctf.c). */
static void write_trace(struct cv_out *o, const char *uuid)
{
	cv_out_printf(o,
		"/* CTF 1.8 */\n"
		"/* Written by posix-trace convert from a POSIX trace log. */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; base = 16; } := uint32_hex_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;\n"
		/* The bytes of a path: babeltrace2 shows a sequence of them as a string. */
		"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := utf8_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t};\n};\n\n", uuid);
}

/* The one clock, and the one stream: the event header and the packet
 * context that ctf.c writes. */
static void write_clock_stream(struct cv_out *o, const struct ctf_meta *m,
			       const char *uuid, struct logview *lv)
{
	struct timespec res = { 0, 0 };

	posix_trace_attr_getclockres(&lv->attr, &res);
	cv_out_printf(o,
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"CLOCK_MONOTONIC of the traced system; offset + value is CLOCK_REALTIME\";\n"
		"\tfreq = 1000000000;\n\tprecision = %llu;\n"
		"\toffset_s = %llu;\n\toffset = %llu;\n\tabsolute = true;\n};\n\n"
		"typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.monotonic.value; } := uint64_clock_t;\n\n"
		"stream {\n\tid = 0;\n"
		"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tuint64_clock_t timestamp;\n\t};\n"
		"\tpacket.context := struct {\n\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n\t\tuint64_t packet_seq_num;\n\t};\n};\n",
		uuid, (unsigned long long)cv_ns(&res),
		(unsigned long long)(m->base / 1000000000u),
		(unsigned long long)(m->base % 1000000000u));
}

void ctf_meta_write(struct cv_out *o, const struct ctf_meta *m, struct logview *lv)
{
	char uuid[37];

	uuid_str(m->uuid, uuid);
	write_trace(o, uuid);
	write_env(o, m, lv);
	write_clock_stream(o, m, uuid, lv);
	write_classes(o, m->cls, m->ncls);
}
