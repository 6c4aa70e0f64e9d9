#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint report over several files (issue 23 item 2): two files recorded at the same time by
# two processes make one time line, every line led by its file's name, in the order and with
# the text of `trace-cmd report -i A -i B` -- byte for byte, its "cpus=" lines too; the plain
# FILE arguments do the same; --stats gives a table per file, named; a damaged second file
# stops the report before a line is printed.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null 2>&1 || { echo "trace-cmd is not installed"; exit 77; }
B=$(dirname "$TPOINT")

# Two processes at once: ticks every 3 ms and every 2 ms for 0.4 s, so that the files
# interleave. The second file's longer name makes the padding show.
TPOINT_EVENTS='tpt_ctl:*' TPOINT_RECORD=a.dat "$B/tests/ctltarget" 0.4 3000 >a.log 2>&1 &
pa=$!
TPOINT_EVENTS='tpt_ctl:ctl_tick' TPOINT_RECORD=second.dat "$B/tests/ctltarget" 0.4 2000 \
	>b.log 2>&1 || fail "the second target exited $?"
wait $pa || fail "the first target exited $?"

"$TPOINT" report -i a.dat -i second.dat >t.out 2>t.err
rc=$?
[ $rc = 0 ] || { cat t.err; fail "report -i -i exited $rc"; }
[ -s t.err ] && { cat t.err; fail "report -i -i said something on stderr"; }
trace-cmd report -i a.dat -i second.dat >c.out 2>/dev/null || fail "trace-cmd report exited $?"
n=$(grep -c 'ctl_tick' t.out)
na=$(grep -c '^ *a\.dat: .*ctl_tick' t.out)
nb=$(grep -c '^second\.dat: .*ctl_tick' t.out)
[ "$na" -gt 10 ] && [ "$nb" -gt 10 ] || fail "expected ticks of both files: $na and $nb"
[ $((na + nb)) = "$n" ] || fail "$n ticks, but $na + $nb lines name their file"
# The two files interleave: some line of a.dat comes after one of second.dat and before another.
awk '/^second\.dat: /{s=1} /^ *a\.dat: /&&s{a=1} /^second\.dat: /&&a{ok=1} END{exit !ok}' t.out ||
	fail "the files' lines do not interleave: not one time line"
cmp -s t.out c.out || { diff t.out c.out | head -10; fail "not trace-cmd's report of the two files"; }
echo "report -i a.dat -i second.dat: $n events ($na + $nb), the same lines in the same order as trace-cmd's"

"$TPOINT" report a.dat second.dat >p.out 2>&1 || fail "report A B exited $?"
cmp -s p.out c.out || fail "report A B differs from report -i A -i B"

# --stats: a table per file, each named.
"$TPOINT" report --stats -i a.dat -i second.dat >s.out 2>&1 || { cat s.out; fail "--stats exited $?"; }
grep -q '^a\.dat:$' s.out && grep -q '^second\.dat:$' s.out || { cat s.out; fail "--stats does not name each file"; }
[ "$(grep -c '^event ' s.out)" = 2 ] || { cat s.out; fail "--stats: expected two tables"; }
# each table counts its own file's records: ctl_tick's in-file column, the 7th
ia=$(sed -n '1,/^second\.dat:$/p' s.out | awk '$1 == "tpt_ctl:ctl_tick" { print $7 }')
ib=$(sed -n '/^second\.dat:$/,$p' s.out | awk '$1 == "tpt_ctl:ctl_tick" { print $7 }')
[ "$ia" = "$na" ] && [ "$ib" = "$nb" ] ||
	{ cat s.out; fail "--stats: ctl_tick in the files $ia and $ib, the report has $na and $nb"; }

# A damaged second file: one line naming it, nothing printed, exit 1.
head -c 3000 second.dat >cut.dat
"$TPOINT" report -i a.dat -i cut.dat >x.out 2>x.err
rc=$?
[ $rc = 1 ] || fail "a damaged second file: exit $rc, expected 1"
[ -s x.out ] && fail "a damaged second file: the report printed lines"
grep -q 'cut\.dat' x.err || { cat x.err; fail "the error does not name cut.dat"; }
echo "--stats: one table per file; a damaged file: $(cat x.err)"
