// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix-trace convert --ctf DIR: a CTF 1.8 trace that babeltrace2 reads.
 *
 * DIR holds two files: "metadata" (plain-text TSDL, ctf_meta.c, written
 * last, when every event type is known) and "stream" (stream 0: packets of at most
 * CTF_PACKET bytes, more for one event that does not fit, each with its
 * packet_size equal to its content_size so no padding is written).
 *
 * Time: one clock, "monotonic", 1 GHz, whose offset is the base of the
 * trace (the log's creation time, or its first event's time if earlier),
 * so that offset + value is each event's CLOCK_REALTIME ns exactly as
 * posix_trace_getnext_event() returns it.  CTF readers need the
 * timestamps of a stream in order; a log that is not (only a damaged or
 * forged one) gets an out-of-order event written at the time of the one
 * before it, and a warning.
 *
 * Every field is byte-aligned and little-endian, whatever the host.
 * A user event (and a system one) has its data as bytes; a kernel event
 * (ids 16..27) has its kernel thread id (posix_trace_event_tid_np(3))
 * and the fields of its structure instead, typed and named (ctf_kev.h),
 * and no thread or program address: those are 0 for every kernel event
 * (posix_trace_getnext_event(3)), and a fault has a field of its own
 * named address.
 * events_discarded is not in the packet context: a POSIX log says that
 * events were lost (its overrun status, kept in the metadata's env, and
 * the posix_trace_overflow events, kept as events) but not how many.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "convert_out.h"
#include "ctf_kev.h"
#include "ctf_meta.h"
#include "exporter.h"
#include "table.h"

#define CTF_MAGIC		0xC1FC1FC1u
#define CTF_PACKET		(64 * 1024)
#define CTF_PKT_HDR		64	/* header 24 + context 40 bytes */
#define CTF_EV_HDR		12	/* id, timestamp */
#define CTF_EV_USER		25	/* pid, thread, address, truncation, length */
#define CTF_EV_KERNEL		13	/* pid, tid, truncation, data_length */

struct ctf_writer {
	char *dir;
	int dirfd;
	bool made_dir;
	struct cv_out stream;
	uint8_t uuid[16];
	unsigned char *pkt;
	size_t pkt_len, pkt_cap;
	uint64_t pkt_begin, pkt_end, pkt_seq;
	bool have_base;
	uint64_t base, last;		/* base: realtime ns of clock value 0 */
	uint64_t events, reordered;
	struct table cls;		/* event classes: id, name (val) */
};

/*
 * The first name given for an id stays (ids are never renamed).  A name
 * that could not be copied is tried again at the id's next event; one
 * still missing at the end leaves its class out (no event has it).
 */
static int class_add(struct ctf_writer *w, uint32_t id, const char *name)
{
	struct table_entry *e;
	bool added;
	size_t n;
	int ret;

	ret = table_add(&w->cls, id, 0, &n, &added);
	if (ret)
		return ret;
	e = &w->cls.ent[n];
	if (!e->val)
		e->val = strdup(name);
	return e->val ? 0 : ENOMEM;
}

static void type_cb(trace_event_id_t id, const char *name, void *arg)
{
	struct ctf_writer *w = arg;

	/* ENOMEM here shows again when the events add their classes. */
	class_add(w, (uint32_t)id, name);
}

