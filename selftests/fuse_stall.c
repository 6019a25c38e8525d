// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_stall - a FUSE file system whose writes can be made to hang for
 * ever, for blocking_log_test (issue 19, item 5): a log file on it is a
 * regular file the module writes with kernel_write(), and a WRITE this
 * daemon does not answer keeps the module's log worker waiting the way a
 * hung FUSE server or a stalled NFS mount would.
 *
 * usage: fuse_stall MOUNTPOINT	(as root: it mounts the file system)
 *
 * It speaks the /dev/fuse protocol of <linux/fuse.h> itself: no libfuse,
 * since the tests run from the work tree in a VM where nothing can be
 * installed.  One flat directory of at most MAX_FILES regular files, mode
 * 0666, created on demand; their data is not kept (a READ finds nothing).
 *
 * Control, one byte at a time on stdin; replies on stdout:
 *   's'	hold every WRITE from now on			reply 's'
 *   'r'	answer the held WRITEs (all bytes written) and
 *		hold no more					reply 'r'
 *   'q', or the end of stdin: close /dev/fuse (the kernel aborts the
 *		connection: held WRITEs fail with ECONNABORTED), detach
 *		the mount, exit.
 * Reports on stdout: 'R' once INIT is answered (the mount works), 'W'
 * each time a WRITE is held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/fuse.h>

#define MAX_FILES	16
#define MAX_HELD	64
/* The log's blocks are 64 KiB by default: one WRITE each. */
#define MAX_WRITE	(128u << 10)
/* The kernel refuses reads into less than a header and a whole WRITE. */
#define BUF_SIZE	(MAX_WRITE + 64 * 1024)

struct node {
	char name[64];
	uint64_t size;
	uint32_t uid, gid;
};

static struct node files[MAX_FILES];
static int nr_files;
static uint64_t held[MAX_HELD];		/* unique ids of held WRITEs */
static uint32_t held_size[MAX_HELD];
static int nr_held;
static int stalling;
static int fuse_fd = -1;
static const char *mountpoint;
static uint64_t start_time;
static unsigned char buf[BUF_SIZE] __attribute__((aligned(8)));

static void die(const char *what)
{
	fprintf(stderr, "fuse_stall: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void report(char c)
{
	if (write(STDOUT_FILENO, &c, 1) != 1)
		exit(1);	/* the test is gone: so are we */
}

/* Node ids: 1 is the root (FUSE_ROOT_ID), file i is i + 2. */
static struct node *node_of(uint64_t nodeid)
{
	if (nodeid < 2 || nodeid - 2 >= (uint64_t)nr_files)
		return NULL;
	return &files[nodeid - 2];
}

/* One reply; ENOENT means its request was interrupted or aborted. */
static void reply(uint64_t unique, int err, const void *arg, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (err ? 0 : len),
		.error = -err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)arg, .iov_len = len },
	};

	if (writev(fuse_fd, iov, err || !len ? 1 : 2) < 0 && errno != ENOENT)
		die("reply");
}

/* Attributes valid for no time: the kernel asks again each time. */
static void fill_attr(uint64_t nodeid, struct fuse_attr *a)
{
	struct node *n = node_of(nodeid);

	memset(a, 0, sizeof(*a));
	a->ino = nodeid;
	a->atime = a->mtime = a->ctime = start_time;
	a->blksize = 4096;
	if (!n) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	a->mode = S_IFREG | 0666;
	a->nlink = 1;
	a->size = n->size;
	a->blocks = (n->size + 511) / 512;
	a->uid = n->uid;
	a->gid = n->gid;
}

static void reply_entry(uint64_t unique, uint64_t nodeid)
{
	struct fuse_entry_out e = { .nodeid = nodeid, .generation = 1 };

	fill_attr(nodeid, &e.attr);
	reply(unique, 0, &e, sizeof(e));
}

