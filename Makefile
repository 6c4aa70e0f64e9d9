# tpoint - GNU make, no autotools.
#   make                 library (shared + static), the tpoint tool, the examples (one job
#                        per CPU unless -jN says otherwise)
#   make check           build and run the unit and integration tests, one per CPU at once
#                        (make check -j2: two); SANITIZE=1 builds with ASan+UBSan
#   make check-stress    the same tests' long loops: 100k jump-label switches, the fuzzers for a
#                        minute each, thousands of spool mutations, the whole build matrix...
#   make check-busy      make check -j2 beside two busy loops: no test may fail on a busy machine
#   make check-private   the tests run as another user, from a copy of the tree in a 0700 directory
#   make check-tsan      the concurrency tests under ThreadSanitizer (clang), in build-tsan/
#   make check-usdt-stress  bpftrace attached and detached 50 times under load (USDT probes;
#                        part of check-stress)
#   make check-install   install into a scratch prefix; build, link and run programs against it
#   make check-arm64     the C tests cross-built for arm64, run under qemu-user
#   make fuzz            the readers of untrusted input under libFuzzer, 300 s each (clang)
#   make demo            record the writeback example and show what it recorded
#   make bench           the hot-path benchmarks (timings, never part of check)
#   make bench-peers     tpoint next to LTTng-UST and USDT, in one run (docs/PERFORMANCE.md)
#   make install PREFIX=DIR
# One job per CPU unless a -j is given (the command line's wins): a build and a test run
# on a 2-CPU machine spent a minute of make check building one file at a time.
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
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
export TPOINT_TEST_TIMEOUT ?= 1800
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
# Link sets: the parts of lib/ that go together, each named once, used by the tool, the unit
# tests that link modules alone, and the fuzzers (FUZZ_SRC_*, below).
CRC32C_SRC := lib/crc32c.c lib/arch/crc32c_x86_64.c lib/arch/crc32c_aarch64.c
PACK_SRC := lib/pack.c lib/arch/pack_x86_64.c
# The page pool with what it logs, times and creates files with.
POOL_SRC := lib/pool.c lib/log.c lib/clock.c lib/ownfile.c
# What a test program that writes spools links for their checksums (lib/spool_read.h).
SPOOL_CRC_SRC := lib/spool_read.c $(CRC32C_SRC) $(PACK_SRC) lib/ringbuf.c
# The format builder, with the record reader and the print fmt check.
FORMAT_SRC := lib/format.c lib/meta_read.c lib/print_fmt_check.c
# The filter: its parser, its compiler and its evaluator.
FILTER_SRC := lib/filter.c lib/filter_parse.c lib/filter_eval.c
# The histograms (hist: triggers): parser, table, printers; they compile filters.
HIST_SRC := lib/hist_parse.c lib/hist_parse_field.c lib/hist_parse_vars.c lib/hist_table.c lib/hist_print.c lib/hist_json.c lib/hist_synth.c lib/hist_vars.c lib/hist_set.c lib/hist_latency.c
# The tool reads and writes files; it links only the parts of the library it needs, so
# that it never starts a recording of its own.
FMT_SRC := $(wildcard lib/fmt/*.c)
FMT_OBJ := $(FMT_SRC:%.c=$(O)/%.o)
# The trace.dat writer's stages (lib/tracedat_writer.h), besides tracedat.o itself.
TRACEDAT_OBJ := $(patsubst %.c,$(O)/%.o,$(filter-out lib/tracedat_v7.c,$(wildcard lib/tracedat_*.c)))
TOOL_LIB_OBJ := $(FMT_OBJ) $(FORMAT_SRC:%.c=$(O)/%.o) $(O)/lib/tracedat.o $(TRACEDAT_OBJ) $(O)/lib/tracedat_v7.o $(O)/lib/codec.o $(O)/lib/spool_read.o $(O)/lib/ringbuf.o \
		$(O)/lib/clock.o $(PACK_SRC:%.c=$(O)/%.o) $(O)/lib/poolsize.o \
		$(O)/lib/salvage.o $(O)/lib/handover.o $(O)/lib/log.o $(O)/lib/ownfile.o $(O)/lib/outplace.o \
		$(FILTER_SRC:%.c=$(O)/%.o) $(HIST_SRC:%.c=$(O)/%.o) $(O)/lib/globs.o $(CRC32C_SRC:%.c=$(O)/%.o)
TOOL_LIB_SRC = $(patsubst $(O)/%.o,%.c,$(TOOL_LIB_OBJ))
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

# The user stack walk starts in its own functions' frames: they keep their frame pointers
# whatever CFLAGS say (lib/ustack.c).
$(O)/lib/ustack.o $(O)/lib/ustack_record.o: LIB_CFLAGS += -fno-omit-frame-pointer

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
		$(O)/tests/toptarget $(O)/tests/owcwriter \
		$(O)/tests/fntarget \
		$(O)/tests/usdttarget $(O)/tests/usdttarget_jump \
		$(O)/tests/convtarget $(O)/tests/trigtarget $(O)/tests/lattarget \
		$(O)/tests/hlattarget $(O)/tests/ustacktarget $(O)/tests/snaptarget $(O)/tests/onofftarget

$(O)/tests/ctltarget: tests/ctltarget.c tests/trace/events/tpt_ctl.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# Jump-label call sites: enable_event must patch detail's (tests/trigger_onoff.sh).
$(O)/tests/onofftarget: tests/onofftarget.c tests/trace/events/tpt_onoff.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -DTPOINT_JUMP_LABEL -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/trigtarget: tests/trigtarget.c tests/trace/events/tpt_trig.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

$(O)/tests/snaptarget: tests/snaptarget.c tests/trace/events/tpt_snap.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# Opens, appends to and closes a file in a loop, for tests/top_names.sh.
$(O)/tests/owcwriter: tests/owcwriter.c | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ $<

# Dirties files and hits an event at known rates, for tests/top.sh.
$(O)/tests/toptarget: tests/toptarget.c tests/trace/events/tpt_ctl.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread
# USDT probes in the program, in a linked library and in a dlopened one (tests/usdt.sh).
USDT_DEPS := tests/usdttarget.c tests/trace/events/tpt_usdt.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) $(O)/tests/libtp_jumplib.so
$(O)/tests/usdttarget: $(USDT_DEPS) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< -L$(O)/tests -ltp_jumplib $(INSTR_LDFLAGS) -lpthread -ldl
$(O)/tests/usdttarget_jump: $(USDT_DEPS) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -DTPOINT_JUMP_LABEL -Itests -o $@ $< -L$(O)/tests -ltp_jumplib $(INSTR_LDFLAGS) -lpthread -ldl
# A known call chain whose user stacks are recorded, with frame pointers (tests/ustack.sh).
$(O)/tests/ustacktarget: tests/ustacktarget.c tests/trace/events/tpt_ustack.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -fno-omit-frame-pointer -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread
# Every kind of field, for tests/convert.sh.
$(O)/tests/convtarget: tests/convtarget.c tests/trace/events/tpt_conv.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# Requests with known delays, for tests/report_latency.sh.
$(O)/tests/lattarget: tests/lattarget.c tests/trace/events/tpt_lat.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -o $@ $< $(INSTR_LDFLAGS) -lpthread

# Requests begun on one thread and ended on another, for tests/trigger_latency.sh.
$(O)/tests/hlattarget: tests/hlattarget.c tests/trace/events/tpt_hlat.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) $(SHLIB) | $(O)/tests
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

# Fake peers of the control channel: lying listeners, stuck clients, a hand-made spool.
$(O)/tests/ctlfake: tests/ctlfake.c lib/fmt/control_msg.h lib/spool_format.h $(SPOOL_CRC_SRC) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ $< $(SPOOL_CRC_SRC)

# Damages spools for tests/assemble.sh.
$(O)/tests/spoolmut: tests/spoolmut.c lib/spool_format.h $(SPOOL_CRC_SRC) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ $< $(SPOOL_CRC_SRC)

# The format test links the format builder alone (with the record reader and the print fmt
# check), with its own stand-ins for the runtime.
$(O)/tests/format_test: tests/format_test.c $(FORMAT_SRC) lib/format.h lib/meta_read.h lib/print_fmt_check.h lib/print_fmt_lex.h lib/printf_conv.h lib/growbuf.h $(wildcard include/tpoint/*.h include/tpoint/*/*.h) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Iexamples -o $@ tests/format_test.c $(FORMAT_SRC)

