// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test - random and structure-aware sequences against /dev/posix_trace
 * (issue 6, "Fuzzing the module").
 *
 * FUZZ_PROCS processes (default 3) of FUZZ_THREADS threads (default 2) run
 * random steps for FUZZ_SECONDS (default 20): opens and closes of the
 * device; every ioctl of the uapi header with valid, boundary and garbage
 * arguments (sizes, flags, reserved fields, pointers, trids); unknown
 * commands; mmaps of every region with wrong offsets, lengths, protections
 * and sharing, then mprotect, partial munmap, mremap and garbage written
 * into writer lanes and consumer regions; the library API with random
 * attributes, logs on files and pipes; forks (children that run steps of
 * their own, then park), execs of /bin/true, SIGKILLs, threads.  Rarer
 * steps (fuzz_attacks.c) run the attack classes of issue 19: process trees
 * thousands of generations deep or hundreds wide, writer lanes that lie
 * over time against the flusher and the library's reader, CREATE racing
 * a set-user-ID exec, madvise/mremap/fork of every mapping, logs that
 * block.
 *
 * The seed (FUZZ_SEED, default time-based) is printed first as "seed N";
 * FUZZ_SEED=N replays it.  With FUZZ_PROCS=1 FUZZ_THREADS=1 a run is
 * deterministic: each step folds the class of its result (success or the
 * errno) into a digest, printed at the end; the second test runs one seed
 * twice for FUZZ_DET_STEPS steps and compares the digests.
 *
 * Fails on: a crash of any process of ours other than by our own SIGKILL,
 * a step that does not return within FZ_WATCHDOG_MS (watchdog thread),
 * an unknown command that is not ENOTTY, a read-only region that can be
 * made writable, what fuzz_attacks.c checks (bounded calls and exits, a
 * flusher that never goes back, no create attached after a set-ID exec,
 * nothing inherited by a child), and POSIX_TRACE_IOC_STATS not back at its
 * baseline within FZ_SETTLE_MS once every process is reaped.  Every
 * failure is printed ("# failure N: ..."), the first is the verdict.  vm-run fails on any kernel
 * report and on a failed rmmod.
 */
#include "pt_selftest.h"

#include <stdatomic.h>
#include <stddef.h>
#include <dlfcn.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "fuzz.h"

/* ------------------------------------------------------------------ */
/* Shared state, random numbers, digest                                */
/* ------------------------------------------------------------------ */

struct fz_shared *sh;
int fz_shared_fd = -1;
uint64_t fz_end_ns;
uint64_t fz_seed;
long page_size;

