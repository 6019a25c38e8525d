#!/bin/bash
# shellcheck disable=SC2015 # "a && b || report": report when either fails
# make install / uninstall into a DESTDIR (packaging/install.mk), on the
# host, touching nothing outside a temporary directory:
#   - the installed files: library, soname links, .a, headers, .pc, the
#     command, man pages, DKMS source + dkms.conf, udev rule;
#   - pkg-config (sysroot = the DESTDIR) builds the examples against the
#     installed headers and library, which the programs then load;
#   - "dkms build" of the installed module source against the installed
#     kernel headers, with dkms's trees and signing key in the temp dir;
#   - make uninstall leaves no file behind; PREFIX/LIBDIR/BINDIR honoured.
# Run by tests/tools/run (make check, "tools" stage) after make all.
# No pipefail: "cmd | grep -q" would fail whenever grep quits early.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pt-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
DEST=$TMP/root
VERSION=$(cat VERSION)
MAJOR=${VERSION%%.*}
KVER=${KVER:-$(scripts/kver)}
MAKE=${MAKE:-make}

. tests/tools/lib.sh

# Every regular file and symlink under $1, relative to it.
files_under() {
	(cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort)
}

# The sources kbuild compiles: kmod/Makefile's posix_trace-y objects.
module_sources() {
	sed -n '/^posix_trace-y/,/^[^[:space:]]/p' kmod/Makefile | grep -oE '[a-z_]+\.o\b' |
		sed 's/\.o$/.c/'
}

