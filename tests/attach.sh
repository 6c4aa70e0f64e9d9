#!/bin/sh
# tpoint record -p: recording a running process, with a filter and a duration; a process
# killed mid-recording (every event it committed is in the file); a recorder killed
# mid-recording (the process runs on, its events back off, nothing left behind).
set -u
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

# The n of every ctl_tick in FILE, one per line.
ticks() { trace-cmd report "$1" 2>/dev/null | sed -n 's/.* ctl_tick: *n=\([0-9]*\) .*/\1/p'; }
# No n missing between the first and the last.
contiguous() { awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }'; }

start 60 300
"$TPOINT" record -p "$P" -e tpt_ctl -f 'n & 1' -o filt.dat --duration 1 2>err.txt ||
	{ cat err.txt; fail "record -p exited $?"; }
grep -q "filt.dat: [0-9]* events from 1 process, 0 lost" err.txt || { cat err.txt; fail "summary"; }
trace-cmd report --check-events filt.dat >/dev/null 2>&1 || fail "trace-cmd refuses filt.dat"
n=$(ticks filt.dat | wc -l)
even=$(ticks filt.dat | awk '$1 % 2 == 0' | wc -l)
[ "$n" -gt 100 ] || fail "only $n ctl_tick events in a second"
[ "$even" = 0 ] || fail "$even ctl_tick records passed the filter 'n & 1'"
trace-cmd report filt.dat 2>/dev/null | grep -q "EVENTS DROPPED" && fail "drops marked, none happened"
"$TPOINT" list -p "$P" | grep -q "enabled\|filter:" && fail "events or filters left on after record -p"
"$TPOINT" ps | grep -q "^ *$P .* none$" || fail "the process still records after record -p"
echo "ok: record -p -f 'n & 1' --duration 1: $n odd ticks, no even one; all back off after"

"$TPOINT" record -p "$P" -e 'nosuch:*' -o x.dat --duration 1 2>err.txt; [ $? = 1 ] || fail "nosuch"
grep -q "'nosuch:\*' matches no event of process $P" err.txt || { cat err.txt; fail "nosuch message"; }
"$TPOINT" record -p 999999 -e tpt_ctl -o x.dat 2>err.txt; [ $? = 1 ] || fail "missing pid"
grep -q "no process 999999" err.txt || fail "missing pid message"
echo "ok: errors"

# The process is killed mid-recording: what it committed is in the file, without a gap.
"$TPOINT" record -p "$P" -e tpt_ctl:ctl_tick -o killed.dat >rec.log 2>&1 &
r=$!
wait_until 60 recording_is "$P" 'spool:' && wait_count "$P" tpt_ctl:ctl_tick recorded 200 ||
	fail "record -p did not start"
kill -9 "$P"
wait $r || { cat rec.log; fail "record -p of a killed process exited $?"; }
grep -q "is gone; its remaining pages were read from its buffer" rec.log || { cat rec.log; fail "no salvage"; }
n=$(ticks killed.dat | wc -l)
[ "$n" -gt 100 ] || fail "only $n events salvaged"
ticks killed.dat | contiguous || fail "events missing in the salvaged file"
echo "ok: SIGKILL mid-recording: $n events, contiguous to the end"

# The recorder is killed mid-recording: the process runs on, events off within a second.
start 60 300
fds=$(ls /proc/$P/fd | wc -l)
threads=$(ls /proc/$P/task | wc -l)
"$TPOINT" record -p "$P" -e tpt_ctl -o never.dat >/dev/null 2>&1 &
r=$!
wait_until 60 recording_is "$P" 'spool:' ||
	fail "the process does not show the recording"
kill -9 $r
wait_until 60 recording_is "$P" 'none$' ||
	{ "$TPOINT" ps; fail "still recording after the recorder died"; }
# (the process lets go of the recording's descriptors and threads once it has seen it end)
as_before() { [ "$(ls /proc/$P/fd | wc -l)" = "$fds" ] && [ "$(ls /proc/$P/task | wc -l)" = "$threads" ]; }
wait_until 60 as_before
"$TPOINT" list -p "$P" | grep -q enabled && fail "events still enabled after the recorder died"
[ "$(ls /proc/$P/fd | wc -l)" = "$fds" ] || fail "descriptors leaked: $fds before, $(ls /proc/$P/fd | wc -l) after"
[ "$(ls /proc/$P/task | wc -l)" = "$threads" ] || fail "threads leaked"
kill -0 "$P" || fail "the process died with its recorder"
[ -z "$(ls -A | grep tpoint-spool)" ] || { ls -la; fail "the dead recorder's spool directory is left behind"; }
echo "ok: recorder killed: the process runs on, events off, no descriptor, thread or spool left"

