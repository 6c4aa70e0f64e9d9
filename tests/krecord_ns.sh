#!/bin/sh
# tpoint-test: serial (tracefs instances, and the kernel events of the whole machine)
# Two `tpoint record -k` at once in two PID namespaces, where both are pid 1: each has an
# instance of its own (they were both tpoint-record-1: the second read half of the first's
# events and turned its tracing off, the first said "0 lost"), and each file holds every
# exec of a marker program run while both record. Then a live recorder whose binary is
# renamed (its name no longer starts with "tpoint") keeps its instance when a second recorder
# removes stale ones: an owner is proved gone by its lock, never by its name or its pid.
set -u
T=/sys/kernel/tracing
N=40
[ "$(id -u)" = 0 ] || { echo "needs root (tracefs instances, PID namespaces)"; exit 77; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/instances ] || { echo "no tracefs with instances at $T"; exit 77; }
[ -d $T/events/sched/sched_process_exec ] || { echo "no sched:sched_process_exec"; exit 77; }
unshare -p -f --mount-proc true 2>/dev/null || { echo "unshare -p -f --mount-proc does not work here"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

wait_for() {
	i=0
	until eval "$1"; do
		i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.1
	done
}
instances() { ls $T/instances | grep "^tpoint-record-$1-" ; }
# How many of those trace already (the instance is made before its events are enabled).
tracing() {
	tn=0
	for ti in $(instances "$1"); do
		[ "$(cat "$T/instances/$ti/tracing_on" 2>/dev/null)" = 1 ] && tn=$((tn + 1))
	done
	echo $tn
}
# The recorder, the child of unshare (pid 1 in its namespace), as this namespace sees it.
recorder_of() { pgrep -P "$1" | head -n 1; }

# A program of our own, so that its execs are ours alone.
cp /bin/true ./marker-true 2>/dev/null || cp /usr/bin/true ./marker-true || fail "cannot copy true"

unshare -p -f --mount-proc "$TPOINT" record -k sched:sched_process_exec -o a.dat >a.out 2>&1 &
ua=$!
unshare -p -f --mount-proc "$TPOINT" record -k sched:sched_process_exec -o b.dat >b.out 2>&1 &
ub=$!
wait_for '[ "$(tracing 1)" -ge 2 ]' ||
	{ cat a.out b.out; ls $T/instances; fail "two instances of pid-1 recorders did not appear"; }
ra=$(recorder_of $ua) rb=$(recorder_of $ub)
[ -n "$ra" ] && [ -n "$rb" ] || fail "the recorders in the namespaces are not found"
i=0
while [ $i -lt $N ]; do
	./marker-true; i=$((i + 1))
done
kill -INT "$ra" "$rb"
wait $ua; a=$?
wait $ub; b=$?
[ $a = 0 ] && [ $b = 0 ] || { cat a.out b.out; fail "the recorders exited $a and $b"; }
ia=$(sed -n 's/.*instance \(tpoint-record-[0-9a-f-]*\),.*/\1/p' a.out)
ib=$(sed -n 's/.*instance \(tpoint-record-[0-9a-f-]*\),.*/\1/p' b.out)
[ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" != "$ib" ] ||
	{ cat a.out b.out; fail "the two recorders did not use two instances ('$ia', '$ib')"; }
for f in a b; do
	n=$(trace-cmd report $f.dat 2>/dev/null | grep 'sched_process_exec:' | grep -c 'marker-true')
	[ "$n" = $N ] || { cat $f.out; fail "$f.dat holds $n of the $N execs of marker-true"; }
	grep -q "events, 0 lost" $f.out || { cat $f.out; fail "$f: losses where none were expected"; }
done
[ -z "$(instances 1)" ] || fail "instances left: $(instances 1)"
echo "ok: two record -k as pid 1 of two PID namespaces: instances $ia and $ib, each file with all $N execs"

# A recorder renamed: its comm is "renamed-rec"; a second recorder's stale cleanup keeps it.
cp "$TPOINT" ./renamed-rec || fail "cannot copy the tool"
./renamed-rec record -k sched:sched_process_exec -o r.dat >r.out 2>&1 &
r=$!
wait_for '[ "$(tracing $r)" = 1 ]' || { cat r.out; fail "the renamed recorder made no instance"; }
inst=$(instances $r)
"$TPOINT" record -k sched:sched_switch --duration 0.2 -o s.dat >s.out 2>&1 ||
	{ cat s.out; fail "the second recorder exited $?"; }
[ -d "$T/instances/$inst" ] || fail "the second recorder removed $inst of the live renamed recorder"
i=0
while [ $i -lt $N ]; do
	./marker-true; i=$((i + 1))
done
kill -INT $r
wait $r || { cat r.out; fail "the renamed recorder exited $?"; }
n=$(trace-cmd report r.dat 2>/dev/null | grep 'sched_process_exec:' | grep -c 'marker-true')
[ "$n" = $N ] || { cat r.out; fail "the renamed recorder's file holds $n of the $N execs"; }
[ ! -d "$T/instances/$inst" ] || fail "$inst left"
echo "ok: a live renamed recorder keeps its instance $inst through another's stale cleanup"