expect_installed_files() {
	local lib=$DEST/usr/lib f missing=()
	for f in usr/lib/libposixtrace.so.$VERSION usr/lib/libposixtrace.a \
		usr/include/trace.h usr/include/linux/posix_trace.h \
		usr/include/linux/posix_trace_kernel.h \
		usr/lib/pkgconfig/posixtrace.pc usr/bin/posix-trace \
		usr/share/doc/posix-trace/examples/controller.c \
		usr/share/doc/posix-trace/examples/traced.c \
		usr/share/doc/posix-trace/examples/analyzer.c \
		usr/src/posix-trace-$VERSION/dkms.conf usr/src/posix-trace-$VERSION/VERSION \
		usr/src/posix-trace-$VERSION/kmod/Makefile \
		usr/src/posix-trace-$VERSION/kmod/base.h \
		usr/src/posix-trace-$VERSION/kmod/stream.h \
		usr/src/posix-trace-$VERSION/include/uapi/linux/posix_trace.h \
		usr/src/posix-trace-$VERSION/include/uapi/linux/posix_trace_log.h \
		usr/src/posix-trace-$VERSION/include/uapi/linux/posix_trace_kernel.h \
		usr/src/posix-trace-$VERSION/include/posix_trace/ring.h \
		lib/udev/rules.d/60-posix-trace.rules \
		$(module_sources | sed "s|^|usr/src/posix-trace-$VERSION/kmod/|"); do
		[[ -f $DEST/$f && ! -L $DEST/$f ]] || missing+=("$f")
	done
	((${#missing[@]} == 0)) || { echo "missing: ${missing[*]}"; return 1; }
	[[ -x $lib/libposixtrace.so.$VERSION && -x $DEST/usr/bin/posix-trace ]] ||
		{ echo "library or command not executable"; return 1; }
	[[ $(readlink "$lib/libposixtrace.so.$MAJOR") == libposixtrace.so.$VERSION &&
		$(readlink "$lib/libposixtrace.so") == libposixtrace.so.$MAJOR ]] ||
		{ echo "soname links wrong: $(ls -l "$lib")"; return 1; }
	readelf -d "$lib/libposixtrace.so.$VERSION" |
		grep -q "SONAME.*\[libposixtrace.so.$MAJOR\]" ||
		{ echo "soname is not libposixtrace.so.$MAJOR"; return 1; }
	nm "$lib/libposixtrace.a" | grep -q ' T posix_trace_open$' ||
		{ echo "libposixtrace.a lacks posix_trace_open"; return 1; }
	# Build products of kmod/ are not sources.
	for f in "$DEST/usr/src/posix-trace-$VERSION/kmod"/*; do
		[[ $f =~ /([a-z_]+\.[ch]|Makefile)$ && ! $f =~ \.mod\.c$ ]] ||
			{ echo "stray file in the DKMS source: $f"; return 1; }
	done
}

# Each man page of the tree, as is (a .so alias stays a .so alias).
expect_man_pages() {
	local f dst
	for f in man/man[1-9]/*.[1-9]; do
		dst=$DEST/usr/share/man/$(basename "$(dirname "$f")")/$(basename "$f")
		cmp -s "$f" "$dst" || { echo "$dst differs from $f or is missing"; return 1; }
	done
}

expect_pc() {
	local pc=$DEST/usr/lib/pkgconfig/posixtrace.pc
	grep -qx "prefix=/usr" "$pc" && grep -qx "Version: $VERSION" "$pc" ||
		{ cat "$pc"; return 1; }
	[[ $(pc --modversion posixtrace) == "$VERSION" ]] || return 1
	[[ $(pc --cflags --libs posixtrace | xargs) == \
		"-I$DEST/usr/include -L$DEST/usr/lib -lposixtrace" ]] ||
		{ pc --cflags --libs posixtrace; return 1; }
	# A static link also needs the library's own dependencies.
	pc --static --libs posixtrace | grep -qw -- -pthread ||
		{ pc --static --libs posixtrace; return 1; }
}

# pkg-config reading the DESTDIR as if it were installed in /.
pc() {
	PKG_CONFIG_SYSROOT_DIR=$DEST PKG_CONFIG_LIBDIR=$DEST/usr/lib/pkgconfig \
		pkg-config "$@"
}

# Compiles an installed example with pkg-config's flags only; checks that
# the installed <trace.h> is the one used.
build_example() {
	local name=$1 src=$DEST/usr/share/doc/posix-trace/examples/$1.c flags
	flags=$(pc --cflags --libs posixtrace) || return 1
	# shellcheck disable=SC2086 # flags are words
	cc -std=gnu11 -Wall -Wextra -Werror -o "$TMP/$name" "$src" $flags || return 1
	# shellcheck disable=SC2086
	cc -M $flags "$src" | grep -q "$DEST/usr/include/trace.h" ||
		{ echo "$name did not use the installed trace.h"; return 1; }
}

build_examples() {
	build_example controller && build_example traced && build_example analyzer
}

# The program resolves libposixtrace to the installed copy and runs:
# analyzer reads a log written by the module (no module needed for that)
# exactly as the tree's own build does.
run_installed() {
	local want got
	LD_LIBRARY_PATH=$DEST/usr/lib ldd "$TMP/analyzer" |
		grep -q "libposixtrace.so.$MAJOR => $DEST/usr/lib/libposixtrace.so.$MAJOR" ||
		{ LD_LIBRARY_PATH=$DEST/usr/lib ldd "$TMP/analyzer"; return 1; }
	want=$(examples/analyzer fuzz/corpus/module-loop.log) || return 1
	got=$(LD_LIBRARY_PATH=$DEST/usr/lib "$TMP/analyzer" fuzz/corpus/module-loop.log) ||
		return 1
	[[ $got == "$want" && $got == *" events, "* ]] ||
		{ diff <(echo "$want") <(echo "$got"); return 1; }
	LD_LIBRARY_PATH=$DEST/usr/lib "$TMP/traced" 3 | grep -q "3 steps" || return 1
}

run_installed_command() {
	LD_LIBRARY_PATH=$DEST/usr/lib ldd "$DEST/usr/bin/posix-trace" |
		grep -q "=> $DEST/usr/lib/libposixtrace.so.$MAJOR" || return 1
	LD_LIBRARY_PATH=$DEST/usr/lib "$DEST/usr/bin/posix-trace" --help | grep -qi usage || return 1
	# No run path into the build tree.
	! readelf -d "$DEST/usr/bin/posix-trace" | grep -Eq 'RPATH|RUNPATH'
}

expect_dkms_conf() {
	local conf=$DEST/usr/src/posix-trace-$VERSION/dkms.conf
	grep -qx "PACKAGE_NAME=\"posix-trace\"" "$conf" &&
		grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$conf" &&
		grep -qx 'BUILT_MODULE_NAME\[0\]="posix_trace"' "$conf" &&
		grep -qx 'AUTOINSTALL="yes"' "$conf" || { cat "$conf"; return 1; }
}

expect_udev_rule() {
	grep -qE '^KERNEL=="posix_trace", MODE="0666", OPTIONS\+="static_node=posix_trace"$' \
		"$DEST/lib/udev/rules.d/60-posix-trace.rules"
}

# dkms with its trees, temp files and MOK signing key (Debian signs what
# it builds) in $TMP: nothing under /var/lib/dkms or /lib/modules changes.
dkms_build() {
	local ko
	mkdir -p "$TMP/dkms/tree" "$TMP/dkms/tmp"
	TMPDIR=$TMP/dkms/tmp mok_signing_key=$TMP/dkms/mok.key \
		mok_certificate=$TMP/dkms/mok.pub \
		dkms build -m posix-trace -v "$VERSION" -k "$KVER" \
		--kernelsourcedir "/usr/src/linux-headers-$KVER" \
		--sourcetree "$DEST/usr/src" --dkmstree "$TMP/dkms/tree" \
		--installtree "$TMP/dkms/install" || return 1
	ko=$(find "$TMP/dkms/tree/posix-trace/$VERSION/$KVER" -name 'posix_trace.ko*' | head -n1)
	[[ -n $ko ]] || { echo "no posix_trace.ko built"; return 1; }
	[[ $(modinfo -F version "$ko") == "$VERSION" ]] || { modinfo "$ko"; return 1; }
	[[ $(modinfo -F vermagic "$ko") == "$KVER "* ]] || { modinfo "$ko"; return 1; }
	modinfo -F alias "$ko" | grep -qx 'char-major-10-243' &&
		modinfo -F alias "$ko" | grep -qx 'devname:posix_trace' ||
		{ modinfo "$ko"; return 1; }
}

# Then "dkms install" (it needs root) into an install tree of $TMP: the
# module lands where dkms.conf says, updates/dkms (depmod not run),
# compressed as the kernel's own modules are (.ko.xz on 6.12).
dkms_install() {
	local dir=$TMP/dkms/install/$KVER/updates/dkms ko
	mkdir -p "$TMP/dkms/install/$KVER"
	TMPDIR=$TMP/dkms/tmp mok_signing_key=$TMP/dkms/mok.key \
		mok_certificate=$TMP/dkms/mok.pub \
		dkms install --no-depmod -m posix-trace -v "$VERSION" -k "$KVER" \
		--kernelsourcedir "/usr/src/linux-headers-$KVER" \
		--sourcetree "$DEST/usr/src" --dkmstree "$TMP/dkms/tree" \
		--installtree "$TMP/dkms/install" || return 1
	ko=$(find "$dir" -maxdepth 1 -name 'posix_trace.ko*' 2>/dev/null | head -n1)
	[[ -n $ko && $(modinfo -F version "$ko") == "$VERSION" ]] ||
		{ find "$TMP/dkms/install"; return 1; }
}

expect_uninstalled() {
	local left
	left=$(files_under "$DEST")
	[[ -z $left ]] || { echo "left behind: $left"; return 1; }
}

# Another layout: everything follows PREFIX, LIBDIR and BINDIR.
other_layout() {
	local d=$TMP/other pc
	$MAKE -s --no-print-directory install DESTDIR="$d" PREFIX=/opt/pt \
		LIBDIR=/opt/pt/lib64 BINDIR=/opt/pt/sbin >/dev/null || return 1
	pc=$d/opt/pt/lib64/pkgconfig/posixtrace.pc
	[[ -f $d/opt/pt/lib64/libposixtrace.so.$VERSION && -f $d/opt/pt/sbin/posix-trace &&
		-f $d/opt/pt/include/trace.h && -f $pc ]] || { files_under "$d"; return 1; }
	# shellcheck disable=SC2016 # a literal ${prefix}
	grep -qx 'libdir=${prefix}/lib64' "$pc" && grep -qx 'prefix=/opt/pt' "$pc" ||
		{ cat "$pc"; return 1; }
	$MAKE -s --no-print-directory uninstall DESTDIR="$d" PREFIX=/opt/pt \
		LIBDIR=/opt/pt/lib64 BINDIR=/opt/pt/sbin >/dev/null || return 1
	[[ -z $(files_under "$d") ]] || { files_under "$d"; return 1; }
}

main() {
	if ! $MAKE -s --no-print-directory install DESTDIR="$DEST" PREFIX=/usr >"$TMP/install.log" 2>&1; then
		not_ok "make install DESTDIR=... PREFIX=/usr"
		tail -n 30 "$TMP/install.log" | sed 's/^/#   /'
		return 0
	fi
	ok "make install DESTDIR=... PREFIX=/usr"
	check "install: library, soname links, .a, headers, .pc, command, examples, DKMS source, udev rule" \
		expect_installed_files
	if compgen -G 'man/man[1-9]/*.[1-9]' >/dev/null; then
		check "install: every man page of man/, .so aliases as they are" expect_man_pages
	else
		skip "install: man pages" "no man pages in man/"
	fi
	check "install: posixtrace.pc gives the installed -I, -L, -l (and -pthread static)" expect_pc
	check "install: dkms.conf names posix-trace $VERSION, posix_trace.ko, AUTOINSTALL" expect_dkms_conf
	check "install: udev rule makes /dev/posix_trace 0666, static node too" expect_udev_rule
	check "install: examples build with pkg-config against the installed headers" \
		build_examples &&
		check "install: analyzer and traced run on the installed libposixtrace" run_installed
	check "install: the installed posix-trace runs on the installed library, without a run path into the tree" run_installed_command
	if ! command -v dkms >/dev/null; then
		skip "install: dkms build of the installed module source" "dkms not installed (make deps)"
	elif [[ ! -d /usr/src/linux-headers-$KVER ]]; then
		skip "install: dkms build of the installed module source" "no headers for $KVER"
	else
		if check "install: dkms build of the installed source against $KVER's headers" \
			dkms_build; then
			if ((EUID == 0)); then
				check "install: dkms install puts it in updates/dkms" dkms_install
			else
				skip "install: dkms install" "needs root"
			fi
		fi
	fi
	if $MAKE -s --no-print-directory uninstall DESTDIR="$DEST" PREFIX=/usr >"$TMP/uninstall.log" 2>&1; then
		check "make uninstall removes every installed file" expect_uninstalled
	else
		not_ok "make uninstall DESTDIR=... PREFIX=/usr"
		tail -n 30 "$TMP/uninstall.log" | sed 's/^/#   /'
	fi
	check "install: PREFIX, LIBDIR and BINDIR are honoured (and uninstall)" other_layout
}

main
