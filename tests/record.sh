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
grep "process [0-9]*:" err.txt && fail "a word about a process that ended cleanly"
echo "ok: 4 threads x 20 writes recorded and read back by trace-cmd"

# record -p of a process that ends while it is recorded: its spool has its end mark and its
# pool's memory was given back; nothing is wrong, nothing to salvage (this said "its pool's
# memory holds no tpoint page metadata" and failed).
"$B/tests/ctltarget" 3 1000 >target.out 2>&1 &
pid=$!
i=0
until grep -q "^ready $pid$" target.out; do
	i=$((i + 1)); [ $i -lt 600 ] || fail "ctltarget $pid did not say it was ready"; sleep 0.1
done
timeout 60 "$TPOINT" record -p "$pid" -e 'tpt_ctl:*' -o ended.dat 2>err.txt ||
	{ cat err.txt; fail "record -p of a process that ended exited $?"; }
grep "pool\|salvage" err.txt && fail "record -p: a word about the ended process's pool"
n=$(trace-cmd report ended.dat 2>/dev/null | grep -c 'ctl_tick:')
[ "$n" -gt 0 ] || { cat err.txt; fail "record -p of a process that ended: no ctl_tick in the file"; }
wait $pid
echo "ok: record -p of a process that ends: exit 0, $n ctl_tick, no word about its pool"

# The same with the spool's pages as they are (the run above packed them); a bad value of
# the switch is said (where the library says things: with TPOINT_DEBUG), and recording goes
# on.
TPOINT_SPOOL_PACK=0 "$TPOINT" record -e 'writeback:*' -o raw.dat -- "$B/examples/writeback" . 20 \
	2>err.txt || { cat err.txt; fail "record with TPOINT_SPOOL_PACK=0 exited $?"; }
n=$(trace-cmd report raw.dat 2>/dev/null | grep -c 'writeback_write:')
[ "$n" = 80 ] || fail "TPOINT_SPOOL_PACK=0: expected 80 writeback_write events, trace-cmd shows $n"
TPOINT_DEBUG=1 TPOINT_SPOOL_PACK=maybe "$TPOINT" record -e 'writeback:*' -o raw.dat -- \
	"$B/examples/writeback" . 20 2>err.txt ||
	{ cat err.txt; fail "record with TPOINT_SPOOL_PACK=maybe exited $?"; }
grep -q "TPOINT_SPOOL_PACK='maybe': expected 0 or 1" err.txt ||
	{ cat err.txt; fail "bad TPOINT_SPOOL_PACK not said"; }
n=$(trace-cmd report raw.dat 2>/dev/null | grep -c 'writeback_write:')
[ "$n" = 80 ] || fail "TPOINT_SPOOL_PACK=maybe: expected 80 writeback_write events, got $n"
echo "ok: the same with the spool's pages as they are; a bad TPOINT_SPOOL_PACK is said"

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

# A full disk: the file cannot be written, what was recorded is kept, and --assemble
# writes it elsewhere. Needs a small file system of its own: a tmpfs, mounted as root, with
# 64 KiB left, which a second of ticks fills however fast the machine is.
if [ "$(id -u)" = 0 ] && mkdir -p tiny && mount -t tmpfs -o size=1m tpoint-test tiny 2>/dev/null; then
	trap 'umount tiny 2>/dev/null' EXIT
	dd if=/dev/zero of=tiny/filler bs=1k count=960 2>/dev/null || fail "cannot fill the tmpfs"
	"$TPOINT" record -e tpt_ctl -o tiny/full.dat -- "$B/tests/ctltarget" 1 1 >/dev/null 2>err.txt
	[ $? = 1 ] || { cat err.txt; fail "recording onto a full disk should exit 1"; }
	grep -q "No space left on device" err.txt || { cat err.txt; fail "ENOSPC not said"; }
	kept=$(sed -n 's/.* is kept in \(.*\); write it with$/\1/p' err.txt)
	[ -n "$kept" ] && [ -d "$kept" ] || { cat err.txt; fail "the spools were not kept"; }
	"$TPOINT" record --assemble "$kept" -e x 2>err.txt; [ $? = 2 ] || fail "--assemble with -e"
	"$TPOINT" record --assemble "$kept" -o full.dat 2>err.txt || { cat err.txt; fail "--assemble exited $?"; }
	# The spool filled the disk too: what did not reach it counts as lost, not recorded.
	summary=$(sed -n 's/.*full.dat: \([0-9]*\) events from 1 process, \([0-9]*\) lost$/\1 \2/p' err.txt)
	[ -n "$summary" ] || { cat err.txt; fail "--assemble summary"; }
	set -- $summary
	recorded=$(awk '$1 ~ /^tpt_ctl:/ { r += $5 } END { print r + 0 }' err.txt)
	lost=$(awk '$1 ~ /^tpt_ctl:/ { l += $6 } END { print l + 0 }' err.txt)
	infile=$(trace-cmd report full.dat 2>/dev/null | grep -c 'ctl_tick:\|ctl_odd:')
	[ "$1" = "$recorded" ] && [ "$infile" = "$recorded" ] ||
		{ cat err.txt; fail "$infile events in the file, $1 in the summary, $recorded counted recorded"; }
	[ "$2" = "$lost" ] && [ "$lost" -gt 0 ] ||
		{ cat err.txt; fail "$2 lost in the summary, $lost counted (the spool should have filled the disk)"; }
	n=$(trace-cmd report full.dat 2>/dev/null | grep -c 'ctl_tick:')
	[ "$n" -gt 100 ] || fail "only $n ctl_tick events assembled"
	[ ! -e "$kept" ] || fail "--assemble left $kept behind"
	rm tiny/filler
	"$TPOINT" record --assemble tiny -o x.dat 2>err.txt; [ $? = 1 ] || fail "--assemble of no spools"
	grep -q "no spool files" err.txt || { cat err.txt; fail "--assemble of no spools: message"; }
	umount tiny && rmdir tiny
	trap - EXIT
	echo "ok: a full disk: the recording kept ($lost events that found no room counted lost), --assemble wrote its $n ticks elsewhere"
else
	echo "skipped: a full disk (needs root, to mount a 1 MiB tmpfs)"
fi
