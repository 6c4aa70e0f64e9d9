#!/bin/sh
# SPDX-License-Identifier: MIT
# The snapshot trigger refuses a directory of another user (issue 35), whoever may write in
# it: set by TPOINT_TRIGGER (a stderr line) and by `tpoint trigger -p` (exit status 1). Root
# makes the directory another user's (tests/trigger_snapshot.sh has the rest).
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
T=$B/tests/snaptarget
. "$(dirname "$0")/lib/wait.sh"
[ "$(id -u)" = 0 ] || { echo "not root: cannot make a directory another user's"; exit 77; }
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT
TRIG='tpt_snap:request:snapshot if status >= 500'

mkdir theirs
chown 65534 theirs
chmod 0755 theirs
TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$TRIG TPOINT_SNAPSHOT_DIR=$PWD/theirs "$T" run 100 50 0 \
	2>env.err || fail "snaptarget exited $?"
grep -qx "tpoint: TPOINT_TRIGGER: '$TRIG': snapshot directory $PWD/theirs: owned by uid 65534, not by this user (uid 0) or root; ignored" env.err ||
	{ cat env.err; fail "TPOINT_TRIGGER: another user's directory"; }
[ -z "$(ls theirs)" ] || fail "a file in another user's directory"

TPOINT_SNAPSHOT_DIR=$PWD/theirs "$T" wait >wait.out 2>wait.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' wait.out || fail "snaptarget wait did not start"
"$TPOINT" trigger -p "$P" -e tpt_snap:request 'snapshot' 2>t.err
[ $? = 1 ] && grep -qx "tpoint trigger: snapshot directory $PWD/theirs: owned by uid 65534, not by this user (uid 0) or root" t.err ||
	{ cat t.err; fail "trigger -p: another user's directory"; }
echo "ok: another user's directory is refused, by TPOINT_TRIGGER and trigger -p"