static void make_uuid(uint8_t u[16])
{
	struct timespec ts;
	unsigned int i;

	if (getrandom(u, 16, 0) != 16) {
		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < 16; i++)
			u[i] = (uint8_t)((ts.tv_nsec >> (i % 4 * 8)) ^ (getpid() >> (i % 2 * 8)) ^ i);
	}
	u[6] = (u[6] & 0x0f) | 0x40;	/* version 4: random */
	u[8] = (u[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
}

/* DIR must not exist (it is created) or be an empty directory. */
static int open_dir(struct ctf_writer *w, const char *dir)
{
	struct dirent *de;
	DIR *d;
	int fd, ret;

	if (!mkdir(dir, 0777)) {
		w->made_dir = true;
	} else if (errno != EEXIST) {
		return errno;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (!w->made_dir) {
		d = fdopendir(dup(fd));
		ret = d ? 0 : errno;
		while (d && (de = readdir(d))) {
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				ret = ENOTEMPTY;
				break;
			}
		}
		if (d)
			closedir(d);
		if (ret) {
			close(fd);
			return ret;
		}
	}
	w->dirfd = fd;
	return 0;
}

static int create_file(struct ctf_writer *w, const char *name, struct cv_out *o)
{
	int fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	if (fd < 0)
		return errno;
	return cv_out_init(o, fd);
}

static uint64_t create_ns(struct logview *lv)
{
	struct timespec ts = { 0, 0 };

	posix_trace_attr_getcreatetime(&lv->attr, &ts);
	return cv_ns(&ts);
}

static int ctf_open(void **wp, const char *dir, struct logview *lv)
{
	struct ctf_writer *w = calloc(1, sizeof(*w));
	int ret;

	*wp = NULL;
	if (!w)
		return ENOMEM;
	w->dirfd = -1;
	w->stream.fd = -1;
	w->dir = strdup(dir);
	w->pkt_cap = CTF_PACKET;
	w->pkt = malloc(w->pkt_cap);
	if (!w->dir || !w->pkt) {
		ret = ENOMEM;
		goto err_free;
	}
	w->pkt_len = CTF_PKT_HDR;
	w->base = create_ns(lv);
	make_uuid(w->uuid);
	ret = open_dir(w, dir);
	if (ret)
		goto err_free;
	ret = create_file(w, "stream", &w->stream);
	if (ret)
		goto err_dir;
	lv_event_types(lv, type_cb, w);
	*wp = w;
	return 0;

err_dir:
	close(w->dirfd);
	if (w->made_dir)
		rmdir(dir);
err_free:
	free(w->pkt);
	free(w->dir);
	free(w);
	return ret;
}

static void flush_packet(struct ctf_writer *w)
{
	unsigned char *p = w->pkt;

	ctf_put32(p, CTF_MAGIC);
	memcpy(p + 4, w->uuid, 16);
	ctf_put32(p + 20, 0);			/* stream_id */
	ctf_put64(p + 24, w->pkt_begin);
	ctf_put64(p + 32, w->pkt_end);
	ctf_put64(p + 40, (uint64_t)w->pkt_len * 8);	/* content_size, bits */
	ctf_put64(p + 48, (uint64_t)w->pkt_len * 8);	/* packet_size */
	ctf_put64(p + 56, w->pkt_seq++);
	cv_out_write(&w->stream, p, w->pkt_len);
	w->pkt_len = CTF_PKT_HDR;
}

/* The payload of a user or system event: its data as bytes. */
static void put_user(unsigned char *p, const struct lv_event *ev, size_t len)
{
	ctf_put32(p, (uint32_t)ev->pid);
	ctf_put64(p + 4, ev->thread);
	ctf_put64(p + 12, ev->address);
	p[20] = (unsigned char)ev->truncation;
	ctf_put32(p + 21, (uint32_t)len);
	memcpy(p + 25, ev->data, len);
}

/* The payload of a kernel event: its structure's fields (ctf_kev.h). */
static void put_kernel(unsigned char *p, const struct lv_event *ev, const struct ctf_kev *k)
{
	ctf_put32(p, (uint32_t)ev->pid);
	ctf_put32(p + 4, (uint32_t)ev->tid);
	p[8] = (unsigned char)ev->truncation;
	ctf_put32(p + 9, (uint32_t)ev->len);	/* <= LV_DATA_MAX */
	ctf_kev_put(p + CTF_EV_KERNEL, k, ev->data, ev->len);
}

/* The clock value of an event at realtime @ns: never before the one
 * before it (CTF readers need a stream in time order). */
static uint64_t clock_value(struct ctf_writer *w, uint64_t ns)
{
	uint64_t t;

	if (!w->have_base) {
		/* Until now w->base is the log's creation time. */
		if (ns < w->base)
			w->base = ns;
		w->have_base = true;
	}
	t = ns >= w->base ? ns - w->base : 0;
	if (t < w->last) {
		t = w->last;
		w->reordered++;
	}
	w->last = t;
	return t;
}

/* Room for an event of @size bytes in the packet, flushing it or growing
 * the buffer (one event larger than a packet); 0 or ENOMEM. */
static int make_room(struct ctf_writer *w, size_t size)
{
	unsigned char *p;

	if (w->pkt_len + size > w->pkt_cap && w->pkt_len > CTF_PKT_HDR)
		flush_packet(w);
	if (CTF_PKT_HDR + size > w->pkt_cap) {
		p = realloc(w->pkt, CTF_PKT_HDR + size);
		if (!p)
			return ENOMEM;
		w->pkt = p;
		w->pkt_cap = CTF_PKT_HDR + size;
	}
	return 0;
}

static int ctf_event(void *arg, const struct lv_event *ev)
{
	struct ctf_writer *w = arg;
	const struct ctf_kev *k = ctf_kev_find((uint32_t)ev->id);
	size_t len = ev->len > UINT32_MAX ? UINT32_MAX : ev->len;
	size_t size;
	unsigned char *p;
	uint64_t t;
	int ret;

	ret = class_add(w, (uint32_t)ev->id, ev->name);
	if (ret)
		return ret;
	size = CTF_EV_HDR + (k ? CTF_EV_KERNEL + ctf_kev_size(k, ev->data, ev->len) :
			     CTF_EV_USER + len);
	t = clock_value(w, cv_ns(&ev->ts));
	ret = make_room(w, size);
	if (ret)
		return ret;
	if (w->pkt_len == CTF_PKT_HDR)
		w->pkt_begin = t;
	w->pkt_end = t;
	p = w->pkt + w->pkt_len;
	ctf_put32(p, (uint32_t)ev->id);
	ctf_put64(p + 4, t);
	if (k)
		put_kernel(p + CTF_EV_HDR, ev, k);
	else
		put_user(p + CTF_EV_HDR, ev, len);
	w->pkt_len += size;
	w->events++;
	return w->stream.err;
}

static int cmp_class(const void *a, const void *b)
{
	const struct table_entry *x = *(const struct table_entry *const *)a;
	const struct table_entry *y = *(const struct table_entry *const *)b;

	return (x->key[0] > y->key[0]) - (x->key[0] < y->key[0]);
}

/* The classes that have a name, by id (ids in order read better): an
 * array of *@n entries to free; NULL if no memory. */
static struct table_entry **sorted_classes(struct table *cls, size_t *n)
{
	struct table_entry **v;
	size_t i;

	*n = 0;
	/* No overflow: the table's entries, each larger, were allocated. */
	v = malloc((cls->count ? cls->count : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < cls->count; i++)
		if (cls->ent[i].val)
			v[(*n)++] = &cls->ent[i];
	qsort(v, *n, sizeof(*v), cmp_class);
	return v;
}

static int write_metadata(struct ctf_writer *w, struct logview *lv)
{
	struct ctf_meta m = { .uuid = w->uuid, .base = w->base, .created = create_ns(lv) };
	struct table_entry **cls;
	struct cv_out o;
	int ret;

	cls = sorted_classes(&w->cls, &m.ncls);
	if (!cls)
		return ENOMEM;
	m.cls = cls;
	ret = create_file(w, "metadata", &o);
	if (!ret) {
		ctf_meta_write(&o, &m, lv);
		ret = cv_out_close(&o);
	}
	free(cls);
	return ret;
}

static void free_writer(struct ctf_writer *w)
{
	size_t i;

	for (i = 0; i < w->cls.count; i++)
		free(w->cls.ent[i].val);
	table_free(&w->cls);
	free(w->pkt);
	free(w->dir);
	free(w);
}

static void ctf_abort(void *arg)
{
	struct ctf_writer *w = arg;

	cv_out_close(&w->stream);
	unlinkat(w->dirfd, "stream", 0);
	unlinkat(w->dirfd, "metadata", 0);
	close(w->dirfd);
	if (w->made_dir)
		rmdir(w->dir);
	free_writer(w);
}

static int ctf_finish(void *arg, struct logview *lv)
{
	struct ctf_writer *w = arg;
	int ret;

	/* An empty log still gets one (empty) packet: a stream to read. */
	if (w->pkt_len > CTF_PKT_HDR || !w->pkt_seq)
		flush_packet(w);
	ret = cv_out_close(&w->stream);
	if (!ret)
		ret = write_metadata(w, lv);
	if (w->reordered)
		pt_err("warning: %llu events earlier than the event before them: "
		       "written at its time in the CTF trace (CTF needs ordered timestamps)",
		       (unsigned long long)w->reordered);
	if (ret) {
		ctf_abort(w);
		return ret;
	}
	close(w->dirfd);
	free_writer(w);
	return 0;
}

const struct exporter ctf_exporter = {
	.open = ctf_open,
	.event = ctf_event,
	.finish = ctf_finish,
	.abort = ctf_abort,
};
