#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (tpoint top: a tracefs instance)
# The ncurses view of `tpoint top` shows a UTF-8 file name as it is under a UTF-8 locale
# (issue 30, item 3.3): it never called setlocale(), and ncurses showed every byte above
# 0x7f as ~X or M-x. A target dirties 'café-日本.txt'; top runs in a tmux pane under
# C.UTF-8, and the pane shows the name intact.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
command -v tmux >/dev/null 2>&1 || skip "skip: tmux is not installed (scripts/deps.sh installs it)"
. "$(dirname "$0")/lib/dirty_view.sh"
need_dirty_view
U8=""
for l in C.UTF-8 C.utf8 en_US.UTF-8 en_US.utf8; do
	[ "$(LC_ALL=$l locale charmap 2>/dev/null)" = UTF-8 ] && U8=$l && break
done
[ -n "$U8" ] || skip "skip: no UTF-8 locale (C.UTF-8) is installed"
B=$(dirname "$TPOINT")
T=${TPOINT_TEST_TMP:-$(pwd)}
SOCK=tpoint-test-$$
pids=""
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	for p in $pids; do kill "$p" 2>/dev/null; done
}
trap cleanup EXIT

NAME='café-日本.txt'
"$B/tests/toptarget" "$T/$NAME" "$T/unlinked.txt" 200 120 >target.out 2>&1 &
pids="$pids $!"
P=""
for i in $(seq 600); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' target.out | head -n 1)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || { cat target.out; fail "toptarget did not start"; }

# A pane wide enough for the path; top refreshes every 0.5 s until the pane shows the file.
tmux -L "$SOCK" -f /dev/null new-session -d -x 250 -y 50 \
	"env LC_ALL=$U8 TERM=screen '$TPOINT' top --dirty -d 0.5 -p $P" ||
	fail "tmux could not start"
seen=""
for i in $(seq 120); do
	tmux -L "$SOCK" capture-pane -p >pane.txt 2>/dev/null || break
	grep -q 'unlinked.txt' pane.txt && grep -q "$P" pane.txt && seen=1 && break
	sleep 0.5
done
[ -n "$seen" ] || { cat pane.txt; fail "top's screen never showed the target's files"; }
grep -q 'keys: r rate' pane.txt || { cat pane.txt; fail "top did not draw its ncurses screen"; }
grep -qF "$T/$NAME" pane.txt || { cat pane.txt; fail "the UTF-8 name is not shown intact"; }
grep -q '~' pane.txt && { cat pane.txt; fail "bytes shown as ~X"; }
echo "ok: top's screen under $U8 shows '$NAME' intact"
