#!/bin/sh
# SPDX-License-Identifier: MIT
# Text another process chose reaches a terminal escaped (issue 30, item 3.1). A fake process
# (tests/ctlfake.c, "hostile") answers list and stat with event names, conditions, filters,
# refusal texts and a format text holding ESC ] 0 ; x BEL (set the window title), ESC [ 2 J
# (clear the screen), a raw 0x9b (CSI on an 8-bit terminal), U+009B in UTF-8 (CSI on a UTF-8
# one) and 0xff 0xfe (not UTF-8); a traced program (tests/ctltarget.c, "hostile") names its
# thread and records a __string with the same bytes. Read through a pseudo-terminal
# (script(1)), `list -p`, `list -p --format`, `stat -p`, `enable -p` (its refusal, on stderr),
# `report` and `stream -p` show each as \xHH and send none of the bytes; through a pipe the
# bytes are what the process said, and `report` is trace-cmd report's, byte for byte.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v script >/dev/null 2>&1 || { echo "script (util-linux) is not installed"; exit 77; }
B=$(dirname "$TPOINT")
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done' EXIT

# CMD... run on a pseudo-terminal: its output, the terminal's \r taken out, on stdout.
on_tty() {
	script -qec "$*" /dev/null </dev/null | tr -d '\r'
}

# FILE holds none of the bytes a terminal would obey (or that are not UTF-8 here).
no_raw() {
	if od -An -v -tx1 "$1" | grep -qE ' (1b|07|9b|c2|ff|fe)( |$)'; then
		od -c "$1" | head -20
		fail "$2: raw control bytes reach the terminal"
	fi
}

# The escaped form of the fake's bytes, as grep -F finds it.
SHOWN='\x1b]0;x\x07\x1b[2J\x9b\xc2\x9b\xff\xfe'
RAW=$(printf '\033]0;x\a\033[2J\233\302\233\377\376')

. "$(dirname "$0")/lib/hostile_fake.sh"
start_hostile_fake

# list -p: the name, its refusal, condition and filter.
on_tty "$TPOINT" list -p "$F" >list.tty 2>&1
no_raw list.tty "list -p"
for what in "tpt_evil:name$SHOWN  [enabled]  [refused]" \
	    "  refused: stays off, its reg function returned -1$SHOWN" \
	    "  condition: cond$SHOWN" "  filter: filter$SHOWN"; do
	grep -qxF "$what" list.tty || { cat list.tty; fail "list -p on a terminal: no line '$what'"; }
done
grep -qx 'tpt_evil:plain' list.tty || { cat list.tty; fail "list -p: the plain event is not shown as it is"; }
# Through a pipe: the process's bytes, as they are.
"$TPOINT" list -p "$F" >list.pipe 2>&1 || fail "list -p exited $?"
grep -qF "filter$RAW" list.pipe || { od -c list.pipe | head; fail "list -p | cat: the filter is not as the process said it"; }
echo "ok: list -p on a terminal escapes names, refusals, conditions and filters; a pipe gets them as they are"

# list -p --format: the format text keeps its lines and tabs, its controls are escaped.
on_tty "$TPOINT" list -p "$F" --format >fmt.tty 2>&1
no_raw fmt.tty "list -p --format"
grep -qxF "name: name$SHOWN" fmt.tty || { cat fmt.tty; fail "list -p --format: the name is not escaped"; }
grep -qx "$(printf '\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;')" fmt.tty ||
	{ cat fmt.tty; fail "list -p --format on a terminal lost its tabs or lines"; }
echo "ok: list -p --format on a terminal escapes, keeping the lines and tabs"

# stat -p: the event's row, its condition, its refusal, its jump-label reason.
on_tty "$TPOINT" stat -p "$F" >stat.tty 2>&1
no_raw stat.tty "stat -p"
grep -qF "tpt_evil:name$SHOWN" stat.tty || { cat stat.tty; fail "stat -p: the event name is not escaped"; }
grep -qF "cond$SHOWN" stat.tty || { cat stat.tty; fail "stat -p: the condition is not escaped"; }
grep -qxF "  refused: stays off, its reg function returned -1$SHOWN" stat.tty ||
	{ cat stat.tty; fail "stat -p: the refusal is not escaped"; }
