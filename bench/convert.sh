#!/bin/sh
# SPDX-License-Identifier: MIT
# The conversion benchmark (issue 25, item 4): a file of N redis_cmd events (default 20 M)
# converted to CTF and to JSON lines; prints events per second and bytes per event of the
# trace.dat, of trace-cmd's v7 zstd conversion of it (when trace-cmd can), of the CTF and of
# the JSON. Targets: CTF at >= 10 M events/s, no more than 1.5 times the input. Timings only:
# nothing is asserted.
#	convert.sh BUILD_DIR [N]
set -eu
O=$1
N=${2:-20000000}
T=$O/tpoint
dir=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-convbench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "== conversion: $N redis_cmd events (bench/convert.sh) =="
TPOINT_MODE=block TPOINT_BUFFER_SIZE=64M TPOINT_EVENTS='bench_conv:*' \
	TPOINT_RECORD="$dir/in.dat" "$O/bench/convert_gen" "$N"
n=$("$T" report --stats "$dir/in.dat" | awk '$1 == "bench_conv:redis_cmd" { print $7 }')
size() { du -sb "$1" | cut -f1; }
calc() { awk "BEGIN { print $1 }"; }
secs() { # the wall time of a command, in seconds
	s=$(date +%s.%N)
	"$@" >/dev/null
	e=$(date +%s.%N)
	calc "$e - $s"
}
ctf=$(secs "$T" convert --to ctf -o "$dir/out.ctf" "$dir/in.dat")
json=$(secs "$T" convert --to json -o "$dir/out.json" "$dir/in.dat")
printf "records in the file: %s\n" "$n"
printf "CTF:  %.2f s, %.1f M events/s (target >= 10)\n" "$ctf" "$(calc "$n / $ctf / 1000000")"
printf "JSON: %.2f s, %.1f M events/s\n" "$json" "$(calc "$n / $json / 1000000")"
in=$(size "$dir/in.dat")
printf "bytes per event: trace.dat v6 %.1f" "$(calc "$in / $n")"
if command -v trace-cmd >/dev/null && trace-cmd convert --file-version 7 --compression zstd \
	-i "$dir/in.dat" -o "$dir/v7.dat" >/dev/null 2>&1; then
	printf ", v7 zstd (trace-cmd convert) %.1f" "$(calc "$(size "$dir/v7.dat") / $n")"
fi
printf ", CTF %.1f (%.2f x the input, target <= 1.5), JSON %.1f\n" \
	"$(calc "$(size "$dir/out.ctf") / $n")" "$(calc "$(size "$dir/out.ctf") / $in")" \
	"$(calc "$(size "$dir/out.json") / $n")"
