#!/bin/sh
# SPDX-License-Identifier: MIT
# A synthetic event recorded (issue 34): defined in the process (synthetic_events), it is an
# ordinary event of system synthetic, listed by `tpoint list -p`, enabled by TPOINT_EVENTS
# or `tpoint record -p -e synthetic:NAME`, counted by `tpoint stat -p`, and each record
# that onmatch().trace() makes is written after the end event's record by the hitting
# thread; `trace-cmd report` (libtraceevent) and `tpoint report` print it with the
# kernel's print fmt ("lat=%llu, pid=%d, cmd=%s", lib/synth_format.c).
# tests/hlattarget.c gives request j (j = 0..N-1 each round, on one end thread) the latency
# 0, 3, 50, 300, 70000 µs (j % 5) and the cmd get/put/del (j % 3) on its own clock t: the
# k-th synthetic record of a round has lat = LAT[k % 5], cmd = CMD[k % 3], and its pid is
# its own record's common_pid; also lat = its hl_done's t minus the matching hl_begin's t
# in the same file. Their count is the pairs matched. Removing the definition while the
# recording runs: it leaves the list, the file keeps the records made before and reads;
# defined again with the same fields, it records again under the same id.
set -u
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; cat target.out target.err 2>/dev/null | head -5; exit 1; }
B=$(dirname "$TPOINT")
. "$(dirname "$0")/lib/wait.sh"
N=105 # a multiple of 7 (the target's turns), 5 and 3 (the latencies and commands)
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

SYNTH="synthetic_events:'lat u64 lat; pid_t pid; char cmd[16]'"
BEGIN='tpt_hlat:hl_begin:hist:keys=id:t0=t'
END='hist:keys=id:lat=t-$t0:onmatch(tpt_hlat.hl_begin).trace(lat,$lat,common_pid,cmd)'

round() { # round N: one more round, done
	kill -USR1 "$P"
	wait_until 60 grep -q "^round $1 done" target.out || fail "round $1 did not end"
}
# recorded EVENT: the process's recorded count of EVENT (tpoint stat -p).
recorded() {
	"$TPOINT" stat -p "$P" 2>/dev/null | awk -v e="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) col[tolower($i)] = i }
		$1 == e { print $col["recorded"]; found = 1 } END { if (!found) print 0 }'
}
# check_report REPORT ROUNDS: the synthetic records of the text, in order, ROUNDS * N of
# them, each with the latency and cmd its request had, its pid its own common_pid, and its
# lat the difference of the t of its hl_done (the line before, on the same thread) and of
# the last hl_begin of that id.
check_report() {
	awk -v n=$N -v rounds="$2" '
		BEGIN { split("0 3 50 300 70000", L, " "); split("get put del", C, " ") }
		/ hl_begin: / { match($0, /id=[0-9]+/); id = substr($0, RSTART + 3, RLENGTH - 3)
				match($0, / t=[0-9]+/); begin[id] = substr($0, RSTART + 3, RLENGTH - 3) }
		/ hl_done: / { match($0, /id=[0-9]+/); did = substr($0, RSTART + 3, RLENGTH - 3)
			       match($0, / t=[0-9]+/); done = substr($0, RSTART + 3, RLENGTH - 3)
			       thread = $1 }
		/ lat: / {
			j = k % n; k++
			split($1, a, "-"); pid = a[length(a)]
			want = sprintf("lat=%d, pid=%d, cmd=%s", L[j % 5 + 1], pid, C[j % 3 + 1])
			if (index($0, want) == 0) { print "record " k ": want " want ": " $0; bad = 1 }
			if ($1 != thread || done - begin[did] != L[j % 5 + 1]) {
				print "record " k " is not its hl_done - hl_begin: " $0; bad = 1 }
		}
		END { if (k != rounds * n) { print k " synthetic records, not " rounds * n; bad = 1 }
		      exit bad }' "$1"
}

# 1. TPOINT_RECORD: the file's synthetic records, the list, the counters.
TPOINT_RECORD=rec.dat TPOINT_EVENTS='tpt_hlat:*,synthetic:*' \
TPOINT_TRIGGER="$SYNTH;$BEGIN;tpt_hlat:hl_done:$END;synthetic:lat:hist:keys=lat:sort=lat" \
	"$B/tests/hlattarget" $N >target.out 2>target.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' target.out || fail "hlattarget did not start"
"$TPOINT" list -p "$P" >list.txt || fail "list -p"
grep -A1 -x 'synthetic:lat  \[enabled\]' list.txt |
	grep -qx '  triggers: hist:keys=lat:vals=hitcount:sort=lat:size=2048 \[active\]' ||
	{ cat list.txt; fail "list -p: synthetic:lat and its histogram"; }
round 1
[ "$(recorded synthetic:lat)" = $N ] ||
	{ "$TPOINT" stat -p "$P"; fail "stat -p: synthetic:lat recorded is not the $N pairs"; }
echo "ok: synthetic:lat listed, enabled by TPOINT_EVENTS, $N records counted"

