#!/bin/sh
# tpoint stream: the events of a running process as they happen, laid out as trace-cmd report
# does: a line comes while the page its event is in is still being written (the tool aims
# at 100 ms, and this prints how long lines took, but asserts no time: waits are bounds on
# liveness, many times what the tool takes); -f filters; Ctrl-C, SIGTERM, a reader gone or
# the end of the process stop it with exit 0 and leave the process as it was; the errors
# are one line each.
set -u
fail() { echo "FAIL: $*"; [ -f s.err ] && head -5 s.err; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

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

# A ctl_tick every 100 ms: a page holds about 100 of them, 10 s, so a line that comes within
# 5 s came from a page still being written, however busy the machine.
start 120 100000

# Lines while the page fills, every one as trace-cmd would print it; Ctrl-C ends it.
t0=$(ms)
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick >s.out 2>s.err &
s=$!
pids="$pids $s"
wait_lines s.out 1 ' ctl_tick: ' 5 || fail "no line within 5 s of starting"
first=$(($(ms) - t0))
# Lines keep coming as the events happen: five more, still from the same page.
wait_lines s.out 6 ' ctl_tick: ' 5 || fail "no five more lines within 5 s"
stop_stream INT s.out "SIGINT"
[ "$n" -ge 6 ] || fail "only $n lines"
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
	[ "${max%.*}" -lt 5000 ] || fail "a line came $max ms after its event: not while its page filled"
	[ "$(cat rc.txt)" = 0 ] || fail "stream whose reader went away exited $(cat rc.txt)"
	events_off "reader gone"
	echo "ok: $n lines, $slow of them 100 ms or more after their event (max $max ms);" \
		"a reader gone: exit 0"
else
	echo "note: no perl with Time::HiRes: the 100 ms delay is not measured"
fi

# -f keeps what the filter passes, and is taken back after; SIGTERM stops it too.
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick -f 'name == "alpha"' >f.out 2>s.err &
s=$!
wait_lines f.out 3 ' ctl_tick: ' 30 || fail "-f: no three alpha lines within 30 s"
kill -TERM $s
wait $s || fail "stream -f ended by SIGTERM exited $?"
n=$(check_lines f.out gaps) || fail "$n"
[ "$n" -ge 3 ] || fail "only $n alpha lines"
grep -v 'name=alpha$' f.out && fail "-f 'name == \"alpha\"' let other names through"
events_off "-f"
echo "ok: -f 'name == \"alpha\"': $n lines, all alpha; SIGTERM: exit 0, filter cleared"

# A busy process: its pages reach the spool full and packed (lib/pack.h),
# and every line is still there, in order, as trace-cmd would print it.
start 60 20
"$TPOINT" stream -p "$P" -e tpt_ctl:ctl_tick >b.out 2>s.err &
s=$!
wait_lines b.out 2000 ' ctl_tick: ' 30 || fail "busy: no 2000 lines within 30 s"
stop_stream INT b.out "busy"
[ "$n" -ge 2000 ] || fail "busy: only $n lines"
echo "ok: a busy process: $n lines, none missing"

# The process ends: what it recorded is printed to its last event, then exit 0.
start 3 20000
timeout 20 "$TPOINT" stream -p "$P" -e ctl_tick >e.out 2>s.err ||
	fail "stream of an ending process exited $?"
n=$(check_lines e.out) || fail "$n"
last=$(sed -n '$s/.*n=\([0-9]*\) .*/\1/p' e.out)
ticked=$(sed -n 's/^last \([0-9]*\)$/\1/p' target.out)
[ "$n" -ge 1 ] && [ "$last" = "$ticked" ] ||
	fail "$n lines, the last n=$last, the process's last n=$ticked: the end is missing"
echo "ok: the process ended: $n lines up to its last, n=$last, exit 0"

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
"$TPOINT" stream -p "$P" >/dev/null 2>&1; [ $? = 1 ] || fail "no -e, nothing enabled: not an error (1)"
"$TPOINT" stream -e tpt_ctl >/dev/null 2>&1; [ $? = 2 ] || fail "no -p: not a usage error"
"$TPOINT" stream -p x -e tpt_ctl >/dev/null 2>&1; [ $? = 2 ] || fail "-p x: not a usage error"
"$TPOINT" stream -p "$P" -e tpt_ctl extra >/dev/null 2>&1; [ $? = 2 ] || fail "extra argument"
"$TPOINT" stream --help 2>/dev/null | grep -q "^usage: tpoint stream -p PID" || fail "--help"
for d in /tmp/.tpoint-spool.*/; do
	[ -e "$d$P.spool" ] && fail "a spool directory was left behind: $d"
done
echo "ok: errors"
