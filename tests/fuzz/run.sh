#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: alone (the fuzzers saturate a CPU each)
#
# tests/fuzz/run.sh [NAME...] - fuzz what reads untrusted bytes, each for FUZZ_SECONDS:
#	filter		the event filter (lib/filter.c)
#	pack		the packing of spool pages (lib/pack.c and the machine's)
#	spool		the spool reader of `tpoint record --assemble` (lib/tracedat.c)
#	tracefs		the reader of tracefs format text (lib/fmt/tracefs_format.c)
#	elf		the ELF reader of `tpoint list` (tools/tpoint/list.c, lib/format.c)
#	tracedat	the trace.dat reader of `tpoint report` (tools/tpoint/tracedat_read.c,
#			and lib/fmt/tracedat_v6_read.c; version 7: tracedat_v7read.c and
#			tracedat_v7copy.c; report.c, render.c; report --json:
#			convert_input.c, json.c), with libtraceevent
# (tests/fuzz/NAME_fuzz.c says what each checks besides not crashing). All of them when no
# NAME is given.
#
# Builds each harness with clang's libFuzzer, ASan and UBSan, and runs it over its seeds in
# tests/fuzz/NAME_corpus, and those it builds (the ELF objects, from the examples: an object
# of an older tpoint would be refused before the record parser). New inputs go to the
# scratch dir, never into the tree. Exit 0
# when nothing crashed, leaked or timed out, 1 otherwise (the reproducer is named), 77 when
# clang or libFuzzer is not there (the reason on the last line).
#
# Scratch space: $TPOINT_TEST_TMP (tests/run.sh gives each test one), else a temporary dir.
# FUZZ_SECONDS: the run time of each, 5 by default (a short run in make check; make fuzz
# runs each for 300).

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-5}
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

# fuzz NAME SOURCE...: build tests/fuzz/NAME_fuzz.c with SOURCE... and run it; 0 or 1.
fuzz() {
	name=$1
	shift
	if ! "$CLANG" -std=gnu11 -g -O1 -Wall -Wextra -Werror \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$top/lib" -I"$top/include" -I"$top/tools/tpoint" \
		-o "$tmp/${name}_fuzz" "$top/tests/fuzz/${name}_fuzz.c" "$@"; then
		echo "FAIL: the $name fuzz harness does not build"
		return 1
	fi
	mkdir -p "$tmp/$name/corpus" "$tmp/$name/artifacts" "$tmp/$name/seeds"
	# libFuzzer's own exit codes (77 for a crash by default) must not read as a skip here.
	"$tmp/${name}_fuzz" -max_total_time="$secs" -rss_limit_mb=512 -timeout=2 \
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

L=$top/lib
T=$top/tools/tpoint

# The ELF seeds: the examples' objects, built with the current headers.
elf_seeds() {
	d=$tmp/elf/seeds
	mkdir -p "$d"
	for e in hello writeback; do
		"$CLANG" -std=gnu11 -O2 -I"$top/include" -I"$top/examples" -c \
			"$top/examples/$e.c" -o "$d/$e.o" || { echo "FAIL: the seed $e.o does not build"; return 1; }
	done
}

fail=0
for name in ${*:-filter pack spool elf tracefs tracedat}; do
	case $name in
	filter) fuzz filter "$L/filter.c" ;;
	pack) fuzz pack "$L/pack.c" "$L/arch/pack_x86_64.c" ;;
	# The library files the tool links (Makefile, TOOL_LIB_OBJ); spool_fuzz.c includes
	# lib/tracedat.c and lib/tracedat_ingest.c itself (its mappings become heap copies).
	spool) fuzz spool "$L/format.c" "$L/spool_read.c" "$L/ringbuf.c" "$L/clock.c" "$L/pack.c" \
		"$L/arch/pack_x86_64.c" "$L/crc32c.c" "$L/arch/crc32c_x86_64.c" \
		"$L/arch/crc32c_aarch64.c" "$L/poolsize.c" "$L/salvage.c" "$L/handover.c" \
		"$L/log.c" "$L/ownfile.c" "$L/filter.c" "$L/tracedat_v7.c" "$L/codec.c" $L/fmt/*.c \
		"$L/tracedat_gaps.c" "$L/tracedat_ids.c" "$L/tracedat_kernel.c" "$L/tracedat_meta.c" \
		"$L/tracedat_out.c" "$L/tracedat_pages.c" "$L/tracedat_problems.c" \
		"$L/tracedat_select.c" \
		"$T/tracedat_read.c" "$T/tracedat_v7read.c" "$T/tracedat_v7copy.c" ;;
	tracefs) fuzz tracefs "$L/fmt/tracefs_format.c" ;;
	# Its seeds are built here from the examples, with this tree's headers: objects of an
	# older tpoint are refused before the record parser is reached.
	elf) elf_seeds && fuzz elf "$T/list.c" "$T/control_client.c" "$T/glob.c" "$T/escape.c" "$L/globs.c" \
		"$L/format.c" ;;
	# (version 7 files too: tracedat_v7read.c expands them, codec.c loads zstd and zlib)
	tracedat) fuzz tracedat "$T/tracedat_read.c" "$T/tracedat_v7read.c" "$T/tracedat_v7copy.c" "$L/codec.c" $L/fmt/*.c "$T/report.c" \
		"$T/render.c" "$T/kprint.c" "$T/tep_guard.c" "$T/convert_input.c" "$T/json.c" "$T/escape.c" \
		$(pkg-config --cflags --libs libtraceevent) ;;
	*) echo "FAIL: no fuzz harness named $name"; false ;;
	esac || fail=1
done
exit $fail
