#!/bin/sh
# tpoint record end to end: a multi-threaded program, a shell whose children are
# instrumented programs (one file from several processes), and the errors a user meets.
set -u
B=$(dirname "$TPOINT")
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

"$TPOINT" record -e 'writeback:*' -o rec.dat -- "$B/examples/writeback" . 20 2>err.txt ||
	{ cat err.txt; fail "record of writeback exited $?"; }
grep -q "events from 1 process" err.txt || { cat err.txt; fail "no summary line"; }
grep -q "writeback:writeback_inode_dirty" err.txt || fail "summary lacks the conditional event"
trace-cmd report --check-events rec.dat >/dev/null 2>&1 || fail "trace-cmd --check-events refused rec.dat"
n=$(trace-cmd report rec.dat 2>/dev/null | grep -c 'writeback_write:')
[ "$n" = 80 ] || fail "expected 80 writeback_write events, trace-cmd shows $n"
echo "ok: 4 threads x 20 writes recorded and read back by trace-cmd"

# Two instrumented processes started by an uninstrumented shell: one merged file.
"$TPOINT" record -e hello -o two.dat -- sh -c "'$B/examples/hello' a & '$B/examples/hello' b; wait" \
	2>err.txt >/dev/null || { cat err.txt; fail "record of two processes exited $?"; }
grep -q "events from 2 processes" err.txt || { cat err.txt; fail "expected 2 processes"; }
pids=$(trace-cmd report two.dat 2>/dev/null | grep 'hello_greet:' | sed 's/^ *hello-\([0-9]*\).*/\1/' | sort -u | wc -l)
[ "$pids" = 2 ] || fail "expected events of 2 pids, got $pids"
trace-cmd report two.dat 2>/dev/null | grep -q 'hello a #2' || fail "missing 'hello a #2'"
trace-cmd report two.dat 2>/dev/null | grep -q 'hello b #2' || fail "missing 'hello b #2'"
echo "ok: two processes in one file"

# fork() without exec: the child records too, into the same file.
"$TPOINT" record -e 'tpt_fork:*' -o fork.dat -- "$B/tests/fork_test" helper >out.txt 2>err.txt ||
	{ cat err.txt; fail "record of fork_test helper exited $?"; }
grep -q "events from 2 processes" err.txt || { cat err.txt; fail "the forked child did not record"; }
child=$(sed -n 's/.*child=\([0-9]*\).*/\1/p' out.txt)
n=$(trace-cmd report fork.dat 2>/dev/null | grep -c "^ *fork_test-$child ")
[ "$n" = 1000 ] || fail "expected 1000 events of the forked child $child, got $n"
echo "ok: a forked child's events in the same file"

# Errors: each names what is wrong and exits non-zero.
"$TPOINT" record -e 'nosuch:*' -o x.dat -- "$B/examples/hello" 2>err.txt >/dev/null
[ $? = 1 ] || fail "a glob matching nothing should exit 1"
grep -q "'nosuch:\*' matches no event" err.txt || { cat err.txt; fail "unmatched glob not named"; }
"$TPOINT" record -e 'hello' -o x.dat -- true 2>err.txt
[ $? = 1 ] || fail "an uninstrumented command should exit 1"
grep -q "recorded nothing" err.txt || { cat err.txt; fail "no 'recorded nothing' message"; }
"$TPOINT" record -e 'hello' -o x.dat -- /nonexistent/cmd 2>err.txt
[ $? = 1 ] || fail "a missing command should exit 1"
grep -q "/nonexistent/cmd" err.txt || fail "missing command not named"
"$TPOINT" record -o x.dat -- true 2>err.txt
[ $? = 2 ] || fail "no -e should be a usage error (2)"
"$TPOINT" record --help | grep -q "usage: tpoint record" || fail "--help"
[ -z "$(ls -A . | grep tpoint-spool)" ] || fail "spool directory left behind"
echo "ok: errors"