# The filter test links the filter alone: its compiler and its evaluator.
$(O)/tests/filter_test: tests/filter_test.c $(FILTER_SRC) lib/filter.h lib/filter_parse.h lib/filter_program.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/filter_test.c $(FILTER_SRC)

# The histogram test links the histograms alone, with the filter they compile.
$(O)/tests/hist_test: tests/hist_test.c tests/testutil.h $(HIST_SRC) $(FILTER_SRC) lib/hist.h lib/filter.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/hist_test.c $(HIST_SRC) $(FILTER_SRC) -lpthread

# Variables, onmatch() and synthetic events: the histograms alone too, threads racing.
$(O)/tests/hist_vars_test: tests/hist_vars_test.c tests/testutil.h $(HIST_SRC) $(FILTER_SRC) lib/hist.h lib/hist_set.h lib/hist_vars.h lib/hist_parse.h lib/filter.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/hist_vars_test.c $(HIST_SRC) $(FILTER_SRC) -lpthread

# A synthetic event's records and format (lib/synth_format.c), through the format builder.
$(O)/tests/synth_format_test: tests/synth_format_test.c tests/testutil.h lib/synth_format.c lib/synth_format.h $(FORMAT_SRC) $(HIST_SRC) $(FILTER_SRC) lib/hist_set.h lib/format.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/synth_format_test.c lib/synth_format.c $(FORMAT_SRC) $(HIST_SRC) $(FILTER_SRC) -lpthread

