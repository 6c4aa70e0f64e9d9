# tpoint - GNU make, no autotools.
#   make                 library (shared + static), the tpoint tool, the examples
#   make check           build and run every test; SANITIZE=1 builds with ASan+UBSan
#   make check-private   the tests run as another user, from a copy of the tree in a 0700 directory
#   make check-tsan      the concurrency tests under ThreadSanitizer (clang), in build-tsan/
#   make check-usdt-stress  bpftrace attached and detached 50 times under load (USDT probes)
#   make check-install   install into a scratch prefix; build, link and run programs against it
#   make check-arm64     the C tests cross-built for arm64, run under qemu-user
#   make fuzz            the readers of untrusted input under libFuzzer, 300 s each (clang)
#   make demo            record the writeback example and show what it recorded
#   make bench           the hot-path benchmarks (timings, never part of check)
#   make bench-peers     tpoint next to LTTng-UST and USDT, in one run (docs/PERFORMANCE.md)
#   make install PREFIX=DIR
VERSION := 0.1.0
ABI_MAJOR := 1
PREFIX ?= /usr/local
CC ?= cc
CXX ?= c++
O := build

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
ifeq ($(SANITIZE),1)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
O := build-san
# ASan makes the stress and report tests 3-5 times slower (stress_test: 3 min alone here).
export TPOINT_TEST_TIMEOUT ?= 600
endif
# ThreadSanitizer (make check-tsan): clang's. gcc's refuses the seqlock's fences
# (-Werror=tsan: it cannot model atomic_thread_fence; nor can clang's, which says nothing:
# tests/tsan.supp names the races that the fences order).
ifeq ($(TSAN),1)
CC := clang
CXX := clang++
SAN := -fsanitize=thread -fno-omit-frame-pointer
O := build-tsan
endif
# -MMD -MP: each compile writes the headers it read beside its output (.d), included below,
# so that a change to any header rebuilds what read it.
DEPFLAGS := -MMD -MP
BASE_CFLAGS := -std=gnu11 $(WARN) $(SAN) $(DEPFLAGS) -Iinclude -DTPOINT_VERSION='"$(VERSION)"'
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden -Ilib
# The tool reads trace.dat with libtraceevent, and the kernel's events (record -k, top) with
# libtracefs (tools/tpoint/kinstance.c).
TRACEEVENT_CFLAGS = $(shell pkg-config --cflags libtraceevent libtracefs 2>/dev/null)
TRACEEVENT_LIBS = $(shell pkg-config --libs libtraceevent libtracefs 2>/dev/null) -lpthread
# tpoint top's screen with ncurses: its flags only for top's files, since ncursesw's
# -D_XOPEN_SOURCE=600 would hide POSIX.1-2008 from the others.
TOP_CFLAGS = $(shell pkg-config --cflags ncursesw 2>/dev/null)
TOP_LIBS = $(shell pkg-config --libs ncursesw 2>/dev/null)

# Every file of lib/ is the runtime; lib/fmt/ holds the formats, shared with the tool.
LIB_SRC := $(wildcard lib/*.c lib/arch/*.c lib/fmt/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
# The tool reads and writes files; it links only the parts of the library it needs, so
# that it never starts a recording of its own.
FMT_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard lib/fmt/*.c))
TOOL_LIB_OBJ := $(FMT_OBJ) $(O)/lib/format.o $(O)/lib/tracedat.o $(O)/lib/tracedat_v7.o $(O)/lib/codec.o $(O)/lib/spool_read.o $(O)/lib/ringbuf.o \
		$(O)/lib/clock.o $(O)/lib/pack.o $(O)/lib/arch/pack_x86_64.o $(O)/lib/poolsize.o \
		$(O)/lib/salvage.o $(O)/lib/handover.o $(O)/lib/log.o $(O)/lib/ownfile.o \
		$(O)/lib/filter.o $(O)/lib/globs.o $(O)/lib/crc32c.o $(O)/lib/arch/crc32c_x86_64.o \
		$(O)/lib/arch/crc32c_aarch64.o
TOOL_SRC := $(wildcard tools/tpoint/*.c)
TOOL_OBJ := $(TOOL_SRC:%.c=$(O)/%.o)

SONAME := libtpoint.so.$(ABI_MAJOR)
SHLIB := $(O)/$(SONAME)
STLIB := $(O)/libtpoint.a
TOOL := $(O)/tpoint
EXAMPLES := $(O)/examples/writeback $(O)/examples/hello $(O)/examples/sample
DEPS_OK := $(O)/.deps-ok

all: $(SHLIB) $(STLIB) $(TOOL) $(EXAMPLES)

deps: $(DEPS_OK)
$(DEPS_OK):
	@scripts/deps.sh
	@mkdir -p $(O) && touch $@

$(O)/lib/%.o: lib/%.c $(wildcard lib/*.h lib/fmt/*.h include/tpoint/*.h include/tpoint/*/*.h) | $(O)/lib/arch $(O)/lib/fmt
	$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(SHLIB): $(LIB_OBJ) lib/libtpoint.map
	$(CC) $(CFLAGS) $(SAN) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libtpoint.map \
		-o $@ $(LIB_OBJ) -lpthread
	ln -sf $(SONAME) $(O)/libtpoint.so

