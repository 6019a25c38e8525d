/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what fuzz_test.c (the step kinds of issue 6, the runs, the
 * tests) and fuzz_attacks.c (the attack classes of issue 19) share: the
 * limits, the state of a run, of a process and of a thread, and the
 * helpers both use.  Include it after pt_selftest.h (fuzz_test.c) or
 * the st_*.h headers (fuzz_attacks.c, which must not have the harness).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>
#include <trace.h>

#define FZ_DEFAULT_SECONDS	20
#define FZ_DEFAULT_PROCS	3
#define FZ_DEFAULT_THREADS	2
#define FZ_DEFAULT_DET_STEPS	1500
#define FZ_DET_NOTES		16384	/* results kept per determinism run */
#define FZ_MAX_PROCS		16
#define FZ_MAX_THREADS		8
#define FZ_STEP_BOUND_MS	15000	/* > the 5 s stall of a log write */
/* The watchdog's: a step that has not returned after this hangs.  Each
 * operation of a step that may wait has its own, tighter bound (a blocked
 * log's flush 5 s, a controller's exit 10 s, FA_BLOCK_BOUND_MS); a step
 * may do several of them, one after the other, on a machine TCG slows.
 */
#define FZ_WATCHDOG_MS		30000
#define FZ_SETTLE_MS		10000
#define FZ_FDS			4
#define FZ_STREAMS		8
#define FZ_STALE		16
#define FZ_WRITERS		16
#define FZ_MAPS			16
#define FZ_KIDS			4
#define FZ_DRAINERS		8
#define FZ_OTHERS		64
#define FZ_ARENA_PAGES		4	/* RW, RW, PROT_NONE, spare */
#define FZ_NAMES		12
#define FZ_TREES		2	/* running at once, per process */

/* Shared by every process of a run (MAP_SHARED). */
struct fz_shared {
	atomic_int stop;
	atomic_int bad;
	char why[512];
	atomic_uint others[FZ_OTHERS];	/* trids of every process */
	atomic_long steps, forks, kills, execs, streams, maps;
	/* What the attack steps got to do (fuzz_attacks.c), for the log. */
	struct {
		atomic_long trees, tree_procs;	/* trees, processes in them */
		atomic_long deepest;		/* generations of a chain */
		atomic_long lanes, lies, lane_calls;	/* lane runs, lies, flushes+reads */
		atomic_long races, race_creates;	/* set-ID races, creates that worked */
		atomic_long map_ops, fork_checks, page_checks;
		atomic_long blocked, block_ms;	/* ops on blocked logs, slowest */
		atomic_long refused;		/* creates on a churning group */
		atomic_long signal_runs;	/* children signalled under SIGNAL */
		atomic_long fault_runs, hotplugs; /* children under FAULT, CPU off/on */
	} fa;
	uint64_t digest;		/* of process 0 thread 0 */
	long det_steps;
	/* The determinism test's runs note here what they digest, so that a
	 * mismatch says where the runs parted. */
	int det_run;			/* 0 (not recording), 1 or 2 */
	unsigned int det_nnotes[2];
	struct fz_det_note {
		long step;
		const char *op;		/* same binary, same address */
		int kind, result;
	} det_notes[2][FZ_DET_NOTES];
};

struct fz_stream {
	uint32_t trid;
	bool lib;		/* created through the library */
	bool log;		/* with a log: regions cannot be mapped */
	int logfd;		/* the log file (unlinked), or -1 */
	uint64_t ro_off, ro_size, cons_off, cons_size;
};

struct fz_writer {
	uint32_t trid;
	uint64_t off, size, data_off, data_size;
};

enum fz_kind { K_PROC, K_RO, K_CONS, K_WRITER, K_OTHER };

struct fz_map {
	unsigned char *addr;
	size_t len;
	int prot;
	enum fz_kind kind;
	bool garbage_ok;	/* not read by this process's library */
	/* MADV_DONTNEED took its pages, and a stream region has no fault
	 * handler to give them back: a touch is SIGBUS, so none is made.
	 */
	bool zapped;
};

