#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint report --hist (issue 34 item 3): the kernel's histogram of an event computed over
# trace.dat files. Six runs of examples/hello (three greetings each, n = 0, 1, 2, to the name
# given) recorded to six files; the histogram over all of them is compared, line by line, with
# the counts this script knows it made, in the kernel's text (trace_events_hist.c:
# "{ who: %-50s }", " hitcount: %10llu", "  n: %10llu", the Totals block).
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
HELLO="$B/examples/hello"

i=0
for who in alice alice bob carol carol carol; do
	i=$((i + 1))
	TPOINT_EVENTS='hello:*' TPOINT_RECORD=r$i.dat "$HELLO" "$who" >/dev/null 2>hello.err ||
		{ cat hello.err; fail "hello $who exited $?"; }
done
files="r1.dat r2.dat r3.dat r4.dat r5.dat r6.dat"

# Each name's count: 3 greetings a run; n sums 0 + 1 + 2 = 3 a run.
line() { printf '{ who: %-50s } hitcount: %10d  n: %10d\n' "$1" "$2" "$3"; }
{
	echo '# event histogram'
	echo '#'
	echo '# trigger info: hist:keys=who:vals=hitcount,n:sort=hitcount.descending:size=2048 [active]'
	echo '#'
	echo
	line carol 9 9
	line alice 6 6
	line bob 3 3
	printf '\nTotals:\n    Hits: 18\n    Entries: 3\n    Dropped: 0\n'
} >want.txt
# shellcheck disable=SC2086 # the file names are ours, without blanks
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=who:vals=n:sort=hitcount.descending' \
	$files >got.txt 2>err.txt || { cat err.txt; fail "report --hist exited $?"; }
[ -s err.txt ] && { cat err.txt; fail "report --hist said something on stderr"; }
cmp -s got.txt want.txt || { diff want.txt got.txt; fail "not the histogram of the six runs"; }
# The same records as the plain report shows them.
# shellcheck disable=SC2086
n=$("$TPOINT" report $files | grep -c 'hello carol #')
[ "$n" = 9 ] || fail "report shows $n greetings to carol, the histogram 9"
echo "report --hist over six files: carol 9, alice 6, bob 3, as recorded"

# A filter, a numeric key and size=: n > 0 leaves two greetings a run.
{
	echo '# event histogram'
	echo '#'
	echo '# trigger info: hist:keys=n:vals=hitcount:sort=n:size=128 if n > 0 [active]'
	echo '#'
	echo
	printf '{ n: %10d } hitcount: %10d\n' 1 6 2 6
	printf '\nTotals:\n    Hits: 12\n    Entries: 2\n    Dropped: 0\n'
} >want2.txt
# shellcheck disable=SC2086
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=n:sort=n:size=100 if n > 0' $files \
	>got2.txt 2>&1 || { cat got2.txt; fail "report --hist with a filter exited $?"; }
cmp -s got2.txt want2.txt || { diff want2.txt got2.txt; fail "the filtered histogram"; }

# --json: one object, the same numbers.
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=common_pid.execname' --json r1.dat \
	>got.json 2>&1 || { cat got.json; fail "report --hist --json exited $?"; }
grep -q '"common_pid.execname": "hello"}, "values": {"hitcount": 3}' got.json ||
	{ cat got.json; fail "--json: expected the hello process's 3 hits by execname"; }
grep -q '"totals": {"hits": 3, "entries": 1, "dropped": 0}' got.json ||
	{ cat got.json; fail "--json totals"; }

# Refusals: the kernel's words and the column, exit 1; a bad --hist argument, exit 2.
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=nosuch' r1.dat >bad.out 2>&1
rc=$?
[ $rc = 1 ] || fail "an unknown field: exit $rc, expected 1"
grep -q "Couldn't find field at column 11: 'nosuch'" bad.out || { cat bad.out; fail "unknown field message"; }
"$TPOINT" report --hist 'hello_greet:keys=n' r1.dat >bad2.out 2>&1
rc=$?
[ $rc = 2 ] || fail "a --hist without SYSTEM:EVENT:hist: exit $rc, expected 2"
"$TPOINT" report --hist 'nosys:noevent:hist:keys=n' r1.dat >bad3.out 2>&1
rc=$?
if [ $rc != 1 ] || ! grep -q 'no event nosys:noevent' bad3.out; then
	cat bad3.out
	fail "an absent event: exit $rc"
