#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/fuzz/run.sh [NAME...] - fuzz what reads untrusted bytes, each for FUZZ_SECONDS:
#	filter		the event filter (lib/filter.c)
#	pack		the packing of spool pages (lib/pack.c and the machine's)
#	rb_record	the strict ring-buffer record decoder (lib/fmt/rb_record.c)
#	spool		the spool reader of `tpoint record --assemble` (lib/tracedat.c)
#	control		the control protocol's messages and the files' counter rows
#			(lib/fmt/control_msg.c)
#	tracefs		the reader of tracefs format text (lib/fmt/tracefs_format.c)
#	hist		the histograms: hist: triggers, their tables and printers (lib/hist_*.c)
#	elf		the ELF reader of `tpoint list` (tools/tpoint/list.c, lib/format.c)
#	tracedat	the trace.dat reader of `tpoint report` (tools/tpoint/tracedat_read.c,
#			and lib/fmt/tracedat_v6_read.c; version 7: tracedat_v7read.c and
#			tracedat_v7copy.c; report.c, render.c; report --json:
#			convert_input.c, json.c), with libtraceevent
# (tests/fuzz/NAME_fuzz.c says what each checks besides not crashing). All of them when no
# NAME is given.
#
# Builds each harness with clang's libFuzzer, ASan and UBSan (all at once, with the
# library files the Makefile's FUZZ_SRC_NAME names), and runs it over its regressions in
# tests/fuzz/NAME_corpus and the seeds it makes with this tree's code: the ELF objects of
# the examples (an object of an older tpoint would be refused before the record parser),
# their spools, packed and not, and their trace.dat files, version 6 and 7. New inputs go
# to the scratch dir, never into the tree. Exit 0 when nothing crashed, leaked or timed out,
# 1 otherwise (the reproducer is named), 77 when clang or libFuzzer is not there (the
# reason on the last line).
#
# Scratch space: $TPOINT_TEST_TMP (tests/run.sh gives each test one), else a temporary dir.
# $O: the build whose examples and tool make the seeds (build).
# FUZZ_SECONDS: the run time of each after its seeds, 1 by default (make check: the seeds
# and regressions replayed, and a second's fuzzing; make check-stress runs each for 60,
# make fuzz for 300).

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-1}
B=$top/${O:-build}
CLANG=${CLANG:-clang}

if [ -n "$TPOINT_TEST_TMP" ]; then
	tmp=$TPOINT_TEST_TMP
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-fuzz.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
fi

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "SKIP: clang is not installed (libFuzzer comes with it)"
	exit 77
fi
# Whether this clang can link a fuzzer at all, told apart from a harness that fails to build.
cat >"$tmp/probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
EOF
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.c" \
	>"$tmp/probe.log" 2>&1; then
	why=$(head -n 1 "$tmp/probe.log")
	echo "SKIP: $CLANG cannot build a libFuzzer program with ASan/UBSan: $why"
	exit 77
fi

# The library files each harness links: the Makefile's link sets (make fuzz-sets), in the
# environment when make runs this, else asked for.
[ -n "${FUZZ_SRC_spool:-}" ] ||
	eval "$(env -u MAKEFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top" fuzz-sets)"