grep -qF "jump$SHOWN" stat.tty || { cat stat.tty; fail "stat -p: the jump-label reason is not escaped"; }
echo "ok: stat -p on a terminal escapes the event, its condition, its refusal"

# enable -p: the refusal, said on stderr (tool_error), escaped there too.
on_tty "$TPOINT" enable -p "$F" 'tpt_evil:*' >enable.tty 2>&1
no_raw enable.tty "enable -p"
grep -qF "event tpt_evil:name$SHOWN stays off: its reg function returned -1$SHOWN" enable.tty ||
	{ cat enable.tty; fail "enable -p on a terminal: the refusal is not escaped on stderr"; }
echo "ok: enable -p on a terminal escapes the refusal it says on stderr"

# A traced program whose thread name and __string hold the same bytes.
CSHOWN='\x1b]0;x\x07\x1b[2J\x9b\xff'
TPOINT_EVENTS=tpt_ctl:ctl_tick TPOINT_RECORD=h.dat "$B/tests/ctltarget" 0.05 1000 hostile \
	>t.out 2>&1 || { cat t.out; fail "ctltarget hostile exited $?"; }
on_tty "$TPOINT" report h.dat >report.tty 2>&1
no_raw report.tty "report"
grep -qF "$CSHOWN-" report.tty || { head -3 report.tty; fail "report: the thread's name is not escaped"; }
grep -qF " n=0 name=$SHOWN" report.tty || { head -3 report.tty; fail "report: the __string is not escaped"; }
grep -q " n=1 name=beta$" report.tty || { head -3 report.tty; fail "report: a plain line changed"; }
if command -v trace-cmd >/dev/null 2>&1; then
	"$TPOINT" report h.dat >report.pipe 2>report.err || { cat report.err; fail "report exited $?"; }
	trace-cmd report h.dat >trace-cmd.out 2>/dev/null || fail "trace-cmd report exited $?"
	cmp -s report.pipe trace-cmd.out ||
		{ diff report.pipe trace-cmd.out | head; fail "report | cat is not trace-cmd report's text"; }
	echo "ok: report on a terminal escapes comm and __string; through a pipe it is trace-cmd report's, byte for byte"
else
	echo "ok: report on a terminal escapes comm and __string (trace-cmd is not installed: not compared)"
fi

# stream -p of the same program, running; once ticks show, the program is ended, and stream
# with it (bounded: a busy machine may take a while to attach).
"$B/tests/ctltarget" 300 1000 hostile >s.out 2>&1 &
S=$!
pids="$pids $S"
for i in $(seq 200); do
	grep -q '^ready' s.out && break
	sleep 0.1
done
grep -q '^ready' s.out || { cat s.out; fail "ctltarget hostile did not start"; }
script -qec "timeout 120 '$TPOINT' stream -p $S -e tpt_ctl:ctl_tick" /dev/null </dev/null >stream.raw 2>&1 &
st=$!
for i in $(seq 600); do
	[ "$(grep -c 'ctl_tick:' stream.raw)" -ge 8 ] && break
	sleep 0.1
done
kill "$S"
wait "$st"
tr -d '\r' <stream.raw >stream.tty
grep -q 'ctl_tick:' stream.tty || { cat stream.tty; fail "stream -p printed no tick"; }
no_raw stream.tty "stream -p"
grep -qF "$CSHOWN-$S " stream.tty || { head -5 stream.tty; fail "stream -p: the thread's name is not escaped"; }
grep -qF "name=$SHOWN" stream.tty || { head -5 stream.tty; fail "stream -p: the __string is not escaped"; }
echo "ok: stream -p on a terminal escapes comm and __string"
