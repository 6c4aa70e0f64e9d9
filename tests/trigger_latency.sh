#!/bin/sh
# SPDX-License-Identifier: MIT
# Latency between two events in the process (issue 34): the kernel's variables, onmatch() and
# a synthetic event, set with TPOINT_TRIGGER and with `tpoint trigger -p`, read with
# `tpoint hist -p`. tests/hlattarget.c begins requests on one thread and ends them on
# another; request i has id i % 7, cmd get/put/del (i % 3) and a latency of
# 0, 3, 50, 300, 70000 µs (i % 5) on the program's own clock `t`, so that the synthetic
# event's .log2 buckets are exact: the test computes them as the kernel's hist_field_log2()
# does (ilog2(roundup_pow_of_two(v)), printed "~ 2^%-2llu"; 0 and 1 give 2^0). A second
# pair on common_timestamp.usecs counts every pair (its times are the machine's, not
# checked). .buckets=100 checked too. The kernel's refusals, removal while threads hit,
# pause/cont/clear, and `tpoint hist -p --latency`, the short form.
set -u
fail() { echo "FAIL: $*"; cat target.out target.err 2>/dev/null | head -5; exit 1; }
B=$(dirname "$TPOINT")
. "$(dirname "$0")/lib/wait.sh"
N=7000
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

TPOINT_TRIGGER="synthetic_events:'lat u64 lat; char cmd[16]';\
tpt_hlat:hl_begin:hist:keys=id:t0=t;\
tpt_hlat:hl_done:hist:keys=id:lat=t-\$t0:onmatch(tpt_hlat.hl_begin).trace(lat,\$lat,cmd);\
synthetic:lat:hist:keys=cmd,lat.log2:sort=cmd,lat;\
synthetic:lat:hist:keys=lat.buckets=100:sort=lat;\
hl_done:hist:keys=id:x=t-\$nosuch" \
	"$B/tests/hlattarget" $N >target.out 2>target.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' target.out || fail "hlattarget did not start"
grep -q "TPOINT_TRIGGER: 'hl_done:hist:keys=id:x=t-\$nosuch': Couldn't find variable at column [0-9]*: 'nosuch'; ignored" target.err ||
	fail "a TPOINT_TRIGGER item with a \$var never set is not refused in the kernel's words"

round() { # round N: one more round, done
	kill -USR1 "$P"
	wait_until 60 grep -q "^round $1 done" target.out || fail "round $1 did not end"
}
round 1

# The expected synthetic histogram, rounds R: "cmd bucket count" lines, sorted as the kernel
# sorts cmd,lat (cmd ascending, then the bucket).
expect() {
	awk -v n=$N -v r="$1" 'BEGIN {
		split("0 3 50 300 70000", lat, " "); split("get put del", cmd, " ")
		for (i = 0; i < n; i++) {
			v = lat[i % 5 + 1]; b = 0; p = 1
			while (p < v) { p *= 2; b++ }
			c[cmd[i % 3 + 1] " " b] += r
		}
		for (k in c) print k, c[k]
	}' | sort -k1,1 -k2,2n
}
check_synth() { # check_synth FILE ROUNDS
	expect "$2" | while read -r c b cnt; do
		grep -Eq "^\{ cmd: $c +, lat: ~ 2\^$(printf '%-2s' "$b") \} hitcount: +$cnt\$" "$1" ||
			{ echo "no line for $c 2^$b $cnt"; exit 1; }
	done || { cat "$1"; fail "synthetic:lat's buckets ($2 rounds)"; }
	grep -q "^    Hits: $(($2 * N))\$" "$1" && grep -q '^    Entries: 15$' "$1" &&
		grep -q '^    Dropped: 0$' "$1" || { cat "$1"; fail "synthetic:lat's totals"; }
}
# .buckets=100: 0, 3 and 50 µs in 0-99, 300 in 300-399, 70000 in 70000-70099 (the kernel's
# hist_field_bucket(): v / N * N), N / 5 requests each latency.
check_buckets() { # check_buckets FILE ROUNDS
	for b in "0-99 $((3 * N / 5))" "300-399 $((N / 5))" "70000-70099 $((N / 5))"; do
		set -- "$1" "$2" $b
		grep -Eq "^\{ lat: ~ $3 +\} hitcount: +$(($4 * $2))\$" "$1" ||
			{ cat "$1"; fail "synthetic:lat's .buckets=100: $3"; }
	done
}
"$TPOINT" hist -p "$P" -e synthetic:lat >s1.txt || fail "hist -p -e synthetic:lat exited $?"
grep -qx '# trigger info: hist:keys=cmd,lat.log2:vals=hitcount:sort=cmd,lat.log2:size=2048 \[active\]' s1.txt ||
	{ cat s1.txt; fail "the synthetic event's trigger info"; }
