#!/bin/sh
# User stacks (tpoint_record_user_stack(), what a `stacktrace` trigger records): a known
# call chain stack_a() -> stack_b() -> stack_c() of tests/ustacktarget.c (frame pointers)
# records an event and its stack. tpoint report names the frames in order, from the
# mappings recorded with them; trace-cmd report reads the file and prints the stack as the
# kernel's; from signal handlers (on the thread's stack and an alternate one), from 16
# threads at once, through corrupt frame pointers, and read after the process is gone.
set -u
B=$(dirname "$TPOINT")
T="$B/tests/ustacktarget"
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
EV='tpt_ustack:*,ftrace:user_stack'

# The frames of the first stack of a report, one name a line ("stack_c", ...).
frames() {
	awk '/user_stack: / { on = 1; next } on && /^=> / { sub(/^=> /, ""); sub(/\+0x.*/, ""); print; next }
	     on { exit }' "$1"
}

TPOINT_RECORD=chain.dat TPOINT_EVENTS=$EV "$T" chain >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "ustacktarget chain exited $?"; }
# (main's caller is libc's, built without frame pointers: what follows main may vary)
n=$(sed -n 's/^frames \([0-9]*\)$/\1/p' out.txt)
[ "${n:-0}" -ge 4 ] || { cat out.txt; fail "the chain recorded fewer than 4 callers"; }
"$TPOINT" report chain.dat >report.txt 2>err.txt || { cat err.txt; fail "report exited $?"; }
[ "$(frames report.txt | head -4 | tr '\n' ' ')" = "stack_c stack_b stack_a main " ] &&
	[ "$(frames report.txt | wc -l)" = "$n" ] ||
	{ cat report.txt; fail "tpoint report: the frames are not stack_c, stack_b, stack_a, main ($n)"; }
grep -A1 'ustack_hit: *where=1' report.txt | grep -q 'user_stack: *<user stack trace>$' ||
	{ cat report.txt; fail "the stack is not the record right after its event"; }
grep -q "user_stack_map: *tgid=[0-9]* [0-9a-f]*-[0-9a-f]* [0-9a-f]* .*/ustacktarget$" report.txt ||
	{ cat report.txt; fail "the program's mapping is not in the file"; }
trace-cmd report --check-events chain.dat >/dev/null 2>&1 || fail "trace-cmd --check-events refused the file"
trace-cmd report chain.dat >tc.txt 2>tcerr.txt || { cat tcerr.txt; fail "trace-cmd report exited $?"; }
grep -A1 'ustack_hit: *where=1' tc.txt | grep -q 'user_stack: *	=> 0x[0-9a-f]\{6,\}$' ||
	{ cat tc.txt; fail "trace-cmd does not print the stack after the event"; }
[ "$(grep -c '^	=> 0x[0-9a-f]\{4,\}$' tc.txt)" = $((n - 1)) ] && [ "$(grep -c '^	=> 0x0$' tc.txt)" = $((8 - n)) ] ||
	{ cat tc.txt; fail "trace-cmd: not $n callers and $((8 - n)) empty ones"; }
grep -q blktrace tc.txt && { cat tc.txt; fail "trace-cmd took an event for its blktrace"; }
echo "ok: a -> b -> c by name in tpoint report, as the kernel's user stack in trace-cmd report"

# The stacktrace trigger, where the library has it: the stack recorded after the event by
# the trigger, ftrace:user_stack off, starting at the event's call site (the library's own
# frames left out; a sanitizer build, which makes no tail calls, keeps the frames of the
# event's own functions in the program, __tpoint_*, before it).
TPOINT_RECORD=trig.dat TPOINT_EVENTS='tpt_ustack:*' TPOINT_TRIGGER='tpt_ustack:ustack_hit:stacktrace' \
	"$T" chain >out.txt 2>err.txt || { cat out.txt err.txt; fail "chain with a stacktrace trigger exited $?"; }
if ! grep -q TPOINT_TRIGGER "$B/libtpoint.so" || grep -q "'stacktrace': unknown trigger command" err.txt; then
	echo "note: this library has no stacktrace trigger: not checked"
