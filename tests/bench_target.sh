#!/bin/sh
# SPDX-License-Identifier: MIT
# `make bench` runs the benchmarks: bench/Makefile's first rule once built only the
# conversion benchmark's generator, so `make bench` printed nothing and measured nothing.
# A dry run (make -n) must show each benchmark program run: the hot path (timings and
# callgrind), the jump-label sites, the debug build, the conversion and the spool checksum.
set -u
fail() { echo "FAIL: $*"; exit 1; }
top=$(cd "$(dirname "$0")/.." && pwd)
O=$(cd "$top" && cd "${O:-build}" && pwd)
make -n -C "$top/bench" O="$O" >dry.txt 2>&1 || { cat dry.txt; fail "make -n bench exited $?"; }
for prog in bench/hotpath bench/jump bench/hotpath-O0 bench/spool_crc convert.sh footprint.sh; do
	grep -q "$prog" dry.txt || { cat dry.txt; fail "make bench does not run $prog"; }
done
echo "ok: make bench runs every benchmark"
