// SPDX-License-Identifier: GPL-2.0
/*
 * st_lane.c - finding and writing the writer lanes of the calling process,
 * and the forked children of the lane tests (declared in st_lane.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "st_lane.h"
#include "st_module.h"
#include "st_system.h"

int st_find_lanes(struct st_lane *lanes, int max)
{
	char line[512], perms[8], path[256];
	unsigned long long off;
	unsigned long start, end;
	int n = 0, i;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %llx %*s %*s %255s", &start, &end,
			   perms, &off, path) < 5)
			continue;
		if (strcmp(path, ST_DEVICE) || strcmp(perms, "rw-s") ||
		    ((off / 4096) & 3) != 3 || end - start <= ST_CTL_PAGE)
			continue;
		for (i = 0; i < n && i < max; i++)
			if (lanes[i].offset == off)
				break;
		if (i < n)
			continue;
		if (n < max) {
			lanes[n].ctl = (void *)start;
			lanes[n].ring = (uint8_t *)start + ST_CTL_PAGE;
			lanes[n].size = end - start - ST_CTL_PAGE;
			lanes[n].offset = off;
		}
		n++;
	}
	fclose(f);
	return n;
}

bool st_find_the_lane(struct st_lane *l)
{
	struct st_lane all[8];

	if (st_find_lanes(all, 8) != 1)
		return false;
	*l = all[0];
	return true;
}

void st_lane_put(const struct st_lane *l, uint64_t pos, const void *src,
		 size_t len)
{
	size_t off = pos % l->size, first = len < l->size - off ? len :
					     l->size - off;

	memcpy(l->ring + off, src, first);
	if (first < len)
		memcpy(l->ring, (const uint8_t *)src + first, len - first);
}

const char *st_ev_desc(const struct st_ev *ev)
{
	static __thread char buf[96];
	int v = 0;

	if (st_is(ev, POSIX_TRACE_ERROR) && ev->len == sizeof(int))
		memcpy(&v, ev->data, sizeof(v));
	snprintf(buf, sizeof(buf), "%s len %zu pid %d%s%s",
		 st_id_str(ev->info.posix_event_id), ev->len,
		 (int)ev->info.posix_pid,
		 st_is(ev, POSIX_TRACE_ERROR) ? " err " : "",
		 st_is(ev, POSIX_TRACE_ERROR) ? strerror(v) : "");
	return buf;
}

void st_no_core_dumps(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

void *st_shared_area(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* What st_timed_read_returns() hands its thread; leaked if it hangs. */
struct st_timed_arg {
	trace_id_t trid;
	unsigned int ms;
	int ret;
	struct st_ev ev;
};

static void *st_timed_reader(void *p)
{
	struct st_timed_arg *a = p;

	a->ret = st_timed_ms(a->trid, &a->ev, a->ms);
	return NULL;
}

bool st_timed_read_returns(trace_id_t trid, unsigned int ms, int *ret,
			   struct st_ev *ev)
{
	struct st_timed_arg *a = calloc(1, sizeof(*a));
	struct timespec dl;
	pthread_t th;

	if (!a)
		return false;
	a->trid = trid;
	a->ms = ms;
	if (pthread_create(&th, NULL, st_timed_reader, a)) {
		free(a);
		return false;
	}
	dl = st_ns_ts(st_realtime_ns() + (uint64_t)(ms + 10000) * 1000000ULL);
	if (pthread_timedjoin_np(th, NULL, &dl))
		return false;	/* still spinning: leak @a on purpose */
	*ret = a->ret;
	if (ev)
		*ev = a->ev;
	free(a);
	return true;
}

int st_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 1000 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

pid_t st_fork_waiting(int (*fn)(void *), void *arg, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		st_no_core_dumps();
		if (read(p[0], &c, 1) != 1)
			_exit(99);
		close(p[0]);
		_exit(fn(arg));
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

int st_go(int fd)
{
	int ret = write(fd, "g", 1) == 1 ? 0 : -1;

	close(fd);
	return ret;
}

void st_lane_record(const struct st_lane *l, uint64_t pos, uint32_t id,
		    uint64_t ts, const void *pay, size_t len)
{
	size_t size = ST_ROUND8(ST_REC_HDR + len);
	uint8_t buf[ST_REC_HDR + 256];
	struct posix_trace_record rec = {
		.size = (uint32_t)size, .event_id = id, .pid = 1, .tid = 1,
		.data_len = (uint32_t)len, .seq = pos / size, .timestamp = ts,
	};

	if (size > sizeof(buf))
		abort();	/* a test's own mistake */
	memset(buf, 0, size);
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + ST_REC_HDR, pay, len);
	st_lane_put(l, pos, buf, size);
}

void st_lane_forge(const struct st_lane *l, uint32_t id, uint64_t ts,
		   const void *pay, size_t len)
{
	uint64_t head = st_lane_head(l);

	st_lane_record(l, head, id, ts, pay, len);
	__atomic_store_n(&l->ctl->head, head + ST_ROUND8(ST_REC_HDR + len),
			 __ATOMIC_RELEASE);
}

bool st_wait_flag(atomic_int *v, int want, unsigned int ms)
{
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) + ms * 1000000ULL;

	while (atomic_load(v) < want) {
		if (st_now_ns(CLOCK_MONOTONIC) > end)
			return false;
		usleep(200);
	}
	return true;
}
