#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (bpftrace attaches uprobes)
# Every event is also a USDT probe (include/tpoint/usdt.h), as the README shows it:
#  1. readelf -n lists one stapsdt note per event, with provider, name and arguments (sizes
#     cross-checked against <sys/sdt.h> when it is installed); -DTPOINT_NO_USDT has none;
#     `tpoint list FILE` names each probe as the tools spell it.
#  2. bpftrace on the conditional event counts exactly the condition-true hits of a window
#     of known hits and prints an argument; nothing goes into tpoint's buffers (tpoint stat
#     shows the consumer), until tpoint records too, a second window: then both see them;
#     once bpftrace exits the semaphore is 0 and the site is off again.
#  3. gdb's `info probes` lists the program's probes, the linked libtpoint's and a dlopened
#     library's, and `break -probe-stap` stops at one, its arguments in $_probe_argN.
#  4. bpftrace attached to the dlopened library's probe while it is opened and closed.
# 2-4 run with load-and-branch sites and with -DTPOINT_JUMP_LABEL sites.
set -u
fail() { echo "FAIL: $*"; tail -5 target.out 2>/dev/null; for f in *.bt; do [ -f "$f" ] && tail -5 "$f"; done; exit 1; }
. "$(dirname "$0")/usdt.inc"
. "$(dirname "$0")/lib/wait.sh"
src=$(cd "$(dirname "$0")/.." && pwd)

command -v readelf >/dev/null || { echo "skip: readelf (binutils) is not installed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || [ "$(uname -m)" = aarch64 ] ||
	{ echo "skip: USDT probes are written on x86-64 and arm64 only"; exit 77; }

# ---- 1. the notes ----
T=$B/tests/usdttarget
readelf -n "$T" >notes.txt || fail "readelf -n $T"
[ "$(grep -c 'Provider: tpt_usdt$' notes.txt)" -eq 3 ] ||
	{ cat notes.txt; fail "expected 3 stapsdt notes of provider tpt_usdt (one per event)"; }
# The arguments of each event, locations aside: sizes and signs in TP_PROTO order.
note_sizes() {
	awk -v n="$1" '$1 == "Name:" { take = ($2 == n) } take && $1 == "Arguments:" {
		for (i = 2; i <= NF; i++) { split($i, a, "@"); printf "%s%s", sep, a[1]; sep = " " }
		print ""; exit }' notes.txt
}
[ "$(note_sizes usdt_cond)" = "-4 -8 8" ] || fail "usdt_cond arguments: '$(note_sizes usdt_cond)'"
# s8, u16, s64, void *, a struct and a double (the constant 0), bool, unsigned char
[ "$(note_sizes usdt_kinds)" = "-1 2 -8 8 -4 -4 1 1" ] ||
	fail "usdt_kinds arguments: '$(note_sizes usdt_kinds)'"
grep -A4 'Name: usdt_kinds$' notes.txt | grep -q 'Arguments: .* -4@\$0 -4@\$0 ' ||
	fail "the struct and the double should be the constant 0 (-4@\$0)"
[ "$(note_sizes usdt_wide)" = "-4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4" ] ||
	fail "usdt_wide: 13 arguments, the note should carry the first 12: '$(note_sizes usdt_wide)'"
