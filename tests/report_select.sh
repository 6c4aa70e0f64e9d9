#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint report selects (issue 34 item 5): -e GLOBS with the -f EXPR after it, --pid, --cpu,
# --from/--to, alone and combined, in text and in --json, over one file, two files merged,
# a file trace-cmd wrote, and generated files with lost-event marks and the other byte order.
#
# Every expectation is computed here from the full report of the same file (awk over its
# lines: the event, the pid after the comm, the [cpu], the time), or from what the program
# is known to write (tests/ctltarget.c: ctl_tick n = 0, 1, 2... with names alpha, beta, gamma,
# delta in turn; ctl_odd n for the odd n of the main thread, and every odd n from 1 up of a
# second thread). A selected report must be exactly the full report's lines that the
# selection keeps, in the same order, byte for byte; and where trace-cmd has the same
# selection (-F 'event: EXPR', --cpu) its report is the same bytes too.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null 2>&1 || { echo "trace-cmd is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
B=$(dirname "$TPOINT")
here=$(cd "$(dirname "$0")" && pwd)

# Two programs at once: a.dat with two threads (ticks every 2 ms, a busy thread every 50 us),
# b.dat with ticks only. At least 60 ticks however busy the machine is.
CTLTARGET_MIN_TICKS=60 TPOINT_EVENTS='tpt_ctl:*' TPOINT_RECORD=a.dat \
	"$B/tests/ctltarget" 0.3 2000 busythread >a.log 2>&1 &
pa=$!
CTLTARGET_MIN_TICKS=40 TPOINT_EVENTS='tpt_ctl:ctl_tick' TPOINT_RECORD=b.dat \
	"$B/tests/ctltarget" 0.3 3000 >b.log 2>&1 || fail "the second target exited $?"
wait $pa || fail "the first target exited $?"
main=$(sed -n 's/^ready //p' a.log)
bpid=$(sed -n 's/^ready //p' b.log)

"$TPOINT" report a.dat >full.out 2>full.err || { cat full.err; fail "report a.dat exited $?"; }
[ -s full.err ] && { cat full.err; fail "report a.dat said something on stderr"; }
trace-cmd report a.dat 2>/dev/null | cmp -s - full.out || fail "report a.dat is not trace-cmd's"
busy=$(awk -v m="$main" '$4 == "ctl_odd:" { n = split($1, a, "-"); if (a[n] != m) { print a[n]; exit } }' full.out)
[ -n "$busy" ] || fail "no ctl_odd of the busy thread in a.dat"
total=$(grep -vc -e '^cpus=' -e 'EVENTS DROPPED\]$' full.out)

# sel NAME AWK ARGS...: report ARGS a.dat must exit 0, quietly, and print the "cpus=" line and
# the lines of the full report AWK keeps (loss marks aside: they move with the selection).
sel() {
	name=$1 prog=$2
	shift 2
	"$TPOINT" report "$@" a.dat >s.out 2>s.err
	rc=$?
	[ $rc = 0 ] || { cat s.err; fail "$name: report $* exited $rc"; }
	[ -s s.err ] && { cat s.err; fail "$name: report $* said something on stderr"; }
	grep -v 'EVENTS DROPPED\]$' full.out | awk "$T_fn NR == 1 || ($prog)" >e.out
	grep -v 'EVENTS DROPPED\]$' s.out | cmp -s - e.out ||
		{ diff s.out e.out | head; fail "$name: report $* is not the full report's lines"; }
	got=$(($(wc -l <e.out) - 1))
	[ "$got" -gt 0 ] || fail "$name: nothing to select; the test is wrong"
	# --json: the same records, one line each
	"$TPOINT" report --json "$@" a.dat >s.json 2>s.err || { cat s.err; fail "$name: --json exited $?"; }
	[ "$(wc -l <s.json)" = "$got" ] || fail "$name: --json gave $(wc -l <s.json) lines, text $got"
	echo "ok: $name: $got of $total lines ($*)"
}
pid_is='((k = split($1, a, "-")) && a[k] == P)'
# T(): the time of the line, as a number
T_fn='function T(t) { t = $3; sub(":", "", t); return t + 0 }'