static void reply_attr(uint64_t unique, uint64_t nodeid)
{
	struct fuse_attr_out a = { .attr_valid = 0 };

	fill_attr(nodeid, &a.attr);
	reply(unique, 0, &a, sizeof(a));
}

static int find(uint64_t parent, const char *name)
{
	int i;

	for (i = 0; parent == FUSE_ROOT_ID && i < nr_files; i++)
		if (!strcmp(files[i].name, name))
			return i;
	return -1;
}

/*
 * INIT: protocol 7.x at the kernel's minor or ours, whichever is lower.
 * BIG_WRITES lets one WRITE carry a whole log block (without it the
 * kernel sends one page per request); no writeback cache, so every
 * write(2) waits for its WRITE reply, which is what the test needs.
 */
static void do_init(const struct fuse_in_header *in)
{
	const struct fuse_init_in *arg = (const void *)(in + 1);
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = arg->minor < FUSE_KERNEL_MINOR_VERSION ?
			 arg->minor : FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = arg->max_readahead,
		.flags = FUSE_BIG_WRITES,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = MAX_WRITE,
		.time_gran = 1,
	};

	reply(in->unique, 0, &out, sizeof(out));
	report('R');
}

/* CREATE: a new file (or the one of that name), opened like OPEN. */
static void do_create(const struct fuse_in_header *in)
{
	const char *name = (const char *)in + sizeof(*in) +
			   sizeof(struct fuse_create_in);
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} out;
	int i = find(in->nodeid, name);

	if (i < 0) {
		if (in->nodeid != FUSE_ROOT_ID || nr_files == MAX_FILES ||
		    strlen(name) >= sizeof(files[0].name)) {
			reply(in->unique, in->nodeid != FUSE_ROOT_ID ? ENOTDIR :
			      ENOSPC, NULL, 0);
			return;
		}
		i = nr_files++;
		snprintf(files[i].name, sizeof(files[i].name), "%s", name);
		files[i].uid = in->uid;
		files[i].gid = in->gid;
	}
	memset(&out, 0, sizeof(out));
	out.e.nodeid = i + 2;
	out.e.generation = 1;
	fill_attr(i + 2, &out.e.attr);
	out.o.fh = i + 2;
	out.o.open_flags = FOPEN_NOFLUSH;	/* see do_open() */
	reply(in->unique, 0, &out, sizeof(out));
}

/*
 * OPEN: NOFLUSH, so a close() does not wait for the writes in flight on
 * the file (fuse_flush() takes the inode lock a held WRITE's writer
 * holds): a controller's close() or exit would otherwise hang in FUSE
 * itself, whatever the module does.
 */
static void do_open(const struct fuse_in_header *in)
{
	struct fuse_open_out o = { .fh = in->nodeid, .open_flags = FOPEN_NOFLUSH };

	if (!node_of(in->nodeid)) {
		reply(in->unique, EISDIR, NULL, 0);
		return;
	}
	reply(in->unique, 0, &o, sizeof(o));
}

/* SETATTR: a truncate (O_TRUNC) changes the size; the rest is ignored. */
static void do_setattr(const struct fuse_in_header *in)
{
	const struct fuse_setattr_in *arg = (const void *)(in + 1);
	struct node *n = node_of(in->nodeid);

	if (n && (arg->valid & FATTR_SIZE))
		n->size = arg->size;
	reply_attr(in->unique, in->nodeid);
}

static void write_done(uint64_t unique, uint32_t size)
{
	struct fuse_write_out o = { .size = size };

	reply(unique, 0, &o, sizeof(o));
}

/* WRITE: all bytes taken at once, or, while stalling, no answer at all. */
static void do_write(const struct fuse_in_header *in)
{
	const struct fuse_write_in *arg = (const void *)(in + 1);
	struct node *n = node_of(in->nodeid);

	if (n && arg->offset + arg->size > n->size)
		n->size = arg->offset + arg->size;
	if (!stalling) {
		write_done(in->unique, arg->size);
		return;
	}
	if (nr_held == MAX_HELD) {
		reply(in->unique, EIO, NULL, 0);
		return;
	}
	held[nr_held] = in->unique;
	held_size[nr_held++] = arg->size;
	report('W');
}

