#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint hist's command line, for any user (tests/hist_kernel.sh, root, runs it): what is
# wrong is one line naming the bad word and what was expected, exit 2, nothing on stdout,
# before anything is looked at (tracefs, root).
set -u
fail() { echo "FAIL: $*"; exit 1; }

# $1: the line expected on stderr, the rest: hist's arguments
usage() {
	want=$1
	shift
	"$TPOINT" hist "$@" >u.out 2>u.err
	st=$?
	[ $st = 2 ] || { cat u.err; fail "hist $*: exit $st, expected 2"; }
	[ "$(cat u.err)" = "tpoint hist: $want" ] || fail "hist $*: said '$(cat u.err)', expected '$want'"
	[ -s u.out ] && fail "hist $*: printed something on stdout"
	echo "ok: $want"
}
F=sched:sched_process_fork
usage "give -k SYS:EVENT 'hist:...' (a kernel event) or -p PID (a process); see 'tpoint hist --help'"
usage "give -k SYS:EVENT 'hist:...' (a kernel event) or -p PID (a process); see 'tpoint hist --help'" --json
usage "-k $F: expected its trigger after it, like -k $F 'hist:keys=common_pid'" -k $F
usage "'hist:keys=parent_pid': unexpected here; a trigger follows its -k SYS:EVENT" -k $F --json 'hist:keys=parent_pid'
usage "-k a:b: expected its trigger after it, like -k a:b 'hist:keys=common_pid'" -k a:b -k $F 'hist:keys=x'
usage "'extra': unexpected here; a trigger follows its -k SYS:EVENT" -k $F 'hist:keys=x' extra
usage "'hist:keys=x': unexpected here; a trigger follows its -k SYS:EVENT" 'hist:keys=x'
usage "--watch '0': expected seconds, a number > 0, like 2 or 0.5" -k $F 'hist:keys=x' --watch 0
usage "--duration 'soon': expected seconds, a number > 0, like 2 or 0.5" -k $F 'hist:keys=x' --duration soon
usage "-k and -p: one or the other" -k $F 'hist:keys=x' -p $$
usage "-e goes with -p PID; with -k, the trigger says it" -k $F 'hist:keys=x' -e 'sys:*'
usage "--latency goes with -p PID; with -k, the trigger says it" -k $F 'hist:keys=x' --latency a:b,a:c
usage "--key goes with --latency SYS:START,SYS:END" -p $$ --key id
usage "--latency a:b,a:c: give --key FIELD, the field that pairs a start with its end" -p $$ --latency a:b,a:c
usage "option '--watch' needs a value; see 'tpoint hist --help'" -k $F 'hist:keys=x' --watch
# the one-word form: the trigger after the event, as report --hist spells it
usage "--watch '-1': expected seconds, a number > 0, like 2 or 0.5" -k "$F:hist:keys=x" --watch -1