# -e, alone and with -f
sel "-e ctl_tick" '$4 == "ctl_tick:"' -e ctl_tick
sel "-e tpt_ctl:ctl_odd" '$4 == "ctl_odd:"' -e tpt_ctl:ctl_odd
sel "-e sys:*" '1' -e 'tpt_ctl:*'
sel "-f on a string" '$4 == "ctl_tick:" && $6 == "name=beta"' -e ctl_tick -f 'name == "beta"'
grep -q '"name":"beta"' s.json && ! grep -v '"name":"beta"' s.json | grep -q . ||
	fail "--json -f 'name == \"beta\"': not every line has the name beta"
trace-cmd report -F 'ctl_tick: name == "beta"' a.dat 2>/dev/null | cmp -s - s.out ||
	fail "-e ctl_tick -f 'name == \"beta\"' is not trace-cmd report -F's"
sel "-f on a glob" '$4 == "ctl_tick:" && $5 ~ /^n=[0-9]*[02468]$/ && $6 ~ /^name=(alpha|delta)$/' \
	-e 'tpt_ctl:ctl_t*' -f 'name ~ "*l*" && !(n & 1)'
sel "-f n range" '$4 == "ctl_tick:" && $5 ~ /^n=1[0-9]$/' -e ctl_tick -f 'n >= 10 && n < 20'
[ "$got" = 10 ] || fail "-f 'n >= 10 && n < 20': $got ticks, the program ticked n = 10..19"
sel "two groups" '($4 == "ctl_tick:" && $6 == "name=alpha") || ($4 == "ctl_odd:" && substr($5, 3) + 0 < 100)' \
	-e ctl_tick -f 'name == "alpha"' -e ctl_odd -f 'n < 100'
sel "-f with common_pid" "\$4 == \"ctl_odd:\" && $(echo "$pid_is" | sed "s/P/\"$busy\"/")" \
	-e ctl_odd -f "common_pid == $busy"

# A filter some events of the glob lack a field of: they keep their records, and are named.
"$TPOINT" report -e 'tpt_ctl:*' -f 'name == "beta"' a.dat >s.out 2>s.err ||
	{ cat s.err; fail "-e 'tpt_ctl:*' -f 'name == \"beta\"' exited $?"; }
grep -q "^tpoint report: -f 'name == \"beta\"' leaves tpt_ctl:ctl_odd unfiltered: no field 'name' in tpt_ctl:ctl_odd" s.err ||
	{ cat s.err; fail "the event without the field is not named"; }
grep -v 'EVENTS DROPPED\]$' full.out | awk 'NR == 1 || $4 == "ctl_odd:" || $6 == "name=beta"' |
	cmp -s - "$(grep -v 'EVENTS DROPPED\]$' s.out >s2.out; echo s2.out)" ||
	fail "-e 'tpt_ctl:*' -f 'name == \"beta\"': not the beta ticks and every ctl_odd"
echo "ok: an event without the filter's field keeps its records: $(cat s.err)"

# --pid and --cpu
sel "--pid main" "$(echo "$pid_is" | sed "s/P/\"$main\"/")" --pid "$main"
sel "--pid busy" "$(echo "$pid_is" | sed "s/P/\"$busy\"/")" --pid "$busy"
sel "--pid both, a list" '1' --pid "$main,$busy"
sel "--pid both, twice" '1' --pid "$busy" --pid "$main"
for c in 0 1; do
	if grep -q "\[00$c\]" full.out; then
		sel "--cpu $c" "\$2 == \"[00$c]\"" --cpu $c
		trace-cmd report --cpu $c a.dat 2>/dev/null | cmp -s - s.out ||
			fail "--cpu $c is not trace-cmd report --cpu $c"
	fi
done
ncpu=$(sed -n '1s/^cpus=//p' full.out)
sel "--cpu range" '1' --cpu 0-$((ncpu - 1))
[ "$ncpu" -gt 1 ] && sel "--cpu list" '$2 == "[000]" || $2 == "[001]"' --cpu 1,0

