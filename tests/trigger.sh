#!/bin/sh
# SPDX-License-Identifier: MIT
# hist: triggers from outside (issue 34): TPOINT_TRIGGER at start, `tpoint trigger -p` on a
# running process (set, the kernel's refusals, '!' to remove), and `tpoint hist -p` reading
# the histograms (text and --json), whose counts the test knows: tests/trigtarget.c hits
# tpt_trig:trig_req ROUNDS times from 3 threads a round, id = i % 7, bytes = id * 10 + 1,
# path /p/<id % 3>. The text is the kernel's hist file (lib/hist_print.c; tests/hist_test.c
# checks its layout); here its numbers. Bad TPOINT_TRIGGER items are said and skipped. The
# stacktrace command's count and listing (tests/ustack.sh checks the stacks it records).
set -u
fail() { echo "FAIL: $*"; cat target.out target.err 2>/dev/null | head -5; exit 1; }
B=$(dirname "$TPOINT")
. "$(dirname "$0")/lib/wait.sh"
ROUNDS=7000
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

TPOINT_TRIGGER='tpt_trig:trig_req:hist:keys=id:vals=bytes;trig_req:hist:keys=nosuch' \
	"$B/tests/trigtarget" $ROUNDS >target.out 2>target.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' target.out || fail "trigtarget did not start"
grep -q "TPOINT_TRIGGER: 'trig_req:hist:keys=nosuch': Couldn't find field at column 11: 'nosuch'; ignored" target.err ||
	fail "a bad TPOINT_TRIGGER item is not said"

round() { # round N: one more round, done
	kill -USR1 "$P"
	wait_until 30 grep -q "^round $1 done" target.out || fail "round $1 did not end"
}
round 1

# Each id is hit 3 * (ROUNDS / 7) times (ROUNDS is a multiple of 7), bytes id * 10 + 1 each.
per=$((3 * ROUNDS / 7))
"$TPOINT" hist -p "$P" >h1.txt || fail "hist -p exited $?"
head -3 h1.txt | grep -qx '# trigger info: hist:keys=id:vals=hitcount,bytes:sort=hitcount:size=2048 \[active\]' ||
	{ cat h1.txt; fail "hist -p: the trigger info line"; }
for id in 0 1 2 3 4 5 6; do
	grep -Eq "^\{ id: +$id \} hitcount: +$per  bytes: +$((per * (id * 10 + 1)))\$" h1.txt ||
		{ cat h1.txt; fail "hist -p: id $id"; }
done
grep -A3 '^Totals:' h1.txt | tr -d ' \n' | grep -qx "Totals:Hits:$((3 * ROUNDS))Entries:7Dropped:0" ||
	{ cat h1.txt; fail "hist -p: totals"; }
"$TPOINT" list -p "$P" | grep -qx '  triggers: hist:keys=id:vals=hitcount,bytes:sort=hitcount:size=2048 \[active\]' ||
	{ "$TPOINT" list -p "$P"; fail "list -p: the event's trigger"; }
echo "ok: TPOINT_TRIGGER's histogram, exact over 3 threads; list -p shows it"

# A second trigger from outside, on a string key; the kernel's refusals.
"$TPOINT" trigger -p "$P" -e tpt_trig:trig_req 'hist:keys=path:vals=bytes:sort=path' >t.out ||
	fail "trigger -p exited $?"
grep -qx "trigger set on tpt_trig:trig_req of process $P" t.out || fail "trigger -p says"
"$TPOINT" trigger -p "$P" -e trig_req 'hist:keys=path:vals=bytes:sort=path' 2>err.txt
[ $? = 1 ] && grep -q "Hist trigger already exists" err.txt || fail "a trigger set twice"
"$TPOINT" trigger -p "$P" -e trig_req 'hist:keys=id.foo' 2>err.txt
[ $? = 1 ] && grep -q "Invalid field modifier at column 14: 'foo'" err.txt ||
	{ cat err.txt; fail "a bad modifier"; }
"$TPOINT" trigger -p "$P" -e trig_req 'traceonx' 2>err.txt
[ $? = 1 ] && grep -q "unknown trigger command" err.txt || { cat err.txt; fail "unknown command"; }
"$TPOINT" trigger -p "$P" -e nosuch 'hist:keys=id' 2>err.txt
[ $? = 1 ] && grep -q "no event 'nosuch' in process $P" err.txt || { cat err.txt; fail "no event"; }
"$TPOINT" trigger -p "$P" 'hist:keys=id' 2>/dev/null
[ $? = 2 ] || fail "trigger without -e: usage"
round 2