fi
# Two histograms in one pass: the second after the kernel's blank lines between triggers; a
# ';' inside a filter's string does not cut the list.
# shellcheck disable=SC2086
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=who:vals=n:sort=hitcount.descending;hello:hello_greet:hist:keys=n:sort=n:size=100 if n > 0 && who != "x;y"' \
	$files >two.txt 2>&1 || { cat two.txt; fail "two histograms exited $?"; }
sed 's/ if n > 0 \[active\]/ if n > 0 \&\& who != "x;y" [active]/' want2.txt >want2q.txt
{ cat want.txt; printf '\n\n'; cat want2q.txt; } >wanttwo.txt
cmp -s two.txt wanttwo.txt || { diff wanttwo.txt two.txt; fail "two histograms in one --hist"; }
# shellcheck disable=SC2086
"$TPOINT" report --json --hist 'hello:hello_greet:hist:keys=n;hello:hello_greet:hist:keys=who' \
	$files >two.json 2>&1 || { cat two.json; fail "two histograms --json exited $?"; }
[ "$(grep -c '"totals": {"hits": 18,' two.json)" = 2 ] || { cat two.json; fail "two JSON objects"; }

# report's selection applies: -e/-f keep only n == 2, one greeting a run.
# shellcheck disable=SC2086
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=who:sort=who' -e hello_greet -f 'n == 2' \
	$files >sel.txt 2>&1 || { cat sel.txt; fail "--hist with -e/-f exited $?"; }
for w in 'alice 2' 'bob 1' 'carol 3'; do
	# shellcheck disable=SC2086 # a name and its count
	set -- $w
	grep -qxF "$(printf '{ who: %-50s } hitcount: %10d' "$1" "$2")" sel.txt ||
		{ cat sel.txt; fail "--hist with -f 'n == 2': $1 should have $2"; }
done
grep -q '^    Hits: 6$' sel.txt || { cat sel.txt; fail "--hist with -f: 6 hits"; }

# :clear and :cont name a trigger that exists; on a file there is none, as the kernel says.
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=n:clear' r1.dat >bad4.out 2>&1
rc=$?
if [ $rc != 1 ] || ! grep -q "Can't clear or continue a nonexistent hist trigger" bad4.out; then
	cat bad4.out
	fail ":clear: exit $rc"
fi
# :pause makes a paused trigger: nothing counted, shown [paused].
"$TPOINT" report --hist 'hello:hello_greet:hist:keys=n:pause' r1.dat >p.out 2>&1 ||
	{ cat p.out; fail ":pause exited $?"; }
if ! grep -q 'size=2048 \[paused\]$' p.out || ! grep -q '^    Hits: 0$' p.out; then
	cat p.out
	fail ":pause: expected a paused, empty histogram"
fi
echo "filter, size, --json and refusals: $(cat bad.out)"

# .sym-offset and .execname over a generated file with a kallsyms table and saved cmdlines
# (tests/report/gen_tracedat.py): the names trace-cmd report prints for the same records.
if command -v python3 >/dev/null 2>&1; then
	python3 "$(dirname "$0")/report/gen_tracedat.py" --instance inst g.dat ||
		fail "gen_tracedat.py exited $?"
	"$TPOINT" report --hist 'tptest:sample:hist:keys=ip.sym-offset,common_pid.execname:vals=val:sort=ip' \
		g.dat >sym.out 2>&1 || { cat sym.out; fail "report --hist .sym-offset exited $?"; }
	# "%s: [%llx] %-55pS" and "%s: %-16s[%10llu]"; the instance's sample is not counted.
	printf '{ ip: [401234] %-55s, common_pid: %-16s[%10d] } hitcount: %10d  val: %10d\n' \
		demo_worker+0x34/0xe00 worker 4302 1 42 >sym.want
	grep -qxF "$(cat sym.want)" sym.out || { cat sym.out; fail "the .sym-offset line of demo_worker"; }
	grep -q '^    Hits: 4$' sym.out || { cat sym.out; fail "the instance's record was counted"; }
	echo "kernel symbols from the file's kallsyms: $(grep -o 'demo_worker[^ ]*' sym.out)"
fi
