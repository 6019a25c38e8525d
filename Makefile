# posix-trace: the POSIX Tracing option (<trace.h>) for Linux.
#
#   make [all]      build kmod/posix_trace.ko, libtrace, selftests, unit
#                   tests and examples
#   make deps       install the Debian packages needed (scripts/deps)
#   make check      deps, all, host unit tests, then the selftests in a VM
#                   as root and as "nobody" (+ each isolated selftest in
#                   its own VM); ends with "N passed, N failed[, N skipped]"
#                   (KERNEL=rt, 6.12 or 6.12-rt: on that Debian kernel,
#                   installed by deps; see README "Kernels")
#   make check-debug  the same on a debug kernel (scripts/debug-kernel)
#   make demo       deps, all, then examples/demo in the VM
#   make vm-test    the selftests in the VM as root only (no deps/unit tests)
#   make bench      deps, module and library, then bench/run: one table of
#                   ns per event, host and VM, with the floors, LTTng-UST
#                   and ftrace to compare with (bench/README)
#   make bench-record  recording to disk in the VM: posix-trace record
#                   beside LTTng sessions, events kept and costs,
#                   and LTTng's time over ours per row; BENCH_RECORD_ROUNDS=R
#                   repeats it, with medians (bench/record;
#                   Documentation/performance.md)
#   make bench-kernel  what kernel events cost a program making system
#                   calls, beside strace -f, perf trace and LTTng kernel, in the VM
#                   (bench/kernel-events; Documentation/performance.md)
#                   BENCH_ICOUNT=1: counted in guest instructions (QEMU
#                   -icount), the same in every run
#   make fuzz       the libFuzzer targets on the host: the trace log reader
#                   and posix-trace's report, stat and convert (fuzz/;
#                   FUZZ_TIME seconds each, default 600)
#   make conformance  regenerate Documentation/conformance.md (spec ids ->
#                   tests; tools/conformance; make check runs its --check)
#   make install    library, headers, pkg-config file, posix-trace, man
#                   pages, module source for DKMS, udev rule (PREFIX,
#                   DESTDIR, ...: packaging/install.mk); make uninstall
#   make clean
#
# Variables: KVER (kernel release), KDIR (kernel build tree, default
# /usr/src/linux-headers-$(KVER)), KERNEL (vmlinuz the VM boots, default
# the one matching the module; KERNEL=rt, 6.12 or 6.12-rt: that flavour
# of Debian's kernel, linux-image-<flavour>-amd64, with the module built
# against its headers).
# "make -j2" is fine.

# KERNEL=rt, 6.12 or 6.12-rt names a flavour of Debian's kernel, not an
# image (scripts/kflavour.sh): deps installs it, scripts/kver picks its
# release, and the VM boots the kernel the module was built for.
ifneq ($(filter rt 6.12 6.12-rt,$(KERNEL)),)
KFLAVOUR := $(KERNEL)
override KERNEL :=
endif
export KFLAVOUR KERNEL

# KVER and KDIR are recursive ("="), computed only where a recipe uses
# them and never exported: on a bare machine they name headers that only
# "make deps" installs, so check and demo run deps first and then
# sub-makes, which compute them afresh.  Given on the command line or in
# the environment, they reach the sub-makes and scripts as they are.
ifeq ($(origin KDIR),undefined)
KVER_KDIR :=
KDIR = /usr/src/linux-headers-$(KVER)
else
KVER_KDIR := $(KDIR)
endif
ifeq ($(origin KVER),undefined)
KVER = $(shell KDIR='$(KVER_KDIR)' KFLAVOUR='$(KFLAVOUR)' scripts/kver)
endif

VMRUN := scripts/vm-run $(if $(KERNEL),--kernel $(KERNEL))

all: kmod libtrace selftests tests examples tools

kmod:
	$(MAKE) -C kmod KVER='$(KVER)' KDIR='$(KDIR)'

libtrace:
	$(MAKE) -C libtrace

# These link against libtrace.
selftests tests examples tools: libtrace

selftests:
	$(MAKE) -C selftests

# Build only: the default target of tests/ runs them (see check).
tests:
	$(MAKE) -C tests tests

examples:
	$(MAKE) -C examples

tools:
	$(MAKE) -C tools/posix-trace

deps:
	@scripts/deps

# deps must finish before anything builds, so check and demo sequence
# their steps with sub-makes instead of prerequisites (which -j2 would run
# in parallel).  scripts/check does the building itself to keep going and
# count a build failure rather than stop at it.
check:
	@$(MAKE) --no-print-directory deps
	MAKE="$(MAKE)" scripts/check

# The same on a debug kernel (KASAN, lockdep, kmemleak, UBSAN...) built
# once from linux-source-6.1 and cached (scripts/debug-kernel).
check-debug:
	@$(MAKE) --no-print-directory deps
	@scripts/deps debug
	MAKE="$(MAKE)" scripts/check-debug

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory demo-run

# After deps (see KVER above): the kernel the module was built for.
demo-run:
	$(VMRUN) -- examples/demo

vm-test: all
	$(VMRUN) -- scripts/run-selftests

# Sequenced like demo; bench/run installs the LTTng packages it needs
# (bench/deps) and builds bench/ itself.
fuzz: libtrace
	$(MAKE) -C fuzz fuzz

bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory kmod libtrace
	MAKE="$(MAKE)" bench/run

# Recording to disk beside LTTng sessions (bench/record, in the VM).
bench-record:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory kmod libtrace tools
	@bench/deps
	@$(MAKE) --no-print-directory -C bench
	bench/record

# What kernel events cost a program, beside strace, perf trace and LTTng
# kernel tracing (bench/kernel-events, in the VM); bench/deps also builds
# lttng-modules with DKMS for the kernel the VM boots (once).
bench-kernel:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory kmod libtrace
	@bench/deps --lttng-modules "$$($(VMRUN) --print-release)"
	@$(MAKE) --no-print-directory -C bench
	bench/kernel-events

# The spec is ../shared/spec/POSIX-TRACE.md (PT_SPEC overrides it).
conformance:
	tools/conformance

# make install, install-module, uninstall: packaging/install.mk.
include packaging/install.mk

# kmod's clean needs KDIR; carry on without it on a bare machine.
clean:
	-$(MAKE) -C kmod clean KVER=$(KVER) KDIR=$(KDIR)
	$(MAKE) -C libtrace clean
	$(MAKE) -C selftests clean
	$(MAKE) -C tests clean
	$(MAKE) -C examples clean
	$(MAKE) -C tools/posix-trace clean
	rm -rf build

.PHONY: all kmod libtrace selftests tests examples tools deps check check-debug demo demo-run vm-test fuzz bench bench-record bench-kernel \
	conformance install clean