# Removed while recording: the end's trigger first (the kernel's EBUSY otherwise), then the
# histogram on it, then the definition.
"$TPOINT" trigger -p "$P" -e tpt_hlat:hl_done "!$END" >/dev/null || fail "remove the end's trigger"
"$TPOINT" trigger -p "$P" -e synthetic:lat '!hist:keys=lat:sort=lat' >/dev/null ||
	fail "remove synthetic:lat's histogram"
"$TPOINT" trigger -p "$P" -e synthetic_events '!lat' >/dev/null || fail "remove the definition"
"$TPOINT" list -p "$P" | grep -q '^synthetic:lat' && fail "list -p: a removed synthetic:lat"
round 2
# Defined again, the same fields: the same event, recorded again.
"$TPOINT" trigger -p "$P" -e synthetic_events 'lat u64 lat; pid_t pid; char cmd[16]' >/dev/null ||
	fail "define lat again"
"$TPOINT" trigger -p "$P" -e tpt_hlat:hl_done "$END" >/dev/null || fail "the end's trigger again"
"$TPOINT" trigger -p "$P" -e synthetic_events 'lat u64 lat; char cmd[16]' 2>err.txt &&
	fail "lat defined while it is"
"$TPOINT" list -p "$P" | grep -qx 'synthetic:lat  \[enabled\]' || fail "list -p: lat again"
round 3
kill -TERM "$P"
wait "$P"
pids=""
trace-cmd report rec.dat >tc.txt 2>tc.err || { cat tc.err; fail "trace-cmd report"; }
# Rounds 1 and 3 made them; round 2's ends made none.
check_report tc.txt 2 || fail "trace-cmd report: the synthetic records"
trace-cmd report --events rec.dat 2>/dev/null | grep -qx 'print fmt: "lat=%llu, pid=%d, cmd=%s", REC->lat, REC->pid, REC->cmd' ||
	fail "the trace.dat's format of synthetic:lat"
"$TPOINT" report rec.dat >tp.txt || fail "tpoint report"
check_report tp.txt 2 || fail "tpoint report: the synthetic records"
# Its histogram over the file: each latency 2N/5 times (report --hist, the kernel's text).
"$TPOINT" report --hist 'synthetic:lat:hist:keys=lat:sort=lat' rec.dat >h.txt || fail "report --hist"
for l in 0 3 50 300 70000; do
	grep -Eq "^\{ lat: +$l \} hitcount: +$((2 * N / 5))\$" h.txt || { cat h.txt; fail "report --hist: lat $l"; }
done
grep -q "^    Hits: $((2 * N))\$" h.txt || { cat h.txt; fail "report --hist: the hits"; }
echo "ok: TPOINT_RECORD: $((2 * N)) synthetic records, exact lat, pid and cmd, in trace-cmd and tpoint report; removed and defined again while recording"

# 2. tpoint record -p -e synthetic:lat: the synthetic event alone, from outside.
TPOINT_TRIGGER="$SYNTH;$BEGIN;tpt_hlat:hl_done:$END" "$B/tests/hlattarget" $N >target.out 2>target.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' target.out || fail "hlattarget did not start (2)"
"$TPOINT" record -p "$P" -e synthetic:lat -o pid.dat >rec.log 2>&1 &
R=$!
pids="$P $R"
wait_until 60 sh -c "'$TPOINT' ps | grep -q '^ *$P .* spool:'" || { cat rec.log; fail "record -p did not start"; }
round 1
wait_until 60 sh -c "[ \"\$('$TPOINT' stat -p $P 2>/dev/null | awk '\$1 == \"synthetic:lat\" { print \$0 }' | wc -l)\" = 1 ]" ||
	fail "stat -p: no synthetic:lat"
[ "$(recorded synthetic:lat)" = $N ] || { "$TPOINT" stat -p "$P"; fail "record -p: $N recorded"; }
# Gone before the recording ends: its records are written with its format all the same.
"$TPOINT" trigger -p "$P" -e tpt_hlat:hl_done "!$END" >/dev/null || fail "remove the end's trigger (2)"
"$TPOINT" trigger -p "$P" -e synthetic_events '!lat' >/dev/null || fail "remove the definition (2)"
kill -INT "$R"
wait "$R" || { cat rec.log; fail "record -p exited $?"; }
trace-cmd report pid.dat >pid.txt 2>/dev/null || fail "trace-cmd report pid.dat"
[ "$(grep -c ' lat: ' pid.txt)" = $N ] || { head pid.txt; fail "record -p: not $N synthetic records"; }
grep -q 'hl_done:' pid.txt && fail "record -p -e synthetic:lat recorded hl_done"
awk 'BEGIN { split("0 3 50 300 70000", L, " ") }
     / lat: / { if (index($0, "lat=" L[k % 5 + 1] ",") == 0) { print; bad = 1 }; k++ }
     END { exit bad }' pid.txt || fail "record -p: the latencies"
echo "ok: tpoint record -p -e synthetic:lat: $N records, alone, readable after its removal"
