#!/bin/sh
# tpoint-test: serial (a fixed user's /tmp/tpoint-UID, and ps asks every process)
# Root's `tpoint ps` against another user's directory and processes (issue 20, item 4):
#   1. /tmp/tpoint-UID planted as a symlink to a root directory holding <deadpid>.sock:
#      ps must not follow it, nor remove anything there;
#   2. fake listeners: one claiming to be PID 1, one answering with terminal escape
#      sequences: rows show the kernel's pid (SO_PEERCRED) and name, printed escaped;
#   3. a listener announcing a 16 MiB answer and dripping it a byte a second: ps ends soon;
#   4. a process whose $XDG_RUNTIME_DIR is outside /run/user is listed (issue 19, 8).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "not root: ps sees only this user's processes"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
B=$(dirname "$TPOINT")
U=63002
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
. "$(dirname "$0")/lib/user_stage.sh"
T=$TPOINT_TEST_TMP
chmod 755 "$T"
rm -rf /tmp/tpoint-$U
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf /tmp/tpoint-$U; user_unstage; }
trap cleanup EXIT
user_stage ctlfake ctltarget
# Run "$@" as the user in the background; $P is its pid once it says "ready PID".
start_user() {
	out=$T/user.$#.$(date +%s%N)
	as_user "$@" >"$out" 2>&1 &
	pids="$pids $!"
	for i in $(seq 600); do
		P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$out" | head -n 1)
		[ -n "$P" ] && return 0
		sleep 0.1
	done
	cat "$out"
	fail "$* did not start"
}

# 1. The planted symlink.
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
mkdir -m 700 "$T/rootdir"
echo keep >"$T/rootdir/$dead.sock"
as_user ln -s "$T/rootdir" /tmp/tpoint-$U || fail "planting the symlink"
"$TPOINT" ps >ps1.txt 2>&1
[ -f "$T/rootdir/$dead.sock" ] || fail "ps removed root's $dead.sock through the user's symlink"
rm -f /tmp/tpoint-$U
echo "ok: a planted /tmp/tpoint-$U symlink: root's $dead.sock is still there"

# 2. Lying listeners.
start_user "$UB/tests/ctlfake" listen pid1 /tmp/tpoint-$U
liar=$P
start_user "$UB/tests/ctlfake" listen escape /tmp/tpoint-$U
esc=$P
timeout 60 "$TPOINT" ps >ps2.txt 2>&1
grep -q "^ *1 " ps2.txt && { cat ps2.txt; fail "ps shows a row for PID 1 on a listener's word"; }
grep -q "^ *$liar  ctlfake " ps2.txt || { cat ps2.txt; fail "no row for the listener $liar under its own pid and name"; }
[ "$(tr -d '\033\007' <ps2.txt | cmp - ps2.txt >/dev/null && echo clean)" = clean ] ||
	{ od -c ps2.txt | head -20; fail "ps printed escape or bell bytes raw"; }
grep -q "^ *$esc  ctlfake .*file:\\\\x1b\[31m/evil$" ps2.txt ||
	{ cat ps2.txt; fail "the escaping listener's row is not shown escaped"; }
echo "ok: a listener claiming PID 1 is shown as $liar, escape sequences are printed escaped"
kill -9 $liar $esc

# 3. A dripping listener holds ps for at most a few seconds.
start_user "$UB/tests/ctlfake" listen drip /tmp/tpoint-$U
drip=$P
t0=$(date +%s)
timeout 60 "$TPOINT" ps >ps3.txt 2>&1
t=$(($(date +%s) - t0))
[ $t -lt 10 ] || fail "a dripping listener held ps for $t s"
grep -q "process $drip (ctlfake) did not answer" ps3.txt || { cat ps3.txt; fail "the dripping listener is not named"; }
echo "ok: a dripping listener held ps for $t s"
kill -9 $drip

# 4. $XDG_RUNTIME_DIR outside /run/user.
mkdir -m 700 "$T/xdg"
chown $U:$U "$T/xdg"
start_user env XDG_RUNTIME_DIR="$T/xdg" "$UB/tests/ctltarget" 30 1000
[ -S "$T/xdg/tpoint/$P.sock" ] || { sleep 1; [ -S "$T/xdg/tpoint/$P.sock" ]; } ||
	fail "the target's socket is not in its \$XDG_RUNTIME_DIR"
"$TPOINT" ps >ps4.txt 2>&1
grep -q "^ *$P  ctltarget " ps4.txt || { cat ps4.txt; fail "ps misses a process with \$XDG_RUNTIME_DIR=$T/xdg"; }
"$TPOINT" stat -p "$P" >/dev/null || fail "stat -p does not reach it either"
echo "ok: a process with \$XDG_RUNTIME_DIR outside /run/user is listed"
