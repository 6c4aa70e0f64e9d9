#!/bin/sh
# The command line met on first contact: -p given twice (every verb that acts on one
# process refuses it, naming both, instead of acting on the second alone); -e X -f EXPR for a
# command, as trace-cmd reads it (the filter is the -e's before it); --duration where it
# does not belong, refused with a line about --duration (it spoke of -f); -k -- CMD without
# -e, which says no program event was selected and counts the kernel's events apart (it
# called them "N events from 1 process").
set -u
B=$(dirname "$TPOINT")
T=/sys/kernel/tracing
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

"$B/tests/ctltarget" 120 1000 >a.out &
A=$!
"$B/tests/ctltarget" 120 1000 >b.out &
P=$!
trap 'kill $A $P 2>/dev/null' EXIT
i=0
until grep -q '^ready' a.out && grep -q '^ready' b.out; do
	i=$((i + 1)); [ $i -lt 600 ] || fail "ctltarget did not start"; sleep 0.1
done

for v in "record -e tpt_ctl -o twice.dat" "stat" "list" "enable tpt_ctl:ctl_tick" \
	 "disable tpt_ctl:ctl_tick" "filter tpt_ctl:ctl_tick n>1" "stream -e tpt_ctl" \
	 "snapshot -o twice.dat"; do
	set -- $v
	verb=$1
	shift
	timeout 60 "$TPOINT" $verb -p $A -p $P "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] || { cat err.txt; fail "$verb -p A -p B: exit $rc, expected 2 (refused)"; }
	grep -q "^tpoint $verb: -p $P: -p $A is given already; one process at a time" err.txt ||
		{ cat err.txt; fail "$verb -p A -p B: no line naming both"; }
	[ ! -e twice.dat ] || fail "$verb -p A -p B: wrote a file"
done
echo "ok: a second -p is refused by every verb that acts on one process, naming both"
kill $A $P
wait $A $P 2>/dev/null
trap - EXIT

# -e X -f EXPR -- CMD: the filter applies to the -e before it, for a command too.
"$TPOINT" record -e tpt_ctl -f 'n > 5' -o filt.dat -- "$B/tests/ctltarget" 0.2 1000 \
	>out.txt 2>err.txt || { cat err.txt; fail "record -e -f -- CMD exited $?"; }
last=$(sed -n 's/^last //p' out.txt)
n=$(trace-cmd report filt.dat 2>/dev/null | grep -c 'ctl_tick:')
[ "$n" = $((last - 5)) ] || { cat err.txt; fail "-f 'n > 5': $n ctl_tick in the file, expected $((last - 5)) (n 6..$last)"; }
trace-cmd report filt.dat 2>/dev/null | grep 'ctl_tick:' | grep -q 'n=[0-5] ' &&
	fail "-f 'n > 5': a ctl_tick with n <= 5 in the file"
awk '$1 == "tpt_ctl:ctl_tick" && $4 == 6 { ok = 1 } END { exit !ok }' err.txt ||
	{ cat err.txt; fail "-f 'n > 5': the summary does not count 6 ctl_tick filtered"; }
"$TPOINT" record -e tpt_ctl -f 'no_such_field > 5' -o nofield.dat -- "$B/tests/ctltarget" 0.1 1000 \
	>/dev/null 2>err.txt
[ $? = 1 ] || { cat err.txt; fail "-f on a field no event has: expected exit 1"; }
grep -q "tpoint record: -f 'no_such_field > 5' filters none of the events of -e 'tpt_ctl'" err.txt ||
	{ cat err.txt; fail "-f on a field no event has: not said"; }
trace-cmd report nofield.dat 2>/dev/null | grep -q 'ctl_tick:' ||
	fail "-f on a field no event has: the records are not kept"
"$TPOINT" record -f 'n > 5' -e tpt_ctl -o x.dat -- "$B/tests/ctltarget" 0.1 1000 >/dev/null 2>err.txt
[ $? = 2 ] || fail "-f before any -e: expected exit 2"
echo "ok: -e X -f EXPR -- CMD filters X's records (6 filtered); a filter for no event is said, exit 1"

# --duration: a line about --duration, never about -f.
"$TPOINT" record -e tpt_ctl --duration 1 -o x.dat 2>err.txt
[ $? = 2 ] || fail "-e --duration with no process: expected exit 2"
grep -q -- "-f" err.txt && { cat err.txt; fail "-e --duration: the message is about -f"; }
grep -q "no process to record it of; give -p PID, or -- CMD" err.txt || { cat err.txt; fail "-e --duration: message"; }
"$TPOINT" record -e tpt_ctl --duration 1 -o x.dat -- "$B/tests/ctltarget" 0.1 >/dev/null 2>err.txt
[ $? = 2 ] || fail "--duration -- CMD: expected exit 2"
grep -q "^tpoint record: --duration 1: a command is recorded until it ends" err.txt ||
	{ cat err.txt; fail "--duration -- CMD: message"; }
grep -q -- "-f" err.txt && { cat err.txt; fail "--duration -- CMD: the message is about -f"; }
[ ! -e x.dat ] || fail "--duration refused, but a file was written"
echo "ok: --duration where it does not belong: one line about --duration"

if [ "$(id -u)" != 0 ] || [ ! -d $T/events/sched/sched_switch ]; then
	echo "skipped: -k -- CMD without -e (needs root and tracefs)"
	exit 0
fi
"$TPOINT" record -k sched:sched_switch -o konly.dat -- "$B/tests/ctltarget" 0.2 1000 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "-k -- CMD without -e exited $?"; }
grep -q "note: no -e: none of the events of .*ctltarget are selected, only the kernel's (-k)" err.txt ||
	{ cat err.txt; fail "-k -- CMD without -e: not said that no event of the program is selected"; }
k=$(sed -n 's/.*konly.dat: 0 events from 1 process, 0 lost; \([0-9]*\) events of the kernel$/\1/p' err.txt)
[ -n "$k" ] && [ "$k" -gt 0 ] || { cat err.txt; fail "-k -- CMD without -e: the kernel's events are not counted apart"; }
n=$(trace-cmd report konly.dat 2>/dev/null | grep -c 'sched_switch:')
[ "$n" = "$k" ] || fail "-k -- CMD without -e: $n sched_switch in the file, the summary says $k"
echo "ok: -k -- CMD without -e: no program event selected, said; $k kernel events counted as the kernel's"