/* The first failure is the run's verdict; the first few are on stderr. */
void fz_bad(const char *fmt, ...)
{
	int n = atomic_fetch_add(&sh->bad, 1);
	char why[sizeof(sh->why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!n)
		memcpy(sh->why, why, sizeof(why));
	/* write(): a forked child may not take stdio's lock. */
	if (n < 20) {
		char line[sizeof(why) + 32];
		int len = snprintf(line, sizeof(line), "# failure %d: %s\n", n + 1, why);

		if (write(2, line, len < (int)sizeof(line) ? len : (int)sizeof(line) - 1) < 0)
			return;
	}
}

uint64_t fz_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* 0 .. n-1 */
uint32_t rn(struct fz_thr *t, uint32_t n)
{
	return n ? (uint32_t)(rnd(t) % n) : 0;
}

__thread struct fz_thr *fz_self;
__thread volatile int fz_in_lib;

/*
 * A crash of ours: say where (the step and its operation) in the shared
 * report, then die of the signal as we would have.
 */
static void fz_crash_handler(int sig, siginfo_t *si, void *uc)
{
	struct fz_thr *t = fz_self;
	void *ip = (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	Dl_info dl = { 0 };
	size_t len = sizeof(sh->why);
	char *why = sh->why;
	int n;

	if (atomic_fetch_add(&sh->bad, 1))
		goto die;
	/* What cannot fault first, in case the thread's state is gone too. */
	n = snprintf(why, len, "seed %llu: pid %d: signal %d (addr %p, ip %p, %s)",
		     (unsigned long long)fz_seed, (int)getpid(), sig, si->si_addr, ip,
		     fz_in_lib ? "in libposixtrace" : "not in libposixtrace");
	if (t && n > 0 && (size_t)n < len)
		n += snprintf(why + n, len - n, " thread %d step %ld (%s)",
			      t->tidx, t->step, t->op);
	/* Where, for addr2line (not async-signal-safe: last). */
	if (n > 0 && (size_t)n < len && dladdr(ip, &dl) && dl.dli_fname)
		n += snprintf(why + n, len - n, " at %s+0x%lx", dl.dli_fname,
			      (unsigned long)((char *)ip - (char *)dl.dli_fbase));
	if (n > 0 && write(2, why, (size_t)n < len ? (size_t)n : len - 1) > 0)
		n = write(2, "\n", 1);
die:
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fz_catch_crashes(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fz_crash_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

uint64_t rnd(struct fz_thr *t)
{
	t->rng = fz_mix(t->rng);
	return t->rng;
}

/* Fold step result @ret (0 or an errno) of operation @op into the digest. */
/* FUZZ_TRACE=1: every noted result on stderr, to find where two runs of
 * one seed part; 2: only in the runs that must agree. */
static int fz_trace, fz_trace_env;

void fz_note(struct fz_thr *t, int op, int ret)
{
	uint64_t v = ((uint64_t)(unsigned int)op << 32) | (unsigned int)ret;
	int i;

	atomic_store(&t->variant, ret);
	if (fz_trace)
		fprintf(stderr, "fz-trace %ld %s %d %d\n", t->step,
			t->op ? t->op : "-", op, ret);
	if (sh->det_run && t->p->det) {
		unsigned int *n = &sh->det_nnotes[sh->det_run - 1];

		if (*n < FZ_DET_NOTES)
			sh->det_notes[sh->det_run - 1][(*n)++] =
				(struct fz_det_note){ t->step, t->op, op, ret };
	}

	for (i = 0; i < 8; i++) {
		t->digest ^= (v >> (i * 8)) & 0xff;
		t->digest *= 0x100000001b3ULL;
	}
}

int fz_err(long r)
{
	return r < 0 ? errno : 0;
}

/* ------------------------------------------------------------------ */
/* Garbage                                                             */
/* ------------------------------------------------------------------ */

uint64_t interesting64(struct fz_thr *t)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 63, 64, 255, 256, 1023, 1024, 1279, 1280, 4095,
		4096, 4097, 65535, 65536, 65537, 1u << 20, 1u << 30, (1u << 30) - 1,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 7,
	};

	switch (rn(t, 4)) {
	case 0:
		return rnd(t);
	case 1:
		return rnd(t) & 0xffff;
	default:
		return v[rn(t, sizeof(v) / sizeof(v[0]))];
	}
}

/*
 * A user pointer for an embedded __u64: usually a valid one (@good), else
 * NULL, unmapped, kernel, non-canonical, the PROT_NONE page, or straddling
 * into it.
 */
static uint64_t fz_ptr(struct fz_thr *t, void *good)
{
	unsigned char *none = t->arena + 2 * page_size;

	switch (rn(t, 12)) {
	case 0:
		return 0;
	case 1:
		return 0x1000;				/* below mmap_min_addr */
	case 2:
		return 0xffffffff81000000ULL;		/* kernel text */
	case 3:
		return 0xffff888000000000ULL;		/* direct map */
	case 4:
		return 0x0000800000000000ULL;		/* non-canonical */
	case 5:
		return (uintptr_t)none;
	case 6:
		return (uintptr_t)(none - 1 - rn(t, 16));
	default:
		return (uintptr_t)good;
	}
}

/* ------------------------------------------------------------------ */
/* Tables                                                              */
/* ------------------------------------------------------------------ */

static void fz_publish(uint32_t trid)
{
	atomic_store(&sh->others[trid % FZ_OTHERS], trid);
	atomic_fetch_add(&sh->streams, 1);
}

static void fz_stale_add(struct fz_proc *p, uint32_t trid)
{
	p->stale[p->nstale++ % FZ_STALE] = trid;
}

/* Index of @trid in the stream table, or -1.  Lock held. */
static int fz_stream_find(struct fz_proc *p, uint32_t trid)
{
	int i;

	for (i = 0; i < p->nst; i++)
		if (p->st[i].trid == trid)
			return i;
	return -1;
}

/* @trid was shut down (or is unknown now).  Lock held. */
static void fz_stream_forget(struct fz_proc *p, uint32_t trid)
{
	int i = fz_stream_find(p, trid);

	if (i < 0)
		return;
	if (p->st[i].logfd >= 0)
		close(p->st[i].logfd);
	p->st[i] = p->st[--p->nst];
	fz_stale_add(p, trid);
}

/* Lock held.  false if the table is full (the caller shuts @s down). */
bool fz_stream_add(struct fz_proc *p, const struct fz_stream *s)
{
	if (p->nst == FZ_STREAMS)
		return false;
	p->st[p->nst++] = *s;
	fz_publish(s->trid);
	return true;
}

/*
 * A trid to use: mostly a stream of ours, else a stale one, another
 * process's, 0, or one that cannot exist (>= 2^30, "negative").  Nothing
 * random below 2^30: it could name a stream of ours in one run and not in
 * the next, and break the determinism of FUZZ_PROCS=1.
 */
static uint32_t fz_pick_trid(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	uint32_t trid = 0;

	pthread_mutex_lock(&p->lock);
	switch (rn(t, 10)) {
	case 0:
		if (p->nstale)
			trid = p->stale[rn(t, p->nstale < FZ_STALE ? p->nstale : FZ_STALE)];
		break;
	case 1:
		if (!p->det)
			trid = atomic_load(&sh->others[rn(t, FZ_OTHERS)]);
		break;
	case 2:
		trid = (uint32_t)interesting64(t) | (1u << 30);
		break;
	case 3:
		trid = rn(t, 2) ? 0 : (uint32_t)-1 - rn(t, 3);
		break;
	default:
		if (p->nst)
			trid = p->st[rn(t, p->nst)].trid;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return trid;
}

/* Lock held.  Is @pid a child of ours? */
static bool fz_is_kid(struct fz_proc *p, pid_t pid)
{
	int i;

	for (i = 0; i < p->nkids; i++)
		if (p->kids[i] == pid)
			return true;
	return false;
}

/*
 * A process that is not ours in place of @pid: tracing one that outlives
 * the test (an ancestor, another process of the same user) would succeed
 * and rightly leave the module's state for it until it exits, which the
 * leak check cannot tell from a leak.  As root: a pid that names nothing;
 * else init, which we may not trace (EPERM).
 */
static pid_t fz_foreign_pid(pid_t pid)
{
	(void)pid;
	return geteuid() == 0 ? 0x3fffffff : 1;
}

static int fz_fd(struct fz_thr *t)
{
	return t->p->fds[rn(t, FZ_FDS)];
}

/* ------------------------------------------------------------------ */
/* Raw ioctls                                                          */
/* ------------------------------------------------------------------ */

struct fz_cmd {
	unsigned long cmd;
	uint32_t size;			/* first published struct size */
	const char *name;
};

#define FZ_CMD(c, s) { POSIX_TRACE_IOC_##c, sizeof(struct s), #c }
static const struct fz_cmd fz_cmds[] = {
	FZ_CMD(QUERY, posix_trace_query),
	FZ_CMD(CREATE, posix_trace_create),
	FZ_CMD(START, posix_trace_ctl),
	FZ_CMD(STOP, posix_trace_ctl),
	FZ_CMD(CLEAR, posix_trace_ctl),
	FZ_CMD(SHUTDOWN, posix_trace_ctl),
	FZ_CMD(STATUS, posix_trace_status),
	FZ_CMD(WAIT, posix_trace_wait),
	FZ_CMD(EVENT, posix_trace_event_req),
	FZ_CMD(EVENTID_OPEN, posix_trace_eventid),
	FZ_CMD(EVENTID_NAME, posix_trace_eventid),
	FZ_CMD(EVENTTYPES, posix_trace_eventtypes),
	FZ_CMD(SET_FILTER, posix_trace_filter),
	FZ_CMD(GET_FILTER, posix_trace_filter),
	FZ_CMD(WRITER_OPEN, posix_trace_writer),
	FZ_CMD(WRITER_NOTIFY, posix_trace_notify),
	FZ_CMD(STATS, posix_trace_stats),
	FZ_CMD(FLUSH, posix_trace_ctl),
};
#define FZ_NR_CMDS	(int)(sizeof(fz_cmds) / sizeof(fz_cmds[0]))

static void fz_fill_valid(struct fz_thr *t, int c, unsigned char *buf,
			  uint32_t trid)
{
	unsigned char *scratch = t->scratch;
	uint64_t now = st_now_ns(CLOCK_REALTIME);

	switch (fz_cmds[c].cmd) {
	case POSIX_TRACE_IOC_CREATE: {
		struct posix_trace_create *a = (void *)buf;
		static const uint64_t sizes[] = { 0, 1, 1024, 4096, 16384, 65536, 262144 };

		strcpy((char *)scratch, "fuzz");
		a->pid = rn(t, 4) ? 0 : (uint32_t)getpid();
		a->stream_policy = 1 + rn(t, 2);
		a->inherit = rn(t, 2);
		a->stream_size = sizes[rn(t, 7)];
		a->max_data_size = rn(t, 2) ? 0 : interesting64(t) & 0x1ffff;
		a->name_ptr = fz_ptr(t, scratch);
		/* never-lose mode: writers of the stream wait for room */
		if (!rn(t, 4))
			a->full_wait_ns = rn(t, 2) ? interesting64(t) :
					  1000000ULL * rn(t, 200);
		/* kernel events: the classes, mixed, now and then a bad bit */
		if (!rn(t, 3))
			a->kernel_classes = rn(t, 8) ? rn(t, 2) * POSIX_TRACE_KCLASS_SYSCALL +
					    rn(t, 2) * POSIX_TRACE_KCLASS_SIGNAL +
					    rn(t, 2) * POSIX_TRACE_KCLASS_SCHED +
					    rn(t, 2) * POSIX_TRACE_KCLASS_FAULT +
					    rn(t, 2) * POSIX_TRACE_KCLASS_PROCESS :
					    (uint32_t)rnd(t);
		break;
	}
	case POSIX_TRACE_IOC_START:
	case POSIX_TRACE_IOC_STOP:
	case POSIX_TRACE_IOC_CLEAR:
	case POSIX_TRACE_IOC_SHUTDOWN:
	case POSIX_TRACE_IOC_FLUSH: {
		struct posix_trace_ctl *a = (void *)buf;

		a->trid = trid;
		a->thread = (uintptr_t)pthread_self();
		a->address = rnd(t);
		break;
	}
	case POSIX_TRACE_IOC_STATUS:
		((struct posix_trace_status *)buf)->trid = trid;
		break;
	case POSIX_TRACE_IOC_WAIT: {
		struct posix_trace_wait *a = (void *)buf;

		a->trid = trid;
		a->flags = POSIX_TRACE_WAIT_TIMEOUT;
		a->abstime = rn(t, 3) ? now + rn(t, 20) * 1000000ULL : rn(t, 2) ? 0 : now - 1000000000ULL;
		break;
	}
	case POSIX_TRACE_IOC_EVENT: {
		struct posix_trace_event_req *a = (void *)buf;

		memset(scratch, 'e', 256);
		a->event_id = POSIX_TRACE_ID_UNNAMED + rn(t, 4);
		if (rn(t, 4) == 0)
			a->event_id = (uint32_t)interesting64(t);
		a->data_ptr = fz_ptr(t, scratch);
		a->data_len = rn(t, 4) ? rn(t, 257) : interesting64(t);
		a->thread = (uintptr_t)pthread_self();
		a->trid = rn(t, 2) ? 0 : trid;
		a->flags = rn(t, 4) ? 0 : POSIX_TRACE_EVENT_UNSLOTTED;
		a->timestamp = rn(t, 2) ? 0 : interesting64(t);
		break;
	}
	case POSIX_TRACE_IOC_EVENTID_OPEN:
	case POSIX_TRACE_IOC_EVENTID_NAME: {
		struct posix_trace_eventid *a = (void *)buf;

		snprintf((char *)scratch, 64, "fz%u", rn(t, FZ_NAMES));
		a->trid = rn(t, 2) ? 0 : trid;
		a->event_id = POSIX_TRACE_ID_UNNAMED + rn(t, 8);
		if (rn(t, 4) == 0)
			a->event_id = rn(t, 300);
		a->name_len = fz_cmds[c].cmd == POSIX_TRACE_IOC_EVENTID_OPEN ?
			      strlen((char *)scratch) : 1 + rn(t, 300);
		if (rn(t, 5) == 0)
			a->name_len = (uint32_t)interesting64(t);
		a->name_ptr = fz_ptr(t, scratch);
		break;
	}
	case POSIX_TRACE_IOC_EVENTTYPES:
		((struct posix_trace_eventtypes *)buf)->trid = trid;
		break;
	case POSIX_TRACE_IOC_SET_FILTER:
	case POSIX_TRACE_IOC_GET_FILTER: {
		struct posix_trace_filter *a = (void *)buf;
		struct posix_trace_event_set *set = (void *)scratch;
		unsigned int i;

		a->trid = trid;
		a->set_ptr = fz_ptr(t, scratch);
		if (fz_cmds[c].cmd == POSIX_TRACE_IOC_SET_FILTER) {
			a->how = 1 + rn(t, 3);
			a->thread = (uintptr_t)pthread_self();
			set->magic = rn(t, 8) ? POSIX_TRACE_EVSET_MAGIC : (uint32_t)rnd(t);
			set->pad = rn(t, 8) ? 0 : 1;
			for (i = 0; i < sizeof(set->bits) / 8; i++)
				set->bits[i] = rn(t, 2) ? 0 : rnd(t);
		}
		break;
	}
	case POSIX_TRACE_IOC_WRITER_OPEN:
		((struct posix_trace_writer *)buf)->trid = trid;
		break;
	case POSIX_TRACE_IOC_WRITER_NOTIFY: {
		struct posix_trace_notify *a = (void *)buf;

		a->trid = trid;
		a->index = rn(t, 4);
		a->what = 1 + rn(t, 4);	/* WAKE, FULL, FLUSH, ROOM */
		break;
	}
	default:
		break;
	}
}

/* Offsets of the flags and the reserved fields in each struct, if any. */
static void fz_mutate_fields(struct fz_thr *t, int c, unsigned char *buf, uint32_t size)
{
	uint32_t off;

	switch (rn(t, 4)) {
	case 0:		/* one random byte anywhere after size */
		off = 4 + rn(t, size > 4 ? size - 4 : 1);
		buf[off] ^= (unsigned char)(1 + rn(t, 255));
		break;
	case 1:		/* the last 8 bytes: a reserved field in every struct */
		if (size >= 16)
			memcpy(buf + size - 8, &(uint64_t){ 1ULL << rn(t, 64) }, 8);
		break;
	case 2:		/* the second word: flags, trid or abi_version */
		memcpy(buf + 4, &(uint32_t){ 1u << rn(t, 32) }, 4);
		break;
	default:	/* an interesting value in a random aligned word */
		off = 8 * rn(t, size / 8);
		memcpy(buf + off, &(uint64_t){ interesting64(t) }, 8);
		break;
	}
	(void)c;
}

/* Record what a successful ioctl created.  */
static void fz_ioctl_done(struct fz_thr *t, int c, const unsigned char *buf,
			  uint32_t size, int fd)
{
	struct fz_proc *p = t->p;
	unsigned long cmd = fz_cmds[c].cmd;

	if (size < fz_cmds[c].size)
		return;		/* accepted smaller? nothing to record */
	pthread_mutex_lock(&p->lock);
	if (cmd == POSIX_TRACE_IOC_CREATE) {
		const struct posix_trace_create *a = (const void *)buf;
		struct fz_stream s = {
			.trid = a->trid, .logfd = -1,
			.log = a->flags & POSIX_TRACE_CREATE_LOG,
			.ro_off = a->ro_offset, .ro_size = a->ro_size,
			.cons_off = a->cons_offset, .cons_size = a->cons_size,
		};

		if (!fz_stream_add(p, &s)) {
			struct posix_trace_ctl ctl = { .size = sizeof(ctl), .trid = a->trid };

			ioctl(fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl);
			fz_stale_add(p, a->trid);
		}
	} else if (cmd == POSIX_TRACE_IOC_SHUTDOWN) {
		fz_stream_forget(p, ((const struct posix_trace_ctl *)buf)->trid);
	} else if (cmd == POSIX_TRACE_IOC_WRITER_OPEN && p->nwr < FZ_WRITERS) {
		const struct posix_trace_writer *w = (const void *)buf;

		p->wr[p->nwr++] = (struct fz_writer){
			.trid = w->trid, .off = w->mmap_offset, .size = w->mmap_size,
			.data_off = w->data_offset, .data_size = w->data_size,
		};
	}
	pthread_mutex_unlock(&p->lock);
}

/* Offset of the user pointer inside the struct of @cmd, 0 if none. */
static size_t fz_ptr_off(unsigned long cmd)
{
	switch (cmd) {
	case POSIX_TRACE_IOC_CREATE:
		return offsetof(struct posix_trace_create, name_ptr);
	case POSIX_TRACE_IOC_EVENT:
		return offsetof(struct posix_trace_event_req, data_ptr);
	case POSIX_TRACE_IOC_EVENTID_OPEN:
	case POSIX_TRACE_IOC_EVENTID_NAME:
		return offsetof(struct posix_trace_eventid, name_ptr);
	case POSIX_TRACE_IOC_SET_FILTER:
	case POSIX_TRACE_IOC_GET_FILTER:
		return offsetof(struct posix_trace_filter, set_ptr);
	default:
		return 0;
	}
}

/*
 * A log write error, returned by a flush and by the shutdown of a stream
 * with log (which is shut down all the same).  Whether one happens depends
 * on time and space (a drainer starved for 5 s on a loaded machine makes a
 * pipe log fail), not on the seed: for the digest it is success.
 */
bool fz_log_write_error(int err)
{
	/* EPIPE: the drainer of a pipe log is gone. */
	return err == ENOSPC || err == EFBIG || err == EIO || err == EINTR ||
	       err == EPIPE;
}

static int fz_result_class(unsigned long cmd, int err)
{
	/* Data-dependent or time-dependent outcomes of a stream: one class. */
	if (cmd == POSIX_TRACE_IOC_WAIT && err == ETIMEDOUT)
		return 0;
	if ((cmd == POSIX_TRACE_IOC_FLUSH || cmd == POSIX_TRACE_IOC_SHUTDOWN) &&
	    fz_log_write_error(err))
		return 0;
	return err;
}

static void op_ioctl(struct fz_thr *t)
{
	unsigned char *buf = t->arena, *arg;
	int c = rn(t, FZ_NR_CMDS), fd = fz_fd(t), err, how;
	unsigned long cmd = fz_cmds[c].cmd;
	uint32_t size = fz_cmds[c].size, trid = fz_pick_trid(t);
	bool ro = false;
	uint64_t ptr;

	t->op = fz_cmds[c].name;
	memset(buf, 0, 2 * page_size);
	fz_fill_valid(t, c, buf, trid);
	memcpy(&ptr, buf + fz_ptr_off(cmd), 8);
	how = rn(t, 16);
	switch (how) {
	case 0:		/* wrong size field */
		switch (rn(t, 7)) {
		case 0: size = 0; break;
		case 1: size = 4; break;
		case 2: size = fz_cmds[c].size - 8; break;
		case 3: size = page_size; break;
		case 4: size = page_size + 1 + rn(t, 8); break;
		case 5: size = (uint32_t)interesting64(t); break;
		default: size = fz_cmds[c].size + 8 * (1 + rn(t, 8)); break;
		}
		if (size > fz_cmds[c].size && size <= 2 * page_size && rn(t, 2))
			buf[size - 1 - rn(t, size - fz_cmds[c].size)] = 0x5a;
		break;
	case 1:
	case 2:
	case 3:
		fz_mutate_fields(t, c, buf, size);
		break;
	default:
		break;
	}
	/*
	 * A mutated pointer could name any memory of ours, and the kernel
	 * would rightly write there: keep the one fz_ptr() chose.
	 */
	if (fz_ptr_off(cmd))
		memcpy(buf + fz_ptr_off(cmd), &ptr, 8);
	/* WAIT without a timeout would sleep until an event: never wanted. */
	if (cmd == POSIX_TRACE_IOC_WAIT) {
		struct posix_trace_wait *w = (void *)buf;

		if (!(w->flags & ~POSIX_TRACE_WAIT_TIMEOUT)) {
			w->flags |= POSIX_TRACE_WAIT_TIMEOUT;
			if (w->abstime > st_now_ns(CLOCK_REALTIME) + 50000000ULL)
				w->abstime = 0;
		}
	}
	if (cmd == POSIX_TRACE_IOC_CREATE) {
		struct posix_trace_create *a = (void *)buf;
		bool ours;

		pthread_mutex_lock(&t->p->lock);
		ours = !a->pid || a->pid == (uint32_t)getpid() || fz_is_kid(t->p, a->pid);
		pthread_mutex_unlock(&t->p->lock);
		if (!ours)
			a->pid = fz_foreign_pid(a->pid);

		/* Huge buffers are refused or cost memory: keep both rare. */
		if (a->stream_size > (1u << 20) && rn(t, 4))
			a->stream_size = 4096;
		/*
		 * A log: the device fd itself, stdin or junk; not stdout or
		 * stderr, where the log would land in the test's output (a
		 * binary log there once hid the summary line from scripts/check).
		 */
		if (rn(t, 8) == 0) {
			a->flags |= POSIX_TRACE_CREATE_LOG;
			a->log_fd = rn(t, 2) ? (uint32_t)fd : (uint32_t)interesting64(t);
			if (a->log_fd == 1 || a->log_fd == 2)
				a->log_fd = (uint32_t)fd;
			a->log_policy = 1 + rn(t, 4);
			a->log_size = interesting64(t);
		}
	}
	memcpy(buf, &size, 4);
	arg = buf;
	switch (rn(t, 14)) {
	case 0: arg = NULL; break;
	case 1: arg = (void *)0x1000; break;
	case 2: arg = (void *)0xffffffff81000000ULL; break;
	case 3: arg = t->arena + 2 * page_size; break;
	case 4:	/* ends inside the PROT_NONE page */
		arg = t->arena + 2 * page_size - (size > 8 && size < page_size ? size / 2 : 8);
		memmove(arg, buf, t->arena + 2 * page_size - arg);
		break;
	case 5:	/* read-only: copy_to_user() of the results fails */
		ro = true;
		break;
	default:
		break;
	}
	if (ro && mprotect(buf, page_size, PROT_READ))
		ro = false;
	err = fz_err(ioctl(fd, cmd, arg));
	if (ro)
		mprotect(buf, page_size, PROT_READ | PROT_WRITE);
	if (arg == buf && (!err || (cmd == POSIX_TRACE_IOC_SHUTDOWN &&
				    fz_log_write_error(err))))
		fz_ioctl_done(t, c, buf, size, fd);
	if (!err && ro && cmd == POSIX_TRACE_IOC_CREATE)
		fz_bad("CREATE with a read-only argument succeeded");
	fz_note(t, OP_IOCTL_BASE + c, fz_result_class(cmd, err));
}

/* Commands that the VFS handles before the driver: not ours to test. */
static bool fz_vfs_cmd(unsigned long cmd)
{
	unsigned int type = _IOC_TYPE(cmd);

	return type == 0x54 || type == 'X' || type == 0x94 || type == 0 || type == 'f';
}

static void op_unknown(struct fz_thr *t)
{
	unsigned long cmd;
	int i, err;

	t->op = "unknown ioctl";
	do {
		switch (rn(t, 3)) {
		case 0:	/* our magic, a number past the last command */
			cmd = _IOC(rn(t, 4), POSIX_TRACE_IOC_MAGIC, 0x12 + rn(t, 0xee),
				   rn(t, 2) ? sizeof(struct posix_trace_ctl) : rn(t, 1 << 14));
			break;
		case 1:	/* a known number with another direction or size */
			cmd = fz_cmds[rn(t, FZ_NR_CMDS)].cmd;
			if (rn(t, 2))
				cmd ^= (unsigned long)(1 + rn(t, 3)) << _IOC_DIRSHIFT;
			else
				cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
					   _IOC_SIZE(cmd) ^ (1 + rn(t, 0x3fff)));
			break;
		default:
			cmd = (uint32_t)rnd(t);
			break;
		}
		for (i = 0; i < FZ_NR_CMDS; i++)
			if (cmd == fz_cmds[i].cmd)
				cmd = 0;
	} while (!cmd || fz_vfs_cmd(cmd));
	err = fz_err(ioctl(fz_fd(t), cmd, t->arena));
	/* A closed slot gives EBADF before the driver is asked. */
	if (err != ENOTTY && err != EBADF)
		fz_bad("seed %llu: unknown ioctl 0x%lx returned %d, not ENOTTY",
		       (unsigned long long)fz_seed, cmd, err);
	fz_note(t, OP_UNKNOWN, err);
}

/* ------------------------------------------------------------------ */
/* Device files                                                        */
/* ------------------------------------------------------------------ */

static void op_open(struct fz_thr *t)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY, O_RDWR | O_NONBLOCK };
	struct fz_proc *p = t->p;
	int i = rn(t, FZ_FDS), fd, err;

	t->op = "open";
	fd = open(ST_DEVICE, modes[rn(t, 4)] | O_CLOEXEC);
	err = fz_err(fd);
	pthread_mutex_lock(&p->lock);
	if (fd >= 0) {
		/* dup2 replaces the slot atomically for the other threads */
		if (p->fds[i] >= 0) {
			dup2(fd, p->fds[i]);
			close(fd);
		} else {
			p->fds[i] = fd;
		}
	}
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_OPEN, err);
}