static void release_held(void)
{
	int i;

	for (i = 0; i < nr_held; i++)
		write_done(held[i], held_size[i]);
	nr_held = 0;
	stalling = 0;
}

static void serve(const struct fuse_in_header *in)
{
	int i;

	switch (in->opcode) {
	case FUSE_INIT:
		do_init(in);
		break;
	case FUSE_LOOKUP:
		i = find(in->nodeid, (const char *)(in + 1));
		if (i < 0)
			reply(in->unique, ENOENT, NULL, 0);
		else
			reply_entry(in->unique, i + 2);
		break;
	case FUSE_GETATTR:
		reply_attr(in->unique, in->nodeid);
		break;
	case FUSE_SETATTR:
		do_setattr(in);
		break;
	case FUSE_CREATE:
		do_create(in);
		break;
	case FUSE_OPEN:
		do_open(in);
		break;
	case FUSE_WRITE:
		do_write(in);
		break;
	case FUSE_READ:		/* the data is not kept: end of file */
	case FUSE_FLUSH:	/* not sent (NOFLUSH), harmless if it is */
	case FUSE_RELEASE:
	case FUSE_DESTROY:
		reply(in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET:	/* these take no reply */
	case FUSE_BATCH_FORGET:
		break;
	case FUSE_INTERRUPT:
		/*
		 * No reply: a held WRITE stays held even if its writer is
		 * signalled, as with a server that hung.  (The module's
		 * worker takes no signals anyway.)
		 */
		break;
	default:
		/*
		 * FALLOCATE (the module's preallocation), FSYNC (its close),
		 * GETXATTR (file_remove_privs() at each write), ACCESS,
		 * STATFS...: ENOSYS makes the kernel stop asking and treat
		 * them as unsupported (fallocate: EOPNOTSUPP, which the
		 * module accepts) or as done (fsync, access).
		 */
		reply(in->unique, ENOSYS, NULL, 0);
		break;
	}
}

/* One request, if any: false once the connection is gone. */
static int serve_one(void)
{
	ssize_t n = read(fuse_fd, buf, sizeof(buf));

	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
			return 1;	/* ENOENT: interrupted before we read it */
		if (errno == ENODEV)
			return 0;	/* unmounted or aborted */
		die("read /dev/fuse");
	}
	if ((size_t)n < sizeof(struct fuse_in_header))
		return 1;
	serve((const struct fuse_in_header *)buf);
	return 1;
}

static void quit(void)
{
	/* The last /dev/fuse descriptor aborts the connection. */
	close(fuse_fd);
	umount2(mountpoint, MNT_DETACH);
	exit(0);
}

static void command(void)
{
	char c;
	ssize_t n = read(STDIN_FILENO, &c, 1);

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0 || c == 'q')
		quit();
	if (c == 's')
		stalling = 1;
	else if (c == 'r')
		release_held();
	else
		return;
	report(c);
}

static void do_mount(void)
{
	char opts[128];

	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		die("open /dev/fuse");
	/* allow_other: the controllers run as another user than root. */
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fuse_fd);
	if (mount("fuse_stall", mountpoint, "fuse", MS_NOSUID | MS_NODEV, opts))
		die("mount");
}

int main(int argc, char **argv)
{
	struct pollfd p[2] = {
		{ .fd = -1, .events = POLLIN },
		{ .fd = STDIN_FILENO, .events = POLLIN },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: fuse_stall MOUNTPOINT\n");
		return 2;
	}
	mountpoint = argv[1];
	start_time = (uint64_t)time(NULL);
	/* The test's death aborts the connection too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	do_mount();
	p[0].fd = fuse_fd;
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[1].revents)
			command();
		if ((p[0].revents & POLLIN) && !serve_one())
			quit();
		if (p[0].revents & (POLLERR | POLLHUP))
			quit();
	}
}