# The queue of a thread's synthetic records, alone (a header).
$(O)/tests/synth_pending_test: tests/synth_pending_test.c tests/testutil.h lib/synth_pending.h lib/hist_set.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/synth_pending_test.c

# The output placement's test links it alone, with the directory walk it stands on.
$(O)/tests/outplace_test: tests/outplace_test.c tests/testutil.h lib/outplace.c lib/outplace.h lib/ownfile.c lib/ownfile.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/outplace_test.c lib/outplace.c lib/ownfile.c

# The name table of tpoint top, alone.
# The names of user stack addresses, alone (tpoint report's user stacks).
$(O)/tests/ustack_names_test: tests/ustack_names_test.c lib/fmt/ustack_names.c lib/fmt/ustack_names.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/ustack_names_test.c lib/fmt/ustack_names.c

$(O)/tests/top_name_table_test: tests/top_name_table_test.c tests/testutil.h tools/tpoint/top_name_table.c tools/tpoint/top_name_table.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -Itools/tpoint -o $@ tests/top_name_table_test.c tools/tpoint/top_name_table.c

# The grouping of tpoint top's dirty rows, alone.
$(O)/tests/top_group_test: tests/top_group_test.c tests/testutil.h tools/tpoint/top_group.c tools/tpoint/top_group.h tools/tpoint/top_dirty.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Itests -Itools/tpoint -o $@ tests/top_group_test.c tools/tpoint/top_group.c

# The glob test links the glob matcher alone.
# The walk and the trigger's hidden call, reached through the archive (tests/ustack_test.c).
$(O)/tests/ustack_test: tests/ustack_test.c lib/ustack.h $(STLIB) | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -fno-omit-frame-pointer -Ilib -o $@ $< $(STLIB) -lpthread
$(O)/tests/snapshot_fired_test: tests/snapshot_fired_test.c tests/testutil.h lib/fmt/snapshot_fired.c lib/fmt/snapshot_fired.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/snapshot_fired_test.c lib/fmt/snapshot_fired.c
$(O)/tests/tracing_windows_test: tests/tracing_windows_test.c tests/testutil.h lib/fmt/tracing_windows.c lib/fmt/tracing_windows.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/tracing_windows_test.c lib/fmt/tracing_windows.c
$(O)/tests/tracing_on_test: tests/tracing_on_test.c tests/testutil.h lib/tracing_on.c lib/tracing_on.h lib/log.c | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/tracing_on_test.c lib/tracing_on.c lib/log.c -lpthread
$(O)/tests/procmaps_test: tests/procmaps_test.c lib/procmaps.c lib/procmaps.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/procmaps_test.c lib/procmaps.c
$(O)/tests/globs_test: tests/globs_test.c lib/globs.c lib/globs.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/globs_test.c lib/globs.c

# The selection test links the selection rules alone, with the glob matcher they use.
$(O)/tests/selection_test: tests/selection_test.c lib/fmt/selection.c lib/fmt/selection.h lib/globs.c lib/globs.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/selection_test.c lib/fmt/selection.c lib/globs.c

# The record codec's test links the codec alone.
$(O)/tests/rb_record_test: tests/rb_record_test.c tests/testutil.h lib/fmt/rb_record.c lib/fmt/rb_record.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/rb_record_test.c lib/fmt/rb_record.c

# The merge's test links the merge alone.
$(O)/tests/merge_test: tests/merge_test.c tests/testutil.h lib/fmt/merge.c lib/fmt/merge.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/merge_test.c lib/fmt/merge.c