static void op_close(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	int i = rn(t, FZ_FDS), fd;

	t->op = "close";
	/*
	 * Another thread may be inside an ioctl or mmap on it: that is the
	 * point.  With other threads, /dev/null takes the number's place so
	 * that it cannot name a file opened meanwhile (a log).
	 */
	pthread_mutex_lock(&p->lock);
	fd = p->fds[i];
	if (fd >= 0 && p->nthreads == 1) {
		p->fds[i] = -1;
		close(fd);
	} else if (fd >= 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, fd);
			close(null);
		}
	}
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_CLOSE, 0);
}

/* ------------------------------------------------------------------ */
/* Mappings                                                            */
/* ------------------------------------------------------------------ */

/* Read every page (a fault on a successful mapping is a bug). */
uint64_t fz_touch(const unsigned char *a, size_t len)
{
	uint64_t sum = 0;
	size_t off;

	for (off = 0; off < len; off += page_size)
		sum += *(const volatile unsigned char *)(a + off);
	return sum;
}

/* Garbage into a writable mapping: lane heads, sizes, records. */
static void fz_scribble(struct fz_thr *t, struct fz_map *m)
{
	uint64_t *w = (uint64_t *)m->addr;
	size_t words = m->len / 8, i, n = 1 + rn(t, 16);

	for (i = 0; i < n; i++) {
		size_t at = rn(t, 3) ? rn(t, 16) : rn(t, words);

		w[at] = interesting64(t);
	}
	if (m->kind == K_WRITER && rn(t, 2)) {
		struct posix_trace_record *r = (void *)(m->addr + page_size);
		struct posix_trace_writer_ctl *ctl = (void *)m->addr;

		if (m->len >= 2 * (size_t)page_size) {
			r->size = (uint32_t)interesting64(t);
			r->event_id = (uint32_t)interesting64(t);
			r->data_len = (uint32_t)interesting64(t);
			r->seq = interesting64(t);
			r->timestamp = st_now_ns(CLOCK_MONOTONIC) + rn(t, 3) - 1;
		}
		ctl->head = interesting64(t);
		ctl->oldest = rn(t, 2) ? 0 : interesting64(t);
		ctl->inflight_ts = rn(t, 3) ? 0 : interesting64(t);
	}
}

