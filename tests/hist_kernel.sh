#!/bin/sh
# tpoint-test: serial (a tracefs instance, and the kernel events of the whole machine)
# SPDX-License-Identifier: MIT
# tpoint hist -k: a kernel event's histogram, live (issue 34, item 3). A script of our own
# name (its comm, hkf-PID) forks N children that each exec a copy of true of our own name
# (hkm-PID), so the counts are known: N sched_process_fork records whose parent is the
# script, N sched_process_exec records of ./hkm-PID. Three triggers on two events, checked
# exactly in the text format (with --watch: a print shows them before the end, the last
# print is the whole expected text) and in JSON (stopped by SIGTERM right after the forks:
# the last pages are read at the end). Bad input: one line, the right exit status. Every
# run's instance (tpoint-hist-ITS_PID-*) is gone when it has ended.
#
# The expected text follows the kernel's printing code (kernel/trace/trace_events_hist.c),
# as lib/hist_print.c does: hist_trigger_show() puts "\n\n" before every histogram of an
# event but the first, then "# event histogram\n#\n# trigger info: INFO\n#\n\n", one line
# per entry, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n";
# hist_trigger_entry_print() writes "{ " KEYS " }", keys joined by ", ", a string key
# "%s: %-50s", a number "%s: %10llu", .execname "%s: %-16s[%10llu]", then
# " hitcount: %10llu" and each value "  %s: %10llu". With the kernel's own triggers (a kernel
# that has them), the tool prints the kernel's hist files: the same text.
set -u
T=/sys/kernel/tracing
N=7
[ "$(id -u)" = 0 ] || { echo "needs root (tpoint hist -k: a tracefs instance)"; exit 77; }
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/instances ] || { echo "no tracefs with instances at $T"; exit 77; }
for e in sched_process_fork sched_process_exec; do
	[ -d $T/events/sched/$e ] || { echo "no sched:$e"; exit 77; }
done
fail() { echo "FAIL: $*"; exit 1; }

