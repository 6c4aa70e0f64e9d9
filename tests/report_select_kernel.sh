#!/bin/sh
# tpoint-test: serial (a tracefs instance, and the kernel events of the whole machine)
# SPDX-License-Identifier: MIT
# tpoint report selects the kernel's events of a `record -k` file as it selects tpoint's
# (issue 34 item 5): a -f on a kernel event compiles against the kernel's format stored in
# the file (here a __data_loc string, sched_process_exec's filename), next to a -f on the
# program's own events in the same file; --pid keeps the program's records, its exec among
# them. The counts are known: the program is run after N execs of a marker of our own.
set -u
T=/sys/kernel/tracing
N=20
[ "$(id -u)" = 0 ] || { echo "needs root (record -k: a tracefs instance)"; exit 77; }
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/instances ] || { echo "no tracefs with instances at $T"; exit 77; }
[ -d $T/events/sched/sched_process_exec ] || { echo "no sched:sched_process_exec"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")

# A marker of our own name, so that the execs counted are ours alone.
marker=rsel-marker-$$
cp /bin/true "./$marker" 2>/dev/null || cp /usr/bin/true "./$marker" || fail "cannot copy true"
cat >run.sh <<EOF
#!/bin/sh
i=0
while [ \$i -lt $N ]; do ./$marker; i=\$((i + 1)); done
exec "\$@"
EOF
chmod +x run.sh
CTLTARGET_MIN_TICKS=10 "$TPOINT" record -k sched:sched_process_exec -e 'tpt_ctl:*' -o k.dat -- \
	./run.sh "$B/tests/ctltarget" 0.1 2000 >rec.out 2>&1 || { cat rec.out; fail "record -k exited $?"; }
"$TPOINT" report k.dat >full.out 2>full.err || { cat full.err; fail "report k.dat exited $?"; }
execs=$(grep -c " sched_process_exec: .*filename=\./$marker " full.out)
[ "$execs" = $N ] || fail "the file has $execs execs of $marker, expected $N"
prog=$(awk '$4 == "ctl_tick:" { n = split($1, a, "-"); print a[n]; exit }' full.out)
[ -n "$prog" ] || fail "no ctl_tick in k.dat"

# A kernel event's string field, and a tpoint event's number, in one report.
"$TPOINT" report -e sched:sched_process_exec -f "filename ~ \"*/$marker\"" \
	-e tpt_ctl:ctl_tick -f 'n < 5' k.dat >s.out 2>s.err || { cat s.err; fail "report -e -f exited $?"; }
[ -s s.err ] && { cat s.err; fail "report -e -f said something on stderr"; }
{ head -1 full.out; grep -e " sched_process_exec: .*filename=\./$marker " \
	-e ' ctl_tick: *n=[0-4] ' full.out; } | cmp -s - s.out ||
	{ diff s.out full.out | head; fail "not the full report's $N execs and 5 ticks"; }
echo "ok: -f on a kernel event and on the program's: $(($(wc -l <s.out) - 1)) lines ($N execs, 5 ticks)"
# the same in JSON: the kernel's field as decoded
[ "$("$TPOINT" report --json -e sched_process_exec -f "filename ~ \"*/$marker\"" k.dat |
	grep -c "\"filename\":\"./$marker\"")" = $N ] || fail "--json: not $N execs of $marker"

# --pid: the program's thread, its exec of itself (before ctltarget's name) and its events
"$TPOINT" report --pid "$prog" k.dat >s.out 2>s.err || { cat s.err; fail "--pid $prog exited $?"; }
awk -v p="$prog" 'NR == 1 || ((k = split($1, a, "-")) && a[k] == p)' full.out | cmp -s - s.out ||
	fail "--pid $prog: not the full report's lines of $prog"
grep -q ' sched_process_exec: ' s.out || fail "--pid $prog: its exec is not there"
echo "ok: --pid $prog: $(($(wc -l <s.out) - 1)) lines, its execs among them"

# a field of the kernel's event it does not have: named, with its fields
"$TPOINT" report -e sched_process_exec -f 'comm == "x"' k.dat >s.out 2>s.err
[ $? = 1 ] && grep -q "no field 'comm' in sched:sched_process_exec; fields: common_pid, filename, pid, old_pid" s.err ||
	{ cat s.err; fail "-f on a field the kernel's event lacks"; }
echo "ok: $(cat s.err)"