void fz_map_add(struct fz_proc *p, void *a, size_t len, int prot,
		enum fz_kind kind, bool garbage_ok)
{
	if (p->nmap == FZ_MAPS) {
		munmap(p->map[0].addr, p->map[0].len);
		p->map[0] = p->map[--p->nmap];
	}
	p->map[p->nmap++] = (struct fz_map){ a, len, prot, kind, garbage_ok, false };
	atomic_fetch_add(&sh->maps, 1);
}

static void op_mmap(struct fz_thr *t)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	struct fz_proc *p = t->p;
	int kind = rn(t, 5), prot, flags, err, sub = 0;
	uint64_t off = 0, len = page_size;
	bool garbage_ok = true, ro_region;
	void *a;

	t->op = "mmap";
	pthread_mutex_lock(&p->lock);
	switch (kind) {
	case K_PROC:
		break;
	case K_RO:
	case K_CONS:
		if (p->nst) {
			struct fz_stream *s = &p->st[rn(t, p->nst)];

			off = kind == K_RO ? s->ro_off : s->cons_off;
			len = kind == K_RO ? s->ro_size : s->cons_size;
			garbage_ok = !s->lib;
		}
		break;
	case K_WRITER:
		if (p->nwr) {
			struct fz_writer *w = &p->wr[rn(t, p->nwr)];

			off = w->off;
			len = w->size;
		}
		break;
	default:
		garbage_ok = false;	/* may be any region of ours */
		off = rn(t, 2) ? interesting64(t) & ~(uint64_t)(page_size - 1) :
		      ((uint64_t)rn(t, 1 << 12) << 2 | rn(t, 4)) * page_size;
		break;
	}
	/* Mostly right, sometimes the wrong length or a shifted offset. */
	switch (rn(t, 8)) {
	case 0: sub = 1; len += page_size; break;
	case 1: sub = 2; len = len > (uint64_t)page_size ? len - page_size : 0; break;
	case 2: sub = 3; off += page_size; break;
	case 3: sub = 4; len = 1 + rn(t, 3 * page_size); break;
	default: break;
	}
	if (len > (64u << 20))
		len = page_size;
	prot = rn(t, 3) ? (kind == K_CONS || kind == K_WRITER ?
			   PROT_READ | PROT_WRITE : PROT_READ) : prots[rn(t, 6)];
	flags = rn(t, 5) ? MAP_SHARED : MAP_PRIVATE;
	if (rn(t, 8) == 0)
		flags |= MAP_POPULATE;
	a = mmap(NULL, len, prot, flags, fz_fd(t), off);
	err = a == MAP_FAILED ? errno : 0;
	ro_region = kind == K_PROC || kind == K_RO;
	if (!err) {
		if (ro_region && sub == 0 && (prot & PROT_WRITE) && (flags & MAP_SHARED))
			fz_bad("seed %llu: read-only region (kind %d) mapped writable",
			       (unsigned long long)fz_seed, kind);
		if (prot & PROT_READ)
			fz_touch(a, len);
		/* A shifted offset names another region (RO + 1 = consumer). */
		if (sub == 3)
			kind = K_OTHER;
		fz_map_add(p, a, len, prot, kind, garbage_ok && !ro_region && sub != 3);
	}
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_MMAP + 10 * kind + sub, err);
}

static void op_mapop(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	struct fz_map *m;
	int what = rn(t, 6), err = 0, i;
	void *r;

	t->op = "map op";
	pthread_mutex_lock(&p->lock);
	if (!p->nmap) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	i = rn(t, p->nmap);
	m = &p->map[i];
	switch (what) {
	case 0:		/* make it writable: never for a read-only region */
		err = fz_err(mprotect(m->addr, m->len, PROT_READ | PROT_WRITE));
		if (!err && (m->kind == K_PROC || m->kind == K_RO))
			fz_bad("seed %llu: mprotect made a read-only region (kind %d) writable",
			       (unsigned long long)fz_seed, m->kind);
		if (!err)
			m->prot = PROT_READ | PROT_WRITE;
		break;
	case 1:
		err = fz_err(mprotect(m->addr, m->len, PROT_READ));
		if (!err)
			m->prot = PROT_READ;
		break;
	case 2:		/* grow: VM_DONTEXPAND */
		r = mremap(m->addr, m->len, m->len + page_size, MREMAP_MAYMOVE);
		err = r == MAP_FAILED ? errno : 0;
		if (!err) {
			m->addr = r;
			m->len += page_size;
			if ((m->prot & PROT_READ) && !m->zapped)
				fz_touch(r, m->len - page_size);
		}
		break;
	case 3:		/* drop the first or last page */
		if (m->len > (size_t)page_size) {
			bool first = rn(t, 2);

			err = fz_err(munmap(first ? m->addr : m->addr + m->len - page_size,
					    page_size));
			if (!err) {
				if (first)
					m->addr += page_size;
				m->len -= page_size;
			}
			break;
		}
		/* fall through */
	case 4:
		munmap(m->addr, m->len);
		p->map[i] = p->map[--p->nmap];
		break;
	default:
		if (m->zapped)
			break;
		if (m->prot & PROT_READ)
			fz_touch(m->addr, m->len);
		if ((m->prot & PROT_WRITE) && m->garbage_ok)
			fz_scribble(t, m);
		break;
	}
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_MAP_BASE + what, err);
}

