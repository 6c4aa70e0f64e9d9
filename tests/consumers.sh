#!/bin/sh
# A consumer attached to a running process (tpoint stream, tpoint record -p) delivers exactly
# its own selection: its -e globs, each with the -f that follows it (trace-cmd's order; a
# filter on a glob applies to the events that have its fields and names the others), and
# nothing of what others enabled in the process. What the process had (events enabled with
# tpoint enable -p, its filters, its in-memory flight recorder) goes on as it was, during and
# after. And stream's lines come in time order across threads.
set -u
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; [ -f s.err ] && head -5 s.err; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

# The n of every ctl_tick line of a stream's output, or of trace-cmd report of a file.
ticks_of() { sed -n 's/.* ctl_tick: *n=\([0-9]*\) .*/\1/p' "$1"; }
ticks() { trace-cmd report "$1" 2>/dev/null | sed -n 's/.* ctl_tick: *n=\([0-9]*\) .*/\1/p'; }
contiguous() { awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }'; }
# The process's own state, as `tpoint list -p` shows it: events enabled, filters.
state() { "$TPOINT" list -p "$P" >"$1" || fail "list -p exited $?"; }
# The state now is the one in before.txt, or fail saying what changed it ($1).
unchanged() {
	state after.txt
	cmp -s before.txt after.txt || { diff before.txt after.txt; fail "$1 changed the process"; }
}
# stream -p $P with the arguments given, into s.out, until $2 lines match $1 (30 s at most).
stream_until() {
	_re=$1 _n=$2
	shift 2
	rm -f s.out # the last stream's lines must not be taken for this one's
	"$TPOINT" stream -p "$P" "$@" >s.out 2>s.err &
	s=$!
	pids="$pids $s"
	wait_lines s.out "$_n" "$_re" 30 || fail "stream $*: no $_n lines '$_re' within 30 s"
	kill -INT $s
	wait $s || fail "stream $* exited $?"
}

# 1. Exactly the selection. ctl_odd is enabled by `tpoint enable -p` (so recorded in memory);
# a consumer of ctl_tick gets no ctl_odd, and ctl_odd stays enabled after.
start 120 2000
"$TPOINT" enable -p "$P" tpt_ctl:ctl_odd >/dev/null || fail "enable -p"
state before.txt
stream_until ' ctl_tick: ' 50 -e tpt_ctl:ctl_tick
odd=$(grep -c ' ctl_odd: ' s.out)
[ "$odd" = 0 ] || fail "stream -e ctl_tick printed $odd ctl_odd lines (enabled by enable -p)"
[ -s s.err ] && fail "stream said something on stderr"
"$TPOINT" record -p "$P" -e tpt_ctl:ctl_tick -o sel.dat --duration 1 2>err.txt ||
	{ cat err.txt; fail "record -p exited $?"; }
n=$(ticks sel.dat | wc -l)
odd=$(trace-cmd report sel.dat 2>/dev/null | grep -c ' ctl_odd: ')
[ "$n" -gt 50 ] || fail "record -p: only $n ctl_tick records"
[ "$odd" = 0 ] || fail "record -p -e ctl_tick recorded $odd ctl_odd records"
grep -q "ctl_odd" err.txt && { cat err.txt; fail "record -p's summary counts ctl_odd"; }
grep -q "sel.dat: $n events from 1 process" err.txt ||
	{ cat err.txt; fail "summary: not $n events"; }
trace-cmd report --stat sel.dat >/dev/null 2>&1 || fail "trace-cmd refuses sel.dat"
unchanged "stream and record -p"
"$TPOINT" ps >ps.txt
grep -q "^ *$P .* memory$" ps.txt || { cat ps.txt; fail "the process no longer records in memory"; }
echo "ok: stream and record -p -e ctl_tick deliver no ctl_odd (enable -p), which stays on"

# Enabled from outside while a consumer's own recording runs: kept in memory after it.
start 120 2000
rm -f s.out
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick >s.out 2>s.err &
s=$!
pids="$pids $s"
wait_lines s.out 5 ' ctl_tick: ' 30 || fail "stream: no 5 lines within 30 s"
"$TPOINT" enable -p "$P" tpt_ctl:ctl_odd >/dev/null || fail "enable -p during a stream"
kill -INT $s
wait $s || fail "stream exited $?"
grep -q ' ctl_odd: ' s.out && fail "stream -e ctl_tick showed ctl_odd, enabled during it"
"$TPOINT" ps | grep -q "^ *$P .* memory$" ||
	{ "$TPOINT" ps; fail "ctl_odd, enabled during a stream, is not kept in memory after it"; }
echo "ok: an event enabled during a stream is kept in memory after it"

# 2. The process's filters stay as they were; a consumer's -f is its own.
"$TPOINT" filter -p "$P" tpt_ctl:ctl_tick 'n != 3' >/dev/null || fail "filter -p ctl_tick"
"$TPOINT" filter -p "$P" tpt_ctl:ctl_odd 'n > 7' >/dev/null || fail "filter -p ctl_odd"
state before.txt
stream_until ' ctl_tick: ' 10 -e tpt_ctl:ctl_tick -f 'name == "alpha"'
grep -v 'name=alpha$' s.out && fail "stream -f 'name == \"alpha\"' let other names through"
unchanged "stream -f"
"$TPOINT" record -p "$P" -e tpt_ctl:ctl_tick -f 'name == "beta"' -o f.dat --duration 1 \
	2>err.txt || { cat err.txt; fail "record -p -f exited $?"; }