# --from and --to: the times of the lines a third and two thirds in, as printed.
t1=$(awk -v n=$((total / 3 + 1)) 'NR > 1 && !/DROPPED/ && ++i == n { sub(":", "", $3); print $3 }' full.out)
t2=$(awk -v n=$((2 * total / 3 + 1)) 'NR > 1 && !/DROPPED/ && ++i == n { sub(":", "", $3); print $3 }' full.out)
ts() { echo "T() $1"; }
sel "--from" "$(ts ">= $t1")" --from "$t1"
n_from=$got
sel "--to" "$(ts "< $t1")" --to "$t1"
n_to=$got
sel "--from --to" "$(ts ">= $t1") && $(ts "< $t2")" --from "$t1" --to "$t2"
# a record printed at t1 is in --from t1 and not in --to t1: the windows share no line
[ $((n_from + n_to)) = "$total" ] || fail "--from $t1 ($n_from) and --to $t1 ($n_to) do not make the $total lines"

# all of them at once, in text and JSON
sel "combined" "\$4 == \"ctl_odd:\" && $(echo "$pid_is" | sed "s/P/\"$busy\"/") && $(ts ">= $t1") && $(ts "< $t2") && substr(\$5, 3) % 4 == 1" \
	-e ctl_odd -f '!(n & 2)' --pid "$busy" --from "$t1" --to "$t2" --cpu 0-$((ncpu - 1))

# --json with nanoseconds: the exact time of a record is kept by --from, left out by --to.
"$TPOINT" report --json a.dat >all.json || fail "report --json exited $?"
ns=$(sed -n "$((total / 2))s/^{\"ts\":\([0-9]*\),.*/\1/p" all.json)
sec=$(echo "$ns" | sed 's/\(.........\)$/.\1/')
"$TPOINT" report --json --from "$sec" a.dat | head -1 | grep -q "^{\"ts\":$ns," ||
	fail "--json --from $sec does not start at the record of $ns ns"
"$TPOINT" report --json --to "$sec" a.dat | grep -q "^{\"ts\":$ns," && fail "--json --to $sec keeps the record of $ns ns"
echo "ok: --json --from/--to $sec, to the nanosecond"
# With 6 decimals a time is one as printed, which libtraceevent rounds to the microsecond
# ((ns + 500) / 1000): a record of ...xyz500 ns or more prints, and is selected, as the next.
up=$(sed -n 's/^{"ts":\([0-9]*[5-9][0-9][0-9]\),.*/\1/p' all.json | sed -n 2p)
if [ -n "$up" ]; then
	us=$(((up + 500) / 1000))
	p=$(echo "$us" | sed 's/\(......\)$/.\1/')
	"$TPOINT" report --json --from "$p" a.dat | grep -q "^{\"ts\":$up," ||
		fail "--from $p leaves out the record of $up ns, printed as $p"
	"$TPOINT" report --json --to "$p" a.dat | grep -q "^{\"ts\":$up," &&
		fail "--to $p keeps the record of $up ns, printed as $p"
	"$TPOINT" report --from "$p" a.dat | grep -q " $p: " || fail "--from $p: no line printed at $p"
	echo "ok: --from/--to $p take the record of $up ns as printed"
fi

# Two files, merged: their lines as the full two-file report has them.
"$TPOINT" report a.dat b.dat >full2.out || fail "report a.dat b.dat exited $?"
"$TPOINT" report -e ctl_tick -f 'name == "gamma"' a.dat b.dat >s.out 2>s.err || { cat s.err; fail "two files: exited $?"; }
{ head -2 full2.out; grep ' ctl_tick: .* name=gamma$' full2.out; } | cmp -s - s.out ||
	fail "two files: -e ctl_tick -f 'name == \"gamma\"' is not the full report's gamma ticks"