/* ------------------------------------------------------------------ */
/* The library                                                         */
/* ------------------------------------------------------------------ */

static void fz_random_attr(struct fz_thr *t, trace_attr_t *a)
{
	static const size_t sizes[] = { 0, 1, 1024, 4096, 16384, 65536, 262144 };

	posix_trace_attr_init(a);
	if (rn(t, 4))
		posix_trace_attr_setstreamsize(a, sizes[rn(t, 7)]);
	if (rn(t, 2))
		posix_trace_attr_setstreamfullpolicy(a, rn(t, 5));
	if (rn(t, 2))
		posix_trace_attr_setinherited(a, rn(t, 3));
	if (rn(t, 3) == 0)
		posix_trace_attr_setmaxdatasize(a, interesting64(t) & 0x3ffff);
	if (rn(t, 3) == 0)
		posix_trace_attr_setlogfullpolicy(a, rn(t, 6));
	if (rn(t, 3) == 0)
		posix_trace_attr_setlogsize(a, rn(t, 2) ? rn(t, 1 << 20) : interesting64(t));
	if (rn(t, 4) == 0)
		posix_trace_attr_setname(a, rn(t, 2) ? "fuzz" : "");
}

/* A pid to trace: mostly ours or a parked child's. */
static pid_t fz_pick_pid(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	pid_t pid = 0;

	switch (rn(t, 8)) {
	case 0:
		return getpid();
	case 1:
		return fz_foreign_pid(1);
	case 2:
		return rn(t, 2) ? -1 : 0x7fffffff;
	case 3:
	case 4:
		pthread_mutex_lock(&p->lock);
		if (p->nkids)
			pid = p->kids[rn(t, p->nkids)];
		pthread_mutex_unlock(&p->lock);
		return pid;
	default:
		return 0;
	}
}

