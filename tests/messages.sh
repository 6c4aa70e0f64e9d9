#!/bin/sh
# What a new user meets when something records nothing or less than asked (issue 19, items
# 7 and 8): every silent zero is said, once, where the user looks.
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/wait.sh"
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }

# The test's own program, built against this build's library (sanitized like it, if it is).
CC=${CC:-cc}
san=
nm -D "$B/libtpoint.so" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
$CC -O2 -g $san -I"$top/include" -I"$top/tests" -o msgtarget "$top/tests/msgtarget.c" \
	-L"$B" -ltpoint -Wl,-rpath,"$B" -lpthread 2>err.txt || { cat err.txt; fail "cannot build msgtarget"; }

# The command's failure is record's exit status (as with trace-cmd record and perf record);
# the file is written all the same.
"$TPOINT" record -e hello -o st.dat -- sh -c "'$B/examples/hello' >/dev/null; exit 3" 2>err.txt
rc=$?
[ $rc = 3 ] || { cat err.txt; fail "a command that exits 3: record exited $rc"; }
n=$(trace-cmd report st.dat 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "the failed command's 3 events: trace-cmd shows $n"
"$TPOINT" record -e hello -o st.dat -- sh -c "'$B/examples/hello' >/dev/null; kill -TERM \$\$" 2>err.txt
rc=$?
[ $rc = 143 ] || { cat err.txt; fail "a command killed by SIGTERM: record exited $rc, not 128+15"; }
grep -q "killed by signal 15" err.txt || { cat err.txt; fail "the signal is not said"; }
"$TPOINT" record -e hello -o st.dat -- "$B/examples/hello" >/dev/null 2>err.txt ||
	{ cat err.txt; fail "a command that succeeds: record exited $?"; }
echo "ok: record exits with the command's status (3, 128+15, 0)"

# TPOINT_RECORD with nothing enabled: one line at exit, without TPOINT_DEBUG; the report of
# the empty file says it is empty. With events enabled, not a word.
TPOINT_RECORD=none.dat "$B/examples/hello" >/dev/null 2>err.txt || fail "hello exited $?"
[ "$(wc -l <err.txt)" = 1 ] && grep -q "^tpoint: TPOINT_RECORD=none.dat: no event was enabled (TPOINT_EVENTS is not set)" err.txt ||
	{ cat err.txt; fail "TPOINT_RECORD without TPOINT_EVENTS is not said in one line"; }
TPOINT_EVENTS='helo:*' TPOINT_RECORD=typo.dat "$B/examples/hello" >/dev/null 2>err.txt || fail "hello exited $?"
[ "$(wc -l <err.txt)" = 1 ] && grep -q "TPOINT_EVENTS='helo:\*' matches no event of this program" err.txt ||
	{ cat err.txt; fail "a TPOINT_EVENTS glob matching nothing is not said in one line"; }
TPOINT_EVENTS='hello:*' TPOINT_RECORD=some.dat "$B/examples/hello" >/dev/null 2>err.txt || fail "hello exited $?"
[ -s err.txt ] && { cat err.txt; fail "a recording with events said something"; }
TPOINT_RECORD=fork.dat ./msgtarget fork >/dev/null 2>err.txt || fail "msgtarget fork exited $?"
[ "$(grep -c 'no event was enabled' err.txt)" = 1 ] || { cat err.txt; fail "said other than once with a forked child"; }
"$TPOINT" report none.dat >out.txt 2>err.txt || fail "report of an empty file exited $?"
grep -q "none.dat: no events in this file" err.txt || { cat out.txt err.txt; fail "report of an empty file says nothing"; }
"$TPOINT" report --stats none.dat >out.txt 2>err.txt || fail "report --stats of an empty file exited $?"
grep -q "^no events in this file" out.txt || { cat out.txt; fail "report --stats of an empty file says nothing"; }
echo "ok: TPOINT_RECORD with nothing enabled says so once; report of the empty file says 'no events'"

# TPOINT_FILTER takes the event as `tpoint filter` and tpoint_set_filter() do, bare or with
# its system; a ';' inside a quoted string is the string's.
TPOINT_DEBUG=1 TPOINT_EVENTS='tpt_msg:*' TPOINT_RECORD=filt.dat \
	TPOINT_FILTER='msg_tick:n != 1; tpt_msg:msg_text:text == "x;y" || text == "a:b"' \
	./msgtarget >/dev/null 2>err.txt || { cat err.txt; fail "msgtarget with TPOINT_FILTER exited $?"; }
grep -q "TPOINT_FILTER\|filter of" err.txt && { cat err.txt; fail "TPOINT_FILTER refused"; }
ticks=$(trace-cmd report filt.dat 2>/dev/null | sed -n 's/.*msg_tick: *n=\([0-9]*\)$/\1/p' | tr '\n' ' ')
[ "$ticks" = "0 2 " ] || fail "TPOINT_FILTER='msg_tick:n != 1' kept ticks '$ticks', want '0 2 '"
n=$(trace-cmd report filt.dat 2>/dev/null | grep -c 'msg_text:')
[ "$n" = 0 ] || fail "TPOINT_FILTER with a quoted ';' let $n msg_text through"
echo "ok: TPOINT_FILTER with a bare event name, and a ';' inside a quoted string"

# The refusals of a selection (lib/fmt/selection.c, lib/poolsize.c; their tables are
# tests/selection_test.c and tests/poolsize_test.c), in the tool's words: one line naming
# the value, exit 2, before anything is started; the library's, with TPOINT_DEBUG.
refused() { # EXPECTED-LINE TPOINT-ARGS...
	want=$1
	shift
	"$TPOINT" "$@" >/dev/null 2>err.txt
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && [ "$(cat err.txt)" = "$want" ] ||
		{ cat err.txt; fail "tpoint $*: exit $rc, not 2 with '$want'"; }
}
refused "tpoint stream: ',ctl_odd,': expected comma-separated globs like 'sys:*,sys:event'" \
	stream -p 1 -e ',ctl_odd,'
refused "tpoint record: -f 'n > 1' comes before any -e: a filter applies to the -e before it" \
	record -f 'n > 1' -e hello -- true
refused "tpoint record: two -f for -e 'hello': join them with && or ||" \
	record -e hello -f 'n > 1' -f 'n < 3' -- true
refused "tpoint record: two -f for -k 'sched:*': join them with && or ||" \
	record -e hello -k 'sched:*' -f 'pid > 1' -f 'pid < 3' -- true
refused "tpoint record: -b '8Mi': expected a size of at least 64K, like 8M (bytes, or K, M or G: KiB, MiB, GiB, any case)" \
	record -b 8Mi -e hello -- true
TPOINT_DEBUG=1 TPOINT_BUFFER_SIZE=8Mi TPOINT_EVENTS='hello:*' TPOINT_RECORD=size.dat \
	"$B/examples/hello" >/dev/null 2>err.txt || fail "hello with TPOINT_BUFFER_SIZE=8Mi exited $?"
grep -qF "TPOINT_BUFFER_SIZE='8Mi': expected a size" err.txt ||
	{ cat err.txt; fail "the library's refusal of TPOINT_BUFFER_SIZE='8Mi' does not name it"; }
echo "ok: -e, -f, -b and TPOINT_BUFFER_SIZE refusals name the value"

# stat --interval --json: each object says when it was taken (Unix time) and where in the
# run (seconds since the first sample), so that lines from a log can be placed.
rm -f ct.out # a "ready" of the last target is not this one's
"$B/tests/ctltarget" 30 1000 >ct.out &
CT=$!
trap 'kill $CT 2>/dev/null' EXIT
wait_until 60 grep -q ready ct.out || fail "ctltarget did not start"
before=$(date +%s)
"$TPOINT" stat -p $CT -e ctl_tick --interval 0.2 --json >iv.json 2>err.txt &
ST=$!
for i in $(seq 300); do [ "$(grep -c . iv.json)" -ge 3 ] && break; sleep 0.1; done
kill -INT $ST; wait $ST
kill $CT; wait $CT 2>/dev/null; trap - EXIT
[ "$(grep -c . iv.json)" -ge 3 ] || { cat iv.json err.txt; fail "stat --interval --json printed fewer than 3 objects"; }
grep -v '^{"event": "tpt_ctl:ctl_tick", .*"lost": [0-9.]*, "usdt": [0-9]*, "time": [0-9]*\.[0-9]*, "interval": [0-9]*\.[0-9]*}$' iv.json &&
	fail "stat --interval --json objects without time and interval"
awk -v b="$before" -F'"time": |, "interval": |}' '
	{ if ($2 < b || $2 > b + 60) bad = "time " $2 " is not now"; if ($3 <= last) bad = "interval " $3 " after " last; last = $3 }
	END { if (bad) { print bad; exit 1 } }' iv.json || { cat iv.json; fail "stat --interval --json timestamps"; }
echo "ok: stat --interval --json objects carry their time and interval"

# stream without -e: what the process has enabled, as trace_pipe shows; with nothing
# enabled, one line that says how to enable something (not a test's event name).
rm -f ct.out # a "ready" of the last target is not this one's
TPOINT_EVENTS=tpt_ctl:ctl_odd "$B/tests/ctltarget" 30 1000 >ct.out &
CT=$!
trap 'kill $CT 2>/dev/null' EXIT
wait_until 60 grep -q ready ct.out || fail "ctltarget did not start"
"$TPOINT" stream -p $CT >st.out 2>st.err &
ST=$!
for i in $(seq 300); do [ "$(grep -c 'ctl_odd:' st.out)" -ge 5 ] && break; sleep 0.1; done
kill -INT $ST; wait $ST; rc=$?
kill $CT; wait $CT 2>/dev/null
[ $rc = 0 ] || { cat st.err; fail "stream without -e exited $rc"; }
[ "$(grep -c 'ctl_odd:' st.out)" -ge 5 ] || { cat st.out st.err; fail "stream without -e showed no ctl_odd"; }
grep -q 'ctl_tick:' st.out && fail "stream without -e showed ctl_tick, which is not enabled"
grep -q "the events process $CT has enabled: tpt_ctl:ctl_odd$" st.err || { cat st.err; fail "stream without -e does not say what it streams"; }
rm -f ct.out # a "ready" of the last target is not this one's
"$B/tests/ctltarget" 30 1000 >ct.out &
CT=$!
wait_until 60 grep -q ready ct.out || fail "ctltarget did not start"
"$TPOINT" stream -p $CT >st.out 2>st.err
rc=$?
kill $CT; wait $CT 2>/dev/null; trap - EXIT
[ $rc = 1 ] || { cat st.err; fail "stream without -e of a process with nothing enabled exited $rc"; }
grep -q "process $CT has no event enabled; choose some with -e GLOB, or enable them with 'tpoint enable -p $CT GLOB'" st.err ||
	{ cat st.err; fail "stream without -e and nothing enabled: message"; }
grep -q "tpt_ctl" st.err && fail "the message still names a test's events"
echo "ok: stream without -e shows the enabled events, or says how to enable some"

# A glob list that matches nothing of an instrumented program: said before it runs, with its
# events, and the program is not started (its output would show it ran).
"$TPOINT" record -e typo -o nomatch.dat -- ./msgtarget loop 30 >out.txt 2>err.txt
rc=$?
[ $rc = 1 ] || { cat err.txt; fail "record -e typo exited $rc"; }
grep -q "'typo' matches no event of ./msgtarget or of the libraries it links" err.txt &&
	grep -q "./msgtarget was not started; its events: .*tpt_msg:msg_tick.*tpoint:print" err.txt ||
	{ cat err.txt; fail "record -e typo: not said before the start"; }
[ ! -e nomatch.dat ] && [ -z "$(ls -A . | grep tpoint-spool)" ] || fail "record -e typo left files"
# tpoint:print lives in libtpoint, not in the program: the linked libraries count.
"$TPOINT" record -e tpoint:print -o p.dat -- ./msgtarget >/dev/null 2>err.txt ||
	{ cat err.txt; fail "record -e tpoint:print refused: the library's events were not seen"; }
echo "ok: record -e typo is refused before the command runs"

# A selected event the runtime refuses (%f) is said by record (before the start, and in the
# summary), list -p, stat -p and report --stats; a record too big for a page is said under
# TPOINT_DEBUG=1 and counted in record's summary and report --stats.
"$TPOINT" record -e 'tpt_msg:*' -o r.dat -- ./msgtarget >/dev/null 2>err.txt ||
	{ cat err.txt; fail "record of msgtarget exited $?"; }
grep -q "tpt_msg:msg_ratio stays off: libtraceevent cannot render its TP_printk (\"%f\": libtraceevent has no floating-point conversions); 'tpoint list --check ./msgtarget' checks a build" err.txt ||
	{ cat err.txt; fail "record does not say msg_ratio is refused before the start"; }
grep -q "^  tpt_msg:msg_ratio: refused, it stays off" err.txt || { cat err.txt; fail "record's summary: no refusal"; }
grep -q "^  tpt_msg:msg_text: 1 lost record was too big for a page (over [0-9]* bytes, TPOINT_MAX_PAYLOAD)" err.txt ||
	{ cat err.txt; fail "record's summary: the too-big record is not said"; }
"$TPOINT" report --stats r.dat >out.txt || fail "report --stats exited $?"
grep -q "^tpt_msg:msg_ratio: refused: it stayed off" out.txt || { cat out.txt; fail "report --stats: no refusal"; }
grep -q "^tpt_msg:msg_text: too big: 1 lost record was larger than a page holds" out.txt ||
	{ cat out.txt; fail "report --stats: no too-big count"; }
# Through sh, which tpoint record cannot read beforehand: the summary says it still.
"$TPOINT" record -e 'tpt_msg:*' -o r.dat -- sh -c ./msgtarget >/dev/null 2>err.txt ||
	{ cat err.txt; fail "record of sh -c msgtarget exited $?"; }
grep -q "^  tpt_msg:msg_ratio: refused, it stays off" err.txt || { cat err.txt; fail "record's summary through sh: no refusal"; }
TPOINT_DEBUG=1 TPOINT_EVENTS='tpt_msg:*' TPOINT_RECORD=d.dat ./msgtarget >/dev/null 2>err.txt || fail "msgtarget exited $?"
[ "$(grep -c 'event tpt_msg:msg_text: a record larger than [0-9]* bytes (TPOINT_MAX_PAYLOAD' err.txt)" = 1 ] ||
	{ cat err.txt; fail "TPOINT_DEBUG=1 does not say (once) why the big record was dropped"; }
TPOINT_EVENTS='tpt_msg:*' ./msgtarget loop 30 >/dev/null &
MT=$!
trap 'kill $MT 2>/dev/null' EXIT
wait_until 60 "$TPOINT" list -p $MT >/dev/null 2>&1 || fail "msgtarget's control socket never came"
"$TPOINT" list -p $MT >out.txt 2>&1 || { cat out.txt; fail "list -p exited $?"; }
grep -q "^tpt_msg:msg_ratio  \[enabled\]  \[refused\]$" out.txt &&
	grep -q "^  refused: stays off, libtraceevent cannot render its TP_printk: \"%f\"" out.txt ||
	{ cat out.txt; fail "list -p does not show the refusal"; }
"$TPOINT" stat -p $MT >out.txt 2>&1 || { cat out.txt; fail "stat -p exited $?"; }
grep -A1 "^tpt_msg:msg_ratio " out.txt | grep -q "^  refused: stays off" || { cat out.txt; fail "stat -p does not show the refusal"; }
"$TPOINT" stat -p $MT -e msg_ratio --json >out.txt 2>&1 || { cat out.txt; fail "stat -p --json exited $?"; }
grep -q '"refused": "\\"%f\\": libtraceevent has no floating-point conversions"' out.txt ||
	{ cat out.txt; fail "stat -p --json does not show the refusal"; }
kill $MT; wait $MT 2>/dev/null; trap - EXIT
echo "ok: a refused event and a too-big record are said by record, list -p, stat -p, report --stats and TPOINT_DEBUG"

# Losses: record's summary and report --stats give one count, and the same split between
# those marked in the time line and those after a thread's last page; the marked ones are
# the sum of trace-cmd's and tpoint report's "[N EVENTS DROPPED]" lines.
"$TPOINT" record -b 64K -e tpt_ctl -o lost.dat -- "$B/tests/ctltarget" 0.2 0 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "record -b 64K exited $?"; }
rlost=$(sed -n 's/.*lost.dat: [0-9]* events from 1 process, \([0-9]*\) lost$/\1/p' err.txt)
rmarked=$(sed -n 's/^  of the [0-9]* lost, \([0-9]*\) are marked .*/\1/p; s/^  all \([0-9]*\) lost are marked .*/\1/p' err.txt)
[ -n "$rlost" ] && [ "$rlost" -gt 0 ] && [ -n "$rmarked" ] || { cat err.txt; fail "record -b 64K: no losses, or no split said"; }
"$TPOINT" report --stats lost.dat >out.txt || fail "report --stats exited $?"
slost=$(sed -n 's/^lost: \([0-9]*\),.*/\1/p' out.txt)
smarked=$(sed -n 's/^lost: [0-9]*, of which \([0-9]*\) are marked .*/\1/p; s/^lost: \([0-9]*\), all marked .*/\1/p' out.txt)
[ "$slost" = "$rlost" ] && [ "$smarked" = "$rmarked" ] ||
	{ cat err.txt out.txt; fail "record says $rlost lost ($rmarked marked), report --stats $slost ($smarked marked)"; }