# The control protocol's test links its messages alone.
$(O)/tests/control_msg_test: tests/control_msg_test.c lib/fmt/control_msg.c lib/fmt/control_msg.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/control_msg_test.c lib/fmt/control_msg.c

# The tracefs format-text test links that reader alone.
$(O)/tests/tracefs_format_test: tests/tracefs_format_test.c lib/fmt/tracefs_format.c lib/fmt/tracefs_format.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/tracefs_format_test.c lib/fmt/tracefs_format.c

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
$(O)/tests/crc32c_test: tests/crc32c_test.c $(CRC32C_SRC) lib/crc32c.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/crc32c_test.c $(CRC32C_SRC)

# The packing test links the page packer alone.
$(O)/tests/pack_test: tests/pack_test.c $(PACK_SRC) lib/pack.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/pack_test.c $(PACK_SRC)

# The pool test links the page pool alone.
$(O)/tests/pool_test: tests/pool_test.c $(POOL_SRC) lib/pool.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -o $@ tests/pool_test.c $(POOL_SRC) -lpthread

# The stalled-producer test includes lib/pool.c, to hold a cell of its queue as a producer would.
$(O)/tests/pool_stall_test: tests/pool_stall_test.c $(POOL_SRC) lib/pool.h | $(O)/tests
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -Ilib -Itests -o $@ tests/pool_stall_test.c \
		$(filter-out lib/pool.c,$(POOL_SRC)) -lpthread

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

