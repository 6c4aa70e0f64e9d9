#!/bin/sh
# SPDX-License-Identifier: MIT
# traceon/traceoff and enable_event/disable_event (issue 35), through tests/onofftarget.c (a
# program built with jump-label call sites): its loop of N steps hits tpt_onoff:stop at each
# odd hundred (100, 300, ...), start at each even one from 200, then tick and detail with
# seq = the step. traceoff on stop and traceon on start keep exactly the ticks of the even
# hundreds, and the marks that fired them, in the file (tpoint report and trace-cmd report,
# over a TPOINT_RECORD file and a `tpoint record -p` file); the kernel's counts (used only by
# a change); from a signal handler; from 16 threads at once; TPOINT_TRACING_ON=0. enable_event
# switches detail, whose site is a NOP while it is off; the refusals; `tpoint stat -p`.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null || { echo "SKIP: no trace-cmd"; exit 77; }
B=$(dirname "$TPOINT")
T=$B/tests/onofftarget
. "$(dirname "$0")/lib/wait.sh"
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT
EV=tpt_onoff:start,tpt_onoff:stop,tpt_onoff:tick
ONOFF='tpt_onoff:stop:traceoff;tpt_onoff:start:traceon'

# seqs READER FILE EVENT: the seq of each record of EVENT, in order.
seqs() {
	if [ "$1" = trace-cmd ]; then trace-cmd report "$2" 2>/dev/null; else "$TPOINT" report "$2"; fi |
		sed -n "s/.* $3: *seq=\([0-9]*\) .*/\1/p"
}
# want N AWK-TEST: the steps 0..N-1 that pass the test on i, one a line.
want() { awk -v n="$1" "BEGIN { for (i = 0; i < n; i++) if ($2) print i }"; }
# same FILE EVENT EXPECTED WHAT: both readers show exactly EXPECTED's seqs of EVENT.
same() {
	for r in tpoint trace-cmd; do
		seqs $r "$1" "$2" >got.txt
		cmp -s got.txt "$3" || { diff "$3" got.txt | head -5; fail "$4 ($r report, $2)"; }
	done
}

# start_waiting MODE N [VAR=VALUE...]: onofftarget waits (P) to run MODE on SIGUSR1.
start_waiting() {
	mode=$1 n=$2
	shift 2
	env "$@" "$T" wait "$mode" "$n" >p.out 2>p.err &
	P=$!
	pids=$P
	wait_until 30 grep -q "^ready $P\$" p.out || fail "onofftarget wait $mode did not start"
}
# record_and_run EVENTS OUT: tpoint record -p (R) attached, then the run, to its end.
record_and_run() {
	timeout 120 "$TPOINT" record -p "$P" -e "$1" -o "$2" >rec.out 2>rec.err &
	R=$!
	pids="$P $R"
	wait_until 60 sh -c "'$TPOINT' ps | grep -q '^ *$P .* spool:'" ||
		{ cat rec.err; fail "record -p did not attach"; }
	kill -USR1 "$P"
	wait_until 120 grep -q '^done$' p.out || fail "the run did not finish (deadlock?)"
}
# record_end: the process ends, and so does its recording.
record_end() {
	kill -TERM "$P"
	wait "$R" || { cat rec.err; fail "record -p exited $?"; }
	pids=""
}

want 1000 'int(i / 100) % 2 == 0' >even.txt
want 1000 'i % 100 == 0 && i > 0 && int(i / 100) % 2 == 1' >stops.txt
want 1000 'i % 100 == 0 && i > 0 && int(i / 100) % 2 == 0' >starts.txt

rm -f a.dat
TPOINT_RECORD=a.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER=$ONOFF "$T" seq 1000 >out.txt 2>err.txt ||
	{ cat err.txt; fail "onofftarget seq exited $?"; }
same a.dat tick even.txt "traceoff/traceon: the ticks of the even hundreds"
same a.dat stop stops.txt "the stops that fired traceoff are in the file"
same a.dat start starts.txt "the starts that fired traceon are in the file"
"$TPOINT" report --stats a.dat 2>&1 | grep -Eq '^tpt_onoff:tick +1000 +0 +500 +500 +0 +500' ||
	{ "$TPOINT" report --stats a.dat; fail "the ticks of the off windows count as filtered"; }
echo "ok: traceoff/traceon windows, exact (TPOINT_RECORD, tpoint and trace-cmd report)"