# A process recording already (embedded) says so.
TPOINT_EVENTS=tpt_ctl TPOINT_RECORD=emb.dat "$B/tests/ctltarget" 10 1000 >target.out 2>&1 &
e=$!; pids="$pids $e"
wait_ready target.out $e || fail "ctltarget (embedded recording) did not start"
"$TPOINT" record -p $e -e tpt_ctl -o x.dat --duration 1 2>err.txt; [ $? = 1 ] || fail "double recording"
grep -q "records already (file:/.*/emb.dat)" err.txt || { cat err.txt; fail "double recording message"; }
echo "ok: a process that records already is not recorded twice"

# The flight recorder: a small pool in overwrite mode keeps the newest events, intact.
start 60 100
"$TPOINT" record -p "$P" -e tpt_ctl:ctl_tick --overwrite -b 64K -o ring.dat --duration 2 2>err.txt ||
	{ cat err.txt; fail "record -p --overwrite exited $?"; }
n=$(ticks ring.dat | wc -l)
ticks ring.dat | tail -n 100 | contiguous || fail "the newest events are not contiguous"
grep -q "ring.dat: $n events" err.txt || { cat err.txt; fail "summary of the flight recorder"; }
lost=$(sed -n 's/.*tpt_ctl:ctl_tick *\([0-9]*\) *[0-9]* *[0-9]* *[0-9]* *\([0-9]*\)$/\2/p' err.txt)
[ -n "$lost" ] && [ "$lost" -gt 0 ] || { cat err.txt; fail "a 64K pool over 2 s overwrote nothing?"; }
echo "ok: --overwrite -b 64K: the newest $n events kept, $lost overwritten and counted"

# Block mode through the control socket: every event kept, none lost.
"$TPOINT" record -p "$P" -e tpt_ctl:ctl_tick --block -b 64K -o block.dat --duration 1 2>err.txt ||
	{ cat err.txt; fail "record -p --block exited $?"; }
n=$(ticks block.dat | wc -l)
grep -q "block.dat: $n events from 1 process, 0 lost" err.txt || { cat err.txt; fail "summary of --block"; }
[ "$n" -gt 100 ] && ticks block.dat | contiguous || fail "--block: $n events, or not contiguous"
# The counts are this recording's, not the process's since it started (it was recorded above).
counted=$(sed -n 's/.*tpt_ctl:ctl_tick *[0-9]* *[0-9]* *[0-9]* *\([0-9]*\) *[0-9]*$/\1/p' err.txt)
[ "$counted" = "$n" ] || { cat err.txt; fail "--block: $n events in the file, $counted counted recorded"; }
"$TPOINT" record -p "$P" -e tpt_ctl --block --overwrite -o x.dat 2>err.txt; [ $? = 2 ] || fail "--block --overwrite"
grep -q "one or the other" err.txt || { cat err.txt; fail "--block --overwrite message"; }
echo "ok: --block -b 64K: $n events, none lost; --block with --overwrite refused"

# A snapshot of events kept in memory, taken twice without stopping anything.
"$TPOINT" snapshot -p "$P" -o none.dat 2>err.txt; [ $? = 1 ] || fail "snapshot of nothing"
grep -q "records nothing: enable events first" err.txt || { cat err.txt; fail "snapshot message"; }
"$TPOINT" enable -p "$P" tpt_ctl:ctl_tick >/dev/null || fail "enable"
wait_count "$P" tpt_ctl:ctl_tick recorded 11 || fail "no ctl_tick recorded after enable"
"$TPOINT" snapshot -p "$P" -o snap1.dat 2>/dev/null || fail "snapshot 1"
wait_count "$P" tpt_ctl:ctl_tick recorded 1 || fail "no ctl_tick recorded after snapshot 1"
"$TPOINT" snapshot -p "$P" -o snap2.dat 2>/dev/null || fail "snapshot 2"
n1=$(ticks snap1.dat | wc -l); n2=$(ticks snap2.dat | wc -l)
[ "$n1" -gt 10 ] && [ "$n2" -gt "$n1" ] || fail "snapshots hold $n1 then $n2 events"
ticks snap2.dat | contiguous || fail "snapshot events not contiguous"
"$TPOINT" ps | grep -q "^ *$P .* memory$" || fail "the snapshot stopped the in-memory recording"
echo "ok: snapshots: $n1 then $n2 events, the recording goes on"
