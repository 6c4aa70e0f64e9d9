#!/bin/sh
# SPDX-License-Identifier: MIT
# report and stream render with one renderer (tools/tpoint/render.c): an event whose print
# format libtraceevent cannot print safely (tests/trace/events/tpt_unsafe.h: __print_hex() of
# an expression, which libtraceevent 1.7.1 prints by following a pointer it never set) is
# refused by both with the same message, and its records print the same way in both:
# "[FAILED TO PARSE]" and their fields, never handed to libtraceevent's printer.
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT
# For a sanitizer build: libtraceevent 1.7.1 leaks on formats it fails to parse.
echo "leak:libtraceevent.so" >lsan.supp
LSAN_OPTIONS="suppressions=$(pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

line_re='^ *fmttarget-[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: '
hex_re="${line_re}hexoff: +\\[FAILED TO PARSE\\] n=[0-9]+ buf=ARRAY\\[01, 01, 01, 01, 01, 01, 01, 01\\]\$"
fine_re="${line_re}fine: +n=[0-9]+\$"

# report: the recorded file.
TPOINT_EVENTS='tpt_unsafe:*' TPOINT_RECORD=u.dat "$B/tests/fmttarget" 0.2 >/dev/null ||
	fail "fmttarget exited $?"
"$TPOINT" report u.dat >r.out 2>r.err
rc=$?
[ $rc = 1 ] || fail "report of an unsafe format exited $rc, expected 1"
[ "$(wc -l <r.err)" = 1 ] || { cat r.err; fail "report: expected one line on stderr"; }
msg=$(sed -n 's/^tpoint report: u\.dat: //p' r.err)
case $msg in
"event tpt_unsafe:hexoff: libtraceevent cannot print it safely: "*) ;;
*) cat r.err; fail "report: not the refusal of tpt_unsafe:hexoff" ;;
esac
grep -q ' hexoff: ' r.out || fail "report printed no hexoff line"
grep ' hexoff: ' r.out | grep -Evq "$hex_re" && { cat r.out; fail "report: a hexoff line not as expected"; }
grep -Eq "$fine_re" r.out || fail "report: no fine line"
echo "ok: report refuses it: $msg"

# stream: the running process, the same refusal, the same lines.
"$B/tests/fmttarget" 120 >target.out 2>&1 &
pids="$pids $!"
for i in $(seq 600); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' target.out)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || fail "fmttarget did not start"
"$TPOINT" stream -p "$P" -e 'tpt_unsafe:*' >s.out 2>s.err &
s=$!
pids="$pids $s"
for i in $(seq 300); do
	[ "$(grep -c ' hexoff: ' s.out)" -ge 5 ] && break
	sleep 0.1
done
kill -INT $s
wait $s
rc=$?
[ $rc = 0 ] || fail "stream ended by SIGINT exited $rc"
[ "$(grep -c ' hexoff: ' s.out)" -ge 5 ] || { cat s.err; fail "stream: no five hexoff lines in 30 s"; }
[ "$(cat s.err)" = "tpoint stream: $msg" ] ||
	{ cat s.err; fail "stream did not refuse it with report's message: 'tpoint stream: $msg'"; }
grep ' hexoff: ' s.out | grep -Evq "$hex_re" && {
	grep ' hexoff: ' s.out | head -3; fail "stream: a hexoff line not as report prints it"; }
grep -Eq "$fine_re" s.out || fail "stream: no fine line"
echo "ok: stream refuses it with the same message, and prints its records as report does"