rm -f s.dat
TPOINT_RECORD=s.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER=$ONOFF "$T" signal 1000 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "onofftarget signal exited $?"; }
same s.dat tick even.txt "fired in a signal handler"
same s.dat stop stops.txt "fired in a signal handler: the stops"
# A storm: 400 signals interrupt a thread anywhere in its tick loop (mid-hit too); each
# handler fires traceoff (even k) or traceon (odd k), and each waits for the last: every
# mark is in the file, the ticks of the windows are out and counted as filtered.
rm -f storm.dat
TPOINT_RECORD=storm.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER=$ONOFF timeout 120 "$T" storm 400 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "onofftarget storm exited $? (deadlock?)"; }
want 400 'i % 2 == 0' >w.txt
same storm.dat stop w.txt "a storm of signals: the stops"
want 400 'i % 2 == 1' >w.txt
same storm.dat start w.txt "a storm of signals: the starts"
n=$(seqs tpoint storm.dat tick | wc -l)
"$TPOINT" report --stats storm.dat 2>&1 | awk -v n="$n" '$1 == "tpt_onoff:tick" { ok = $2 == $4 + n && $5 == n } END { exit !ok }' ||
	{ "$TPOINT" report --stats storm.dat; fail "a storm of signals: the ticks of the windows not counted as filtered"; }
echo "ok: fired in a signal handler; a storm of 400 signals"

# Counts, as the kernel's: traceon:1 is not used by the start at 200... it is (tracing is
# off then); traceoff:2 by the stops at 100 and 300; after that tracing stays off, so the
# start at 400 and later ones are out, and so are their ticks. A filter: traceon if seq >= 600.
rm -f c.dat
TPOINT_RECORD=c.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER='tpt_onoff:stop:traceoff:2;tpt_onoff:start:traceon:1' \
	"$T" seq 1000 >/dev/null 2>err.txt || { cat err.txt; fail "counts: exited $?"; }
want 1000 'i < 100 || (i >= 200 && i < 300)' >w.txt
same c.dat tick w.txt "traceoff:2, traceon:1"
want 400 'i == 100 || i == 300' >w.txt
same c.dat stop w.txt "traceoff:2: its two stops"
rm -f f.dat
TPOINT_RECORD=f.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER='tpt_onoff:stop:traceoff;tpt_onoff:start:traceon if seq >= 600' \
	"$T" seq 1000 >/dev/null 2>err.txt || { cat err.txt; fail "filter: exited $?"; }
want 1000 'i < 100 || (i >= 600 && i < 700) || (i >= 800 && i < 900)' >w.txt
same f.dat tick w.txt "traceon if seq >= 600"
echo "ok: traceon/traceoff counts and filters"

# The flight recorder (overwrite mode, a small pool): after traceoff nothing takes a page of
# it, so it keeps the records up to the stop that fired it, not those of the 100,000 steps
# after (which would have overwritten them, and are out of the file).
rm -f ow.dat
TPOINT_MODE=overwrite TPOINT_BUFFER_SIZE=1M TPOINT_RECORD=ow.dat TPOINT_EVENTS=$EV \
	TPOINT_TRIGGER='tpt_onoff:stop:traceoff:1 if seq >= 100000' "$T" seq 200000 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "overwrite: exited $?"; }
[ "$(seqs tpoint ow.dat tick | tail -1)" = 100099 ] ||
	{ seqs tpoint ow.dat tick | tail -3; fail "overwrite: the last tick is not the one before traceoff"; }
[ "$(seqs trace-cmd ow.dat stop | tail -1)" = 100100 ] || fail "overwrite: the stop that fired traceoff"
[ "$(seqs tpoint ow.dat tick | wc -l)" -gt 1000 ] || fail "overwrite: the flight recorder kept too little"
echo "ok: traceoff keeps the flight recorder as it was"

# The flight recorder of a process that records to memory only: tpoint snapshot -p.
start_waiting seq 1000 TPOINT_EVENTS=$EV TPOINT_TRIGGER=$ONOFF
kill -USR1 "$P"
wait_until 60 grep -q '^done$' p.out || fail "snapshot: the run did not finish"
"$TPOINT" snapshot -p "$P" -o snap.dat >/dev/null 2>err.txt || { cat err.txt; fail "snapshot -p exited $?"; }
kill -TERM "$P"
wait "$P"
pids=""
same snap.dat tick even.txt "tpoint snapshot: the ticks of the even hundreds"
same snap.dat start starts.txt "tpoint snapshot: the starts"
echo "ok: tpoint snapshot -p leaves out the off windows"

