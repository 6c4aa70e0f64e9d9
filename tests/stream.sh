#!/bin/sh
# tpoint stream: the events of a running process as they happen. Lines come within half a
# second of starting and within 100 ms of their event, laid out as trace-cmd report does;
# -f filters; Ctrl-C, SIGTERM, a reader gone or the end of the process stop it with exit 0
# and leave the process as it was; the errors are one line each.
set -u
fail() { echo "FAIL: $*"; [ -f s.err ] && head -5 s.err; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

ms() { echo $(($(date +%s%N) / 1000000)); }
# Every line a ctl_tick of process $P as trace-cmd prints it: "n=%lu name=%s", the name
# the target gives n. Prints the number of lines; fails on the first other line.
check_lines() {
	awk -v pid="$P" '
	BEGIN { split("alpha beta gamma delta", names, " ") }
	{
		re = "^ *ctltarget-" pid " +\\[[0-9][0-9][0-9]\\] +[0-9]+\\.[0-9][0-9][0-9][0-9][0-9][0-9]: ctl_tick: +n=[0-9]+ name=[a-z]+$"
		if ($0 !~ re) { print "bad line: " $0; exit 1 }
		text = $0; sub(/.* ctl_tick: +/, "", text)
		split(text, f, /[ =]/)
		if (text != "n=" f[2] " name=" names[f[2] % 4 + 1]) { print "bad text: " text; exit 1 }
		if (NR > 1 && f[2] != prev + 1 && !gaps) { print "n " prev " then " f[2]; exit 1 }
		prev = f[2]
	}
	END { print NR }' gaps="${2:-}" "$1"
}
# Stop the stream $s with signal $1 ("what" is $3): exit 0, its output $2 all ctl_ticks in
# order, nothing on stderr, the process's events off again. Sets n to the number of lines.
stop_stream() {
	kill -"$1" $s
	wait $s || fail "$3: stream ended by SIG$1 exited $?"
	n=$(check_lines "$2") || fail "$3: $n"
	[ -s s.err ] && fail "$3: stream said something on stderr"
	events_off "$3"
}
events_off() {
	"$TPOINT" list -p "$P" >list.txt || fail "list -p exited $?"
	grep -q "enabled\|filter:" list.txt && { cat list.txt; fail "$1: events or filters left on"; }
	"$TPOINT" ps | grep -q "^ *$P .* none$" || fail "$1: the process still records"
}

start 60 20000 # a ctl_tick every 20 ms

# Lines within half a second, every one as trace-cmd would print it; Ctrl-C ends it.
t0=$(ms)
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick >s.out 2>s.err &
s=$!
pids="$pids $s"
while ! grep -q ' ctl_tick: ' s.out && [ $(($(ms) - t0)) -lt 2000 ]; do sleep 0.01; done
first=$(($(ms) - t0))
[ "$first" -le 500 ] || fail "the first line came after $first ms"
# Lines keep coming as the events happen, not in bursts: every 0.2 s has new ones.
prev=$(wc -l <s.out)
for i in 1 2 3 4 5; do
	sleep 0.2
	now=$(wc -l <s.out)
	[ "$now" -gt "$prev" ] || fail "no new line in 0.2 s ($prev lines, then $now)"
	prev=$now
done
stop_stream INT s.out "SIGINT"
[ "$n" -ge 40 ] || fail "only $n lines in 1 s at 50 events/s"
echo "ok: first line after $first ms; $n lines as trace-cmd prints them; SIGINT: exit 0, all off"

# The delay from an event to its line: the line's time is CLOCK_MONOTONIC, read it too.
if perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -e 1 2>/dev/null; then
	{ "$TPOINT" stream -p "$P" -e ctl_tick 2>s.err; echo $? >rc.txt; } |
		perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -ne '
			next unless / (\d+\.\d{6}): ctl_tick:/;
			$d = clock_gettime(CLOCK_MONOTONIC) - $1;
			$max = $d if $d > $max; $slow++ if $d >= 0.1; $neg++ if $d < -0.001;
			if (++$n == 25) {
				printf "%d %d %d %.1f\n", $n, $slow, $neg, $max * 1000;
				exit 0;
			}' >lat.txt
	read n slow neg max <lat.txt || fail "no latency measured"
	[ "$neg" = 0 ] || fail "$neg lines dated after they were read: times are wrong"
	# One late line may be the scheduler's doing; more is the tool's.
	[ "$slow" -le 1 ] || fail "$slow of $n lines came 100 ms or more after their event (max $max ms)"
	[ "$(cat rc.txt)" = 0 ] || fail "stream whose reader went away exited $(cat rc.txt)"
	events_off "reader gone"
	echo "ok: $n lines, each within 100 ms of its event (max $max ms); a reader gone: exit 0"
else
	echo "note: no perl with Time::HiRes: the 100 ms delay is not measured"
fi

# -f keeps what the filter passes, and is taken back after; SIGTERM stops it too.
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick -f 'name == "alpha"' >f.out 2>s.err &
s=$!
sleep 1
kill -TERM $s
wait $s || fail "stream -f ended by SIGTERM exited $?"
n=$(check_lines f.out gaps) || fail "$n"
[ "$n" -ge 8 ] || fail "only $n alpha lines in 1 s"
grep -v 'name=alpha$' f.out && fail "-f 'name == \"alpha\"' let other names through"
events_off "-f"
echo "ok: -f 'name == \"alpha\"': $n lines, all alpha; SIGTERM: exit 0, filter cleared"

# A busy process: its pages reach the spool full, packed where the CPU packs them (lib/pack.h),
# and every line is still there, in order, as trace-cmd would print it.
start 60 20
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick >b.out 2>s.err &
s=$!
sleep 1
stop_stream INT b.out "busy"
[ "$n" -ge 2000 ] || fail "busy: only $n lines in 1 s"
echo "ok: a busy process: $n lines in 1 s, none missing"

# The process ends: what it recorded is printed to its last event, then exit 0.
start 1 20000
timeout 10 "$TPOINT" stream -p "$P" -e ctl_tick >e.out 2>s.err ||
	fail "stream of an ending process exited $?"
n=$(check_lines e.out) || fail "$n"
last=$(sed -n '$s/.*n=\([0-9]*\) .*/\1/p' e.out)
[ "$n" -ge 20 ] && [ "$last" -ge 45 ] || fail "$n lines, the last n=$last: the end is missing"
echo "ok: the process ended: $n lines up to n=$last, exit 0"

# Errors: one line, exit 1; usage errors exit 2; --help on stdout.
start 60 20000
"$TPOINT" stream -p 999999 -e tpt_ctl >/dev/null 2>err.txt; [ $? = 1 ] || fail "missing pid"
grep -qx "tpoint stream: no process 999999" err.txt || { cat err.txt; fail "missing pid message"; }
"$TPOINT" stream -p "$P" -e 'nosuch:*' >/dev/null 2>err.txt; [ $? = 1 ] || fail "nosuch"
grep -qx "tpoint stream: 'nosuch:\*' matches no event of process $P" err.txt ||
	{ cat err.txt; fail "nosuch message"; }
"$TPOINT" stream -p "$P" -e 'nosuch:*' -f 'n > 1' >/dev/null 2>err.txt
[ $? = 1 ] || fail "nosuch -f"
grep -qx "tpoint stream: 'nosuch:\*' matches no event of process $P" err.txt ||
	{ cat err.txt; fail "nosuch -f message"; }
"$TPOINT" stream -p "$P" -e ctl_tick -f 'n >' >/dev/null 2>err.txt; [ $? = 1 ] || fail "bad filter"
[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "a bad filter should give one line"; }
"$TPOINT" stream -p $$ -e tpt_ctl >/dev/null 2>err.txt; [ $? = 1 ] || fail "no tpoint"
grep -q "has no tpoint control socket" err.txt || { cat err.txt; fail "no tpoint message"; }
events_off "errors"
"$TPOINT" stream -p "$P" >/dev/null 2>&1; [ $? = 2 ] || fail "no -e: not a usage error"
"$TPOINT" stream -e tpt_ctl >/dev/null 2>&1; [ $? = 2 ] || fail "no -p: not a usage error"
"$TPOINT" stream -p x -e tpt_ctl >/dev/null 2>&1; [ $? = 2 ] || fail "-p x: not a usage error"
"$TPOINT" stream -p "$P" -e tpt_ctl extra >/dev/null 2>&1; [ $? = 2 ] || fail "extra argument"
"$TPOINT" stream --help 2>/dev/null | grep -q "^usage: tpoint stream -p PID" || fail "--help"
for d in /tmp/.tpoint-spool.*/; do
	[ -e "$d$P.spool" ] && fail "a spool directory was left behind: $d"
done
echo "ok: errors"
