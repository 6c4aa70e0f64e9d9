#!/bin/sh
# TPOINT_RECORD when the program ends without exit() (issue 30): a program that recorded
# 15,000 events and ended with _exit(0) left a 0-byte file, one that recorded 3,000 and
# exec'd /bin/true (no libtpoint) the same, and neither said a word. Now the watcher the
# library starts writes the file from the spool and the pool when the process is gone,
# with every event, and says so in one line on stderr; so for a process killed by SIGKILL.
# A program that ends with exit() is not affected: its own file, and not a word.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/embtarget.sh"

# ends HOW N: the program records N events and ends HOW; the file must hold them all and
# stderr say so, in one line (written by the watcher once the process is gone: waited for).
ends() {
	rm -rf o.dat o.dat.*
	TPOINT_RECORD=o.dat "$E" "$1" "$2" >out.txt 2>err.txt
	rc=$?
	[ $rc = 0 ] || { cat err.txt; fail "$1: the program exited $rc"; }
	line="^tpoint: TPOINT_RECORD=o.dat: process [0-9]* ended without completing its file (_exit(), exec of a program without libtpoint, or a signal): written from its spool and pool, $2 events, 0 lost$"
	wait_for err.txt "$line" 60 || { cat err.txt; ls -la; fail "$1: no line on stderr within 60 s"; }
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$1: more than one line"; }
	[ "$(events o.dat)" = "$2" ] || fail "$1: o.dat holds $(events o.dat) of $2 events"
	set -- o.dat.*
	[ ! -e "$1" ] || fail "left behind: $*"
}

ends _exit 15000
echo "ok: 15000 events, then _exit(0): o.dat holds them all, and stderr says so in one line"
ends exec 3000
echo "ok: 3000 events, then exec of /bin/true: o.dat holds them all, and stderr says so in one line"

# exec of itself (libtpoint again: a second generation of the spool), which ends with _exit().
rm -rf o.dat o.dat.*
TPOINT_RECORD=o.dat "$E" reexec 2500 >out.txt 2>err.txt || { cat err.txt; fail "reexec: exit $?"; }
wait_for err.txt "ended without completing its file.*5000 events, 0 lost$" 60 ||
	{ cat err.txt; fail "reexec: no line on stderr within 60 s"; }
[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "reexec: more than one line"; }
[ "$(events o.dat)" = 5000 ] || fail "reexec: o.dat holds $(events o.dat) of 5000 events"
set -- o.dat.*
[ ! -e "$1" ] || fail "reexec: left behind: $*"
echo "ok: 2500 events, exec of itself, 2500 more, then _exit(0): o.dat holds all 5000"

# Killed: the same. (out.txt too: an earlier "ready" is not this program's.)
rm -rf o.dat o.dat.* out.txt
TPOINT_RECORD=o.dat "$E" wait 4000 go >out.txt 2>err.txt &
P=$!
trap 'kill -9 $P 2>/dev/null' EXIT
wait_for out.txt ready 60 || fail "the program did not start"
kill -9 $P
wait $P 2>/dev/null
trap - EXIT
wait_for err.txt "process $P ended without completing its file.*4000 events, 0 lost$" 60 ||
	{ cat err.txt; fail "killed: no line on stderr within 60 s"; }
[ "$(events o.dat)" = 4000 ] || fail "killed: o.dat holds $(events o.dat) of 4000 events"
echo "ok: killed by SIGKILL after 4000 events: o.dat holds them all, and stderr says so"

# exit(): the program's own file, and nothing said, by it or by the watcher after it.
rm -rf o.dat o.dat.*
x=$(TPOINT_RECORD=o.dat "$E" exit 5000 2>&1 >/dev/null)
[ -z "$x" ] || fail "exit(): something was said: $x"
[ "$(events o.dat)" = 5000 ] || fail "exit(): o.dat holds $(events o.dat) of 5000 events"
set -- o.dat.*
[ ! -e "$1" ] || fail "exit(): left behind: $*"
echo "ok: exit(): o.dat holds its 5000 events, nothing said"
