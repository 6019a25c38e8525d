// SPDX-License-Identifier: GPL-2.0
/*
 * autoload_test - the module is loaded by the first open of its device
 * node, as installed systems do it: depmod puts posix_trace into
 * modules.devname (its "devname:" and char-major-10-243 aliases), kmod's
 * static-nodes creates /dev/posix_trace from that at boot, and opening the
 * node makes misc_open() request "char-major-10-243" from modprobe.
 *
 * The guest's /lib/modules is the host's and read-only, so the module is
 * put in a modules tree of its own under /tmp, depmod'ed there, and
 * /proc/sys/kernel/modprobe points at a wrapper running "modprobe -d" on
 * that tree.  The test unloads the module first: it is listed in
 * TESTS.isolated and runs alone in a fresh VM boot, as root.
 */
#include "pt_selftest.h"

#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#define PT_MODNAME	"posix_trace"
#define PT_MISC_MAJOR	10
#define PT_MISC_MINOR	243
#define MODPROBE_PATH	"/proc/sys/kernel/modprobe"
#define SYS_MODULE	"/sys/module/" PT_MODNAME

FIXTURE(autoload) {
	char dir[64];		/* the modules tree: DIR/lib/modules/REL */
	char release[65];
	char saved_modprobe[PATH_MAX];
	bool modprobe_changed;
};

/* Runs a shell command line; its exit status, or -1. */
static int run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

static int write_string(const char *path, const char *s)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

static bool module_loaded(void)
{
	return access(SYS_MODULE, F_OK) == 0;
}

/*
 * The kernel runs modprobe with the root of PID 1, which need not be ours
 * (vm-run's init stays in its initramfs and chroots the test elsewhere).
 * Finds the directory of PID 1's root in which our "/" is mounted, by
 * looking for @marker (an absolute path of ours) through /proc/1/root:
 * "" when PID 1 shares our root, "/newroot" or alike one level down.
 */
static int find_our_root(const char *marker, char *prefix, size_t size)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/1/root%s", marker);
	if (access(path, F_OK) == 0) {
		prefix[0] = '\0';
		return 0;
	}
	dir = opendir("/proc/1/root");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/1/root/%s%s", d->d_name,
			 marker);
		if (access(path, F_OK) == 0) {
			snprintf(prefix, size, "/%s", d->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

/* Points the kernel's modprobe at "modprobe -d DIR", run in our root. */
static void install_modprobe_wrapper(struct __test_metadata *_metadata,
				     FIXTURE_DATA(autoload) *self)
{
	char marker[128], prefix[NAME_MAX + 2], wrapper[128], script[1024];
	char helper[sizeof(prefix) + sizeof(wrapper)];
	int fd;

	snprintf(marker, sizeof(marker), "%s/marker", self->dir);
	fd = open(marker, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, find_our_root(marker, prefix, sizeof(prefix)))
		TH_LOG("cannot find %s through /proc/1/root", marker);

	snprintf(wrapper, sizeof(wrapper), "%s/modprobe", self->dir);
	if (prefix[0])
		snprintf(script, sizeof(script),
			 "#!/bin/sh\nexec chroot %s /sbin/modprobe -d %s \"$@\"\n",
			 prefix, self->dir);
	else
		snprintf(script, sizeof(script),
			 "#!/bin/sh\nexec /sbin/modprobe -d %s \"$@\"\n",
			 self->dir);
	ASSERT_EQ(0, write_string(wrapper, script));
	ASSERT_EQ(0, chmod(wrapper, 0755));

	snprintf(helper, sizeof(helper), "%s%s", prefix, wrapper);
	ASSERT_EQ(0, write_string(MODPROBE_PATH, helper));
	self->modprobe_changed = true;
}

FIXTURE_SETUP(autoload)
{
	char module[PATH_MAX];
	struct utsname u;

	self->dir[0] = '\0';
	self->modprobe_changed = false;
	ST_REQUIRE_ROOT();
	ASSERT_EQ(0, uname(&u));
	snprintf(self->release, sizeof(self->release), "%s", u.release);
	if (!st_find_module(self->release, module, sizeof(module)))
		ST_SKIP("no posix_trace.ko built for %s", self->release);
	if (run("command -v depmod >/dev/null && test -x /sbin/modprobe"))
		ST_SKIP("kmod's depmod/modprobe not installed");
	ASSERT_EQ(0, read_line(MODPROBE_PATH, self->saved_modprobe,
			       sizeof(self->saved_modprobe)));

	/* Nothing of ours may hold the module: no stream, no open file. */
	if (module_loaded())
		ASSERT_EQ(0, syscall(SYS_delete_module, PT_MODNAME, O_NONBLOCK))
			TH_LOG("rmmod %s: %s", PT_MODNAME, strerror(errno));
	ASSERT_FALSE(module_loaded());

	snprintf(self->dir, sizeof(self->dir), "/tmp/pt-autoload.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* Empty lists of built-in modules, or depmod warns. */
	ASSERT_EQ(0, run("d=%s/lib/modules/%s && mkdir -p $d/extra && "
			 "cp '%s' $d/extra/" PT_MODNAME ".ko && "
			 "touch $d/modules.order $d/modules.builtin "
			 "$d/modules.builtin.modinfo && depmod -b %s %s",
			 self->dir, self->release, module, self->dir,
			 self->release));
}

FIXTURE_TEARDOWN(autoload)
{
	if (self->modprobe_changed)
		write_string(MODPROBE_PATH, self->saved_modprobe);
	if (self->dir[0])
		run("rm -rf %s", self->dir);
}

/* What kmod static-nodes turns into /dev/posix_trace at boot. */
TEST_F(autoload, depmod_lists_the_device_node_in_modules_devname)
{
	char path[PATH_MAX], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.devname",
		 self->dir, self->release);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, PT_MODNAME " " PT_MODNAME " c10:243\n") == 0)
			found = true;
	fclose(f);
	EXPECT_TRUE(found) TH_LOG("no \"posix_trace posix_trace c10:243\" in %s",
				  path);
}

/*
 * Loading the module (6 MB with its debug information) through modprobe
 * took 13.1 s in one CI run on 6.12 under TCG, 5 s in another: more than
 * the harness's default 30 s is allowed for a machine a few times slower.
 */
TEST_F_TIMEOUT(autoload, first_open_of_the_node_loads_the_module, 120)
{
	char node[128], state[32];
	struct stat st;
	int fd;

	install_modprobe_wrapper(_metadata, self);
	/* As kmod static-nodes makes it, before the module is there. */
	snprintf(node, sizeof(node), "%s/node", self->dir);
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0666,
			   makedev(PT_MISC_MAJOR, PT_MISC_MINOR)));
	ASSERT_FALSE(module_loaded());

	fd = open(node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", node, strerror(errno));
	EXPECT_TRUE(module_loaded());
	ASSERT_EQ(0, read_line(SYS_MODULE "/initstate", state, sizeof(state)));
	EXPECT_STREQ("live", state);
	/* devtmpfs' node of the loaded module has the same fixed number. */
	ASSERT_EQ(0, stat(ST_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(makedev(PT_MISC_MAJOR, PT_MISC_MINOR), st.st_rdev);
	EXPECT_EQ(0666, (int)(st.st_mode & 07777));
	close(fd);
}

TEST_HARNESS_MAIN
