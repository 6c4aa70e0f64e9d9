#!/bin/sh
# SPDX-License-Identifier: MIT
# TRACE_EVENT_FN through the control socket (issue 22 items 2 and 4): `tpoint enable -p` and
# `disable -p` call reg() once per off->on and unreg() once per on->off, as the kernel does;
# a reg() that fails keeps the event off and its return value is the reason shown by
# enable -p (exit 1), list -p, stat -p and stat -p --json ("refused"), by record -e and
# record -p (on stderr and in their summary) and by report --stats of what they recorded. tests/fntarget.c writes "reg N"/"unreg N" as they run.
set -u
fail() { echo "FAIL: $*"; [ -f e.err ] && head -5 e.err; exit 1; }
B=$(dirname "$TPOINT")
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT

# start OUT [ENV...]: run fntarget for 60 s with its stdout in OUT; sets P once it is ready.
start() {
	out=$1
	shift
	rm -f "$out"
	env "$@" "$B/tests/fntarget" 60 >"$out" 2>&1 &
	pids="$pids $!"
	for i in $(seq 600); do
		P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$out")
		[ -n "$P" ] && return 0
		sleep 0.05
	done
	fail "fntarget did not start"
}
# counts OUT: "REGS UNREGS", the last numbers the target wrote
counts() {
	echo "$(grep -c '^reg ' "$1") $(grep -c '^unreg ' "$1")"
}

start t.out
"$TPOINT" enable -p "$P" 'tpt_fn:*' >e.out 2>e.err || fail "enable -p exited $?"
[ "$(counts t.out)" = "1 0" ] || { cat t.out; fail "after enable -p: reg/unreg $(counts t.out), want 1 0"; }
"$TPOINT" enable -p "$P" fn_tick >e.out 2>e.err || fail "enable -p again exited $?"
[ "$(counts t.out)" = "1 0" ] || fail "enabling an enabled event called reg again: $(counts t.out)"
"$TPOINT" disable -p "$P" 'tpt_fn:*' >e.out 2>e.err || fail "disable -p exited $?"
[ "$(counts t.out)" = "1 1" ] || fail "after disable -p: reg/unreg $(counts t.out), want 1 1"
"$TPOINT" enable -p "$P" 'tpt_fn:fn_tick' >e.out 2>e.err || fail "enable -p exited $?"
"$TPOINT" disable -p "$P" 'tpt_fn:fn_tick' >e.out 2>e.err || fail "disable -p exited $?"
[ "$(counts t.out)" = "2 2" ] || fail "two rounds: reg/unreg $(counts t.out), want 2 2"
[ -s e.err ] && fail "disable -p said something on stderr"
echo "ok: enable -p / disable -p: reg and unreg once per switch (2 and 2 after two rounds)"

# A reg() that fails: the event stays off, and everyone says why.
start f.out FN_REG_RESULT=-22
"$TPOINT" enable -p "$P" 'tpt_fn:*' >e.out 2>e.err
rc=$?
[ $rc = 1 ] || fail "enable -p of an event whose reg fails: exit $rc, want 1"
grep -qx "tpoint enable: process $P: event tpt_fn:fn_tick stays off: its reg function returned -22" e.err ||
	fail "enable -p does not say the reg's return value"
[ "$(counts f.out)" = "1 0" ] || fail "failing reg: reg/unreg $(counts f.out), want 1 0"
"$TPOINT" list -p "$P" >l.out 2>&1 || fail "list -p exited $?"
grep -q "^tpt_fn:fn_tick  \[enabled\]  \[refused\]$" l.out &&
	grep -qx "  refused: stays off, its reg function returned -22" l.out ||
	{ cat l.out; fail "list -p does not show the failed reg"; }
"$TPOINT" stat -p "$P" -e fn_tick >s.out 2>&1 || fail "stat -p exited $?"
grep -qx "  refused: stays off, its reg function returned -22" s.out ||
	{ cat s.out; fail "stat -p does not show the failed reg"; }
"$TPOINT" stat -p "$P" -e fn_tick --json >j.out 2>&1 || fail "stat -p --json exited $?"
grep -q '"event": "tpt_fn:fn_tick".*"refused": "reg function returned -22"' j.out ||
	{ cat j.out; fail "stat -p --json: no refused key with the reg's return value"; }
echo "ok: a reg returning -22: enable -p exits 1 and says it; list -p, stat -p, --json show it"

# record -e: the recorded program's reg fails; record's stderr says so.
"$TPOINT" record -e 'tpt_fn:*' -o r.dat -- env FN_REG_RESULT=-5 "$B/tests/fntarget" 0.2 \
	>r.out 2>r.err
grep -q "tpt_fn:fn_tick stays off: its reg function returned -5" r.err ||
	{ cat r.err; fail "record -e does not say the reg failed"; }
grep -qx "  tpt_fn:fn_tick: refused, it stays off: its reg function returned -5" r.err ||
	{ cat r.err; fail "record's summary does not show the failed reg"; }
"$TPOINT" report --stats r.dat >s.out 2>&1
grep -qx "tpt_fn:fn_tick: refused: it stayed off, its reg function returned -5" s.out ||
	{ cat s.out; fail "report --stats does not show the failed reg"; }
echo "ok: record -e: $(grep 'reg function returned' r.err | head -1); its summary and report --stats too"

# record -p: the process's stderr is not the recorder's; record says it itself.
start g.out FN_REG_RESULT=-7
"$TPOINT" record -p "$P" -e 'tpt_fn:*' -o p.dat --duration 0.3 >r.out 2>r.err ||
	{ cat r.err; fail "record -p exited $?"; }
grep -qx "tpoint record: process $P: event tpt_fn:fn_tick stays off: its reg function returned -7" r.err ||
	{ cat r.err; fail "record -p does not say the reg failed"; }
grep -qx "  tpt_fn:fn_tick: refused, it stays off: its reg function returned -7" r.err ||
	{ cat r.err; fail "record -p's summary does not show the failed reg"; }
"$TPOINT" report --stats p.dat >s.out 2>&1
grep -qx "tpt_fn:fn_tick: refused: it stayed off, its reg function returned -7" s.out ||
	{ cat s.out; fail "report --stats of record -p's file does not show the failed reg"; }
echo "ok: record -p: $(grep 'process.*reg function returned' r.err); its summary and report --stats too"
