#!/bin/sh
# tpoint-test: serial (tracefs instances, and the kernel events of the whole machine)
# tpoint record and signals. A command killed by a signal: its events are in the file, its
# counts unknown and said so, naming the signal. A hang-up (SIGHUP: a closed terminal, a
# dropped ssh session) or a closed pipe (SIGPIPE: tpoint record ... | head) to each form of
# record: -- CMD, -p PID, and with kernel events (-k) alone, with a command and with -p. Each
# ends as on SIGTERM: the file is written and read by trace-cmd, no tracefs instance of it is
# left, and no hidden directory (.tpoint-spool.*, .tpoint-kernel.*). Then SIGKILL, which
# nothing can catch: the next record names the spool directory left and how to assemble it,
# and the next record -k removes the killed one's instance and its spill directory.
set -u
B=$(dirname "$TPOINT")
T=/sys/kernel/tracing
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
command -v setsid >/dev/null || { echo "setsid is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

kernel=yes
if [ "$(id -u)" != 0 ]; then
	kernel="no (needs root)"
elif [ ! -d $T/instances ] && ! mount -t tracefs nodev $T 2>/dev/null; then
	kernel="no (no tracefs at $T)"
elif [ ! -d $T/events/sched/sched_switch ]; then
	kernel="no (no sched:sched_switch)"
fi

# Polls for a condition, 60 s at most (a busy machine, a sanitized build).
wait_for() {
	i=0
	until eval "$1"; do
		i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.1
	done
}
instance_of() { ls $T/instances 2>/dev/null | grep "^tpoint-record-$1-"; }
# The recorder's instance traces (it is made before its events are enabled).
ktracing() {
	ki=$(instance_of "$1") && [ "$(cat "$T/instances/$ki/tracing_on" 2>/dev/null)" = 1 ]
}
# A spool has grown since first seen: records reached it, the recording runs.
spooling() {
	for f in .tpoint-spool.*/*.spool; do
		[ -s "$f" ] || continue
		size=$(stat -c %s "$f")
		[ -n "$first_size" ] || { first_size=$size; return 1; }
		[ "$size" -gt "$first_size" ] && return 0
	done
	return 1
}
# The recorder's instance holds or has handed on a kernel event (entries + read events of
# its CPUs): on a loaded machine the signal could otherwise come before the first one.
kevents() {
	ki=$(instance_of "$1") &&
		cat "$T/instances/$ki"/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^entries:|^read events:/ { n += $NF } END { exit !(n > 0) }'
}
hidden() { ls -A | grep '^\.tpoint-'; }

# One recorder, signalled (its process group: a hang-up reaches the whole foreground group).
# $1: signal, $2: what to wait for before, $3: file, the rest: the record's arguments.
run() {
	sig=$1 ready=$2 out=$3 first_size=
	shift 3
	setsid "$TPOINT" record -o "$out" "$@" >/dev/null 2>"$out.err" &
	rec=$!
	wait_for "$ready" || { cat "$out.err"; fail "$sig $*: the recording did not start"; }
	kill -"$sig" "-$rec"
	wait $rec
	rc=$?
}

check() {
	what=$1 out=$2
	[ -s "$out" ] || { cat "$out.err"; fail "$what: no file ($rc)"; }
	trace-cmd report "$out" >"$out.txt" 2>&1 || { cat "$out.txt"; fail "$what: trace-cmd refuses the file"; }
	[ -z "$(hidden)" ] || fail "$what: left $(hidden)"
	if [ -d $T/instances ]; then
		[ -z "$(instance_of "$rec")" ] || fail "$what: instance $(instance_of "$rec") left"
	fi
}

# A command killed by a signal (raised on itself after its last tick) cannot write its
# counters: every event it recorded is in the file, and its counts are said to be unknown,
# naming the signal; they were 0 ("hits 0, recorded 0"), and the message blamed _exit().
for sig in 9 15; do
	"$TPOINT" record -e tpt_ctl -o raise$sig.dat -- "$B/tests/ctltarget" 0.2 1000 raise$sig \
		>out.txt 2>err.txt
	rc=$?
	[ $rc = $((128 + sig)) ] || { cat err.txt; fail "raise $sig: exit $rc"; }
	last=$(sed -n 's/^last //p' out.txt)
	n=$(trace-cmd report raise$sig.dat 2>/dev/null | grep -c 'ctl_tick:')
	[ "$n" = $((last + 1)) ] || { cat err.txt; fail "raise $sig: $n ctl_tick in the file, $((last + 1)) ticked"; }
	grep -q "ctltarget was killed by signal $sig ([A-Za-z]*) before it wrote its counters: the counts of its events are unknown" err.txt ||
		{ cat err.txt; fail "raise $sig: the unknown counts are not said with the signal"; }
	grep -q "_exit\|exec" err.txt && { cat err.txt; fail "raise $sig: _exit() or exec blamed"; }
	awk '$1 == "tpt_ctl:ctl_tick" && $2 == "?" && $5 == "?" { ok = 1 } END { exit !ok }' err.txt ||
		{ cat err.txt; fail "raise $sig: the summary gives counts for ctl_tick"; }
	"$TPOINT" report --stats raise$sig.dat >stats.txt 2>&1 || fail "raise $sig: report --stats"
	awk -v n=$n '$1 == "tpt_ctl:ctl_tick" && $2 == "-" && $5 == "-" && $7 == n { ok = 1 }
		END { exit !ok }' stats.txt || { cat stats.txt; fail "raise $sig: report --stats gives counts for ctl_tick, or not its $n in the file"; }
	echo "ok: a command killed by signal $sig: its $n ticks in the file, its counts unknown and said so"
done

for sig in HUP PIPE; do
	# -- CMD: the command gets the hang-up too, and dies of it; the file holds what it did.
	run $sig spooling c$sig.dat -e tpt_ctl -- "$B/tests/ctltarget" 60 1000
	case $sig in HUP) want=129 ;; PIPE) want=141 ;; esac
	[ $rc = $want ] || { cat c$sig.dat.err; fail "SIG$sig -- CMD: exit $rc, expected $want (the command's)"; }
	check "SIG$sig -- CMD" c$sig.dat
	grep -q 'ctl_tick:' c$sig.dat.txt || fail "SIG$sig -- CMD: no ctl_tick in the file"
	echo "ok: SIG$sig to record -- CMD: file written, nothing left"

	# -p: the recorder alone is signalled; the process goes on.
	"$B/tests/ctltarget" 120 1000 >target.out &
	tgt=$!
	wait_for "grep -q '^ready' target.out" || fail "ctltarget did not start"
	run $sig spooling p$sig.dat -p $tgt -e tpt_ctl
	[ $rc = 0 ] || { cat p$sig.dat.err; fail "SIG$sig -p: exit $rc"; }
	check "SIG$sig -p" p$sig.dat
	grep -q 'ctl_tick:' p$sig.dat.txt || fail "SIG$sig -p: no ctl_tick in the file"
	kill -0 $tgt || fail "SIG$sig -p: the recorded process is gone"
	echo "ok: SIG$sig to record -p: file written, nothing left"

	if [ "$kernel" != yes ]; then
		kill $tgt; wait $tgt
		continue
	fi
	run $sig 'ktracing $rec && kevents $rec' k$sig.dat -k sched:sched_switch
	[ $rc = 0 ] || { cat k$sig.dat.err; fail "SIG$sig -k: exit $rc"; }
	check "SIG$sig -k" k$sig.dat
	grep -q 'sched_switch:' k$sig.dat.txt || fail "SIG$sig -k: no sched_switch in the file"
	echo "ok: SIG$sig to record -k (the kernel alone): file written, instance removed"

	run $sig 'ktracing $rec && kevents $rec && spooling' kc$sig.dat -k sched:sched_switch \
		-e tpt_ctl -- "$B/tests/ctltarget" 60 1000
	[ $rc = $want ] || { cat kc$sig.dat.err; fail "SIG$sig -k -- CMD: exit $rc, expected $want"; }
	check "SIG$sig -k -- CMD" kc$sig.dat
	grep -q 'ctl_tick:' kc$sig.dat.txt && grep -q 'sched_switch:' kc$sig.dat.txt ||
		fail "SIG$sig -k -- CMD: the file lacks ctl_tick or sched_switch"
	echo "ok: SIG$sig to record -k -- CMD: file written, instance removed"

	run $sig 'ktracing $rec && kevents $rec && spooling' kp$sig.dat -k sched:sched_switch \
		-p $tgt -e tpt_ctl
	[ $rc = 0 ] || { cat kp$sig.dat.err; fail "SIG$sig -k -p: exit $rc"; }
	check "SIG$sig -k -p" kp$sig.dat
	grep -q 'ctl_tick:' kp$sig.dat.txt && grep -q 'sched_switch:' kp$sig.dat.txt ||
		fail "SIG$sig -k -p: the file lacks ctl_tick or sched_switch"
	echo "ok: SIG$sig to record -k -p: file written, instance removed"
	kill $tgt; wait $tgt
done

# SIGKILL of record -- CMD: its spools stay; the next record beside them says where they
# are and how to write their file, and that command writes it.
"$TPOINT" record -e tpt_ctl -o killed.dat -- "$B/tests/ctltarget" 1.37 1000 >/dev/null 2>&1 &
rec=$! first_size=
wait_for spooling || fail "SIGKILL: the recording did not start"
kill -KILL $rec
wait $rec
left=$(hidden)
[ -n "$left" ] || fail "SIGKILL: no spool directory left (nothing to check)"
wait_for "! pgrep -f '$B/tests/ctltarget 1.37' >/dev/null" || fail "the killed recorder's command did not end"
"$TPOINT" record -e tpt_ctl -o next.dat -- "$B/tests/ctltarget" 0.1 1000 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "the record after a killed one exited $?"; }
grep -q "$left holds the spools of a recording whose recorder ended before it wrote the file; write it with: tpoint record --assemble $left -o FILE" err.txt ||
	{ cat err.txt; fail "the next record does not name $left and --assemble"; }
"$TPOINT" record --assemble "$left" -o assembled.dat 2>err.txt || true
trace-cmd report assembled.dat 2>/dev/null | grep -q 'ctl_tick:' ||
	{ cat err.txt; fail "--assemble of $left: no ctl_tick"; }
rm -rf .tpoint-spool.*
echo "ok: SIGKILL of record -- CMD: the next record names $left and --assemble writes it"

[ "$kernel" = yes ] || { echo "skipped: the kernel's forms: $kernel"; exit 0; }
# SIGKILL of record -k: the next record -k removes its instance and its spill directory.
"$TPOINT" record -k sched:sched_switch -o kkilled.dat >/dev/null 2>&1 &
rec=$!
wait_for 'ktracing $rec && [ -n "$(hidden)" ]' || fail "SIGKILL -k: no instance"
inst=$(instance_of $rec)
kill -KILL $rec
wait $rec
[ -d "$T/instances/$inst" ] || fail "SIGKILL -k: the instance is gone already (nothing to check)"
"$TPOINT" record -k sched:sched_switch --duration 0.2 -o knext.dat >/dev/null 2>err.txt ||
	{ cat err.txt; fail "the record -k after a killed one exited $?"; }
[ ! -d "$T/instances/$inst" ] || fail "the next record -k left the killed one's instance $inst"
[ -z "$(hidden)" ] || fail "the next record -k left the killed one's $(hidden)"
echo "ok: SIGKILL of record -k: the next record -k removed instance $inst and its spill directory"
