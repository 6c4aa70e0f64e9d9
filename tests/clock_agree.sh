#!/bin/sh
# The readers of a spool give a record one time: `tpoint stream` (which reads the spool of a
# running process) and `tpoint record --assemble` then `tpoint report` (the file writer,
# lib/tracedat.c) print the same line for it, time included. The spool here is made by hand
# by a fake process (tests/ctlfake.c, "spool") whose clock is not this machine's and which
# has one clock sample only: then the rate of its clock is not known, and both readers must
# make the same guess (lib/spool_read.c: one tick a nanosecond from the sample). They did
# not: stream put every record at the sample's time, the file writer 2, 4 and 6 ms after it.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done' EXIT

mkdir -m 700 xdg copy
XDG_RUNTIME_DIR=$PWD/xdg "$B/tests/ctlfake" spool "$PWD/xdg/tpoint" "$PWD/copy" >fake.out 2>&1 &
pids="$pids $!"
for i in $(seq 600); do
	grep -q '^ready' fake.out && break
	sleep 0.1
done
F=$(sed -n 's/^ready //p' fake.out)
[ -n "$F" ] || { cat fake.out; fail "the fake process did not start"; }

# The spool says it ended: stream prints what it holds and stops.
timeout 60 "$TPOINT" stream -p "$F" -e tpt_fake:fake_tick >s.out 2>s.err ||
	{ cat s.err; fail "stream exited $?"; }
grep ' fake_tick: ' s.out >stream.txt
[ "$(wc -l <stream.txt)" = 3 ] || { cat s.out s.err; fail "stream printed $(wc -l <stream.txt) records, expected 3"; }

"$TPOINT" record --assemble copy -o a.dat 2>a.err || { cat a.err; fail "--assemble exited $?"; }
"$TPOINT" report a.dat >r.out 2>r.err || { cat r.err; fail "report exited $?"; }
grep ' fake_tick: ' r.out >report.txt

diff report.txt stream.txt >diff.txt ||
	{ cat diff.txt; fail "stream and report disagree on the same spool's records"; }
# And the records are 2 ms apart, as their ticks are.
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t[NR] = $i + 0 }
     END { for (i = 2; i <= NR; i++) { d = (t[i] - t[i - 1]) * 1e6;
	   if (d < 1999 || d > 2001) { print "records " d " us apart, expected 2000"; exit 1 } } }' \
	report.txt || { cat report.txt; fail "the times do not follow the ticks"; }
echo "ok: stream and report print the same 3 lines, 2 ms apart, from a spool of one clock sample"
