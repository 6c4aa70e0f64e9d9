#!/bin/sh
# Tracing a running program through its control socket: tpoint ps, list -p, enable, disable,
# filter, stat (table, --json, -e, --interval), and what a user meets when something is wrong.
set -u
fail() { echo "FAIL: $*"; cat target.out 2>/dev/null | head -5; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

start 60 500
"$TPOINT" ps >ps.txt || fail "ps exited $?"
# Five events: the target's two and the library's own tpoint:print (tpoint_printf()),
# ftrace:user_stack and tpoint:user_stack_map (tpoint_record_user_stack()).
grep -q "^ *$P  ctltarget  *5  *0  none$" ps.txt || { cat ps.txt; fail "ps does not show the target"; }
"$TPOINT" list -p "$P" >list.txt || fail "list -p exited $?"
grep -qx "tpt_ctl:ctl_odd" list.txt && grep -qx "  condition: n & 1" list.txt &&
	grep -qx "tpoint:print" list.txt ||
	{ cat list.txt; fail "list -p: events and condition"; }
"$TPOINT" list -p "$P" --format | grep -q "^print fmt: \"n=%lu name=%s\", REC->n, __get_str(name)" ||
	fail "list -p --format"
echo "ok: ps and list -p"

"$TPOINT" enable -p "$P" 'tpt_ctl:*' | grep -qx "enabled 2 events of process $P" || fail "enable"
"$TPOINT" ps | grep -q "^ *$P  ctltarget  *5  *2  memory$" || fail "ps after enable"
wait_count "$P" tpt_ctl:ctl_odd hits 11 || fail "ctl_odd: no hits counted"
"$TPOINT" stat -p "$P" --json >s1.json || fail "stat --json exited $?"
grep -q '^{"event": "tpt_ctl:ctl_odd", "condition": "n & 1", "hits": [0-9]*, "condition_skipped": [0-9]*, "filtered": 0, "recorded": [0-9]*, "lost": 0, "usdt": 0, "time": [0-9]*\.[0-9]*}$' s1.json ||
	{ cat s1.json; fail "stat --json keys"; }
hits=$(sed -n 's/.*ctl_odd".*"hits": \([0-9]*\),.*/\1/p' s1.json)
skip=$(sed -n 's/.*ctl_odd".*"condition_skipped": \([0-9]*\),.*/\1/p' s1.json)
rec=$(sed -n 's/.*ctl_odd".*"recorded": \([0-9]*\),.*/\1/p' s1.json)
[ "$hits" -gt 10 ] && [ $((skip + rec)) -eq "$hits" ] ||
	fail "ctl_odd: hits $hits should be skipped $skip + recorded $rec"
[ $((hits - 2 * skip)) -le 1 ] && [ $((2 * skip - hits)) -le 1 ] ||
	fail "the condition n & 1 should skip half the hits: $skip of $hits"
"$TPOINT" stat -p "$P" -e ctl_odd | grep -c "tpt_ctl:" | grep -qx 1 || fail "stat -e selects one event"
echo "ok: enable, stat ($hits hits, $skip skipped by condition 'n & 1')"
"$TPOINT" stat -p "$P" >stat.txt
grep -q '^jump labels: [0-9]* sites, patched' stat.txt ||
	fail "stat does not say the jump-label sites are patched: $(tail -1 stat.txt)"
echo "ok: stat: $(grep '^jump labels' stat.txt)"

"$TPOINT" filter -p "$P" tpt_ctl:ctl_tick 'name == "alpha" || name ~ "g*"' >/dev/null || fail "filter"
"$TPOINT" list -p "$P" | grep -q '  filter: ' || fail "list -p shows no filter"
wait_count "$P" tpt_ctl:ctl_tick filtered 6 && wait_count "$P" tpt_ctl:ctl_tick recorded 3 ||
	fail "the filter rejected or kept nothing"
"$TPOINT" stat -p "$P" --json >s2.json
f=$(sed -n 's/.*ctl_tick".*"filtered": \([0-9]*\),.*/\1/p' s2.json)
r1=$(sed -n 's/.*ctl_tick".*"recorded": \([0-9]*\),.*/\1/p' s1.json)
r2=$(sed -n 's/.*ctl_tick".*"recorded": \([0-9]*\),.*/\1/p' s2.json)
[ "$f" -gt 5 ] || fail "the filter rejected nothing ($f)"
[ $((r2 - r1)) -gt 2 ] || fail "the filter kept nothing"
"$TPOINT" filter -p "$P" ctl_tick 'nosuch == 1' 2>err.txt && fail "a filter on a missing field was accepted"
grep -qx "tpoint filter: no field 'nosuch' in tpt_ctl:ctl_tick; fields: common_pid, n, name" err.txt ||
	{ cat err.txt; fail "missing field message"; }
"$TPOINT" filter -p "$P" ctl_tick 'n > && 1' 2>err.txt && fail "a syntax error was accepted"
grep -q "column 5" err.txt || { cat err.txt; fail "syntax error without position"; }
"$TPOINT" filter -p "$P" nosuch 'n > 1' 2>err.txt && fail "a filter on a missing event was accepted"
grep -q "no event 'nosuch'" err.txt || { cat err.txt; fail "missing event message"; }
"$TPOINT" filter -p "$P" ctl_tick --clear >/dev/null || fail "filter --clear"
"$TPOINT" list -p "$P" | grep -q '  filter: ' && fail "filter not cleared"
echo "ok: filter: $f records rejected; errors name the field, the column, the event"

"$TPOINT" stat -p "$P" --interval 0.3 >rates.txt 2>&1 &
sp=$!
wait_lines rates.txt 2 'HITS/s' 60
kill -INT $sp; wait $sp
[ "$(grep -c 'HITS/s' rates.txt)" -ge 2 ] || { cat rates.txt; fail "--interval printed no rates"; }
"$TPOINT" disable -p "$P" tpt_ctl | grep -qx "disabled 2 events of process $P" || fail "disable"
echo "ok: --interval rates, disable"

# What goes wrong, and says so.
"$TPOINT" stat -p 999999 2>err.txt; [ $? = 1 ] || fail "a missing pid should exit 1"
grep -qx "tpoint stat: no process 999999" err.txt || { cat err.txt; fail "missing pid message"; }
sleep 30 & sl=$!
"$TPOINT" stat -p $sl 2>err.txt; [ $? = 1 ] || fail "a process without tpoint should exit 1"
grep -q "has no tpoint control socket" err.txt || { cat err.txt; fail "no-tpoint message"; }
kill $sl
"$TPOINT" stat -p abc 2>err.txt; [ $? = 2 ] || fail "a bad pid should be a usage error"
"$TPOINT" enable -p "$P" 'nosuch:*' 2>err.txt; [ $? = 1 ] || fail "enable of nothing should exit 1"
grep -q "matches no event" err.txt || fail "enable of nothing: message"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	. "$(dirname "$0")/lib/user_stage.sh"
	user_stage
	setpriv --reuid=65534 --regid=65534 --clear-groups "$UTPOINT" stat -p "$P" 2>err.txt
	rc=$?
	user_unstage
	[ $rc = 1 ] || fail "another user's stat should exit 1"
	grep -q "permission denied" err.txt || { cat err.txt; fail "another user: message"; }
	echo "ok: another user is refused"
else
	echo "note: not root (or no setpriv): the other-user check is not run"
fi
kill -0 "$P" || fail "the target died"
echo "ok: bad pids, no tpoint, nothing matched; the target runs on"

# A forked child gets its own socket; TPOINT_CONTROL=0 has none; closed descriptors heal.
start 20 1000 fork
parent=$P
# The child makes its socket when it is forked: on a loaded machine, under ASan, that may
# take a while, so wait for it (60 s at most) rather than a fixed time.
for i in $(seq 600); do
	n=$("$TPOINT" ps 2>/dev/null | grep -c " ctltarget ")
	[ "$n" -ge 3 ] && break
	sleep 0.1
done
[ "$n" -ge 3 ] || { "$TPOINT" ps; fail "the forked child is not in ps"; }
TPOINT_CONTROL=0 "$B/tests/ctltarget" 20 >quiet.out 2>&1 &
q=$!; pids="$pids $q"
sleep 0.5
"$TPOINT" ps | grep -q "^ *$q " && fail "TPOINT_CONTROL=0 still listens"
start 20 1000 closefds
wait_until 60 "$TPOINT" stat -p "$P" >/dev/null 2>&1 ||
	fail "the socket of a program that closed its fds did not come back"
echo "ok: forked child in ps, TPOINT_CONTROL=0, closed descriptors"

dir=${XDG_RUNTIME_DIR:-}
[ -n "$dir" ] && [ -d "$dir/tpoint" ] && dir=$dir/tpoint || dir=/tmp/tpoint-$(id -u)
: >"$dir/999999.sock"
"$TPOINT" ps >/dev/null
[ -e "$dir/999999.sock" ] && fail "a stale socket was not removed"
echo "ok: stale sockets are removed"

# Filters from the environment, before the events even exist (TPOINT_FILTER).
TPOINT_FILTER='tpt_ctl:ctl_tick:name == "beta" || name == "gamma"' TPOINT_EVENTS=tpt_ctl \
	TPOINT_RECORD=envf.dat "$B/tests/ctltarget" 0.5 1000 >/dev/null 2>&1 || fail "ctltarget with TPOINT_FILTER"
if command -v trace-cmd >/dev/null; then
	names=$(trace-cmd report envf.dat 2>/dev/null | sed -n 's/.* ctl_tick: .*name=\([a-z]*\)$/\1/p' | sort -u | tr '\n' ' ')
	[ "$names" = "beta gamma " ] || fail "TPOINT_FILTER kept '$names', want 'beta gamma '"
	echo "ok: TPOINT_FILTER keeps only beta and gamma"
fi
TPOINT_DEBUG=1 TPOINT_FILTER='tpt_ctl:ctl_tick:nme == 1;garbage' TPOINT_EVENTS=tpt_ctl \
	TPOINT_RECORD=envg.dat "$B/tests/ctltarget" 0.2 1000 >/dev/null 2>err.txt || fail "bad TPOINT_FILTER must not stop the program"
grep -q "filter of tpt_ctl:ctl_tick not set: no field 'nme'" err.txt || { cat err.txt; fail "bad filter field not named"; }
grep -q "TPOINT_FILTER: 'garbage': expected system:event:expression" err.txt || { cat err.txt; fail "malformed TPOINT_FILTER item not named"; }
echo "ok: a bad TPOINT_FILTER is named and the program runs on"
# An event named with its system and by its bare name: the filter of the full name is the
# event's, whichever comes first (tpoint(3), TPOINT_FILTER).
for v in 'tpt_ctl:ctl_tick:name == "beta";ctl_tick:name == "gamma"' \
	'ctl_tick:name == "gamma";tpt_ctl:ctl_tick:name == "beta"'; do
	TPOINT_FILTER=$v TPOINT_EVENTS=tpt_ctl:ctl_tick TPOINT_RECORD=envr.dat \
		"$B/tests/ctltarget" 0.3 1000 >/dev/null 2>&1 || fail "ctltarget with TPOINT_FILTER='$v'"
	names=$("$TPOINT" report envr.dat | sed -n 's/.* ctl_tick: .*name=\([a-z]*\)$/\1/p' | sort -u | tr '\n' ' ')
	[ "$names" = "beta " ] || fail "TPOINT_FILTER='$v' kept '$names', want 'beta ' (the full name's filter)"
done
echo "ok: TPOINT_FILTER: the filter named with the system wins over the bare name's"