tc=$(trace-cmd report lost.dat 2>/dev/null | sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\]$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
tp=$("$TPOINT" report lost.dat 2>/dev/null | sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\]$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$tc" = "$rmarked" ] && [ "$tp" = "$rmarked" ] ||
	fail "$rmarked lost marked, trace-cmd's DROPPED lines sum to $tc, tpoint report's to $tp"
echo "ok: $rlost lost, said alike by record and report --stats; $rmarked of them in the DROPPED lines of both readers"

# tpoint filter -p takes globs as -e does: events without the expression's fields are named
# and skipped; an unknown event lists the process's events.
rm -f ct.out # a "ready" of the last target is not this one's
"$B/tests/ctltarget" 30 1000 >ct.out &
CT=$!
trap 'kill $CT 2>/dev/null' EXIT
wait_until 60 grep -q ready ct.out || fail "ctltarget did not start"
"$TPOINT" filter -p $CT 'tpt_ctl:*' 'n > 5' >out.txt 2>err.txt || { cat out.txt err.txt; fail "filter on a glob exited $?"; }
"$TPOINT" list -p $CT >list.txt
[ "$(grep -c '^  filter: n > 5$' list.txt)" = 2 ] || { cat out.txt err.txt list.txt; fail "filter 'tpt_ctl:*' did not filter both events"; }
"$TPOINT" filter -p $CT 'tpt_ctl:*' 'name == "alpha"' >out.txt 2>err.txt || { cat err.txt; fail "filter on a glob, one event without the field, exited $?"; }
grep -q "tpt_ctl:ctl_odd skipped: no field 'name' in tpt_ctl:ctl_odd" err.txt &&
	grep -q "filtering tpt_ctl:ctl_tick of process $CT" out.txt ||
	{ cat out.txt err.txt; fail "filter on a glob: the event without the field is not named, or the other not filtered"; }
"$TPOINT" filter -p $CT 'tpt_ctl:*' --clear >/dev/null || fail "filter --clear on a glob exited $?"
"$TPOINT" list -p $CT | grep -q 'filter:' && fail "filter --clear on a glob left a filter"
"$TPOINT" filter -p $CT ctl_tik 'n > 1' 2>err.txt && fail "a filter on an unknown event was accepted"
# (in the order the process registered them, which is the compiler's)
grep -q "no event 'ctl_tik' in process $CT; its events: tpoint:print, tpoint:user_stack_map, ftrace:user_stack, tpt_ctl:ctl_" err.txt &&
	grep -q "tpt_ctl:ctl_tick" err.txt && grep -q "tpt_ctl:ctl_odd" err.txt ||
	{ cat err.txt; fail "an unknown event does not list the known ones"; }
kill $CT; wait $CT 2>/dev/null; trap - EXIT
echo "ok: filter -p on globs; an unknown event lists the events"