/* One process.  @lock covers the tables and every access to a mapping. */
struct fz_proc {
	pthread_mutex_t lock;
	int idx;
	int depth;		/* 0: worker, 1: forked child */
	int nthreads;
	bool det;
	bool lib_ok;		/* the library may be used (no fork hazard) */
	int fds[FZ_FDS];
	struct fz_stream st[FZ_STREAMS];
	int nst;
	uint32_t stale[FZ_STALE];
	int nstale;
	struct fz_writer wr[FZ_WRITERS];
	int nwr;
	struct fz_map map[FZ_MAPS];
	int nmap;
	pid_t kids[FZ_KIDS];
	int kid_park[FZ_KIDS];	/* read end of the child's park pipe */
	int nkids;
	pid_t drainers[FZ_DRAINERS];
	int ndrainers;
	trace_event_id_t ids[FZ_NAMES];
	int nids;
	/* Process trees still running (fuzz_attacks.c): a chain thousands
	 * of generations deep takes longer than a step may.
	 */
	struct fz_tree {
		pid_t root;		/* and process group */
		uint64_t t0, end;	/* started; killed if still there at @end */
		int kill_ms;		/* killed after this anyway, if >= 0 */
		int variant;
		uint32_t trid;		/* our inherited stream on it, or 0 */
		int fd, log;
		bool killed;
	} trees[FZ_TREES];
	int ntrees;
};

struct fz_thr {
	struct fz_proc *p;
	int tidx;
	uint64_t rng;
	uint64_t digest;
	long step;
	const char *op;
	atomic_ullong busy_since;	/* CLOCK_MONOTONIC ns, 0 between steps */
	atomic_int tid;			/* for the watchdog's report */
	atomic_int variant;		/* the step's last fz_note() */
	unsigned char *arena;		/* FZ_ARENA_PAGES pages */
	unsigned char *scratch;		/* page 1 of the arena */
};


/* Operation codes folded into the digest with each step's result. */
enum fz_op {
	OP_OPEN = 1, OP_CLOSE, OP_IOCTL, OP_UNKNOWN, OP_MMAP, OP_MAPOP,
	OP_LIB, OP_FORK, OP_KILL, OP_EXEC, OP_THREAD, OP_LOGREAD,
	OP_TREE, OP_LANES, OP_SETID, OP_MAPFORK, OP_BLOCKLOG, OP_PROCFORK,
	OP_REFUSED, OP_SIGNALS, OP_FAULTS,
	OP_IOCTL_BASE = 100, OP_LIB_BASE = 200, OP_MAP_BASE = 300,
	OP_MADV_BASE = 400,
};

extern struct fz_shared *sh;
extern int fz_shared_fd;		/* a memfd: @sh after an exec */
extern uint64_t fz_end_ns;		/* the run's end (CLOCK_MONOTONIC), or 0 */
extern uint64_t fz_seed;
ssize_t fz_read_stack(const char *path, char *buf, size_t size);
extern long page_size;
/* The thread's own state, for the crash handler. */
extern __thread struct fz_thr *fz_self;
/* Set around library calls: says who crashed. */
extern __thread volatile int fz_in_lib;

/* fuzz_test.c */
void fz_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t fz_mix(uint64_t x);
uint64_t rnd(struct fz_thr *t);
uint32_t rn(struct fz_thr *t, uint32_t n);
void fz_note(struct fz_thr *t, int op, int ret);
int fz_err(long r);
uint64_t interesting64(struct fz_thr *t);
bool fz_log_write_error(int err);
void fz_check_status(const char *who, pid_t pid, int status);
uint64_t fz_touch(const unsigned char *a, size_t len);
void fz_map_add(struct fz_proc *p, void *a, size_t len, int prot,
		enum fz_kind kind, bool garbage_ok);
bool fz_stream_add(struct fz_proc *p, const struct fz_stream *s);

/* fuzz_attacks.c: the step kinds of issue 19 */
void fa_init(void);
void fa_proc_cleanup(struct fz_proc *p);
void op_tree(struct fz_thr *t);
void op_lanes_flush(struct fz_thr *t);
void op_lanes_read(struct fz_thr *t);
void op_setid(struct fz_thr *t);
void op_mapfork(struct fz_thr *t);
void op_procfork(struct fz_thr *t);
void op_blocklog(struct fz_thr *t);
void op_refused(struct fz_thr *t);
void op_signals(struct fz_thr *t);
void op_faults(struct fz_thr *t);

#endif /* FUZZ_H */
