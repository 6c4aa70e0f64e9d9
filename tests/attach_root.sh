#!/bin/sh
# tpoint-test: serial (a fixed user's /tmp/tpoint-UID)
# Root records another user's process (tpoint record -p), and that user attacks the spool
# directory the tool lent them (issue 20, item 1):
#   1. swaps PID.spool for a symlink to a root-owned 0600 file, then kills their process:
#      root's salvage must not truncate or write that file;
#   2. with the output in a sticky world-writable directory, moves the whole spool
#      directory away and leaves a symlink to a root directory in its place: root's
#      clean-up must not delete what is there.
# Root's files stay byte for byte, and the recording is still made from the descriptors the
# tool opened itself.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "not root: cannot record another user's process"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
B=$(dirname "$TPOINT")
U=63001
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
. "$(dirname "$0")/lib/user_stage.sh"
T=$TPOINT_TEST_TMP
chmod 755 "$T" # the user's process writes its spool below it
rm -rf /tmp/tpoint-$U
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf /tmp/tpoint-$U; user_unstage; }
trap cleanup EXIT
user_stage ctltarget

# The user's process, and its pid once it is ready.
start_user_target() {
	as_user env -u XDG_RUNTIME_DIR "$UB/tests/ctltarget" 60 300 >"$T/target.out" 2>&1 &
	pids="$pids $!"
	for i in $(seq 600); do
		P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T/target.out" | head -n 1)
		[ -n "$P" ] && return 0
		sleep 0.1
	done
	fail "the user's ctltarget did not start"
}
# Wait until the spool directory near $1 holds a growing PID.spool; sets D.
wait_spool() {
	for i in $(seq 600); do
		for d in "$1"/.tpoint-spool.*; do
			[ -s "$d/$P.spool" ] && { D=$d; return 0; }
		done
		sleep 0.1
	done
	fail "no spool appeared near $1"
}
ticks() { trace-cmd report "$1" 2>/dev/null | grep -c " ctl_tick: "; }

# 1. The spool swapped for a symlink to root's file; the process killed: salvage.
head -c 65536 /dev/urandom >"$T/victim"
chmod 600 "$T/victim"
cp "$T/victim" "$T/victim.orig"
start_user_target
"$TPOINT" record -p "$P" -e tpt_ctl -o "$T/swap.dat" >"$T/rec1.log" 2>&1 &
r=$!
wait_spool "$T"
as_user sh -c "rm -f '$D/$P.spool' && ln -s '$T/victim' '$D/$P.spool'" || fail "the swap"
sleep 0.3
as_user kill -9 "$P"
wait $r
rc=$?
cmp -s "$T/victim" "$T/victim.orig" ||
	fail "root's 0600 file was written through the user's symlink (record exited $rc)"
[ "$(stat -c %s "$T/victim")" = 65536 ] || fail "root's file changed size"
[ $rc = 0 ] || { cat "$T/rec1.log"; fail "record -p exited $rc"; }
n=$(ticks "$T/swap.dat")
[ "$n" -gt 100 ] || { cat "$T/rec1.log"; fail "only $n events recorded from the tool's own descriptor"; }
echo "ok: spool swapped for a symlink to root's file: the file is untouched, $n events recorded"

# 2. The spool directory (in a sticky /tmp-like directory) moved away, a symlink to a root
#    directory in its place; the recording ends: nothing of root's is deleted.
mkdir -m 1777 "$T/sticky"
mkdir -m 755 "$T/precious"
echo keep >"$T/precious/a"
echo keep >"$T/precious/b"
start_user_target
"$TPOINT" record -p "$P" -e tpt_ctl -o "$T/sticky/out.dat" --duration 3 >"$T/rec2.log" 2>&1 &
r=$!
wait_spool "$T/sticky"
as_user sh -c "mv '$D' '$T/sticky/moved' && ln -s '$T/precious' '$D'" || fail "the move"
wait $r
rc=$?
[ -f "$T/precious/a" ] && [ -f "$T/precious/b" ] ||
	fail "root's files were deleted through the user's symlink (record exited $rc)"
[ -L "$D" ] || fail "the user's symlink was replaced"
[ $rc = 0 ] || { cat "$T/rec2.log"; fail "record -p exited $rc"; }
n=$(ticks "$T/sticky/out.dat")
[ "$n" -gt 100 ] || { cat "$T/rec2.log"; fail "only $n events recorded after the move"; }
echo "ok: spool directory replaced by a symlink to root's: nothing deleted, $n events recorded"