"$TPOINT" hist -p "$P" --json >h2.json || fail "hist -p --json exited $?"
[ "$(wc -l <h2.json)" = 2 ] || { cat h2.json; fail "hist --json: one object per histogram"; }
python3 - "$ROUNDS" <<'EOF' || fail "hist --json counts"
import json, sys
rounds = int(sys.argv[1])
per = 3 * rounds // 7
objs = [json.loads(l) for l in open("h2.json")]
first, second = objs
assert first["event"] == "tpt_trig:trig_req", first["event"]
for e in first["entries"]:
    i = e["key"]["id"]
    assert e["values"] == {"hitcount": 2 * per, "bytes": 2 * per * (i * 10 + 1)}, e
assert first["totals"] == {"hits": 6 * rounds, "entries": 7, "dropped": 0}, first["totals"]
# the path histogram saw round 2 only, in path order
want = {"/p/%d" % k: sum(per for i in range(7) if i % 3 == k) for k in range(3)}
got = {e["key"]["path"]: e["values"]["hitcount"] for e in second["entries"]}
assert got == want, (got, want)
assert [e["key"]["path"] for e in second["entries"]] == sorted(want), second["entries"]
EOF
echo "ok: trigger -p, hist -p --json"

# --watch until --duration: printed at least at the end, then exit 0 (no count of prints:
# a busy machine may print fewer).
timeout 60 "$TPOINT" hist -p "$P" -e 'tpt_trig:*' --watch 0.2 --duration 1 >w.txt ||
	fail "hist -p --watch --duration exited $?"
[ "$(grep -c '^# event histogram' w.txt)" -ge 2 ] || { cat w.txt; fail "hist --watch: both histograms"; }
"$TPOINT" hist -p "$P" -e 'nosuch:*' >n.txt || fail "hist -p -e nosuch exited $?"
grep -qx "# no histograms of nosuch:\*: set one with TPOINT_TRIGGER or tpoint trigger -p $P" n.txt ||
	{ cat n.txt; fail "hist -p -e that selects none"; }
echo "ok: hist -p --watch, -e"

# A command beside the histograms: stacktrace:3 if id == 1 fires exactly 3 times, as the
# kernel's count; a count of 0 is refused; set twice, refused; the listing says what is left.
"$TPOINT" trigger -p "$P" -e trig_req 'stacktrace:0' 2>err.txt
[ $? = 1 ] && grep -q "'0': expected a count above 0 after 'stacktrace:'" err.txt ||
	{ cat err.txt; fail "stacktrace:0"; }
"$TPOINT" trigger -p "$P" -e trig_req 'stacktrace:3 if id == 1' >/dev/null || fail "stacktrace:3"
"$TPOINT" trigger -p "$P" -e trig_req 'stacktrace' 2>err.txt
[ $? = 1 ] && grep -q "has a stacktrace trigger already" err.txt || { cat err.txt; fail "stacktrace twice"; }
round 3
"$TPOINT" list -p "$P" | grep -q '^  triggers: .*stacktrace:count=0 if id == 1 (fired 3)$' ||
	{ "$TPOINT" list -p "$P"; fail "stacktrace:3 fired other than 3 times"; }
"$TPOINT" trigger -p "$P" -e trig_req '!stacktrace' >/dev/null || fail "remove stacktrace"
echo "ok: stacktrace:N counts down, listed, refused twice and at 0"

# Removal, while the event is not recorded: it goes off with its last trigger.
"$TPOINT" trigger -p "$P" -e trig_req '!hist:keys=path:vals=bytes:sort=path' >/dev/null ||
	fail "remove the path histogram"
"$TPOINT" trigger -p "$P" -e trig_req '!hist:keys=id:vals=bytes' >/dev/null ||
	fail "remove the id histogram"
"$TPOINT" hist -p "$P" >h3.txt || fail "hist -p with none"
[ "$(cat h3.txt)" = "# no histograms: set one with TPOINT_TRIGGER or tpoint trigger -p $P" ] ||
	{ cat h3.txt; fail "histograms left after removal"; }
"$TPOINT" stat -p "$P" | grep -Eq "^tpt_trig:trig_req +$((9 * ROUNDS)) +0 +$((9 * ROUNDS)) +0 +0" ||
	{ "$TPOINT" stat -p "$P"; fail "stat: the triggers' hits are counted as filtered"; }
round 4
"$TPOINT" stat -p "$P" | grep -Eq "^tpt_trig:trig_req +$((9 * ROUNDS)) " ||
	{ "$TPOINT" stat -p "$P"; fail "the event did not go off with its last trigger"; }
echo "ok: removal"