$(STLIB): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

$(O)/tools/tpoint/%.o: tools/tpoint/%.c $(wildcard tools/tpoint/*.h lib/*.h include/tpoint/*.h) $(DEPS_OK) | $(O)/tools/tpoint
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itools/tpoint $(TRACEEVENT_CFLAGS) $(TOOL_EXTRA_CFLAGS) -c $< -o $@
$(O)/tools/tpoint/top%.o: TOOL_EXTRA_CFLAGS = $(TOP_CFLAGS)

$(TOOL): $(TOOL_OBJ) $(TOOL_LIB_OBJ)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(TRACEEVENT_LIBS) $(TOP_LIBS)

# Programs with tracepoints link the shared library and find it beside them.
INSTR_LDFLAGS = -L$(O) -ltpoint -Wl,-rpath,'$$ORIGIN/..' -Wl,-rpath,'$$ORIGIN'

$(O)/examples/%: examples/%.c $(wildcard examples/*.h examples/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/examples
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Iexamples -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/lib/arch $(O)/lib/fmt $(O)/tools/tpoint $(O)/examples $(O)/tests:
	mkdir -p $@

# ---- tests ----
TEST_C := $(wildcard tests/*_test.c)
TEST_CXX := $(wildcard tests/*_test.cc)
TEST_BIN := $(TEST_C:tests/%.c=$(O)/tests/%) $(TEST_CXX:tests/%.cc=$(O)/tests/%)
# The ISO C11 and C++ tests again, with jump-label call sites.
TEST_BIN += $(O)/tests/c11_jump_test $(O)/tests/cxx_jump_test
TEST_LIBS := $(O)/tests/libtp_plugin.so $(O)/tests/libtp_jumplib.so
# Programs the shell tests run: traced from outside, so not tests themselves.
TEST_HELPERS := $(O)/tests/ctltarget $(O)/tests/ctlfake $(O)/tests/spoolmut $(O)/tests/fmttarget \
		$(O)/tests/toptarget \
		$(O)/tests/fntarget \
		$(O)/tests/usdttarget $(O)/tests/usdttarget_jump \
		$(O)/tests/convtarget

$(O)/tests/ctltarget: tests/ctltarget.c tests/trace/events/tpt_ctl.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# Dirties files and hits an event at known rates, for tests/top.sh.
$(O)/tests/toptarget: tests/toptarget.c tests/trace/events/tpt_ctl.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread
# USDT probes in the program, in a linked library and in a dlopened one (tests/usdt.sh).
USDT_DEPS := tests/usdttarget.c tests/trace/events/tpt_usdt.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) $(O)/tests/libtp_jumplib.so
$(O)/tests/usdttarget: $(USDT_DEPS) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< -L$(O)/tests -ltp_jumplib $(INSTR_LDFLAGS) -lpthread -ldl
$(O)/tests/usdttarget_jump: $(USDT_DEPS) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -DTPOINT_JUMP_LABEL -Itests -o $@ $< -L$(O)/tests -ltp_jumplib $(INSTR_LDFLAGS) -lpthread -ldl
# Every kind of field, for tests/convert.sh.
$(O)/tests/convtarget: tests/convtarget.c tests/trace/events/tpt_conv.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# An event libtraceevent cannot print safely, for tests/render.sh.
$(O)/tests/fmttarget: tests/fmttarget.c tests/trace/events/tpt_unsafe.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# The tool's kernel text for libtraceevent's helpers (tools/tpoint/kprint.c), alone.
$(O)/tests/kprint_test: tests/kprint_test.c tools/tpoint/kprint.c tools/tpoint/kprint.h tests/testutil.h $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -Ilib -Itools/tpoint $(TRACEEVENT_CFLAGS) -o $@ tests/kprint_test.c \
		tools/tpoint/kprint.c $(TRACEEVENT_LIBS) $(INSTR_LDFLAGS) -lpthread

# A TRACE_EVENT_FN whose reg()/unreg() it counts, for tests/fn_control.sh.
$(O)/tests/fntarget: tests/fntarget.c tests/trace/events/tpt_fn.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# What a test program that writes spools links for their checksums (lib/spool_read.h).
SPOOL_CRC_SRC := lib/spool_read.c lib/crc32c.c lib/arch/crc32c_x86_64.c lib/arch/crc32c_aarch64.c \
		 lib/pack.c lib/arch/pack_x86_64.c lib/ringbuf.c

# Fake peers of the control channel: lying listeners, stuck clients, a hand-made spool.
$(O)/tests/ctlfake: tests/ctlfake.c lib/control_proto.h lib/spool_format.h $(SPOOL_CRC_SRC) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ $< $(SPOOL_CRC_SRC)

# Damages spools for tests/assemble.sh.
$(O)/tests/spoolmut: tests/spoolmut.c lib/spool_format.h $(SPOOL_CRC_SRC) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ $< $(SPOOL_CRC_SRC)

# The format test links the format builder alone, with its own stand-ins for the runtime.
$(O)/tests/format_test: tests/format_test.c lib/format.c lib/format.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Iexamples -o $@ tests/format_test.c lib/format.c

# The filter test links the filter compiler alone.
$(O)/tests/filter_test: tests/filter_test.c lib/filter.c lib/filter.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/filter_test.c lib/filter.c

# The glob test links the glob matcher alone.
$(O)/tests/globs_test: tests/globs_test.c lib/globs.c lib/globs.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/globs_test.c lib/globs.c

# The option tables' parser alone, with the messages it writes (tools/tpoint/options.c).
$(O)/tests/options_test: tests/options_test.c tools/tpoint/options.c tools/tpoint/options.h \
		tools/tpoint/tool_error.c tools/tpoint/tool_error.h tools/tpoint/escape.c \
		tools/tpoint/escape.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itools/tpoint -o $@ tests/options_test.c \
		tools/tpoint/options.c tools/tpoint/tool_error.c tools/tpoint/escape.c

# The size test links the size parser alone (with the log it may write to).
$(O)/tests/poolsize_test: tests/poolsize_test.c lib/poolsize.c lib/poolsize.h lib/log.c | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/poolsize_test.c lib/poolsize.c lib/log.c

# The checksum test links the CRC32C alone.
$(O)/tests/crc32c_test: tests/crc32c_test.c lib/crc32c.c lib/crc32c.h lib/arch/crc32c_x86_64.c lib/arch/crc32c_aarch64.c | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/crc32c_test.c lib/crc32c.c \
		lib/arch/crc32c_x86_64.c lib/arch/crc32c_aarch64.c

# The packing test links the page packer alone.
$(O)/tests/pack_test: tests/pack_test.c lib/pack.c lib/arch/pack_x86_64.c lib/pack.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/pack_test.c lib/pack.c \
		lib/arch/pack_x86_64.c

# The pool test links the page pool alone.
$(O)/tests/pool_test: tests/pool_test.c lib/pool.c lib/log.c lib/clock.c lib/ownfile.c lib/internal.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/pool_test.c lib/pool.c lib/log.c \
		lib/clock.c lib/ownfile.c -lpthread

# The stalled-producer test includes lib/pool.c, to hold a cell of its queue as a producer would.
$(O)/tests/pool_stall_test: tests/pool_stall_test.c lib/pool.c lib/log.c lib/clock.c lib/ownfile.c lib/internal.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/pool_stall_test.c lib/log.c \
		lib/clock.c lib/ownfile.c -lpthread

# Jump-label sites in one file, a load-and-branch site of the same event in the other.
$(O)/tests/jump_test: tests/jump_test.c tests/jump_plain.c $(wildcard tests/*.h tests/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ tests/jump_test.c tests/jump_plain.c $(INSTR_LDFLAGS) -lpthread -ldl

# ISO C11, not gnu11: the headers must not need the GNU dialect.
$(O)/tests/c11_test: tests/c11_test.c $(wildcard tests/*.h examples/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(subst -std=gnu11,-std=c11,$(BASE_CFLAGS)) -Itests -Iexamples -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/c11_jump_test: tests/c11_test.c $(wildcard tests/*.h examples/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(subst -std=gnu11,-std=c11,$(BASE_CFLAGS)) -DTPOINT_JUMP_LABEL -Itests -Iexamples -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/cxx_jump_test: tests/cxx_test.cc $(wildcard tests/*.h tests/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CXX) $(CFLAGS) -std=c++17 $(WARN) $(SAN) $(DEPFLAGS) -DTPOINT_JUMP_LABEL -Iinclude -Itests -Iexamples -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/%_test: tests/%_test.c $(wildcard tests/*.h tests/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -Iexamples -Ilib -o $@ $< $(INSTR_LDFLAGS) -lpthread -ldl

$(O)/tests/%_test: tests/%_test.cc $(wildcard tests/*.h tests/trace/events/*.h include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CXX) $(CFLAGS) -std=c++17 $(WARN) $(SAN) $(DEPFLAGS) -Iinclude -Itests -Iexamples -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/lib%.so: tests/%.c $(wildcard tests/trace/events/*.h include/tpoint/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -fPIC -shared -Itests -o $@ $< -L$(O) -ltpoint

# make check TESTS='tests/top.sh build/tests/krecord_test' runs those alone.
TESTS ?= $(TEST_BIN) $(filter-out tests/run.sh,$(wildcard tests/*.sh)) $(wildcard tests/*/run.sh)
check: all $(TEST_BIN) $(TEST_LIBS) $(TEST_HELPERS)
	@O=$(O) TPOINT=$(abspath $(TOOL)) sh tests/run.sh -j $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),1) $(TESTS)

