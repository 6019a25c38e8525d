# make install / make uninstall (included by the top-level Makefile).
#
#   PREFIX=/usr/local  BINDIR LIBDIR INCLUDEDIR DATADIR MANDIR DOCDIR
#   PKGCONFIGDIR       where everything under the prefix goes
#   DKMSDIR            the module's source for DKMS (/usr/src/NAME-VERSION:
#                      dkms looks nowhere else)
#   UDEVRULESDIR       /lib/udev/rules.d (udev reads no prefix of ours)
#   DESTDIR            staging root for packagers; with it nothing is run
#                      on the machine (no dkms, depmod, ldconfig, udevadm)
#
# Without DESTDIR, install also builds and installs the module for KVER
# with "dkms install" when dkms is there (and DKMS rebuilds it for every
# new kernel), or else copies the module built in kmod/ to MODDIR
# (install-module).  The device node /dev/posix_trace then appears at the
# next boot (kmod static-nodes) or at "modprobe posix_trace"; opening it
# loads the module.

PT_VERSION := $(shell cat VERSION)
PT_SOMAJOR := $(firstword $(subst ., ,$(PT_VERSION)))
PT_LIB := libposixtrace.so.$(PT_VERSION)
PT_SONAME := libposixtrace.so.$(PT_SOMAJOR)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/posix-trace
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DKMSDIR ?= /usr/src/posix-trace-$(PT_VERSION)
UDEVRULESDIR ?= /lib/udev/rules.d
MODDIR ?= /lib/modules/$(KVER)/extra

# Whatever helper D's man/ holds when make runs: pages and .so aliases.
PT_MANPAGES := $(wildcard man/man[1-9]/*.[1-9])
PT_KSRC := $(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h) kmod/Makefile
# Sources only: each says how to build it with pkg-config.
PT_EXAMPLES := $(wildcard examples/*.c)

# ${prefix}-relative paths in the .pc where they are under PREFIX.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

build/posixtrace.pc: packaging/posixtrace.pc.in VERSION FORCE
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(PT_VERSION)|' $< >$@.tmp
	mv $@.tmp $@

build/dkms.conf: packaging/dkms.conf.in VERSION
	@mkdir -p build
	sed -e 's|@VERSION@|$(PT_VERSION)|g' $< >$@

install: libtrace tools build/posixtrace.pc build/dkms.conf
	test -f libtrace/$(PT_LIB) || { echo "libtrace/$(PT_LIB) missing: VERSION and libtrace disagree" >&2; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(DKMSDIR)/kmod $(DESTDIR)$(DKMSDIR)/include/uapi/linux \
		$(DESTDIR)$(DKMSDIR)/include/posix_trace \
		$(DESTDIR)$(UDEVRULESDIR)
	install -m 755 libtrace/$(PT_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(PT_LIB) $(DESTDIR)$(LIBDIR)/$(PT_SONAME)
	ln -sf $(PT_SONAME) $(DESTDIR)$(LIBDIR)/libposixtrace.so
	install -m 644 libtrace/libposixtrace.a $(DESTDIR)$(LIBDIR)/
	install -m 644 include/trace.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 include/uapi/linux/posix_trace.h include/uapi/linux/posix_trace_log.h \
		include/uapi/linux/posix_trace_kernel.h $(DESTDIR)$(INCLUDEDIR)/linux/
	install -m 644 build/posixtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(MAKE) -C tools/posix-trace posix-trace.dist
	install -m 755 tools/posix-trace/posix-trace.dist $(DESTDIR)$(BINDIR)/posix-trace
	install -m 644 $(PT_EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/
	set -e; for f in $(PT_MANPAGES); do \
		install -d $(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$f)); \
		cp -P $$f $(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$f))/; \
	done
	install -m 644 $(PT_KSRC) $(DESTDIR)$(DKMSDIR)/kmod/
	install -m 644 include/uapi/linux/posix_trace.h include/uapi/linux/posix_trace_log.h \
		include/uapi/linux/posix_trace_kernel.h $(DESTDIR)$(DKMSDIR)/include/uapi/linux/
	install -m 644 include/posix_trace/ring.h include/posix_trace/merge.h $(DESTDIR)$(DKMSDIR)/include/posix_trace/
	install -m 644 VERSION build/dkms.conf $(DESTDIR)$(DKMSDIR)/
	install -m 644 packaging/60-posix-trace.rules $(DESTDIR)$(UDEVRULESDIR)/
ifeq ($(DESTDIR),)
	ldconfig
	-udevadm control --reload 2>/dev/null
	if command -v dkms >/dev/null; then \
		dkms install -m posix-trace -v $(PT_VERSION) -k $(KVER); \
	else \
		$(MAKE) --no-print-directory install-module; \
	fi
endif

# The module built in kmod/, without DKMS (rebuild it for each new kernel).
install-module: kmod
	install -d $(DESTDIR)$(MODDIR)
	install -m 644 kmod/posix_trace.ko $(DESTDIR)$(MODDIR)/
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

uninstall:
ifeq ($(DESTDIR),)
	if command -v dkms >/dev/null && dkms status -m posix-trace -v $(PT_VERSION) | grep -q .; then \
		dkms remove -m posix-trace -v $(PT_VERSION) --all; \
	fi
endif
	rm -f $(DESTDIR)$(LIBDIR)/$(PT_LIB) $(DESTDIR)$(LIBDIR)/$(PT_SONAME) \
		$(DESTDIR)$(LIBDIR)/libposixtrace.so $(DESTDIR)$(LIBDIR)/libposixtrace.a \
		$(DESTDIR)$(INCLUDEDIR)/trace.h $(DESTDIR)$(INCLUDEDIR)/linux/posix_trace.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/posix_trace_log.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/posix_trace_kernel.h \
		$(DESTDIR)$(PKGCONFIGDIR)/posixtrace.pc $(DESTDIR)$(BINDIR)/posix-trace \
		$(DESTDIR)$(UDEVRULESDIR)/60-posix-trace.rules $(DESTDIR)$(MODDIR)/posix_trace.ko
	rm -f $(foreach f,$(PT_MANPAGES),$(DESTDIR)$(MANDIR)/$(notdir $(patsubst %/,%,$(dir $(f))))/$(notdir $(f)))
	rm -rf $(DESTDIR)$(DKMSDIR) $(DESTDIR)$(DOCDIR)
ifeq ($(DESTDIR),)
	depmod -a $(KVER) 2>/dev/null || true
	ldconfig
endif

FORCE:

.PHONY: install install-module uninstall FORCE