check_synth s1.txt 1
check_buckets s1.txt 1
"$TPOINT" hist -p "$P" >all.txt || fail "hist -p exited $?"
for e in tpt_hlat:hl_begin tpt_hlat:hl_done synthetic:lat; do
	grep -qx "==> $e <==" all.txt || { cat all.txt; fail "hist -p: $e"; }
done
[ "$(grep -c "^    Hits: $N\$" all.txt)" = 4 ] && [ "$(grep -c '^    Entries: 7$' all.txt)" = 2 ] ||
	{ cat all.txt; fail "hist -p: the begin's and end's totals"; }
"$TPOINT" list -p "$P" | grep -qx '  triggers: hist:keys=id:vals=hitcount:lat=t-$t0:sort=hitcount:size=2048:onmatch(tpt_hlat.hl_begin).trace(lat,$lat,cmd) \[active\]' ||
	{ "$TPOINT" list -p "$P"; fail "list -p: the end's linked trigger"; }
echo "ok: TPOINT_TRIGGER's latency pair, begun and ended on two threads: exact .log2 buckets"

# From outside: a second pair on the machine's clock, into a synthetic event of its own.
"$TPOINT" trigger -p "$P" -e synthetic_events 'tlat u64 lat' >t.out || fail "define tlat"
grep -qx "synthetic event defined in process $P" t.out || { cat t.out; fail "trigger -e synthetic_events says"; }
"$TPOINT" trigger -p "$P" -e tpt_hlat:hl_begin 'hist:keys=id:ts1=common_timestamp.usecs' >/dev/null ||
	fail "the begin's timestamp trigger"
END='hist:keys=id:tl=common_timestamp.usecs-$ts1:onmatch(tpt_hlat.hl_begin).trace(tlat,$tl)'
"$TPOINT" trigger -p "$P" -e hl_done "$END" >/dev/null || fail "the end's timestamp trigger"
"$TPOINT" trigger -p "$P" -e synthetic:tlat 'hist:keys=lat.buckets=100000000' >t.out ||
	fail "the synthetic tlat's histogram"
grep -qx "trigger set on synthetic:tlat of process $P" t.out || { cat t.out; fail "trigger -e synthetic:tlat says"; }

# The kernel's refusals, exit 1.
refused() { # refused EVENT TRIGGER WORDS
	"$TPOINT" trigger -p "$P" -e "$1" "$2" 2>err.txt
	[ $? = 1 ] && grep -q "$3" err.txt || { cat err.txt; fail "not refused: $1 '$2'"; }
}
refused hl_done 'hist:keys=id:d=t-$never' "Couldn't find variable at column 19: 'never'"
refused hl_done 'hist:keys=id:d2=t-$t0:onmatch(tpt_hlat.hl_begin).trace(tlat,cmd)' \
	"Param type doesn't match synthetic event field type at column [0-9]*: 'cmd'"
refused hl_done 'hist:keys=id:d3=t-$t0:onmatch(tpt_hlat.hl_begin).trace(nosuch,$d3)' \
	"Couldn't find synthetic event at column [0-9]*: 'nosuch'"
refused hl_done 'hist:keys=id:d4=t-$t0:onmatch(tpt_hlat.hl_begin).trace(lat,$d4)' \
	"Param count doesn't match synthetic event field count"
refused synthetic_events 'bad u65 x' "Invalid type"
refused synthetic_events 'lat u64 lat' "Event already exists"
refused synthetic_events '!tlat' "synthetic event 'tlat' is in use by a trigger"
refused synthetic:nosuch 'hist:keys=lat' "no event 'synthetic:nosuch' in this process"
echo "ok: trigger -p -e synthetic_events / synthetic:NAME, the kernel's refusals"

round 2
"$TPOINT" hist -p "$P" -e synthetic:tlat >t2.txt || fail "hist -p tlat"
grep -A3 '^Totals:' t2.txt | tr -d ' \n' | grep -q "^Totals:Hits:${N}Entries:" ||
	{ cat t2.txt; fail "tlat: every pair on the machine's clock"; }
echo "ok: a pair on common_timestamp.usecs, set from outside: every pair counted"

# :pause, then removal while threads hit: the end's trigger goes mid-round; the process goes
# on; what is left counts on. The set is rebuilt, and the histograms that stay keep what they
# counted, as the kernel's do (tlat its round 2 and what round 3 paired before its end
# went, then nothing more);
# :clear starts its own over.
"$TPOINT" trigger -p "$P" -e synthetic:lat 'hist:keys=cmd,lat.log2:sort=cmd,lat:pause' >/dev/null ||
	fail "pause"
