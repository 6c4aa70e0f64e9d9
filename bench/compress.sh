#!/bin/sh
# SPDX-License-Identifier: MIT
# Compressed trace.dat (issue 25, item 0): the spools of N redis_cmd events (a command name,
# two 64-bit numbers; default 14 M, the Redis run's count) assembled by `tpoint record
# --assemble` into version 6 and into version 7 with each codec. Prints bytes per event and
# the CPU seconds of writing each file (user + system, median of REPS runs); the
# compression's CPU is the difference to version 6. Target: <= 20 bytes an event at the
# default level. Nothing is asserted.
#	compress.sh BUILD_DIR [N]	(REPS, default 3; CODECS, default "zstd zlib"; zstd:19 takes
#	some 16 us an event here)
set -eu
O=$1
N=${2:-14000000}
REPS=${REPS:-3}
CODECS=${CODECS:-zstd zlib}
T=$O/tpoint
[ -x /usr/bin/time ] || { echo "compress.sh: needs /usr/bin/time (Debian: time)"; exit 0; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-compressbench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "== compressed trace.dat: $N redis_cmd events, tpoint record --assemble (bench/compress.sh) =="
mkdir "$dir/spools"
TPOINT_MODE=block TPOINT_BUFFER_SIZE=64M TPOINT_EVENTS='bench_conv:*' \
	TPOINT_SPOOL_DIR="$dir/spools" "$O/bench/convert_gen" "$N"
calc() { awk "BEGIN { print $1 }"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One assembly of a copy of the spools: its CPU seconds; the file stays as $dir/$1.dat.
assemble() {
	name=$1
	shift
	rm -rf "$dir/copy" "$dir/$name.dat"
	cp -a "$dir/spools" "$dir/copy"
	/usr/bin/time -f '%U %S' -o "$dir/time" "$T" record --assemble "$dir/copy" "$@" \
		-o "$dir/$name.dat" >/dev/null 2>"$dir/err" || { cat "$dir/err"; exit 1; }
	awk '{ print $1 + $2 }' "$dir/time"
}

cpu6=$(for i in $(seq "$REPS"); do assemble v6; done | median)
n=$("$T" report --stats "$dir/v6.dat" | awk '$1 == "bench_conv:redis_cmd" { print $7 }')
bytes6=$(stat -c %s "$dir/v6.dat")
printf "%-12s %8s %10s %14s %16s\n" "file" "B/event" "x smaller" "CPU s (write)" "compression CPU"
printf "%-12s %8.1f %10s %14.2f %16s\n" "v6" "$(calc "$bytes6 / $n")" "1.0" "$cpu6" "-"
for c in $CODECS; do
	cpu=$(for i in $(seq "$REPS"); do assemble v7 --compress="$c"; done | median)
	bytes=$(stat -c %s "$dir/v7.dat")
	printf "%-12s %8.1f %10.1f %14.2f %9.2f s, %.0f ns/event\n" "v7 $c" "$(calc "$bytes / $n")" \
		"$(calc "$bytes6 / $bytes")" "$cpu" "$(calc "$cpu - $cpu6")" \
		"$(calc "($cpu - $cpu6) * 1e9 / $n")"
	[ "$c" = zstd ] && zstd_bpe=$(calc "$bytes / $n")
done
[ -n "${zstd_bpe:-}" ] && awk -v b="$zstd_bpe" 'BEGIN { printf "target: v7 zstd (default level) <= 20 bytes an event: %.1f (%s)\n", b, b <= 20 ? "met" : "not met" }'
echo "(the pages are compressed when the file is written, after the recording: the hot path is"
echo " the same; median of $REPS runs each, $n records)"