na=$(grep -c '^ *a\.dat: .* name=gamma$' s.out)
nb=$(grep -c '^ *b\.dat: .* name=gamma$' s.out)
[ "$na" -gt 0 ] && [ "$nb" -gt 0 ] || fail "two files: gamma ticks $na and $nb"
"$TPOINT" report --pid "$bpid" a.dat b.dat >s.out 2>s.err
[ $? = 0 ] || { cat s.err; fail "two files --pid: exited"; }
[ "$(grep -vc '^ *[ab]\.dat: cpus=' s.out)" = "$(grep -c "^ *b\.dat: .*-$bpid " full2.out)" ] ||
	fail "two files --pid $bpid: not the lines of b.dat"
"$TPOINT" report --json -e ctl_tick a.dat b.dat >s.json || fail "two files --json exited $?"
[ "$(wc -l <s.json)" = "$(grep -c ' ctl_tick: ' full2.out)" ] || fail "two files --json: not every tick"
echo "ok: two files: gamma ticks $na + $nb, --pid of the second file, --json"

# A file trace-cmd wrote (its version 7, compressed): the same selection, the same lines.
if trace-cmd convert -i a.dat --file-version 7 --compression any -o tc.dat >/dev/null 2>&1; then
	"$TPOINT" report -e ctl_tick -f 'name == "delta"' --cpu 0-$((ncpu - 1)) a.dat >s1.out || fail "a.dat exited $?"
	"$TPOINT" report -e ctl_tick -f 'name == "delta"' --cpu 0-$((ncpu - 1)) tc.dat >s2.out || fail "tc.dat exited $?"
	cmp -s s1.out s2.out || fail "trace-cmd's file: another selection than of ours"
	echo "ok: a file trace-cmd wrote: $(($(wc -l <s2.out) - 1)) delta ticks, as in ours"
else
	echo "note: trace-cmd convert cannot write a version 7 file here: that part is skipped"
fi

# Lost-event marks move to the next record kept of their CPU (generated file, known marks:
# 123 lost before a record of pid 4302 on CPU 0; an unknown number on CPU 1 before 4301's).
python3 "$here/report/gen_tracedat.py" g.dat || fail "gen_tracedat.py failed"
"$TPOINT" report --pid 4301 g.dat >s.out 2>s.err || { cat s.err; fail "--pid 4301 g.dat exited $?"; }
grep -A1 '^CPU:0 \[123 EVENTS DROPPED\]$' s.out | grep -q 'db writer-4301 .*blob: .*seq=2' ||
	{ cat s.out; fail "the 123 lost before 4302's record are not marked before 4301's next on CPU 0"; }
grep -q '^CPU:1 \[EVENTS DROPPED\]$' s.out || fail "the unknown loss on CPU 1 is gone"
"$TPOINT" report --json --pid 4301 g.dat >s.json || fail "--json --pid 4301 g.dat exited $?"
grep -q '"event":"blob","fields":{"seq":2,.*"dropped":123}$' s.json ||
	{ cat s.json; fail "--json: the 123 lost are not on 4301's next record of CPU 0"; }
"$TPOINT" report --pid 4302 --cpu 1 g.dat >s.out 2>s.err
[ $? = 1 ] || fail "a selection with no record: exit status not 1"
grep -qx 'tpoint report: g.dat: no record selected (of [0-9]* in the file)' s.err || { cat s.err; fail "no record selected not said"; }
echo "ok: lost-event marks follow the selection; an empty selection: $(cat s.err)"
# an instance buffer: --cpu selects in every buffer (trace-cmd 3.1.6's --cpu leaves the
# instances' records out altogether), the lines as the full report has them, prefixes too
python3 "$here/report/gen_tracedat.py" --instance inst gi.dat || fail "gen_tracedat.py --instance failed"
"$TPOINT" report gi.dat >gfull.out || fail "report gi.dat exited $?"
"$TPOINT" report --cpu 1 gi.dat >s.out || fail "--cpu 1 gi.dat exited $?"
grep -v 'EVENTS DROPPED\]$' gfull.out | awk 'NR == 1 || / \[001\] /' |
	cmp -s - "$(grep -v 'EVENTS DROPPED\]$' s.out >s2.out; echo s2.out)" ||
	fail "--cpu 1 of a file with an instance: not the full report's CPU 1 lines"