trace-cmd report f.dat 2>/dev/null | grep ' ctl_tick: ' >f.txt
[ -s f.txt ] || fail "record -p -f 'name == \"beta\"': no record"
grep -v 'name=beta$' f.txt && fail "record -p -f 'name == \"beta\"' let other names through"
unchanged "record -p -f"
"$TPOINT" filter -p "$P" tpt_ctl:ctl_tick --clear >/dev/null || fail "filter --clear"
"$TPOINT" filter -p "$P" tpt_ctl:ctl_odd --clear >/dev/null || fail "filter --clear"
echo "ok: stream -f and record -p -f leave the process's own filters as they were"

# 3. A stream reads without taking: the flight recorder keeps what it had and what came since.
start 120 1000
"$TPOINT" enable -p "$P" tpt_ctl:ctl_tick >/dev/null || fail "enable -p"
wait_count "$P" tpt_ctl:ctl_tick recorded 100 || fail "no history recorded in memory"
stream_until ' ctl_tick: ' 100 -e tpt_ctl:ctl_tick
first=$(ticks_of s.out | head -n 1)
last=$(ticks_of s.out | tail -n 1)
"$TPOINT" snapshot -p "$P" -o snap.dat 2>err.txt || { cat err.txt; fail "snapshot exited $?"; }
ticks snap.dat >snap.txt
sfirst=$(head -n 1 snap.txt)
[ -n "$sfirst" ] && [ "$sfirst" -lt "$first" ] ||
	fail "after the stream (from n=$first) the snapshot starts at n=$sfirst: history gone"
grep -qx "$last" snap.txt || fail "the snapshot lacks n=$last, which the stream showed"
contiguous <snap.txt || fail "the snapshot has gaps"
"$TPOINT" ps >ps.txt
grep -q "^ *$P .* memory$" ps.txt || { cat ps.txt; fail "the process no longer records in memory"; }
echo "ok: after a stream of n=$first..$last, memory holds n=$sfirst..$(tail -n 1 snap.txt)"

# 4. -f applies to the -e before it; on a glob, to the events that have its fields.
stream_until ' ctl_odd: ' 20 -e tpt_ctl:ctl_tick -f 'name == "alpha"' -e tpt_ctl:ctl_odd
grep ' ctl_tick: ' s.out | grep -v 'name=alpha$' && fail "-e A -f X -e B: A not filtered"
grep -q ' ctl_tick: .*name=alpha$' s.out || fail "-e ctl_tick -f ... -e ctl_odd: no ctl_tick"
[ -s s.err ] && fail "-e A -f X -e B: something on stderr"
stream_until ' ctl_odd: ' 20 -e 'tpt_ctl:*' -f 'name == "beta"'
grep ' ctl_tick: ' s.out | grep -v 'name=beta$' && fail "-e 'tpt_ctl:*' -f: ctl_tick not filtered"
grep -q "tpt_ctl:ctl_odd" s.err || fail "-e 'tpt_ctl:*' -f: ctl_odd (no field name) not named"
[ "$(wc -l <s.err)" = 1 ] || { cat s.err; fail "-e 'tpt_ctl:*' -f: more than one line on stderr"; }
"$TPOINT" record -p "$P" -e 'tpt_ctl:*' -f 'name == "gamma"' -o g.dat --duration 1 2>err.txt ||
	{ cat err.txt; fail "record -p -e 'tpt_ctl:*' -f exited $?"; }
trace-cmd report g.dat 2>/dev/null >g.txt
grep ' ctl_tick: ' g.txt | grep -v 'name=gamma$' && fail "record -p: ctl_tick not filtered"
grep -q ' ctl_odd: ' g.txt || fail "record -p -e 'tpt_ctl:*' -f 'name == ...': no ctl_odd"
grep -q "tpt_ctl:ctl_odd" err.txt || { cat err.txt; fail "record -p: ctl_odd not named"; }
"$TPOINT" stream -p "$P" -f 'n > 1' -e ctl_tick >/dev/null 2>err.txt
[ $? = 2 ] || fail "-f before -e: not a usage error"
grep -q "\-f .* -e" err.txt || { cat err.txt; fail "-f before -e: message"; }
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_odd -f 'name == "x"' >/dev/null 2>err.txt
[ $? = 1 ] || fail "a filter on a field no selected event has"
grep -q "no field 'name'" err.txt || { cat err.txt; fail "no field message"; }
"$TPOINT" record -p "$P" -e 'tpt_ctl:*' -f 'n >' -o x.dat 2>err.txt; [ $? = 1 ] || fail "bad filter"
[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "a bad filter should give one line"; }
[ -e x.dat ] && fail "record -p with a bad filter wrote a file"
echo "ok: -e A -f X -e B filters A only; on a glob, -f skips (and names) events without its fields"

# 5. Lines in time order across threads: a busy thread fills pages that reach the spool at
# once, the main thread's ticks wait in a page being written.
start 120 10000 busythread
stream_until ' ctl_tick: ' 100 -e 'tpt_ctl:*'
lines=$(wc -l <s.out)
inv=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
	    if (NR > 1 && t < prev) { n++; d = prev - t; if (d > max) max = d }
	    prev = t }
	END { printf "%d %.6f\n", n, max }' s.out)
[ "${inv%% *}" = 0 ] || fail "$lines lines, ${inv%% *} out of time order (by up to ${inv#* } s)"
echo "ok: $lines lines from two threads, in time order"