/* Fork a process that reads @rfd until EOF: the reader of a log pipe. */
static void fz_drainer(struct fz_proc *p, int rfd, int wfd)
{
	char buf[4096];
	pid_t pid;

	if (p->ndrainers == FZ_DRAINERS)
		return;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(wfd);
		while (read(rfd, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	if (pid > 0)
		p->drainers[p->ndrainers++] = pid;
}

/* A descriptor for a log: a file in /tmp, a pipe with or without a
 * reader, /dev/null, or junk.  *keep: the file, kept for reading back. */
static int fz_log_fd(struct fz_thr *t, int *keep)
{
	struct fz_proc *p = t->p;
	char path[64];
	int fd = -1, pfd[2];

	*keep = -1;
	switch (rn(t, 6)) {
	case 0:
	case 1:
	case 2:
		snprintf(path, sizeof(path), "/tmp/fuzz-%d-%ld", (int)getpid(), t->step);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		unlink(path);
		*keep = fd >= 0 ? dup(fd) : -1;
		return fd;
	case 3:
		if (pipe2(pfd, O_CLOEXEC))
			return -1;
		pthread_mutex_lock(&p->lock);
		if (rn(t, 3))
			fz_drainer(p, pfd[0], pfd[1]);
		pthread_mutex_unlock(&p->lock);
		close(pfd[0]);
		return pfd[1];
	case 4:
		return open("/dev/null", O_WRONLY | O_CLOEXEC);
	default:
		return rn(t, 2) ? -1 : open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	}
}

static void fz_lib_created(struct fz_thr *t, trace_id_t trid, bool log, int keep)
{
	struct fz_proc *p = t->p;
	struct fz_stream s = { .trid = (uint32_t)trid, .lib = true, .log = log,
			       .logfd = keep };

	pthread_mutex_lock(&p->lock);
	if (!fz_stream_add(p, &s)) {
		posix_trace_shutdown(trid);
		if (keep >= 0)
			close(keep);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Read a shut-down stream's log back with posix_trace_open(). */
static int fz_log_read_back(struct fz_thr *t, int fd)
{
	struct st_ev ev;
	trace_id_t trid;
	int ret, i;

	t->op = "log read back";
	ret = posix_trace_open(fd, &trid);
	if (ret)
		return ret;
	for (i = 0; i < 50; i++) {
		ret = st_try(trid, &ev);
		if (ret || ev.unavailable)
			break;
	}
	if (rn(t, 2))
		posix_trace_rewind(trid);
	posix_trace_close(trid);
	return ret;
}

static int fz_shutdown_lib(struct fz_thr *t, trace_id_t trid)
{
	struct fz_proc *p = t->p;
	int ret, i, keep = -1;

	ret = posix_trace_shutdown(trid);
	if (fz_log_write_error(ret))
		ret = 0;	/* shut down all the same */
	if (ret)
		return ret;
	pthread_mutex_lock(&p->lock);
	i = fz_stream_find(p, (uint32_t)trid);
	if (i >= 0) {
		keep = p->st[i].logfd;
		p->st[i].logfd = -1;
	}
	fz_stream_forget(p, (uint32_t)trid);
	pthread_mutex_unlock(&p->lock);
	if (keep >= 0) {
		fz_note(t, OP_LOGREAD, fz_log_read_back(t, keep) ? 1 : 0);
		close(keep);
	}
	return 0;
}

static void op_lib(struct fz_thr *t)
{
	struct posix_trace_status_info st;
	trace_id_t trid = (trace_id_t)fz_pick_trid(t), nt;
	struct fz_proc *p = t->p;
	trace_event_set_t set;
	trace_event_id_t id;
	trace_attr_t a;
	struct st_ev ev;
	char name[TRACE_EVENT_NAME_MAX + 8];
	int what = rn(t, 20), ret = 0, fd, keep, unav;

	fz_in_lib = 1;
	switch (what) {
	case 0:
	case 1:
		t->op = "posix_trace_create";
		fz_random_attr(t, &a);
		ret = posix_trace_create(fz_pick_pid(t), &a, &nt);
		posix_trace_attr_destroy(&a);
		if (!ret)
			fz_lib_created(t, nt, false, -1);
		break;
	case 2:
		t->op = "posix_trace_create_withlog";
		fz_random_attr(t, &a);
		fd = fz_log_fd(t, &keep);
		ret = posix_trace_create_withlog(fz_pick_pid(t), &a, fd, &nt);
		posix_trace_attr_destroy(&a);
		if (fd >= 0)
			close(fd);
		if (!ret)
			fz_lib_created(t, nt, true, keep);
		else if (keep >= 0)
			close(keep);
		break;
	case 3:
		t->op = "posix_trace_start";
		ret = posix_trace_start(trid);
		break;
	case 4:
		t->op = "posix_trace_stop";
		ret = posix_trace_stop(trid);
		break;
	case 5:
		t->op = "posix_trace_clear";
		ret = posix_trace_clear(trid);
		break;
	case 6:
		t->op = "posix_trace_shutdown";
		ret = fz_shutdown_lib(t, trid);
		break;
	case 7:
		t->op = "posix_trace_flush";
		ret = posix_trace_flush(trid);
		if (fz_log_write_error(ret))
			ret = 0;
		break;
	case 8:
		t->op = "posix_trace_get_status";
		ret = posix_trace_get_status(trid, &st);
		break;
	case 9:
		t->op = "posix_trace_get_attr";
		posix_trace_attr_init(&a);
		ret = posix_trace_get_attr(trid, &a);
		posix_trace_attr_destroy(&a);
		break;
	case 10:
	case 11:
		t->op = "posix_trace_trygetnext_event";
		for (unav = 1 + rn(t, 20); unav > 0 && !ret; unav--) {
			ret = st_try(trid, &ev);
			if (ev.unavailable)
				break;
		}
		break;
	case 12:
		t->op = "posix_trace_timedgetnext_event";
		ret = st_timed_ms(trid, &ev, rn(t, 20));
		if (ret == ETIMEDOUT)
			ret = 0;
		break;
	case 13:
		t->op = "posix_trace_eventid_open";
		snprintf(name, sizeof(name), "fz%u", rn(t, FZ_NAMES));
		if (rn(t, 8) == 0)
			memset(name, 'n', sizeof(name) - 1), name[sizeof(name) - 1] = 0;
		ret = posix_trace_eventid_open(name, &id);
		if (!ret) {
			pthread_mutex_lock(&p->lock);
			p->ids[p->nids++ % FZ_NAMES] = id;
			pthread_mutex_unlock(&p->lock);
		}
		break;
	case 14:
	case 15:
	case 16: {
		unsigned char data[512];
		int n = 1 + rn(t, 64);

		t->op = "posix_trace_event";
		memset(data, 'u', sizeof(data));
		pthread_mutex_lock(&p->lock);
		id = p->nids && rn(t, 2) ? p->ids[rn(t, p->nids < FZ_NAMES ? p->nids : FZ_NAMES)] :
		     rn(t, 8) ? POSIX_TRACE_UNNAMED_USEREVENT : (trace_event_id_t)rnd(t);
		pthread_mutex_unlock(&p->lock);
		while (n--)
			posix_trace_event(id, data, rn(t, 4) ? rn(t, 64) : rn(t, sizeof(data) + 1));
		break;
	}
	case 17:
		t->op = "posix_trace_set_filter";
		posix_trace_eventset_empty(&set);
		if (rn(t, 2))
			posix_trace_eventset_fill(&set, 1 + rn(t, 3));
		posix_trace_eventset_add(POSIX_TRACE_UNNAMED_USEREVENT, &set);
		ret = posix_trace_set_filter(trid, &set, rn(t, 5));
		break;
	case 18:
		t->op = "posix_trace_get_filter";
		ret = posix_trace_get_filter(trid, &set);
		break;
	default:
		t->op = "posix_trace eventtypes";
		switch (rn(t, 4)) {
		case 0:
			ret = posix_trace_trid_eventid_open(trid, "fzt", &id);
			break;
		case 1:
			ret = posix_trace_eventid_get_name(trid, POSIX_TRACE_ID_UNNAMED + rn(t, 4),
							   name);
			break;
		case 2:
			ret = posix_trace_eventtypelist_rewind(trid);
			break;
		default:
			for (unav = 0; !unav && !ret; )
				ret = posix_trace_eventtypelist_getnext_id(trid, &id, &unav);
			break;
		}
		break;
	}
	fz_in_lib = 0;
	fz_note(t, OP_LIB_BASE + what, ret);
}

/* ------------------------------------------------------------------ */
/* Processes and threads                                               */
/* ------------------------------------------------------------------ */

static void fz_step(struct fz_thr *t);

/* A forked child runs a few steps of its own, then parks until killed. */
static void __attribute__((noreturn)) fz_child(struct fz_thr *parent, int park)
{
	/*
	 * @parent may live on the stack of a thread that does not exist in
	 * the child (op_thread's copy): glibc reuses such stacks for the
	 * child's new threads.  Take a copy of our own.
	 */
	static struct fz_thr self;
	struct fz_thr *t = &self;
	struct fz_proc *p = parent->p;
	int i, n;
	char c = 'p';

	memcpy(&self, parent, sizeof(self));
	fz_self = t;

	/* Nobody would kill it once its parent is gone. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pthread_mutex_init(&p->lock, NULL);
	/*
	 * The library's locks may have been held by another thread at
	 * fork(): a child of a multi-threaded process uses the device only.
	 */
	p->lib_ok = p->nthreads == 1;
	p->depth = 1;
	p->nthreads = 1;
	/* Its stream regions are not inherited (VM_DONTCOPY): forget all. */
	p->nmap = 0;
	p->nkids = 0;
	p->ndrainers = 0;
	p->ntrees = 0;		/* the parent's to wait for */
	for (i = 0; i < p->nst; i++)
		fz_stale_add(p, p->st[i].trid);	/* now another process's */
	p->nst = 0;
	p->nwr = 0;
	t->rng = fz_mix(t->rng ^ 0xc41d);
	for (n = 5 + rn(t, 40); n > 0; n--)
		fz_step(t);
	if (write(park, &c, 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

static void op_fork(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	int park[2], err = 0;
	pid_t pid;
	char c;

	t->op = "fork";
	if (p->depth > 0 || pipe2(park, O_CLOEXEC))
		return;
	/* Under the lock: the child gets consistent tables. */
	pthread_mutex_lock(&p->lock);
	if (p->nkids == FZ_KIDS) {
		pthread_mutex_unlock(&p->lock);
		close(park[0]);
		close(park[1]);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(park[0]);
		fz_child(t, park[1]);
	}
	close(park[1]);
	if (pid < 0) {
		err = errno;
		close(park[0]);
	} else {
		p->kids[p->nkids] = pid;
		p->kid_park[p->nkids++] = park[0];
		atomic_fetch_add(&sh->forks, 1);
	}
	pthread_mutex_unlock(&p->lock);
	/* Deterministic mode: nothing of the child runs beside us. */
	if (pid > 0 && p->det && !st_wait_fd(park[0], FZ_STEP_BOUND_MS))
		fz_bad("seed %llu: forked child did not park", (unsigned long long)fz_seed);
	if (pid > 0 && p->det && read(park[0], &c, 1) != 1)
		fz_bad("seed %llu: forked child died before parking", (unsigned long long)fz_seed);
	fz_note(t, OP_FORK, err);
}

void fz_check_status(const char *who, pid_t pid, int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		fz_bad("seed %llu: %s %d killed by signal %d", (unsigned long long)fz_seed,
		       who, (int)pid, WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		fz_bad("seed %llu: %s %d exited with %d", (unsigned long long)fz_seed,
		       who, (int)pid, WEXITSTATUS(status));
}

/* SIGKILL child @i (it may hold streams, lanes, mappings) and reap it. */
static void fz_kill_kid(struct fz_proc *p, int i)
{
	int status;

	if (p->kids[i] <= 0) {
		fz_bad("seed %llu: child slot %d holds pid %d", (unsigned long long)fz_seed,
		       i, (int)p->kids[i]);
		return;
	}
	kill(p->kids[i], SIGKILL);
	if (waitpid(p->kids[i], &status, 0) == p->kids[i])
		fz_check_status("child", p->kids[i], status);
	close(p->kid_park[i]);
	p->kids[i] = p->kids[--p->nkids];
	p->kid_park[i] = p->kid_park[p->nkids];
	atomic_fetch_add(&sh->kills, 1);
}

static void op_kill(struct fz_thr *t)
{
	struct fz_proc *p = t->p;

	t->op = "kill";
	pthread_mutex_lock(&p->lock);
	if (p->nkids)
		fz_kill_kid(p, rn(t, p->nkids));
	pthread_mutex_unlock(&p->lock);
	fz_note(t, OP_KILL, 0);
}

/* exec /bin/true from a child that may own streams, from a thread or not. */
static void *fz_exec_thread(void *arg)
{
	(void)arg;
	execl("/bin/true", "true", (char *)NULL);
	_exit(5);
}

static void op_exec(struct fz_thr *t)
{
	struct fz_proc *p = t->p;
	int status, err = 0, how = rn(t, 3);
	pthread_t th;
	pid_t pid;

	t->op = "exec";
	if (p->depth > 0)
		return;
	pthread_mutex_lock(&p->lock);
	pid = fork();
	if (pid == 0) {
		struct posix_trace_create c = { .size = sizeof(c), .stream_policy = 1 };
		struct posix_trace_ctl ctl = { .size = sizeof(ctl) };
		int fd = open(ST_DEVICE, O_RDWR);

		if (how > 0 && ioctl(fd, POSIX_TRACE_IOC_CREATE, &c) == 0) {
			ctl.trid = c.trid;
			ioctl(fd, POSIX_TRACE_IOC_START, &ctl);
		}
		if (how == 2 && pthread_create(&th, NULL, fz_exec_thread, NULL) == 0)
			pause();
		fz_exec_thread(NULL);
	}
	pthread_mutex_unlock(&p->lock);
	if (pid < 0) {
		err = errno;
	} else {
		if (waitpid(pid, &status, 0) == pid)
			fz_check_status("exec child", pid, status);
		atomic_fetch_add(&sh->execs, 1);
	}
	fz_note(t, OP_EXEC, err);
}

static void *fz_short_thread(void *arg)
{
	struct fz_thr *t = arg;
	int n;

	fz_self = t;
	for (n = 1 + rn(t, 8); n > 0; n--)
		fz_step(t);
	return NULL;
}

/* A thread that runs a few steps and ends (its writer lanes with it). */
static void op_thread(struct fz_thr *t)
{
	struct fz_thr sub = *t;
	pthread_t th;
	int err;

	t->op = "thread";
	sub.rng = fz_mix(t->rng ^ 0x7ead);
	rnd(t);
	sub.busy_since = 0;
	err = pthread_create(&th, NULL, fz_short_thread, &sub);
	if (!err)
		pthread_join(th, NULL);
	/* Its results are ours: fold them in the order they happened. */
	t->digest ^= sub.digest;
	fz_note(t, OP_THREAD, err);
}

/* ------------------------------------------------------------------ */
/* Steps                                                               */
/* ------------------------------------------------------------------ */

static void op_lib_or_ioctl(struct fz_thr *t)
{
	if (t->p->lib_ok)
		op_lib(t);
	else
		op_ioctl(t);
}

/*
 * The step kinds, with their weights in 10000.  The attacks of
 * fuzz_attacks.c each take up to seconds where the others take
 * milliseconds: rare steps, yet a good part of the run's time.
 */
static const struct fz_kind_def {
	void (*fn)(struct fz_thr *t);
	uint32_t weight;
} fz_kinds[] = {
	{ op_open, 300 }, { op_close, 200 }, { op_ioctl, 3286 },
	{ op_unknown, 400 }, { op_mmap, 1000 }, { op_mapop, 800 },
	{ op_lib_or_ioctl, 2980 }, { op_fork, 400 }, { op_kill, 200 },
	{ op_exec, 200 }, { op_thread, 200 },
	/* fuzz_attacks.c */
	{ op_tree, 3 }, { op_lanes_flush, 4 }, { op_setid, 6 },
	{ op_mapfork, 12 }, { op_blocklog, 3 }, { op_procfork, 2 },
	{ op_lanes_read, 4 }, { op_refused, 2 }, { op_signals, 6 },
	{ op_faults, 6 },
};
#define FZ_NR_KINDS	(int)(sizeof(fz_kinds) / sizeof(fz_kinds[0]))
#define FZ_OPS_ALL	((1L << FZ_NR_KINDS) - 1)

/*
 * Bit n of FUZZ_OPS enables step kind n of fz_kinds[] (default all):
 * open, close, ioctl, unknown ioctl, mmap, mapping op, library, fork,
 * kill, exec, thread; then process trees, lying lanes against the
 * kernel's flusher, create racing a set-ID exec, madvise/mremap/fork of
 * the mappings, logs that block, a status page kept on fork, lying lanes
 * against the library's reader, creates refused on a group whose threads
 * exit, signals by every path into a stream of class SIGNAL, faults of
 * every kind into a stream of class FAULT (CPU 1 off and on, as root).
 * For narrowing a failure down; a seed replays only with the same mask.
 */
static unsigned long fz_ops_mask = FZ_OPS_ALL;
#define FZ_FIRST_ATTACK		11
/*
 * FUZZ_ATTACKS=N multiplies the attack kinds' weights (default 1, 0: none):
 * on a slow kernel (KASAN under TCG) each step takes longer, and at the
 * default weights a run of minutes has but a few attacks.
 */
static uint32_t fz_attack_mult = 1;

static uint32_t fz_weight(int k)
{
	return fz_kinds[k].weight * (k >= FZ_FIRST_ATTACK ? fz_attack_mult : 1);
}

static void fz_step(struct fz_thr *t)
{
	uint32_t total = 0, r;
	int k;

	for (k = 0; k < FZ_NR_KINDS; k++)
		total += fz_weight(k);
	do {
		r = rn(t, total);
		for (k = 0; r >= fz_weight(k); k++)
			r -= fz_weight(k);
	} while (!(fz_ops_mask & (1UL << k)));
	t->step++;
	atomic_store(&t->busy_since, st_now_ns(CLOCK_MONOTONIC));
	fz_kinds[k].fn(t);
	atomic_store(&t->busy_since, 0);
	atomic_fetch_add(&sh->steps, 1);
}

/* ------------------------------------------------------------------ */
/* Worker processes                                                    */
/* ------------------------------------------------------------------ */

struct fz_run {
	struct fz_proc *p;
	struct fz_thr *thr;
	int nthr;
	uint64_t end_ns;	/* time bound, or 0 */
	long steps;		/* step bound, or 0 */
	atomic_int done;
};

static struct fz_run *fz_cur_run;

static void *fz_thread_main(void *arg)
{
	struct fz_thr *t = arg;
	struct fz_run *run = fz_cur_run;

	fz_self = t;
	atomic_store(&t->tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&sh->stop)) {
		if (run->end_ns && st_now_ns(CLOCK_MONOTONIC) >= run->end_ns)
			break;
		if (run->steps && t->step >= run->steps)
			break;
		fz_step(t);
	}
	return NULL;
}

/* A kernel stack file (root only) into @buf, one line, frames split by
 * '|': its length, or -1 if it could not be read.
 */
ssize_t fz_read_stack(const char *path, char *buf, size_t size)
{
	ssize_t i, n = st_read_small_file(path, buf, size);

	for (i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = '|';
	return n;
}

/* The kernel stack of our thread @tid, '|' between frames (root only). */
static const char *fz_thread_stack(int tid)
{
	static char buf[600];
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	return fz_read_stack(path, buf, sizeof(buf)) < 0 ? "no stack" : buf;
}

/* Every step returns within FZ_WATCHDOG_MS, or the run fails. */
static void *fz_watchdog_main(void *arg)
{
	struct fz_run *run = arg;
	uint64_t since, now;
	int i;

	while (!atomic_load(&run->done)) {
		st_sleep_ms(100);
		for (i = 0; i < run->nthr; i++) {
			since = atomic_load(&run->thr[i].busy_since);
			now = st_now_ns(CLOCK_MONOTONIC);
			if (since && now > since &&
			    now - since > FZ_WATCHDOG_MS * 1000000ULL) {
				fz_bad("seed %llu: process %d thread %d step %ld (%s, last note %d) hangs for %llu ms; %s",
				       (unsigned long long)fz_seed, run->p->idx, i,
				       run->thr[i].step, run->thr[i].op,
				       atomic_load(&run->thr[i].variant),
				       (unsigned long long)((now - since) / 1000000),
				       fz_thread_stack(atomic_load(&run->thr[i].tid)));
				atomic_store(&sh->stop, 1);
				return NULL;
			}
		}
	}
	return NULL;
}

/* Shut down, unmap, close and reap everything of this process. */
static void fz_proc_cleanup(struct fz_proc *p)
{
	struct posix_trace_ctl ctl = { .size = sizeof(ctl) };
	int fd = open(ST_DEVICE, O_RDWR | O_CLOEXEC), i, status;

	fa_proc_cleanup(p);
	while (p->nkids)
		fz_kill_kid(p, 0);
	while (p->nst) {
		ctl.trid = p->st[0].trid;
		if (p->st[0].lib)
			posix_trace_shutdown(p->st[0].trid);
		else
			ioctl(fd, POSIX_TRACE_IOC_SHUTDOWN, &ctl);
		fz_stream_forget(p, p->st[0].trid);
	}
	while (p->nmap) {
		p->nmap--;
		munmap(p->map[p->nmap].addr, p->map[p->nmap].len);
	}
	for (i = 0; i < FZ_FDS; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < p->ndrainers; i++)
		if (waitpid(p->drainers[i], &status, 0) == p->drainers[i])
			fz_check_status("drainer", p->drainers[i], status);
}

/*
 * One worker process: @nthr threads from seed fz_seed, process @idx; bound
 * by @end_ns or @steps (per thread).  @det: the only process, one thread,
 * deterministic.  Returns the digest of thread 0.
 */
static uint64_t fz_proc_run(int idx, int nthr, bool det, uint64_t end_ns, long steps)
{
	struct fz_proc *p = calloc(1, sizeof(*p));
	struct fz_run run = { 0 };
	pthread_t th[FZ_MAX_THREADS], dog;
	uint64_t digest;
	int i;

	fz_catch_crashes();
	pthread_mutex_init(&p->lock, NULL);
	p->idx = idx;
	p->nthreads = nthr;
	p->det = det;
	p->lib_ok = true;
	for (i = 0; i < FZ_FDS; i++)
		p->fds[i] = open(ST_DEVICE, O_RDWR | O_CLOEXEC);
	run.p = p;
	run.thr = calloc(nthr, sizeof(*run.thr));
	run.nthr = nthr;
	run.end_ns = end_ns;
	fz_end_ns = end_ns;
	run.steps = steps;
	for (i = 0; i < nthr; i++) {
		struct fz_thr *t = &run.thr[i];

		t->p = p;
		t->tidx = i;
		t->rng = fz_mix(fz_seed ^ fz_mix(idx * 131 + i));
		t->digest = 0xcbf29ce484222325ULL;
		t->op = "none";
		t->arena = mmap(NULL, FZ_ARENA_PAGES * page_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->arena == MAP_FAILED)
			_exit(6);
		mprotect(t->arena + 2 * page_size, page_size, PROT_NONE);
		t->scratch = t->arena + page_size;
	}
	fz_cur_run = &run;
	pthread_create(&dog, NULL, fz_watchdog_main, &run);
	for (i = 1; i < nthr; i++)
		pthread_create(&th[i], NULL, fz_thread_main, &run.thr[i]);
	fz_thread_main(&run.thr[0]);
	for (i = 1; i < nthr; i++)
		pthread_join(th[i], NULL);
	fz_proc_cleanup(p);
	atomic_store(&run.done, 1);
	pthread_join(dog, NULL);
	digest = run.thr[0].digest;
	if (idx == 0)
		sh->det_steps = run.thr[0].step;
	return digest;
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

static long env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	long v = s && *s ? strtol(s, NULL, 0) : def;

	return v < min ? min : v > max ? max : v;
}

/* Reap our children until none is left or @end_ns passes (0: forever). */
static int fz_reap(uint64_t end_ns)
{
	int status, left = 0;
	pid_t pid;

	for (;;) {
		pid = waitpid(-1, &status, end_ns ? WNOHANG : 0);
		if (pid < 0)
			return 0;
		if (pid > 0) {
			fz_check_status("process", pid, status);
			continue;
		}
		if (st_now_ns(CLOCK_MONOTONIC) >= end_ns)
			return ++left;
		st_sleep_ms(50);
	}
}

static void fz_setup_shared(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	/* A file, so that a process that execs can map it again. */
	fz_shared_fd = memfd_create("fuzz-shared", MFD_CLOEXEC);
	if (fz_shared_fd < 0 || ftruncate(fz_shared_fd, sizeof(*sh)))
		abort();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fz_shared_fd, 0);
	if (sh == MAP_FAILED)
		abort();
	fz_seed = (uint64_t)env_long("FUZZ_SEED", 0, 0, LONG_MAX);
	fz_ops_mask = (unsigned long)env_long("FUZZ_OPS", FZ_OPS_ALL, 1, FZ_OPS_ALL);
	fz_attack_mult = (uint32_t)env_long("FUZZ_ATTACKS", 1, 0, 1000);
	/* Some kind must be left to draw. */
	if (!fz_attack_mult && !(fz_ops_mask & ((1UL << FZ_FIRST_ATTACK) - 1)))
		fz_attack_mult = 1;
	fz_trace_env = (int)env_long("FUZZ_TRACE", 0, 0, 2);
	fz_trace = fz_trace_env == 1;
	if (!getenv("FUZZ_SEED") || !*getenv("FUZZ_SEED"))
		fz_seed = st_now_ns(CLOCK_REALTIME) % 1000000000000ULL;
	/* Log pipes whose reader went away. */
	signal(SIGPIPE, SIG_IGN);
	fa_init();
}

FIXTURE(fuzz) {
	struct posix_trace_stats base;
};

FIXTURE_SETUP(fuzz)
{
	ST_REQUIRE_MODULE();
	fz_setup_shared();
	ASSERT_EQ(0, st_stats(&self->base));
	/* Orphans of killed children come back to us. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
}

FIXTURE_TEARDOWN(fuzz)
{
	if (sh)
		munmap(sh, sizeof(*sh));
	if (fz_shared_fd >= 0)
		close(fz_shared_fd);
	fz_shared_fd = -1;
}

/*
 * REQ: issue 6 (fuzzing: no crash, no hang, ENOTTY for unknown commands,
 * nothing left in the module afterwards)
 */
TEST_F_TIMEOUT(fuzz, random_sequences_crash_hang_and_leak_nothing, 7200)
{
	long secs = env_long("FUZZ_SECONDS", FZ_DEFAULT_SECONDS, 1, 7000);
	int procs = env_long("FUZZ_PROCS", FZ_DEFAULT_PROCS, 1, FZ_MAX_PROCS);
	int thr = env_long("FUZZ_THREADS", FZ_DEFAULT_THREADS, 1, FZ_MAX_THREADS);
	uint64_t end = st_now_ns(CLOCK_MONOTONIC) + secs * ST_NSEC_PER_SEC;
	pid_t workers[FZ_MAX_PROCS];
	struct posix_trace_stats st;
	unsigned int waited;
	int i, left;
	pid_t pid;

	printf("seed %llu\n", (unsigned long long)fz_seed);
	TH_LOG("seed %llu: %d processes x %d threads for %ld s as uid %d",
	       (unsigned long long)fz_seed, procs, thr, secs, (int)geteuid());
	fflush(NULL);
	for (i = 0; i < procs; i++) {
		workers[i] = pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			uint64_t d;

			/* Its own group: killed with everything it forked. */
			setpgid(0, 0);
			d = fz_proc_run(i, thr, procs == 1 && thr == 1, end, 0);

			if (procs == 1 && thr == 1)
				printf("# seed %llu: %ld steps, digest %016llx\n",
				       (unsigned long long)fz_seed, sh->det_steps,
				       (unsigned long long)d);
			fflush(NULL);
			_exit(0);
		}
	}
	/* Every step is bounded by the watchdogs; this bounds the rest. */
	left = fz_reap(end + (FZ_STEP_BOUND_MS + 30000) * 1000000ULL);
	if (left) {
		fz_bad("seed %llu: processes still running %d s after the end",
		       (unsigned long long)fz_seed, FZ_STEP_BOUND_MS / 1000 + 30);
		atomic_store(&sh->stop, 1);
	}
	/* Whatever is left (nothing, normally): children of a killed worker. */
	for (i = 0; i < procs; i++)
		kill(-workers[i], SIGKILL);
	fz_reap(0);
	TH_LOG("seed %llu: %ld steps, %ld streams, %ld mappings, %ld forks, %ld kills, %ld execs",
	       (unsigned long long)fz_seed, atomic_load(&sh->steps), atomic_load(&sh->streams),
	       atomic_load(&sh->maps), atomic_load(&sh->forks), atomic_load(&sh->kills),
	       atomic_load(&sh->execs));
	TH_LOG("seed %llu: %ld trees of %ld processes, the deepest chain %ld; %ld lane runs, %ld lies, %ld flushes and reads; %ld set-ID races, %ld creates; %ld map ops, %ld fork checks, %ld status page checks; %ld ops on blocked logs, the slowest %ld ms; %ld refused creates; %ld signalled children; %ld faulting children, %ld CPU hotplugs",
	       (unsigned long long)fz_seed, atomic_load(&sh->fa.trees),
	       atomic_load(&sh->fa.tree_procs), atomic_load(&sh->fa.deepest),
	       atomic_load(&sh->fa.lanes),
	       atomic_load(&sh->fa.lies), atomic_load(&sh->fa.lane_calls),
	       atomic_load(&sh->fa.races), atomic_load(&sh->fa.race_creates),
	       atomic_load(&sh->fa.map_ops), atomic_load(&sh->fa.fork_checks),
	       atomic_load(&sh->fa.page_checks), atomic_load(&sh->fa.blocked),
	       atomic_load(&sh->fa.block_ms), atomic_load(&sh->fa.refused),
	       atomic_load(&sh->fa.signal_runs), atomic_load(&sh->fa.fault_runs),
	       atomic_load(&sh->fa.hotplugs));
	EXPECT_EQ(0, atomic_load(&sh->bad)) {
		TH_LOG("seed %llu: %s", (unsigned long long)fz_seed, sh->why);
	}
	EXPECT_TRUE(st_stats_settle(&self->base, &st, FZ_SETTLE_MS, &waited)) {
		TH_LOG("seed %llu: after %u ms: streams %u (active %u), procs %u, attaches %u, writers %u, mappings %u, maps %u, users %u",
		       (unsigned long long)fz_seed, waited, st.streams, st.active_streams,
		       st.procs, st.attaches, st.writers, st.mappings, st.maps, st.users);
	}
	EXPECT_EQ(0U, st.active_streams);
}

/* One deterministic run of FUZZ_DET_STEPS steps; its digest. */
static uint64_t fz_det_run(struct __test_metadata *_metadata, long steps)
{
	pid_t pid, reaped;
	int status;

	sh->digest = 0;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		fz_trace = fz_trace_env != 0;
		sh->digest = fz_proc_run(0, 1, true, 0, steps);
		_exit(0);
	}
	/* Orphans (of process trees) come to us meanwhile: reap them too. */
	while ((reaped = waitpid(-1, &status, 0)) != pid) {
		if (reaped < 0 && errno != EINTR)
			break;
		if (reaped > 0)
			fz_check_status("process", reaped, status);
	}
	EXPECT_EQ(pid, reaped);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kill(-pid, SIGKILL);
	fz_reap(0);
	return sh->digest;
}

/* Where the two runs of the determinism test parted. */
static void fz_det_report(struct __test_metadata *_metadata)
{
	unsigned int i, n = sh->det_nnotes[0];
	const struct fz_det_note *a = sh->det_notes[0], *b = sh->det_notes[1];

	if (n > sh->det_nnotes[1])
		n = sh->det_nnotes[1];
	for (i = 0; i < n; i++)
		if (a[i].step != b[i].step || a[i].kind != b[i].kind ||
		    a[i].result != b[i].result)
			break;
	if (i == n) {
		TH_LOG("the runs agree on their first %u results (%u and %u noted)",
		       n, sh->det_nnotes[0], sh->det_nnotes[1]);
		return;
	}
	TH_LOG("result %u: step %ld %s kind %d gave %d, then step %ld %s kind %d gave %d",
	       i, a[i].step, a[i].op ? a[i].op : "-", a[i].kind, a[i].result,
	       b[i].step, b[i].op ? b[i].op : "-", b[i].kind, b[i].result);
}

/* REQ: issue 6 (identical seeds give identical behaviour) */
TEST_F_TIMEOUT(fuzz, one_seed_twice_gives_the_same_results, 600)
{
	long steps = env_long("FUZZ_DET_STEPS", FZ_DEFAULT_DET_STEPS, 10, 1000000);
	struct posix_trace_stats st;
	uint64_t d1, d2;
	unsigned int waited;

	printf("seed %llu\n", (unsigned long long)fz_seed);
	fflush(NULL);
	sh->det_nnotes[0] = sh->det_nnotes[1] = 0;
	sh->det_run = 1;
	d1 = fz_det_run(_metadata, steps);
	/* The same starting point: the module's counts (and limits). */
	EXPECT_TRUE(st_stats_settle(&self->base, &st, FZ_SETTLE_MS, &waited));
	sh->det_run = 2;
	d2 = fz_det_run(_metadata, steps);
	sh->det_run = 0;
	EXPECT_TRUE(st_stats_settle(&self->base, &st, FZ_SETTLE_MS, &waited));
	TH_LOG("seed %llu: %ld steps, digests %016llx %016llx",
	       (unsigned long long)fz_seed, steps, (unsigned long long)d1,
	       (unsigned long long)d2);
	EXPECT_EQ(0, atomic_load(&sh->bad)) {
		TH_LOG("seed %llu: %s", (unsigned long long)fz_seed, sh->why);
	}
	EXPECT_EQ(d1, d2) {
		fz_det_report(_metadata);
	}
}

TEST_HARNESS_MAIN