# tpoint stream -p: the same windows left out as it prints (live).
start_waiting seq 1000 TPOINT_TRIGGER=$ONOFF
timeout 120 "$TPOINT" stream -p "$P" -e "$EV" >stream.txt 2>stream.err &
R=$!
pids="$P $R"
wait_until 60 sh -c "'$TPOINT' ps | grep -q '^ *$P .* spool:'" || { cat stream.err; fail "stream did not attach"; }
kill -USR1 "$P"
wait_until 60 grep -q '^done$' p.out || fail "stream: the run did not finish"
record_end
sed -n 's/.* tick: *seq=\([0-9]*\) .*/\1/p' stream.txt >got.txt
cmp -s got.txt even.txt || { diff even.txt got.txt | head -5; fail "tpoint stream: the ticks of the even hundreds"; }
echo "ok: tpoint stream -p leaves out the off windows"

# Off from the start (the kernel's echo 0 > tracing_on): the first start turns it on.
rm -f o.dat
TPOINT_TRACING_ON=0 TPOINT_RECORD=o.dat TPOINT_EVENTS=$EV TPOINT_TRIGGER=$ONOFF "$T" seq 1000 \
	>/dev/null 2>err.txt || { cat err.txt; fail "TPOINT_TRACING_ON=0: exited $?"; }
want 1000 'i >= 200 && int(i / 100) % 2 == 0' >w.txt
same o.dat tick w.txt "TPOINT_TRACING_ON=0"
rm -f r.dat
TPOINT_TRACING_ON=0 TPOINT_TRIGGER=$ONOFF "$TPOINT" record -e "$EV" -o r.dat -- "$T" seq 1000 \
	>/dev/null 2>err.txt || { cat err.txt; fail "tpoint record -- with TPOINT_TRACING_ON=0: exited $?"; }
same r.dat tick w.txt "TPOINT_TRACING_ON=0 tpoint record --"
TPOINT_TRACING_ON=maybe "$T" seq 10 >/dev/null 2>err.txt
grep -q "TPOINT_TRACING_ON='maybe': expected 0 or 1; tracing stays on" err.txt ||
	{ cat err.txt; fail "a bad TPOINT_TRACING_ON is not said"; }
echo "ok: TPOINT_TRACING_ON=0 (TPOINT_RECORD, tpoint record --)"

# enable_event/disable_event on detail, which is not selected: its site is a NOP until a
# trigger switches it (hits 0 without one), then its records are dropped (soft mode) until
# start enables it: :2, so at 200 and 400 only; stop disables it at each odd hundred.
rm -f d.dat
TPOINT_RECORD=d.dat TPOINT_EVENTS=$EV "$T" seq 1000 >/dev/null 2>&1
"$TPOINT" report --stats d.dat 2>&1 | grep -Eq '^tpt_onoff:detail +0 ' ||
	{ "$TPOINT" report --stats d.dat; fail "detail is hit while off: its site is not a NOP"; }
rm -f d.dat
TPOINT_RECORD=d.dat TPOINT_EVENTS=tpt_onoff:start \
	TPOINT_TRIGGER='tpt_onoff:stop:disable_event:tpt_onoff:detail;tpt_onoff:start:enable_event:tpt_onoff:detail:2' \
	"$T" seq 1000 >/dev/null 2>err.txt || { cat err.txt; fail "enable_event: exited $?"; }
[ -s err.txt ] && { cat err.txt; fail "enable_event: said something"; }
want 1000 'int(i / 100) == 2 || int(i / 100) == 4' >w.txt
same d.dat detail w.txt "enable_event:...:2 / disable_event"
"$TPOINT" report --stats d.dat 2>&1 | grep -Eq '^tpt_onoff:detail +1000 +0 +800 +200 ' ||
	{ "$TPOINT" report --stats d.dat; fail "detail: hit 1000 times, 200 recorded"; }
TPOINT_TRIGGER='tpt_onoff:stop:enable_event:tpt_onoff:nosuch;tpt_onoff:start:traceon:0' \
	"$T" seq 10 >/dev/null 2>err.txt
grep -q "TPOINT_TRIGGER: 'tpt_onoff:start:traceon:0': '0': expected a count above 0 after 'traceon:'; ignored" err.txt &&
	grep -q "TPOINT_TRIGGER: 'tpt_onoff:stop:enable_event:tpt_onoff:nosuch': enable_event:tpt_onoff:nosuch: no event 'tpt_onoff:nosuch' in this process (Invalid argument); ignored" err.txt ||
	{ cat err.txt; fail "TPOINT_TRIGGER: a count of 0, an event that does not exist"; }