grep -q '^inst: .* \[001\] ' s.out || fail "--cpu 1: the instance's CPU 1 records are missing"
echo "ok: --cpu in an instance buffer too: $(grep -c '^inst: ' s.out) of its records"
# the other byte order: -e, --cpu work (as trace-cmd --cpu), a -f is refused, naming the file
python3 "$here/report/gen_tracedat.py" --endian big gb.dat || fail "gen_tracedat.py --endian big failed"
"$TPOINT" report --cpu 1 gb.dat >s.out || fail "--cpu 1 of a big-endian file exited $?"
trace-cmd report --cpu 1 gb.dat 2>/dev/null | cmp -s - s.out || fail "big-endian --cpu 1 is not trace-cmd's"
"$TPOINT" report -e inode_dirty -f 'ino > 50' gb.dat >s.out 2>s.err
[ $? = 1 ] && [ ! -s s.out ] && grep -q 'gb.dat: -f on a file of the other byte order' s.err ||
	{ cat s.err; fail "-f on a big-endian file not refused"; }
"$TPOINT" report -e inode_dirty -f 'ino > 50' g.dat >s.out || fail "-f ino > 50 exited $?"
trace-cmd report -F 'inode_dirty: ino > 50' g.dat 2>/dev/null | cmp -s - s.out ||
	fail "-e inode_dirty -f 'ino > 50' is not trace-cmd report -F's"

# Bad input: the value named, exit 2 for the command line, 1 for what the files refuse.
bad() {
	want=$1 re=$2
	shift 2
	"$TPOINT" report "$@" >x.out 2>x.err
	rc=$?
	[ $rc = "$want" ] || { cat x.err; fail "report $*: exit $rc, expected $want"; }
	grep -v '^cpus=' x.out | grep -q . && { cat x.out; fail "report $*: printed records"; }
	grep -Eq "^tpoint report: $re" x.err || { cat x.err; fail "report $*: not the message '$re'"; }
	echo "ok: report $*: $rc: $(head -1 x.err)"
}
bad 1 "'nosuch' matches no event of a\.dat$" -e nosuch a.dat
bad 1 "'tpt_ctl/ctl_tick' matches no event of the files \(an event glob is sys:name, not sys/name\)" \
	-e tpt_ctl/ctl_tick a.dat b.dat
bad 2 "'a,,b': expected comma-separated globs" -e 'a,,b' a.dat
bad 1 "-f 'nme == 3': no field 'nme' in tpt_ctl:ctl_tick; fields: common_pid, n, name$" \
	-e ctl_tick -f 'nme == 3' a.dat
bad 1 "-f 'n == = 3': syntax error at column 6: unexpected '='" -e ctl_tick -f 'n == = 3' a.dat
bad 1 "-f 'name > 3': field 'name' is a string" -e ctl_tick -f 'name > 3' a.dat
bad 2 "-f 'n > 1' comes before any -e" -f 'n > 1' a.dat
bad 2 "two -f for -e 'ctl_tick'" -e ctl_tick -f 'n > 1' -f 'n < 5' a.dat
bad 2 "--pid '12,x': 'x' is not a thread id" --pid 12,x a.dat
bad 2 "--pid '-1': '-1' is not a thread id" --pid -1 a.dat
bad 2 "--cpu '1-0': '1-0' is not a CPU" --cpu 1-0 a.dat
bad 2 "--cpu 'one': 'one' is not a CPU" --cpu one a.dat
bad 1 "--cpu $ncpu: a\.dat has CPUs 0-$((ncpu - 1))\$" --cpu "$ncpu" a.dat
bad 2 "--from '1\.2\.3': expected seconds as the report prints times" --from 1.2.3 a.dat
bad 2 "--to '1\.0123456789': expected seconds" --to 1.0123456789 a.dat
bad 2 "--from 5 is not before --to 5" --from 5 --to 5 a.dat
bad 2 "--stats counts every record of the file: it takes no -e" --stats -e ctl_tick a.dat
bad 1 "a\.dat: no record selected \(of $total in the file\)" --pid 1 a.dat
bad 1 "a\.dat: no record selected" --json --to 0.5 a.dat
echo "ok: report selects"
