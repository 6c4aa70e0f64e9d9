#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint report --hist with the kernel's variables, onmatch() and a synthetic event (issue 34
# item 4), and --latency, its short form: the latency from each tpt_lat:lat_start to the
# lat_end of the same id, over a recording of tests/lattarget.c (requests sleeping 0, 50 us,
# 300 us or 2 ms). The delays are read back from the recording itself (tpoint's JSON, and
# trace-cmd's nanosecond timestamps where trace-cmd reads the file: both must agree), since a
# busy machine stretches a sleep; the histograms must show, bucket by bucket, the latencies
# those timestamps give as the kernel computes them: common_timestamp.usecs is the time in ns
# rounded to the nearest us (ns2usecs()), .log2 is ilog2(roundup_pow_of_two(lat)), .buckets=N
# is lat / N * N. The text is the kernel's (trace_events_hist.c): "{ cmd: %-50s, lat: ~ 2^%-2llu }
# hitcount: %10llu", "{ lat: ~ %llu-%llu } hitcount: %10llu", the Totals block.
# The triggers' $ are the kernel's variable references, not the shell's.
# shellcheck disable=SC2016
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
TARGET="$B/tests/lattarget"

TPOINT_EVENTS='tpt_lat:*' TPOINT_RECORD=lat.dat "$TARGET" 40 >target.out 2>target.err ||
	{ cat target.err; fail "lattarget exited $?"; }

# "ID CMD LAT_US" of each pair, from lines "NS start ID" / "NS end ID CMD" in time order.
pairs() {
	awk '{ us = int(($1 + 500) / 1000) }
	     $2 == "start" { t[$3] = us; next }
	     $2 == "end" && ($3 in t) { print $3, $4, us - t[$3]; delete t[$3] }'
}
"$TPOINT" report --json lat.dat >lat.json || fail "report --json exited $?"
sed -n 's/^{"ts":\([0-9]*\),.*"event":"lat_start","fields":{"id":\([0-9]*\)}}$/\1 start \2/p
	s/^{"ts":\([0-9]*\),.*"event":"lat_end","fields":{"id":\([0-9]*\),"cmd":"\([a-z]*\)"}}$/\1 end \2 \3/p' \
	lat.json | pairs >pairs.txt
n=$(wc -l <pairs.txt)
[ "$n" = 40 ] || { cat lat.json; fail "read $n pairs back from the JSON, expected 40"; }
if tu_trace_cmd=$(command -v trace-cmd) && trace-cmd report -t lat.dat >tc.txt 2>tc.err; then
	# "lattarget-1 [001] 44390.608590434: lat_start: id=0": seconds.nanoseconds.
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
	       split($i, t, "[.:]"); ns = t[1] * 1000000000 + t[2]
	       if ($(i + 1) == "lat_start:") printf "%.0f start %s\n", ns, substr($(i + 2), 4)
	       else if ($(i + 1) == "lat_end:")
		       printf "%.0f end %s %s\n", ns, substr($(i + 2), 4), substr($(i + 3), 5) }' \
		tc.txt | pairs >pairs_tc.txt
	cmp -s pairs.txt pairs_tc.txt ||
		{ diff pairs.txt pairs_tc.txt; fail "trace-cmd's timestamps give other latencies"; }
	echo "trace-cmd ($tu_trace_cmd) reads the same 40 latencies"
else
	echo "trace-cmd absent or unable to read the file: the JSON's timestamps alone"
fi

# The expected histograms, from pairs.txt.
log2() { awk '{ b = 0; p = 1; while (p < $3) { p *= 2; b++ } print $2, b }'; }
header() {
	printf '# event histogram\n#\n# trigger info: %s [active]\n#\n\n' "$1"
}
totals() { printf '\nTotals:\n    Hits: %s\n    Entries: %s\n    Dropped: 0\n' "$1" "$2"; }
{
	header 'hist:keys=cmd,lat.log2:vals=hitcount:sort=cmd,lat.log2:size=2048'
	log2 <pairs.txt | sort -k1,1 -k2,2n | uniq -c |
		awk '{ printf "{ cmd: %-50s, lat: ~ 2^%-2d } hitcount: %10d\n", $2, $3, $1 }' >lines
	cat lines
	totals 40 "$(wc -l <lines)"
} >want_log2.txt
{
	printf '\n\n'
	header 'hist:keys=lat.buckets=250:vals=hitcount:sort=lat.buckets=250:size=2048'
	awk '{ print int($3 / 250) * 250 }' pairs.txt | sort -n | uniq -c |
		awk '{ printf "{ lat: ~ %d-%d } hitcount: %10d\n", $2, $2 + 249, $1 }' >lines
	cat lines
	totals 40 "$(wc -l <lines)"
} >want_buckets.txt

