#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/report/kernel.sh TPOINT - tpoint report on real kernel traces.
#
# Records a few kernel events by driving tracefs by hand (trace-cmd record and
# start need the function-tracer files, which some sandboxes refuse), extracts
# them with 'trace-cmd extract', converts the file to v6, and checks that
# 'tpoint report' prints what 'trace-cmd report' prints, of the v6 file and of
# extract's v7 one: once with the default clock and once with clock mono (how
# tpoint's own files are stamped).
#
# It clears and reconfigures the kernel's top trace buffer, then restores the
# settings it changed (not the buffer's old contents), so it runs only when
# asked: TPOINT_TEST_KERNEL=1.  Needs root and tracefs.  Exit 0 pass, 1 fail,
# 77 skip with the reason.

TPOINT=${1:-$TPOINT}
T=/sys/kernel/tracing
EVENTS="sched/sched_switch sched/sched_wakeup sched/sched_process_fork sched/sched_process_exec
timer/hrtimer_start timer/timer_start irq/softirq_entry kmem/kmalloc"

if [ -z "$TPOINT" ] || [ ! -x "$TPOINT" ]; then
	echo "kernel.sh: give the tpoint binary as \$1 or \$TPOINT (got '$TPOINT')" >&2
	exit 1
fi
if [ "$TPOINT_TEST_KERNEL" != 1 ]; then
	echo "SKIP: set TPOINT_TEST_KERNEL=1 to let this test reconfigure the kernel's trace buffer"
	exit 77
fi
command -v trace-cmd >/dev/null 2>&1 || { echo "SKIP: trace-cmd is not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to drive tracefs"; exit 77; }
[ -w $T/tracing_on ] || mount -t tracefs nodev $T 2>/dev/null
[ -w $T/tracing_on ] || { echo "SKIP: tracefs is not writable at $T"; exit 77; }

tmp=$(mktemp -d /tmp/tpoint-kernel-test.XXXXXX) || exit 1
saved_on=$(cat $T/tracing_on)
saved_kb=$(cat $T/buffer_size_kb | sed 's/ .*//')
saved_clock=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
saved_events=
for e in $EVENTS; do
	[ -f "$T/events/$e/enable" ] && saved_events="$saved_events $e=$(cat "$T/events/$e/enable")"
done

restore() {
	echo 0 >$T/tracing_on
	for s in $saved_events; do
		# "1" and "0" are what can be written back; a mixed state "X" cannot
		v=${s#*=}
		case $v in 0 | 1) echo "$v" >"$T/events/${s%=*}/enable" ;; esac
	done
	echo "$saved_clock" >$T/trace_clock
	echo "$saved_kb" >$T/buffer_size_kb
	echo "$saved_on" >$T/tracing_on
	rm -rf "$tmp"
}
trap restore EXIT
cd "$tmp" || exit 1
# for a sanitizer build: libtraceevent 1.7.1 leaks on kernel formats it fails to parse
echo "leak:libtraceevent.so" >lsan.supp
LSAN_OPTIONS="suppressions=$tmp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

pass=0
fail=0

capture() { # NAME CLOCK
	echo 0 >$T/tracing_on
	echo "$2" >$T/trace_clock || return 1
	echo 256 >$T/buffer_size_kb
	echo >$T/trace
	for e in $EVENTS; do
		[ -f "$T/events/$e/enable" ] && echo 1 >"$T/events/$e/enable"
	done
	echo 1 >$T/tracing_on
	ls /usr/bin >/dev/null
	sleep 0.2
	cat /etc/hostname >/dev/null
	sleep 0.1
	echo 0 >$T/tracing_on
	for e in $EVENTS; do
		[ -f "$T/events/$e/enable" ] && echo 0 >"$T/events/$e/enable"
	done
	# extract before anything rewrites trace_clock: that empties the buffer
	trace-cmd extract -o "$1.v7.dat" >/dev/null 2>&1 || return 1
	trace-cmd convert -i "$1.v7.dat" --file-version 6 --compression none -o "$1.dat" \
		>/dev/null 2>&1
}

for clock in local mono; do
	if ! capture "k_$clock" $clock; then
		echo "FAIL: could not capture with clock $clock"
		fail=$((fail + 1))
		continue
	fi
	trace-cmd report "k_$clock.dat" >"k_$clock.tc" 2>/dev/null
	"$TPOINT" report "k_$clock.dat" >"k_$clock.tp" 2>"k_$clock.err"
	rc=$?
	lines=$(wc -l <"k_$clock.tp")
	if [ $rc -ne 0 ]; then
		echo "FAIL: clock $clock: tpoint report exited $rc: $(head -c 300 "k_$clock.err")"
		fail=$((fail + 1))
	elif ! cmp -s "k_$clock.tc" "k_$clock.tp"; then
		echo "FAIL: clock $clock: output differs from trace-cmd report"
		diff "k_$clock.tc" "k_$clock.tp" | head -10
		fail=$((fail + 1))
	elif [ "$lines" -lt 20 ]; then
		echo "FAIL: clock $clock: only $lines lines captured"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
	# the version 7 file of trace-cmd extract (zstd), read directly
	trace-cmd report "k_$clock.v7.dat" >"k_$clock.v7.tc" 2>/dev/null
	if "$TPOINT" report "k_$clock.v7.dat" >"k_$clock.v7.tp" 2>"k_$clock.err" &&
		cmp -s "k_$clock.v7.tc" "k_$clock.v7.tp"; then
		pass=$((pass + 1))
	else
		echo "FAIL: clock $clock: the v7 file: $(head -c 300 "k_$clock.err")"
		diff "k_$clock.v7.tc" "k_$clock.v7.tp" | head -10
		fail=$((fail + 1))
	fi
done

echo "kernel: $pass passed, $fail failed"
[ $fail -eq 0 ]
