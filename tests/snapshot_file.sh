#!/bin/sh
# tpoint snapshot -p reads only the file it made for the snapshot (issue 30, item 2). The
# process answers with a file name; a process that lies (tests/ctlfake.c, "spool" with a
# file of its choosing) names a root-only file elsewhere, here one that even holds a valid
# spool: the tool must not read it, say so in one line, and exit 1. An honest answer, the
# file the tool made, is read.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done' EXIT

# FAKE SNAPFILE: a fake process answering SNAPSHOT so; sets F to its pid.
start_fake() {
	rm -rf xdg copy && mkdir -m 700 xdg copy
	XDG_RUNTIME_DIR=$PWD/xdg "$B/tests/ctlfake" spool "$PWD/xdg/tpoint" "$PWD/copy" "$1" \
		>fake.out 2>&1 &
	pids="$pids $!"
	F=""
	for i in $(seq 600); do
		F=$(sed -n 's/^ready //p' fake.out)
		[ -n "$F" ] && return 0
		sleep 0.1
	done
	cat fake.out
	fail "the fake process did not start"
}

# An honest process: the file the tool made holds the snapshot, and is read.
start_fake -
timeout 60 "$TPOINT" snapshot -p "$F" -o honest.dat 2>honest.err ||
	{ cat honest.err; fail "snapshot of an honest process exited $?"; }
grep -q "honest.dat: 3 events of process $F" honest.err || { cat honest.err; fail "honest: what"; }
echo "ok: an honest snapshot: the tool's own file read, 3 events"

# A lying process names a root-only file (0600 in a 0700 directory, as /etc/shadow is).
mkdir -m 700 secret
start_fake "$PWD/secret/shadow"
timeout 60 "$TPOINT" snapshot -p "$F" -o lie.dat 2>lie.err
rc=$?
[ -f secret/shadow ] || { cat fake.out; fail "the fake process wrote no file"; }
[ $rc = 1 ] || { cat lie.err; fail "snapshot of a process naming a file of its choosing: exit $rc, expected 1"; }
[ "$(wc -l <lie.err)" = 1 ] || { cat lie.err; fail "more than one line said"; }
grep -q "^tpoint snapshot: process $F names $PWD/secret/shadow .*not read" lie.err ||
	{ cat lie.err; fail "the refusal does not name the process and the file"; }
[ ! -e lie.dat ] || fail "a file was written from what the process named"
echo "ok: a process naming a root-only file: refused in one line, exit 1, nothing read"

# A process whose spool runs (record -p --overwrite): it copies its spool into the tool's
# file, which is read; its spool's own name is no longer the answer.
"$B/tests/ctltarget" 30 300 >t.out 2>&1 &
pids="$pids $!"
P=""
for i in $(seq 600); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' t.out)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || fail "ctltarget did not start"
"$TPOINT" record -p "$P" -e tpt_ctl --overwrite -o rec.dat --duration 4 >rec.log 2>&1 &
r=$!
n=0
for i in $(seq 600); do
	timeout 60 "$TPOINT" snapshot -p "$P" -o live.dat 2>live.err &&
		n=$(sed -n 's/.*live.dat: \([0-9]*\) events of process.*/\1/p' live.err)
	[ "${n:-0}" -gt 0 ] && break
	sleep 0.1
done
wait $r
[ "${n:-0}" -gt 0 ] || { cat live.err; fail "snapshot of a process recorded by record -p --overwrite"; }
echo "ok: a snapshot while a spool runs: its copy in the tool's file read, $n events"
