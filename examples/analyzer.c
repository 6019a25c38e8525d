// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * analyzer - per event type counts and intervals of a trace log.
 *
 *   analyzer LOG
 *
 * LOG is a trace log (examples/controller -o LOG, posix-trace record).  A
 * log is read with posix_trace_open() as a "pre-recorded" stream: the
 * library alone reads it, no module is needed.  For each event type:
 * how many events, and the shortest, mean and longest time between two
 * successive events of that type.
 *
 * Build against an installed libposixtrace:
 *   cc analyzer.c $(pkg-config --cflags --libs posixtrace) -o analyzer
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace.h>

struct type_stats {
	trace_event_id_t id;
	unsigned long count;
	uint64_t last_ns;	/* timestamp of the previous event */
	uint64_t min_ns, max_ns, sum_ns;	/* intervals */
};

static struct type_stats *types;
static size_t ntypes;

static uint64_t ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

/* A log holds few event types: a linear search is enough. */
static struct type_stats *stats_of(trace_event_id_t id)
{
	size_t i;

	for (i = 0; i < ntypes; i++)
		if (types[i].id == id)
			return &types[i];
	types = realloc(types, (ntypes + 1) * sizeof(*types));
	if (!types) {
		perror("analyzer");
		exit(1);
	}
	memset(&types[ntypes], 0, sizeof(*types));
	types[ntypes].id = id;
	types[ntypes].min_ns = UINT64_MAX;
	return &types[ntypes++];
}

static void account(const struct posix_trace_event_info *ev)
{
	struct type_stats *t = stats_of(ev->posix_event_id);
	uint64_t now = ns(&ev->posix_timestamp), d;

	if (t->count++) {
		d = now - t->last_ns;
		t->sum_ns += d;
		t->min_ns = d < t->min_ns ? d : t->min_ns;
		t->max_ns = d > t->max_ns ? d : t->max_ns;
	}
	t->last_ns = now;
}

/* A log may be anyone's: bytes of a name outside printable ASCII (the
 * controls a terminal obeys among them) are shown as '?'. */
static void printable(char *name)
{
	unsigned char *p;

	for (p = (unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
}

static void report(trace_id_t trid)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t i;

	printf("%-28s %8s %14s %14s %14s\n", "event type", "count",
	       "min gap (us)", "mean gap (us)", "max gap (us)");
	for (i = 0; i < ntypes; i++) {
		struct type_stats *t = &types[i];

		if (posix_trace_eventid_get_name(trid, t->id, name))
			snprintf(name, sizeof(name), "id %d", (int)t->id);
		printable(name);
		printf("%-28s %8lu", name, t->count);
		if (t->count > 1)
			printf(" %14.3f %14.3f %14.3f\n", t->min_ns / 1e3,
			       t->sum_ns / 1e3 / (t->count - 1), t->max_ns / 1e3);
		else
			printf(" %14s %14s %14s\n", "-", "-", "-");
	}
}

int main(int argc, char **argv)
{
	struct posix_trace_event_info ev;
	unsigned long total = 0;
	trace_id_t trid;
	int fd, err, unavailable;
	size_t len;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("usage: %s LOG\n", argv[0]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s LOG\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "analyzer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = posix_trace_open(fd, &trid);
	if (err) {
		fprintf(stderr, "analyzer: %s: not a trace log: %s\n", argv[1],
			strerror(err));
		return 1;
	}
	/* Only the event headers matter here: no data buffer. */
	for (;;) {
		err = posix_trace_getnext_event(trid, &ev, NULL, 0, &len,
						&unavailable);
		if (err || unavailable)
			break;	/* a log ends with "unavailable" */
		account(&ev);
		total++;
	}
	if (err)
		fprintf(stderr, "analyzer: %s: %s\n", argv[1], strerror(err));
	printf("%s: %lu events, %zu event types\n", argv[1], total, ntypes);
	report(trid);
	posix_trace_close(trid);
	close(fd);
	free(types);
	return err ? 1 : 0;
}