# The semaphore is in .probes: the event descriptor's enable word, its high half.
sem=$(grep -A3 'Name: usdt_cond$' notes.txt | sed -n 's/.*Semaphore: 0x\([0-9a-f]*\).*/\1/p')
set -- $(readelf -SW "$T" | sed -n 's/.*\] \.probes *PROGBITS *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
[ $# -eq 2 ] && [ $((0x$sem)) -ge $((0x$1)) ] && [ $((0x$sem)) -lt $((0x$1 + 0x$2)) ] ||
	fail "the semaphore 0x$sem is not in the section .probes ($*)"
nm "$T" | grep -q "^$(printf '%016x' $((0x$sem - 2))) D __tpoint_event_usdt_cond__made_by_CREATE_TRACE_POINTS$" ||
	fail "the semaphore is not 2 bytes into the event descriptor (the enable word's high half)"
echo "ok: readelf -n: one note per event, sizes and signs, 12 arguments at most, semaphore = enable word + 2"

cc=${CC:-cc}
if command -v "$cc" >/dev/null; then
	"$cc" -O2 -DTPOINT_NO_USDT -I"$src/include" -I"$src/tests" -o nousdt "$src/tests/usdttarget.c" \
		-L"$B/tests" -ltp_jumplib -L"$B" -ltpoint -lpthread -ldl || fail "build with -DTPOINT_NO_USDT"
	readelf -n nousdt | grep -q 'Provider: tpt_usdt' && fail "-DTPOINT_NO_USDT still wrote notes"
	echo "ok: -DTPOINT_NO_USDT: no notes"
	if echo '#include <sys/sdt.h>' | "$cc" -E - >/dev/null 2>&1; then
		# <sys/sdt.h>'s own sizes for the same argument types, as a cross-check.
		cat >sdt.c <<'EOF'
#include <stdbool.h>
#include <stdint.h>
#include <sys/sdt.h>
void f(int i, long v, const char *s, int8_t a, uint16_t b, int64_t c, void *p, bool fl,
       unsigned char uc)
{
	STAP_PROBE3(x, usdt_cond, i, v, s);
	STAP_PROBE6(x, usdt_kinds, a, b, c, p, fl, uc);
}
EOF
		"$cc" -O2 -c sdt.c -o sdt.o || fail "sdt.h cross-check does not build"
		readelf -n sdt.o >notes.txt
		[ "$(note_sizes usdt_cond)" = "-4 -8 8" ] && [ "$(note_sizes usdt_kinds)" = "-1 2 -8 8 1 1" ] ||
			fail "<sys/sdt.h> writes other sizes: $(note_sizes usdt_cond) / $(note_sizes usdt_kinds)"
		echo "ok: <sys/sdt.h> writes the same sizes and signs"
	else
		echo "note: no <sys/sdt.h> (systemtap-sdt-dev): the cross-check is skipped"
	fi
fi
"$TPOINT" list "$T" >list.txt || fail "tpoint list $T"
grep -q "usdt:$T:tpt_usdt:usdt_cond" list.txt || { cat list.txt; fail "tpoint list FILE shows no USDT name"; }
echo "ok: tpoint list FILE: usdt:$T:tpt_usdt:usdt_cond"

need_bpftrace

for kind in plain jump; do
	T=$B/tests/usdttarget
	[ $kind = jump ] && T=$B/tests/usdttarget_jump
	# ---- 2. bpftrace counts the condition-true hits of a window ----
	start_target "$T"
	[ "$(word)" = 0 ] || fail "$kind: the enable word is $(word) before anything attached"
	bt_start count "usdt:$T:tpt_usdt:usdt_cond { @hits[tid] = count(); }
		usdt:$T:tpt_usdt:usdt_cond /arg0 == 42/ { printf(\"arg1=%ld arg2=%s\\n\", arg1, str(arg2)); }
		usdt:$T:tpt_usdt:usdt_kinds { printf(\"kinds %d %d %ld\\n\", arg0, arg1, arg2); }"
	wait_usdt tpt_usdt:usdt_cond -ge 1
	[ "$(word)" = 0x10000 ] || fail "$kind: with bpftrace attached the word should be 0x10000: $(word)"
	ask "hits 300" "^hits 300"
	"$TPOINT" stat -p "$P" --json -e usdt_cond >s0.json
	grep -q '"condition_skipped": 200, "filtered": 0, "recorded": 0, "lost": 0, "usdt": 1,' s0.json ||
		{ cat s0.json; fail "$kind: with only a USDT consumer nothing is recorded"; }
	# tpoint records too, meanwhile: both see the condition-true hits.
	"$TPOINT" enable -p "$P" tpt_usdt:usdt_cond >/dev/null || fail "$kind: enable"
	[ "$(word)" = 0x10001 ] || fail "$kind: recording and bpftrace: the word should be 0x10001: $(word)"
	ask "hits 300" "^hits 300"
	"$TPOINT" disable -p "$P" tpt_usdt:usdt_cond >/dev/null || fail "$kind: disable"
	bt_stop
	grep -q "^@hits\[$P\]: 200$" count.bt ||
		{ cat count.bt; fail "$kind: bpftrace should count the 200 condition-true hits of 600"; }
	grep -qx "arg1=294 arg2=s42" count.bt || fail "$kind: bpftrace printed no or wrong arguments"
	grep -qx "kinds -3 65000 -5000000000" count.bt || fail "$kind: signed/unsigned arguments"
	"$TPOINT" stat -p "$P" --json -e usdt_cond >s1.json
	grep -q '"condition_skipped": 400, "filtered": 0, "recorded": 100, "lost": 0,' s1.json ||
		{ cat s1.json; fail "$kind: tpoint should have recorded the 100 condition-true hits of its window"; }
	echo "ok: $kind: bpftrace counted exactly the 2 x 100 condition-true hits, arg1=294 arg2=s42; tpoint recorded nothing alone, 100 when enabled too"

	wait_usdt tpt_usdt:usdt_cond -eq 0
	[ "$(word)" = 0 ] || fail "$kind: after bpftrace exited the word is $(word)"
	ask "hits 300" "^hits 300"
	"$TPOINT" stat -p "$P" --json -e usdt_cond | grep -q '"condition_skipped": 400,' ||
		fail "$kind: the site still runs the condition after bpftrace exited"
	if [ $kind = jump ]; then
		"$TPOINT" stat -p "$P" | grep -q '^jump labels: [0-9]* sites, patched' ||
			fail "jump: the sites are not NOPs again"
	fi
	echo "ok: $kind: after bpftrace: semaphore 0, word 0, the site off (300 more hits ran nothing)"

	# ---- 3. gdb ----
	if command -v gdb >/dev/null; then
		ask open "^open ok"
		timeout 60 gdb -batch -p "$P" -ex 'info probes' >gdb.txt 2>&1
		for p in "tpt_usdt *usdt_cond .*$T" "tpoint *print .*libtpoint" "plugin *plugin_work .*libtp_plugin.so"; do
			grep -q "^stap $p" gdb.txt || { cat gdb.txt; fail "$kind: gdb info probes lacks '$p'"; }
		done
		# Stop at the dlopened library's probe, then at the program's behind its condition
		# (once tpoint stat, which brings jump-label sites in step, sees gdb's semaphore).
		# The program is told to hit them once gdb has inserted its breakpoints (at once,
		# always-inserted) and says so (gdb.go), however long a busy machine takes.
		rm -f gdb.go
		(wait_until 60 test -e gdb.go; echo "plugin 2" >&3; wait_usdt tpt_usdt:usdt_cond -ge 1
		 echo "hits 7" >&3) &
		feeder=$!
		timeout 60 gdb -batch -p "$P" -ex 'set breakpoint always-inserted on' \
			-ex 'break -probe-stap plugin:plugin_work' \
			-ex 'break -probe-stap tpt_usdt:usdt_cond' -ex 'shell touch gdb.go' -ex continue \
			-ex 'print $_probe_arg2' -ex 'delete 1' -ex continue -ex continue \
			-ex 'print $_probe_arg0' >gdb2.txt 2>&1
		grep -q '^\$1 = 0$' gdb2.txt && grep -q '^\$2 = 3$' gdb2.txt ||
			{ cat gdb2.txt; fail "$kind: gdb break -probe-stap: expected plugin i=0, then usdt_cond i=0, i=3"; }
		wait $feeder
		[ "$(word)" = 0 ] || fail "$kind: after gdb detached the word is $(word)"
		ask "hits 3" "^hits 3"
		ask close "^close"
		echo "ok: $kind: gdb lists the probes of the program, libtpoint and a dlopened library and stops at them"
	else
		echo "note: gdb is not installed; its part is skipped"
	fi

	# ---- 4. a probe in a library that comes and goes while bpftrace is attached ----
	bt_start dl "usdt:$B/tests/libtp_plugin.so:plugin:plugin_work { @n = count(); }"
	for i in 1 2 3; do
		ask open "^open ok"
		wait_usdt plugin:plugin_work -ge 1
		ask "plugin 5" "^plugin 5"
		ask close "^close"
	done
	bt_stop
	grep -q '^@n: 15$' dl.bt || { cat dl.bt; fail "$kind: 3 opens of the library, 5 hits each: bpftrace should count 15"; }
	ask "hits 3" "^hits 3"
	echo "ok: $kind: bpftrace counted 15 hits of a library opened and closed 3 times under it"
	ask quit "^bye"
	exec 3>&-
done
