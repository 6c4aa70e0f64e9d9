#!/bin/sh
# SPDX-License-Identifier: MIT
# name= shared histograms in the process (issue 34): triggers on two events with one name=
# count into one histogram, each event's own `if FILTER` judging its hits, as the kernel's
# named triggers (trace_events_hist.c: the members share one hist_data; each prints its own
# trigger info). tests/hlattarget.c: N requests a round, id i % 7, a hl_begin and a hl_done
# each; tpt_hlat:hl_begin and hl_done have id and t at the same offsets, so they may share.
set -u
fail() { echo "FAIL: $*"; cat target.out target.err 2>/dev/null | head -5; exit 1; }
B=$(dirname "$TPOINT")
. "$(dirname "$0")/lib/wait.sh"
N=700
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

TPOINT_TRIGGER='tpt_hlat:hl_begin:hist:name=both:keys=id if id < 3;tpt_hlat:hl_done:hist:name=both:keys=id' \
	"$B/tests/hlattarget" $N >target.out 2>target.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' target.out || fail "hlattarget did not start"
kill -USR1 "$P"
wait_until 60 grep -q "^round 1 done" target.out || fail "round 1 did not end"

# Each id is N / 7 requests: ids 0-2 counted by both events, 3-6 by the end only.
per=$((N / 7))
"$TPOINT" hist -p "$P" >h.txt || fail "hist -p exited $?"
grep -qx '# trigger info: hist:name=both:keys=id:vals=hitcount:sort=hitcount:size=2048 if id < 3 \[active\]' h.txt &&
	grep -qx '# trigger info: hist:name=both:keys=id:vals=hitcount:sort=hitcount:size=2048 \[active\]' h.txt ||
	{ cat h.txt; fail "each member's own trigger info"; }
for id in 0 1 2 3 4 5 6; do
	want=$per
	[ $id -lt 3 ] && want=$((2 * per))
	[ "$(grep -Ec "^\{ id: +$id \} hitcount: +$want\$" h.txt)" = 2 ] ||
		{ cat h.txt; fail "id $id: $want in both events' views of the shared histogram"; }
done
[ "$(grep -c "^    Hits: $((N + 3 * per))\$" h.txt)" = 2 ] || { cat h.txt; fail "totals"; }
echo "ok: name= shares one histogram between two events, each with its own filter"

# The kernel's refusal of a member whose keys differ; :pause pauses the shared histogram.
"$TPOINT" trigger -p "$P" -e hl_done 'hist:name=both:keys=t' 2>err.txt
[ $? = 1 ] && grep -q "Named hist trigger doesn't match existing named trigger (includes variables) at column 11: 'both'" err.txt ||
	{ cat err.txt; fail "a member with other keys"; }
"$TPOINT" trigger -p "$P" -e hl_done 'hist:name=both:keys=id:pause' >/dev/null || fail "pause"
"$TPOINT" hist -p "$P" >p.txt || fail "hist -p exited $?"
[ "$(grep -c '\[paused\]' p.txt)" = 2 ] ||
	{ cat p.txt; fail "pausing one member pauses the shared histogram"; }
"$TPOINT" trigger -p "$P" -e hl_begin '!hist:name=both:keys=id if id < 3' >/dev/null ||
	fail "remove a member"
"$TPOINT" trigger -p "$P" -e hl_done 'hist:name=both:keys=id:cont' >/dev/null || fail "cont"
kill -USR1 "$P"
wait_until 60 grep -q "^round 2 done" target.out || fail "round 2 did not end"
"$TPOINT" hist -p "$P" >h2.txt || fail "hist -p exited $?"
grep -qx "    Hits: $((2 * N + 3 * per))" h2.txt || { cat h2.txt; fail "the member left counts on"; }
"$TPOINT" trigger -p "$P" -e hl_done '!hist:name=both:keys=id' >/dev/null || fail "remove the last"
"$TPOINT" trigger -p "$P" -e hl_done 'hist:name=both:keys=t' >/dev/null ||
	fail "the name, free again, takes other keys"
kill "$P"
wait "$P"
echo "ok: refusal, pause for all members, removal, the name freed with its last member"