# The tests that run programs as another user, from a copy of this tree placed where that
# user cannot reach it (a directory of mode 0700, as a private home is): they must stage
# what the user runs, never rely on the tree being readable (scripts/check-private.sh).
USER_TESTS := tests/attach_root.sh tests/ps_root.sh tests/top.sh tests/control.sh \
	      $(O)/tests/krecord_test
check-private:
	@sh scripts/check-private.sh $(USER_TESTS)

# tests/usdt_stress.sh with the 50 bpftrace attach/detach rounds per kind of site of issue 24
# (make check runs 5: each takes ~2.5 s).
check-usdt-stress: all $(TEST_LIBS) $(TEST_HELPERS)
	@USDT_STRESS_ROUNDS=50 TPOINT_TEST_TIMEOUT=1200 O=$(O) TPOINT=$(abspath $(TOOL)) \
		sh tests/run.sh tests/usdt_stress.sh

# The tests of threads, signals, fork, dlopen, the control socket and jump-label patching,
# under ThreadSanitizer, in build-tsan/ (TPOINT_TSAN_QUICK: fewer iterations, TSan is slow).
# die_after_fork=0: a forked child of a recording process starts its own drain thread, which
# TSan refuses by default after a fork of a threaded process.
TSAN_TESTS := $(addprefix $(O)/tests/,stress_test signal_test fork_test dlopen_test \
		ctlstress_test jump_test c11_jump_test nest_test block_test flush_test \
		filter_reclaim_test)