"$TPOINT" list -p "$P" >/dev/null
kill -USR1 "$P"
"$TPOINT" trigger -p "$P" -e hl_done "!$END" >t.out || fail "remove the end's trigger"
grep -qx "trigger removed from tpt_hlat:hl_done of process $P" t.out || { cat t.out; fail "removal says"; }
wait_until 60 grep -q "^round 3 done" target.out || fail "round 3 did not end"
"$TPOINT" hist -p "$P" -e synthetic:lat >s3.txt || fail "hist -p after removal"
# hits FILE: a histogram's Hits.
hits() { sed -n 's/^ *Hits: *//p' "$1"; }
"$TPOINT" hist -p "$P" -e synthetic:tlat >t3.txt || fail "hist -p tlat after removal"
[ "$(hits t3.txt)" -ge "$N" ] 2>/dev/null || { cat t3.txt; fail "tlat lost its round 2 in the rebuild"; }
grep -q '\[paused\]' s3.txt || { cat s3.txt; fail "the paused trigger is not said paused"; }
"$TPOINT" trigger -p "$P" -e synthetic:lat 'hist:keys=cmd,lat.log2:sort=cmd,lat:cont' >/dev/null ||
	fail "cont"
"$TPOINT" trigger -p "$P" -e synthetic:lat 'hist:keys=cmd,lat.log2:sort=cmd,lat:clear' >/dev/null ||
	fail "clear"
round 4
"$TPOINT" hist -p "$P" -e synthetic:lat >s4.txt || fail "hist -p after cont"
check_synth s4.txt 1
"$TPOINT" hist -p "$P" -e synthetic:tlat >t4.txt || fail "hist -p tlat after removal"
[ "$(hits t4.txt)" = "$(hits t3.txt)" ] ||
	{ cat t3.txt t4.txt; fail "tlat still counts after its end trigger went"; }
"$TPOINT" trigger -p "$P" -e synthetic:tlat '!hist:keys=lat.buckets=100000000' >/dev/null ||
	fail "remove tlat's histogram"
"$TPOINT" trigger -p "$P" -e synthetic_events '!tlat' >t.out || fail "remove tlat"
grep -qx "synthetic event removed in process $P" t.out || { cat t.out; fail "removal of tlat says"; }
echo "ok: pause, cont, clear; a linked trigger removed while threads hit; a synthetic event removed"

"$TPOINT" trigger -p "$P" -e hl_done '!hist:keys=id:lat=t-$t0:onmatch(tpt_hlat.hl_begin).trace(lat,$lat,cmd)' \
	>/dev/null || fail "remove TPOINT_TRIGGER's end trigger"

# The short form: hist -p --latency says what it stands for, sets it, prints the latency
# histogram when stopped (every pair of the round counted, by cmd), and removes it.
"$TPOINT" hist -p "$P" --latency tpt_hlat:hl_begin,tpt_hlat:hl_done --key id --by cmd >l.txt 2>l.err &
H=$!
pids="$P $H"
wait_until 60 sh -c "'$TPOINT' hist -p $P -e synthetic:latency | grep -q '^# trigger info'" ||
	{ cat l.err; fail "hist --latency did not set its triggers"; }
round 5
kill -TERM "$H"
wait "$H" || { cat l.err; fail "hist --latency exited $?"; }
grep -qx "  tpoint trigger -p $P -e synthetic_events 'latency u64 lat; char cmd\[16\]'" l.err &&
	grep -qx "  tpoint trigger -p $P -e tpt_hlat:hl_begin 'hist:keys=id:ts0=common_timestamp.usecs'" l.err ||
	{ cat l.err; fail "hist --latency does not say what it stands for"; }
grep -q '^# trigger info: hist:keys=cmd,lat.log2:vals=hitcount:sort=cmd,lat.log2:size=2048' l.txt &&
	grep -qx "    Hits: $N" l.txt || { cat l.txt; fail "hist --latency: every pair of the round"; }
"$TPOINT" list -p "$P" | grep -q 'latency' && { "$TPOINT" list -p "$P"; fail "hist --latency left its triggers"; }
"$TPOINT" hist -p "$P" --latency tpt_hlat:hl_begin,tpt_hlat:hl_done --key nosuch 2>err.txt
[ $? = 1 ] && grep -q "^tpoint hist: --key 'nosuch': not a field of both events" err.txt ||
	{ cat err.txt; fail "--key nosuch"; }
kill "$P"
wait "$P"
echo "ok: hist -p --latency"