# Polls for a condition, 60 s at most (a busy machine).
wait_for() {
	i=0
	until eval "$1"; do
		i=$((i + 1)); [ $i -lt 600 ] || return 1; sleep 0.1
	done
}
instance_of() {
	for d in "$T/instances/tpoint-hist-$1-"*; do
		[ -d "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}
# The tool's instance traces: its events are enabled before tracing_on; or, with the kernel's
# own triggers, the last -k's (sched_process_exec's) is set, the others before it.
ready() {
	ki=$(instance_of "$1") || return 1
	[ "$(cat "$T/instances/$ki/tracing_on" 2>/dev/null)" = 1 ] && return 0
	grep -q '^hist:' "$T/instances/$ki/events/sched/sched_process_exec/trigger" 2>/dev/null
}
gone() { ! instance_of "$1" >/dev/null; }

fork=hkf-$$
mark=hkm-$$
cp /bin/true "./$mark" 2>/dev/null || cp /usr/bin/true "./$mark" || fail "cannot copy true"
# N forks, each an exec of ./$mark; then it says so (forked) and waits on the fifo, alive, so
# that its name is its /proc/PID/comm when .execname asks. Builtins only besides ./$mark.
cat >"$fork" <<EOF
#!/bin/sh
i=0
while [ \$i -lt $N ]; do ./$mark; i=\$((i + 1)); done
: >forked
read x <fifo
EOF
chmod +x "$fork"

# Starts the forker; $! is its pid once it has forked N times and waits.
forker() {
	rm -f forked fifo
	mkfifo fifo || fail "mkfifo"
	"./$fork" &
	fpid=$!
	wait_for '[ -e forked ]' || fail "$fork did not fork $N times"
}
release() { echo >fifo; wait "$fpid"; }

# hist -k with the rest of the arguments into $2.out and $2.err, stopped by signal $1 once the
# forker has forked; exit 0 and the instance gone are checked.
stopped_by() {
	sig=$1 out=$2
	shift 2
	"$TPOINT" hist "$@" >"$out.out" 2>"$out.err" &
	hp=$!
	wait_for "ready $hp" || { cat "$out.err"; fail "hist $*: its instance did not start tracing"; }
	forker
	kill -"$sig" $hp
	wait $hp
	st=$?
	release
	[ $st = 0 ] || { cat "$out.err"; fail "hist $* stopped by SIG$sig exited $st"; }
	wait_for "gone $hp" || fail "SIG$sig: the instance $(instance_of $hp) is left"
}

TF="hist:keys=parent_comm,parent_pid:vals=hitcount,parent_pid if parent_comm == \"$fork\""
TX="hist:keys=common_pid.execname if parent_comm == \"$fork\""
TE="hist:keys=filename:vals=hitcount:sort=hitcount.descending if filename == \"./$mark\""

# ---- the text, with --watch ----
"$TPOINT" hist -k sched:sched_process_fork "$TF" -k sched:sched_process_fork "$TX" \
	-k sched:sched_process_exec "$TE" --watch 0.2 >w.out 2>w.err &
hp=$!
wait_for "ready $hp" || { cat w.err; fail "hist -k: its instance did not start tracing"; }
forker
fork_line=$(printf '{ parent_comm: %-50s, parent_pid: %10s } hitcount: %10s  parent_pid: %10s' \
	"$fork" "$fpid" $N $((N * fpid)))
# A --watch print shows them, while the tool still runs (cumulative prints).
wait_for 'grep -qF "$fork_line" w.out' || { cat w.out w.err; release; fail "no print showed the $N forks"; }
kill -INT $hp
wait $hp
st=$?
release
[ $st = 0 ] || { cat w.err; fail "hist -k stopped by SIGINT exited $st"; }
wait_for "gone $hp" || fail "SIGINT: the instance $(instance_of $hp) is left"
totals() { printf '\nTotals:\n    Hits: %s\n    Entries: %s\n    Dropped: 0\n' "$1" "$2"; }
{
	printf '# event histogram\n#\n# trigger info: %s\n#\n\n' \
		"hist:keys=parent_comm,parent_pid:vals=hitcount,parent_pid:sort=hitcount:size=2048 if parent_comm == \"$fork\" [active]"
	echo "$fork_line"
	totals $N 1
	printf '\n\n# event histogram\n#\n# trigger info: %s\n#\n\n' \
		"hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 if parent_comm == \"$fork\" [active]"
	printf '{ common_pid: %-16s[%10s] } hitcount: %10s\n' "$fork" "$fpid" $N
	totals $N 1
	printf '\n\n# event histogram\n#\n# trigger info: %s\n#\n\n' \
		"hist:keys=filename:vals=hitcount:sort=hitcount.descending:size=2048 if filename == \"./$mark\" [active]"
	printf '{ filename: %-50s } hitcount: %10s\n' "./$mark" $N
	totals $N 1
} >w.expected
tail -n "$(wc -l <w.expected)" w.out | cmp -s - w.expected ||
	{ tail -n "$(wc -l <w.expected)" w.out | diff w.expected - ; fail "the last print is not the expected text"; }
prints=$(grep -c '^# event histogram$' w.out)
[ "$prints" -ge 6 ] || fail "--watch: $prints histograms printed, expected a print before the end's"
echo "ok: text, 3 histograms of 2 events, $N forks and execs, $((prints / 3)) prints, instance removed"

# ---- JSON, stopped by SIGTERM right after the forks: the last pages are read at the end ----
stopped_by TERM j -k sched:sched_process_fork "$TF" -k sched:sched_process_exec "$TE" --json
[ -s j.err ] && { cat j.err; fail "hist -k --json said something on stderr"; }
cat >j.expected <<EOF
{"event": "sched:sched_process_fork", "trigger": "hist:keys=parent_comm,parent_pid:vals=hitcount,parent_pid:sort=hitcount:size=2048 if parent_comm == \\"$fork\\" [active]", "name": null, "paused": false, "size": 2048, "keys": [{"field": "parent_comm", "modifier": null}, {"field": "parent_pid", "modifier": null}], "values": ["hitcount", "parent_pid"], "entries": [{"key": {"parent_comm": "$fork", "parent_pid": $fpid}, "values": {"hitcount": $N, "parent_pid": $((N * fpid))}}], "totals": {"hits": $N, "entries": 1, "dropped": 0}}
{"event": "sched:sched_process_exec", "trigger": "hist:keys=filename:vals=hitcount:sort=hitcount.descending:size=2048 if filename == \\"./$mark\\" [active]", "name": null, "paused": false, "size": 2048, "keys": [{"field": "filename", "modifier": null}], "values": ["hitcount"], "entries": [{"key": {"filename": "./$mark"}, "values": {"hitcount": $N}}], "totals": {"hits": $N, "entries": 1, "dropped": 0}}
EOF
cmp -s j.out j.expected || { diff j.expected j.out; fail "--json: not the expected objects"; }
echo "ok: --json, $N forks and execs, read at SIGTERM, instance removed"

# ---- name=: two events' triggers share one histogram, each print shows it whole ----
# keyed by common_pid: the forker's N forks, and each child's exec (N pids, one hit each)
stopped_by TERM n -k sched:sched_process_fork "hist:name=hk$$:keys=common_pid if parent_comm == \"$fork\"" \
	-k sched:sched_process_exec "hist:name=hk$$:keys=common_pid if filename == \"./$mark\""
line=$(printf '{ common_pid: %10s } hitcount: %10s' "$fpid" $N)
[ "$(grep -cxF "$line" n.out)" = 2 ] || { cat n.out; fail "name=: not the forker's $N forks in both"; }
[ "$(grep -c "^    Hits: $((2 * N))$" n.out)" = 2 ] && [ "$(grep -c "^    Entries: $((N + 1))$" n.out)" = 2 ] ||
	{ cat n.out; fail "name=: not $((2 * N)) hits in $((N + 1)) entries in both"; }
echo "ok: name= shared by two events: $((2 * N)) hits, $((N + 1)) entries in each print"

# ---- --duration ends it (exit 0), in the one-word form of -k ----
"$TPOINT" hist -k "sched:sched_process_fork:$TF" --duration 0.3 >d.out 2>d.err &
hp=$!
wait $hp || { cat d.err; fail "--duration 0.3 exited $?"; }
grep -q "^    Hits: 0$" d.out || { cat d.out; fail "--duration: no empty histogram printed"; }
wait_for "gone $hp" || fail "--duration: the instance is left"
echo "ok: --duration, -k SYS:EVENT:hist:..."

# ---- bad input: one line on stderr, exit 1, no instance left (usage: hist_cli.sh) ----
# $1: expected status, $2: text the line holds, the rest: the command (tpoint hist ...)
bad() {
	want=$1 text=$2
	shift 2
	"$@" >b.out 2>b.err &
	hp=$!
	wait $hp
	st=$?
	[ $st = "$want" ] || { cat b.err; fail "$*: exit $st, expected $want"; }
	[ "$(wc -l <b.err)" = 1 ] && grep -qF -- "$text" b.err ||
		{ cat b.err; fail "$*: expected one line with '$text'"; }
	[ -s b.out ] && fail "$*: printed something on stdout"
	gone $hp || fail "$*: left its instance"
	echo "ok: $(cat b.err)"
}
bad 1 "-k 'nosuch:event': no such kernel event" "$TPOINT" hist -k nosuch:event 'hist:keys=x'
bad 1 "expected one kernel event, SYSTEM:EVENT" "$TPOINT" hist -k 'sched:*' 'hist:keys=x'
bad 1 "Couldn't find field at column 11: 'nofield'" "$TPOINT" hist -k sched:sched_process_fork 'hist:keys=nofield'
bad 1 "Named hist trigger doesn't match existing named trigger" "$TPOINT" hist \
	-k sched:sched_process_fork 'hist:name=x:keys=common_pid' -k sched:sched_process_exec 'hist:name=x:keys=pid'
bad 1 "Invalid field modifier at column 22: 'bogus'" "$TPOINT" hist -k sched:sched_process_fork \
	'hist:keys=parent_pid.bogus'
if command -v setpriv >/dev/null; then
	bad 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TPOINT" hist -k sched:sched_process_fork 'hist:keys=parent_pid'
fi