else
	"$TPOINT" report trig.dat >report.txt 2>&1 || { cat report.txt; fail "report of trig.dat exited $?"; }
	grep -A1 'ustack_hit: *where=1' report.txt | grep -q 'user_stack: *<user stack trace>$' &&
		[ "$(frames report.txt | grep -v '^__tpoint_' | head -4 | tr '\n' ' ')" = \
			"stack_c stack_b stack_a main " ] ||
		{ cat err.txt report.txt; fail "stacktrace trigger: not the chain from stack_c, after the event"; }
	echo "ok: the stacktrace trigger records the chain from the event's call site"
fi

# The event off: nothing walked, nothing recorded.
TPOINT_RECORD=off.dat TPOINT_EVENTS='tpt_ustack:*' "$T" chain >out.txt 2>&1 || fail "chain, event off, exited $?"
grep -qx "frames 0" out.txt || { cat out.txt; fail "a stack recorded while ftrace:user_stack is off"; }
"$TPOINT" report off.dat | grep -q 'user_stack' && fail "user_stack records while the event is off"
echo "ok: off, tpoint_record_user_stack() records nothing and returns 0"

# Signal handlers: the handler's chain, the signal frame (libc's restorer), then the
# interrupted program's callers (the function it interrupted, in libc, has no frame).
TPOINT_RECORD=sig.dat TPOINT_EVENTS=$EV "$T" signal >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "ustacktarget signal exited $?"; }
[ "$(grep -c '^frames 8$' out.txt)" = 2 ] || { cat out.txt; fail "the handlers' stacks are not 8 deep"; }
"$TPOINT" report sig.dat >report.txt 2>err.txt || { cat err.txt; fail "report of sig.dat exited $?"; }
[ "$(grep -c 'user_stack: ' report.txt)" = 2 ] || { cat report.txt; fail "not 2 stacks from handlers"; }
n=$(awk '/^=> stack_c\+/ { s = 1; next } s == 1 && /^=> stack_b\+/ { s = 2; next }
	s == 2 && /^=> stack_a\+/ { s = 3; next } s == 3 && /^=> on_signal\+/ { s = 4; next }
	s == 4 && /^=> \[libc/ { s = 5; next } s == 5 && /^=> signal_e\+/ { s = 6; next }
	s == 6 && /^=> run_signal\+/ { n++; s = 0; next } { s = 0 } END { print n + 0 }' report.txt)
[ "$n" = 2 ] || { cat report.txt; fail "a handler's stack does not go on into the interrupted chain ($n of 2)"; }
trace-cmd report sig.dat >/dev/null 2>&1 || fail "trace-cmd report of sig.dat exited $?"
echo "ok: from a signal handler, on the thread's stack and on an alternate one"

# 16 threads at once, 100 stacks each: each stack right after its own thread's event.
TPOINT_RECORD=thr.dat TPOINT_EVENTS=$EV "$T" threads 16 100 >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "ustacktarget threads exited $?"; }
[ "$(grep -c '^thread least [4-8]$' out.txt)" = 16 ] || { cat out.txt; fail "a thread's stack was short"; }
"$TPOINT" report thr.dat >report.txt 2>err.txt || { cat err.txt; fail "report of thr.dat exited $?"; }
[ "$(grep -c 'ustack_hit: ' report.txt)" = 1600 ] && [ "$(grep -c 'user_stack: ' report.txt)" = 1600 ] &&
	[ "$(grep -c '^=> stack_a+' report.txt)" = 1600 ] && [ "$(grep -c '^=> thread_main+' report.txt)" = 1600 ] ||
	{ "$TPOINT" report --stats thr.dat; fail "16 x 100: not every event with its named stack"; }
bad=$(awk '$0 ~ /^ / && / ustack_hit: / { last[$1] = "hit" }
	$0 ~ /^ / && / user_stack: / { if (last[$1] != "hit") bad++; last[$1] = "stack" }
	END { print bad + 0 }' report.txt)
[ "$bad" = 0 ] || fail "$bad stacks do not follow their own thread's event"
trace-cmd report thr.dat 2>/dev/null | grep -c 'user_stack: ' | grep -qx 1600 ||
	fail "trace-cmd does not read the 1600 stacks"
echo "ok: 16 threads at once, 1600 stacks, each after its thread's event"

# Corrupt frame pointers: past the stack, misaligned, unreadable, readable garbage below,
# the end of the address space, the first page, and a loop in garbage above: no crash.
TPOINT_RECORD=bad.dat TPOINT_EVENTS=$EV "$T" corrupt >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "ustacktarget corrupt exited $? (crashed?)"; }
[ "$(tr '\n' ' ' <out.txt)" = "corrupt 2 corrupt 2 corrupt 2 corrupt 2 corrupt 2 corrupt 2 corrupt 6 " ] ||
	{ cat out.txt; fail "the walks through corrupt frames did not stop where they must"; }
"$TPOINT" report bad.dat >report.txt 2>err.txt || { cat err.txt; fail "report of bad.dat exited $?"; }
grep -q '^=> 0x1006$' report.txt || { cat report.txt; fail "the garbage frames are not shown as addresses"; }
echo "ok: corrupt frame pointers stop the walk, never crash it"

# A fork child's stacks are named from its own mappings (its process id is not its parent's).
TPOINT_RECORD=fork.dat TPOINT_EVENTS=$EV "$T" fork >out.txt 2>err.txt ||
	{ cat out.txt err.txt; fail "ustacktarget fork exited $?"; }
# (a child of a TPOINT_RECORD program writes fork.dat.PID)
"$TPOINT" report fork.dat fork.dat.* >report.txt 2>err.txt || { cat err.txt; fail "report of fork.dat exited $?"; }
[ "$(grep -c 'ustack_hit: *where=[67]$' report.txt)" = 2 ] && [ "$(grep -c '^=> stack_c+' report.txt)" = 2 ] ||
	{ cat report.txt; fail "the parent's and the child's stacks are not both named"; }
[ "$(grep -o 'user_stack_map: *tgid=[0-9]*' report.txt | sort -u | wc -l)" = 2 ] ||
	{ cat report.txt; fail "the child did not write its own mappings"; }
echo "ok: a fork child's stack, by its own mappings"

# tpoint record: the file is made after the process is gone, from the mappings it recorded.
"$TPOINT" record -e "$EV" -o rec.dat -- "$T" chain >out.txt 2>err.txt ||
	{ cat err.txt; fail "record -- ustacktarget exited $?"; }
"$TPOINT" report rec.dat >report.txt 2>&1 || { cat report.txt; fail "report of rec.dat exited $?"; }
[ "$(frames report.txt | head -4 | tr '\n' ' ')" = "stack_c stack_b stack_a main " ] ||
	{ cat report.txt; fail "record: the frames are not named"; }
# (only where trace-cmd reads zstd: trace-cmd list -c)
if trace-cmd list -c 2>/dev/null | grep -q zstd &&
	TPOINT_RECORD=z.dat TPOINT_COMPRESS=zstd TPOINT_EVENTS=$EV "$T" chain >/dev/null 2>&1 && [ -s z.dat ]; then
	trace-cmd report z.dat 2>/dev/null | grep -q 'user_stack: *	=> 0x' || fail "trace-cmd: no stack in a version 7 file"
	[ "$("$TPOINT" report z.dat | frames /dev/stdin | head -1)" = stack_c ] || fail "report: version 7, no names"
fi
echo "ok: tpoint record, and a version 7 file"

# record -p selects the stacks: the mappings that name them come too, unasked.
"$T" loop 3 >loop.out 2>&1 &
pid=$!
i=0
until grep -q "^ready $pid$" loop.out; do
	i=$((i + 1)); [ $i -lt 600 ] || { kill $pid; fail "ustacktarget loop did not say it was ready"; }
	sleep 0.1
done
timeout 60 "$TPOINT" record -p $pid -e 'tpt_ustack:*,ftrace:user_stack' -o pid.dat 2>err.txt ||
	{ cat err.txt; kill $pid 2>/dev/null; fail "record -p exited $?"; }
wait $pid
"$TPOINT" report pid.dat >report.txt 2>&1 || { cat report.txt; fail "report of pid.dat exited $?"; }
grep -q 'user_stack_map: ' report.txt && [ "$(frames report.txt | head -3 | tr '\n' ' ')" = "stack_c stack_b stack_a " ] ||
	{ head -20 report.txt; fail "record -p -e ftrace:user_stack: the stacks are not named"; }
echo "ok: record -p of the stacks keeps their mappings"