# build NAME [FLAGS...]: build tests/fuzz/NAME_fuzz.c with its link set into $tmp; its
# compiler's messages in $tmp/NAME.build.
build() {
	name=$1
	shift
	eval "srcs=\$FUZZ_SRC_$name"
	(cd "$top" && "$CLANG" -std=gnu11 -g -O1 -Wall -Wextra -Werror \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$top/lib" -I"$top/include" -I"$top/tools/tpoint" \
		-o "$tmp/${name}_fuzz" "$top/tests/fuzz/${name}_fuzz.c" $srcs "$@") \
		>"$tmp/$name.build" 2>&1
}

# fuzz NAME: run the harness built, over its seeds; 0 or 1.
fuzz() {
	name=$1
	if [ ! -x "$tmp/${name}_fuzz" ]; then
		cat "$tmp/$name.build"
		echo "FAIL: the $name fuzz harness does not build"
		return 1
	fi
	mkdir -p "$tmp/$name/corpus" "$tmp/$name/artifacts" "$tmp/$name/seeds"
	# libFuzzer's own exit codes (77 for a crash by default) must not read as a skip here.
	# Its -timeout is wall-clock time an input: 2 s failed on a loaded machine (load 10, an
	# input of milliseconds); 20 s still finds a hang, not a busy neighbour.
	"$tmp/${name}_fuzz" -max_total_time="$secs" -rss_limit_mb=512 -timeout=20 \
		-error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
		-artifact_prefix="$tmp/$name/artifacts/" \
		"$tmp/$name/corpus" "$tmp/$name/seeds" $(ls -d "$here/${name}_corpus" 2>/dev/null) \
		>"$tmp/$name/fuzz.log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' \
		"$tmp/$name/fuzz.log"
	if [ $rc -ne 0 ]; then
		tail -n 40 "$tmp/$name/fuzz.log"
		for a in "$tmp/$name"/artifacts/*; do
			[ -e "$a" ] || continue
			echo "reproducer: $a"
			od -c "$a" | head -n 8
		done
		echo "FAIL: the $name fuzzer stopped with status $rc"
		return 1
	fi
	echo "$name fuzz: no crash, leak or timeout in ${secs}s" \
	     "($(ls "$tmp/$name/corpus" | wc -l) new inputs)"
}

# The ELF seeds: the examples' objects, built with the current headers.
elf_seeds() {
	d=$tmp/elf/seeds
	mkdir -p "$d"
	for e in hello writeback; do
		"$CLANG" -std=gnu11 -O2 -I"$top/include" -I"$top/examples" -c \
			"$top/examples/$e.c" -o "$d/$e.o" || { echo "FAIL: the seed $e.o does not build"; return 1; }
	done
}

# The spool and trace.dat seeds: the examples recorded by this build, spools packed (the
# default) and not, one of two processes laid end to end (spool_fuzz.c), the files as
# version 6 and 7. Without the build (make all), the regressions alone.
record_seeds() {
	[ -x "$B/examples/hello" ] && [ -x "$B/examples/writeback" ] && [ -x "$B/tpoint" ] || {
		echo "note: no $B/examples: the spool and trace.dat fuzzers start from their regressions"
		return 0
	}
	s=$tmp/spool/seeds t=$tmp/tracedat/seeds r=$tmp/recordings
	mkdir -p "$s" "$t" "$r/packed" "$r/raw" "$r/threads"
	TPOINT_EVENTS='*' TPOINT_SPOOL_DIR=$r/packed "$B/examples/hello" >/dev/null 2>&1
	TPOINT_EVENTS='*' TPOINT_SPOOL_DIR=$r/raw TPOINT_SPOOL_PACK=0 "$B/examples/hello" \
		>/dev/null 2>&1
	TPOINT_EVENTS='*' TPOINT_SPOOL_DIR=$r/threads "$B/examples/writeback" >/dev/null 2>&1
	for k in packed raw threads; do
		cat "$r/$k"/*.spool >"$s/$k" 2>/dev/null
	done
	cat "$s/packed" "$s/threads" >"$s/two-processes"
	for k in packed threads; do
		"$TPOINT" record --assemble "$r/$k" -o "$t/$k.v6.dat" >/dev/null 2>&1
	done
	TPOINT_EVENTS='*' TPOINT_RECORD=$t/hello.v7 TPOINT_COMPRESS=zstd "$B/examples/hello" \
		>/dev/null 2>&1
	# user stacks and the mappings that name them (tools/tpoint/ustack_sym.c)
	[ ! -x "$B/tests/ustacktarget" ] ||
		TPOINT_EVENTS='*' TPOINT_RECORD=$t/ustack.v6 "$B/tests/ustacktarget" chain >/dev/null 2>&1
	ls "$s"/* "$t"/* >/dev/null 2>&1 || { echo "FAIL: no seed recorded with $B"; return 1; }
}
TPOINT=${TPOINT:-$B/tpoint}

names=${*:-filter pack rb_record control tracefs hist spool elf tracedat}
for name in $names; do
	case $name in
	# (version 7 files too: tracedat_v7read.c expands them, codec.c loads zstd and zlib)
	tracedat) build tracedat $(pkg-config --cflags --libs libtraceevent) & ;;
	filter | pack | rb_record | control | tracefs | hist | spool | elf) build $name & ;;
	*) echo "FAIL: no fuzz harness named $name"; exit 1 ;;
	esac
done
fail=0
elf_seeds || fail=1
record_seeds || fail=1
wait
for name in $names; do
	fuzz $name || fail=1
done
exit $fail