echo "ok: enable_event switches a jump-label site; disable_event; counts; TPOINT_TRIGGER's refusals"

# From outside, on a running process recorded by tpoint record -p; 16 threads at once each
# hit start, tick, detail and stop 2000 times: traceoff:5, traceon:5, enable_event:7 and
# disable_event:7 each fire exactly their count (no deadlock); tpoint stat -p lists them.
start_waiting threads 2000
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'traceoff:5' >/dev/null || fail "trigger traceoff:5"
"$TPOINT" trigger -p "$P" -e tpt_onoff:start 'traceon:5' >/dev/null || fail "trigger traceon:5"
"$TPOINT" trigger -p "$P" -e tpt_onoff:start 'enable_event:tpt_onoff:detail:7' >/dev/null ||
	fail "trigger enable_event"
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'disable_event:tpt_onoff:detail:7 if seq >= 0' >/dev/null ||
	fail "trigger disable_event"
# the refusals: exit 1, the token named
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'enable_event:tpt_onoff:nosuch' 2>err.txt
[ $? = 1 ] && grep -q "no event 'tpt_onoff:nosuch' in this process" err.txt ||
	{ cat err.txt; fail "enable_event of an event that does not exist"; }
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'traceoff:0' 2>err.txt
[ $? = 1 ] && grep -q "'0': expected a count above 0 after 'traceoff:'" err.txt ||
	{ cat err.txt; fail "traceoff:0"; }
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'enable_event:tpt_onoff:detail' 2>err.txt
[ $? = 1 ] && grep -q "has a disable_event:tpt_onoff:detail trigger already" err.txt ||
	{ cat err.txt; fail "a second switch of detail on stop"; }
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'enable_event:tpt_onoff' 2>err.txt
[ $? = 1 ] && grep -q "expected enable_event:system:event" err.txt ||
	{ cat err.txt; fail "enable_event without an event"; }
"$TPOINT" stat -p "$P" | grep -q '^jump labels: .* patched' ||
	{ "$TPOINT" stat -p "$P"; fail "stat -p: the sites are not patched"; }
record_and_run 'tpt_onoff:*' p.dat
"$TPOINT" stat -p "$P" >stat.txt || fail "stat -p exited $?"
for t in 'traceoff:count=0 (fired 5)' 'traceon:count=0 (fired 5)' \
	'enable_event:tpt_onoff:detail:count=0 (fired 7)' \
	'disable_event:tpt_onoff:detail:count=0 if seq >= 0 (fired 7)'; do
	grep -qxF "  trigger: $t" stat.txt || { cat stat.txt; fail "stat -p: $t"; }
done
"$TPOINT" stat -p "$P" -e tpt_onoff:stop --json >stat.json || fail "stat -p --json exited $?"
python3 - <<'PY' || { cat stat.json; fail "stat -p --json: the triggers"; }
import json
o = json.loads(open("stat.json").readline())
t = {x["trigger"]: (x["fired"], x["left"]) for x in o["triggers"]}
assert t == {"traceoff:count=0 (fired 5)": (5, 0),
             "disable_event:tpt_onoff:detail:count=0 if seq >= 0 (fired 7)": (7, 0)}, t
PY
record_end
# Which ticks fall in the 5 short windows depends on the threads' order: whatever they
# are, the ticks left out are counted as filtered, and both readers show the same file.
n=$("$TPOINT" report p.dat | grep -c ' tick: ')
"$TPOINT" report --stats p.dat 2>&1 | grep -Eq "^tpt_onoff:tick +32000 +0 +$((32000 - n)) +$n " ||
	{ "$TPOINT" report --stats p.dat; fail "record -p: $n ticks, the others not counted as filtered"; }
[ "$(trace-cmd report p.dat 2>/dev/null | grep -c ' tick: ')" = "$n" ] ||
	fail "record -p: trace-cmd report shows other ticks than tpoint report"
echo "ok: 16 threads, exact counts; stat -p lists the triggers"

# record -p, exact: the seq loop recorded by tpoint record -p with traceoff/traceon set from
# outside.
start_waiting seq 1000
"$TPOINT" trigger -p "$P" -e tpt_onoff:stop 'traceoff' >/dev/null || fail "trigger traceoff"
"$TPOINT" trigger -p "$P" -e tpt_onoff:start 'traceon' >/dev/null || fail "trigger traceon"
record_and_run "$EV" q.dat
record_end
same q.dat tick even.txt "record -p: the ticks of the even hundreds"
same q.dat stop stops.txt "record -p: the stops"
echo "ok: record -p, exact windows"