check-tsan:
	@$(MAKE) --no-print-directory TSAN=1 tsan-run

tsan-run: all $(TSAN_TESTS) $(TEST_LIBS) $(TEST_HELPERS)
	@TPOINT_TSAN_QUICK=1 \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 die_after_fork=0 suppressions=$(abspath tests/tsan.supp)" \
	O=$(O) TPOINT=$(abspath $(TOOL)) sh tests/run.sh $(TSAN_TESTS)

# make install into a scratch prefix, and programs built against it (scripts/check-install.sh).
check-install: all
	@sh scripts/check-install.sh

# libFuzzer on what reads untrusted bytes (tests/fuzz/run.sh; make check runs each for 5 s):
# FUZZ_SECONDS each, FUZZ=NAME... for some of them (filter pack spool elf tracedat). What the
# fuzzers find stays in $(O)/fuzz/NAME/ (corpus/: the inputs grown, the next run goes on from
# them; artifacts/: the reproducers).
FUZZ_SECONDS ?= 300
fuzz:
	@mkdir -p $(O)/fuzz
	@TPOINT_TEST_TMP=$(abspath $(O)/fuzz) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ)

# arm64: cross-built, the C test programs run under qemu-user (scripts/check-arm64.sh).
check-arm64:
	@sh scripts/check-arm64.sh

demo: all
	@sh examples/demo.sh $(O)

bench: all
	@$(MAKE) --no-print-directory -C bench O=$(abspath $(O))

# tpoint next to LTTng-UST and USDT (installs them as root); never part of check.
bench-peers: all
	@$(MAKE) --no-print-directory -C bench/peers O=$(abspath $(O))

install: all
	install -d $(DESTDIR)$(PREFIX)/include/tpoint/stages $(DESTDIR)$(PREFIX)/include/tpoint/arch \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/tpoint/*.h $(DESTDIR)$(PREFIX)/include/tpoint/
	install -m 644 include/tpoint/stages/*.h $(DESTDIR)$(PREFIX)/include/tpoint/stages/
	install -m 644 include/tpoint/arch/*.h $(DESTDIR)$(PREFIX)/include/tpoint/arch/
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtpoint.so
	install -m 644 $(STLIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 docs/man/tpoint.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man/tpoint.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tpoint.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/tpoint.pc
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tpoint-static.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/tpoint-static.pc

clean:
	rm -rf build build-san build-tsan build-clang build-arm64

-include $(shell find $(O) -name '*.d' 2>/dev/null)

.PHONY: all deps check check-private check-usdt-stress check-install check-tsan tsan-run check-arm64 fuzz demo bench bench-peers install clean