"$TPOINT" report --synthetic 'latency u64 lat; char cmd[16]' --hist \
	'synthetic:latency:hist:keys=cmd,lat.log2:sort=cmd,lat;synthetic:latency:hist:keys=lat.buckets=250:sort=lat;tpt_lat:lat_start:hist:keys=id:ts0=common_timestamp.usecs;tpt_lat:lat_end:hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(tpt_lat.lat_start).trace(latency,$lat,cmd)' \
	lat.dat >got.txt 2>err.txt || { cat err.txt; fail "report --hist exited $?"; }
[ -s err.txt ] && { cat err.txt; fail "report --hist said something on stderr"; }
# The synthetic event's triggers come first in the list, yet count the pairs the later
# triggers make: the set is built whole before the first record.
lines=$(wc -l <want_log2.txt)
head -n "$lines" got.txt >got_log2.txt
cmp -s got_log2.txt want_log2.txt || { diff want_log2.txt got_log2.txt; fail "the .log2 histogram"; }
lines2=$(wc -l <want_buckets.txt)
sed -n "$((lines + 1)),$((lines + lines2))p" got.txt >got_buckets.txt
cmp -s got_buckets.txt want_buckets.txt ||
	{ diff want_buckets.txt got_buckets.txt; fail "the .buckets=250 histogram"; }
grep -q '^# trigger info: hist:keys=id:vals=hitcount:lat=common_timestamp.usecs-\$ts0:sort=hitcount:size=2048:clock=global:onmatch(tpt_lat.lat_start).trace(latency,\$lat,cmd) \[active\]$' got.txt ||
	{ cat got.txt; fail "the end trigger's info line"; }
echo "report --hist: 40 latencies by command in .log2 and .buckets=250, bucket by bucket"

# --latency: the same triggers, said on stderr; the synthetic histogram the same numbers.
"$TPOINT" report --latency tpt_lat:lat_start,tpt_lat:lat_end --key id --by cmd lat.dat \
	>short.txt 2>short.err || { cat short.err; fail "report --latency exited $?"; }
want="tpoint report: --latency stands for: --synthetic 'latency u64 lat; char cmd[16]' --hist 'tpt_lat:lat_start:hist:keys=id:ts0=common_timestamp.usecs;tpt_lat:lat_end:hist:keys=id:lat=common_timestamp.usecs-\$ts0:onmatch(tpt_lat.lat_start).trace(latency,\$lat,cmd);synthetic:latency:hist:keys=cmd,lat.log2:sort=cmd,lat'"
[ "$(cat short.err)" = "$want" ] || { cat short.err; fail "--latency's expansion on stderr"; }
# Its last histogram is the synthetic event's.
tail -n "$lines" short.txt >got_short.txt
cmp -s got_short.txt want_log2.txt || { diff want_log2.txt got_short.txt; fail "--latency's histogram"; }
echo "report --latency: the same histogram, its expansion said on stderr"

# Refusals: the kernel's words with the column, exit 1; a usage error, exit 2.
# refused STATUS TEXT ARGS...: report ARGS lat.dat exits STATUS and says TEXT.
refused() {
	want_rc=$1 text=$2
	shift 2
	"$TPOINT" report "$@" lat.dat >bad.out 2>&1
	rc=$?
	if [ "$rc" != "$want_rc" ] || ! grep -qF -- "$text" bad.out; then
		cat bad.out
		fail "report $*: exit $rc (expected $want_rc and \"$text\")"
	fi
}
refused 1 "Couldn't find variable at column 42: 'nosuch'" \
	--hist 'tpt_lat:lat_end:hist:keys=id:lat=common_timestamp.usecs-$nosuch'
refused 1 "Invalid type at column 9: 'u65'" \
	--synthetic 'latency u65 lat' --hist 'synthetic:latency:hist:keys=lat'
refused 1 "Param type doesn't match synthetic event field type at column" \
	--synthetic 'lat_ev u64 lat' --hist 'tpt_lat:lat_start:hist:keys=id:ts0=common_timestamp.usecs;tpt_lat:lat_end:hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(tpt_lat.lat_start).trace(lat_ev,$lat,cmd)'
refused 2 "--latency needs --key FIELD" --latency tpt_lat:lat_start,tpt_lat:lat_end
refused 1 "no synthetic event 'nosuch'" --hist 'synthetic:nosuch:hist:keys=lat'
refused 2 "--by 'nosuch': not a field of either event" \
	--latency tpt_lat:lat_start,tpt_lat:lat_end --key id --by nosuch
echo "refusals: unknown variable, bad type, param count, no --key, undefined synthetic event, --by"