# make check TESTS='tests/top.sh build/tests/krecord_test' runs those only.
# The longest first (the fuzzers, the report suite, the build matrix), so that the run does
# not end waiting on one of them.
LONG_TESTS := $(wildcard tests/*/run.sh) tests/build_matrix.sh
TESTS ?= $(LONG_TESTS) $(TEST_BIN) $(filter-out tests/run.sh $(LONG_TESTS),$(wildcard tests/*.sh))
# Tests at once: the -j given to make (make check -j2), else one per CPU. Tests that must not
# run beside each other say so ("tpoint-test: serial", tests/run.sh): they run one by one in
# one of those places, beside the others.
CHECK_JOBS = $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),$(shell nproc 2>/dev/null),1)
RUN_TESTS = O=$(O) TPOINT=$(abspath $(TOOL)) sh tests/run.sh -j $(CHECK_JOBS)
check: all $(TEST_BIN) $(TEST_LIBS) $(TEST_HELPERS)
	@$(RUN_TESTS) $(TESTS)

# The stress tier: the tests with long loops, run long (TPOINT_TEST_STRESS=1: jump_test's
# 100,000 switches, assemble.sh's thousand damaged spools, report's truncations at every
# byte, 50 bpftrace rounds a kind of USDT site, every build of the matrix, the fuzzers
# FUZZ_SECONDS each). make check runs the same tests short: what they test, in seconds.
STRESS_TESTS := $(O)/tests/jump_test tests/assemble.sh tests/report/run.sh tests/usdt_stress.sh \
		tests/build_matrix.sh tests/fuzz/run.sh
check-stress: all $(TEST_BIN) $(TEST_LIBS) $(TEST_HELPERS)
	@TPOINT_TEST_STRESS=1 FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) TPOINT_TEST_TIMEOUT=1800 \
		$(RUN_TESTS) $(STRESS_TESTS)

# make check -j2 beside two busy loops (scripts/check-busy.sh): a test that fails on a busy
# machine waited for a rate, not for what it wanted to see.
check-busy:
	@sh scripts/check-busy.sh $(if $(SANITIZE),SANITIZE=$(SANITIZE)) $(if $(filter command line,$(origin TESTS)),TESTS='$(TESTS)')

# The tests that run programs as another user, from a copy of this tree placed where that
# user cannot reach it (a directory of mode 0700, as a private home is): they must stage
# what the user runs, never rely on the tree being readable (scripts/check-private.sh).
USER_TESTS := tests/attach_root.sh tests/ps_root.sh tests/top.sh tests/control.sh \
	      $(O)/tests/krecord_test
check-private:
	@sh scripts/check-private.sh $(USER_TESTS)

# tests/usdt_stress.sh with the 50 bpftrace attach/detach rounds per kind of site of issue 24
# (make check runs 2: each takes ~2.5 s), alone of the stress tier.
check-usdt-stress: all $(TEST_LIBS) $(TEST_HELPERS)
	@TPOINT_TEST_STRESS=1 TPOINT_TEST_TIMEOUT=1200 $(RUN_TESTS) tests/usdt_stress.sh

# The tests of threads, signals, fork, dlopen, the control socket and jump-label patching,
# under ThreadSanitizer, in build-tsan/ (TPOINT_TSAN_QUICK: fewer iterations, TSan is slow).
# die_after_fork=0: a forked child of a recording process starts its own drain thread, which
# TSan refuses by default after a fork of a threaded process.
TSAN_TESTS := $(addprefix $(O)/tests/,stress_test signal_test fork_test dlopen_test \
		ctlstress_test jump_test c11_jump_test nest_test block_test flush_test \
		filter_reclaim_test hist_test hist_vars_test trigger_test trigger_linked_test)
check-tsan:
	@$(MAKE) --no-print-directory TSAN=1 tsan-run

tsan-run: all $(TSAN_TESTS) $(TEST_LIBS) $(TEST_HELPERS)
	@TPOINT_TSAN_QUICK=1 \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 die_after_fork=0 suppressions=$(abspath tests/tsan.supp)" \
	$(RUN_TESTS) $(TSAN_TESTS)

# make install into a scratch prefix, and programs built against it (scripts/check-install.sh).
check-install: all
	@sh scripts/check-install.sh

# libFuzzer on what reads untrusted bytes (tests/fuzz/run.sh; make check runs each for 1 s,
# its seeds first, check-stress for 60): FUZZ_SECONDS each (300), FUZZ=NAME... for some of
# them (filter pack spool elf tracedat). What the fuzzers find stays in $(O)/fuzz/NAME/
# (corpus/: the inputs grown, the next run goes on from them; artifacts/: the reproducers).
# What each links, the harness aside (run.sh reads these from the environment):
export FUZZ_SRC_filter := $(FILTER_SRC)
export FUZZ_SRC_pack := $(PACK_SRC)
export FUZZ_SRC_rb_record := lib/fmt/rb_record.c
export FUZZ_SRC_control := lib/fmt/control_msg.c
export FUZZ_SRC_tracefs := lib/fmt/tracefs_format.c
export FUZZ_SRC_hist := $(HIST_SRC) $(FILTER_SRC)
# The tool's part of the library; spool_fuzz.c includes lib/tracedat.c itself (its mappings
# become heap copies).
export FUZZ_SRC_spool = $(filter-out lib/tracedat.c lib/tracedat_ingest.c,$(TOOL_LIB_SRC)) \
		tools/tpoint/tracedat_read.c tools/tpoint/tracedat_v7read.c tools/tpoint/tracedat_v7copy.c tools/tpoint/tracedat_v7bytes.c
export FUZZ_SRC_elf := tools/tpoint/list.c tools/tpoint/control_client.c tools/tpoint/glob.c \
		tools/tpoint/options.c \
		tools/tpoint/escape.c lib/globs.c $(FMT_SRC) $(FORMAT_SRC)
export FUZZ_SRC_tracedat := tools/tpoint/tracedat_read.c tools/tpoint/tracedat_v7read.c \
		tools/tpoint/tracedat_v7copy.c tools/tpoint/tracedat_v7bytes.c lib/codec.c \
		tools/tpoint/report.c tools/tpoint/render.c tools/tpoint/kprint.c tools/tpoint/tep_guard.c \
		tools/tpoint/convert_input.c tools/tpoint/json.c tools/tpoint/escape.c \
		tools/tpoint/td_merge.c tools/tpoint/options.c lib/globs.c $(FMT_SRC) \
		tools/tpoint/report_select.c tools/tpoint/select.c tools/tpoint/control_client.c \
		tools/tpoint/glob.c $(FILTER_SRC) \
		tools/tpoint/report_hist.c tools/tpoint/hist_fields.c $(HIST_SRC) \
		tools/tpoint/ustack_sym.c
fuzz: all
	@mkdir -p $(O)/fuzz
	@TPOINT_TEST_TMP=$(abspath $(O)/fuzz) FUZZ_SECONDS=$(or $(FUZZ_SECONDS),300) O=$(O) \
		TPOINT=$(abspath $(TOOL)) sh tests/fuzz/run.sh $(FUZZ)

# Each set above, as shell assignments (tests/fuzz/run.sh run by hand asks for them).
fuzz-sets:
	@$(foreach n,filter pack rb_record control tracefs hist spool elf tracedat,echo "FUZZ_SRC_$(n)='$(FUZZ_SRC_$(n))'";)

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

.PHONY: all deps check check-stress check-busy fuzz-sets check-private check-usdt-stress check-install check-tsan tsan-run check-arm64 fuzz demo bench bench-peers install clean
