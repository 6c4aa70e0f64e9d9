#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/report/run.sh TPOINT - tpoint report against trace-cmd report.
#
# Generates trace.dat v6 files with gen_tracedat.py (little and big endian,
# kernel long 4 and 8, pages of 1, 4 and 8 KiB, several clocks, TSC2NSEC,
# OFFSET/DATE, an instance buffer, tpoint's statistics option), and checks that
# 'tpoint report' prints exactly what 'trace-cmd report' prints for each; that
# events libtraceevent cannot render are named on stderr with exit status 1;
# that --stats prints the stored counters; that damaged files give the exact
# one-line reason and exit status 1; and that no truncation of a file crashes.
#
# The tpoint binary is $1, or $TPOINT.  Exit 0 pass, 1 fail, 77 skip (no
# trace-cmd or python3: the reason is printed).

TPOINT=${1:-$TPOINT}
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "$TPOINT" ] || [ ! -x "$TPOINT" ]; then
	echo "run.sh: give the tpoint binary as \$1 or \$TPOINT (got '$TPOINT')" >&2
	exit 1
fi
case $TPOINT in
/*) ;;
*) TPOINT=$(pwd)/$TPOINT ;;
esac
if ! command -v trace-cmd >/dev/null 2>&1; then
	echo "SKIP: trace-cmd is not installed (apt-get install trace-cmd)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is needed to generate the test files"
	exit 77
fi

tmp=$(mktemp -d /tmp/tpoint-report-test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# For a sanitizer build: libtraceevent 1.7.1 leaks on formats it fails to parse,
# and what it held when a trapped call was abandoned (the divzero case) is lost.
echo "leak:libtraceevent.so" >lsan.supp
LSAN_OPTIONS="suppressions=$tmp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
gen() { python3 "$here/gen_tracedat.py" "$@"; }
corrupt() { python3 "$here/corrupt.py" "$@"; }

# 1. Same output as trace-cmd report, byte for byte, for valid files.
check_same() { # NAME GENERATOR-OPTIONS...
	name=$1
	shift
	gen "$@" "$name.dat" || { bad "$name: generator failed"; return; }
	trace-cmd report "$name.dat" >"$name.tc" 2>"$name.tc.err"
	"$TPOINT" report "$name.dat" >"$name.tp" 2>"$name.tp.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: tpoint report exited $rc: $(head -c 300 "$name.tp.err")"
	elif [ -s "$name.tp.err" ]; then
		bad "$name: tpoint report wrote to stderr: $(head -c 300 "$name.tp.err")"
	elif ! cmp -s "$name.tc" "$name.tp"; then
		bad "$name: output differs from trace-cmd report:"
		diff "$name.tc" "$name.tp" | head -10
	elif [ "$(grep -c ': ' "$name.tp")" -lt 10 ]; then
		bad "$name: too few events ($(wc -l <"$name.tp") lines)"
	else
		ok
	fi
}

check_same basic
check_same big --endian big
check_same long4 --long 4
check_same long4big --long 4 --endian big
check_same page8k --page-size 8192
check_same page1k --page-size 1024
check_same boot --clock boot
check_same noclock --clock none
check_same local --clock local
check_same tsc --clock x86-tsc --tsc2nsec 858993459:31
check_same offset --option 7:1000000000 --option 1:0x10
check_same instance --instance userspace
check_same stats --stats

# the file stock trace-cmd must take with tpoint's option 0x7470 in it
if trace-cmd report --check-events stats.dat >/dev/null 2>check.err && [ ! -s check.err ]; then
	ok
else
	bad "trace-cmd report --check-events on a file with option 0x7470: $(cat check.err)"
fi

# The dropped-events lines and the merge order are in the generated data.
if grep -q '^CPU:0 \[123 EVENTS DROPPED\]$' basic.tp && grep -q '^CPU:1 \[EVENTS DROPPED\]$' basic.tp;
then
	ok
else
	bad "basic: the EVENTS DROPPED lines are missing"
fi

# 2. Events libtraceevent cannot render: same stdout as trace-cmd, named on stderr, exit 1.
check_named() { # NAME EXPECTED-STDERR GENERATOR-OPTIONS...
	name=$1
	want=$2
	shift 2
	gen "$@" "$name.dat" || { bad "$name: generator failed"; return; }
	"$TPOINT" report "$name.dat" >"$name.tp" 2>"$name.tp.err"
	rc=$?
	if [ $rc -ne 1 ]; then
		bad "$name: exit status $rc, expected 1"
	elif [ "$(cat "$name.tp.err")" != "$want" ]; then
		bad "$name: stderr is '$(cat "$name.tp.err")', expected '$want'"
	elif [ "$name" != divzero ] && { trace-cmd report "$name.dat" >"$name.tc" 2>/dev/null;
					   ! cmp -s "$name.tc" "$name.tp"; }; then
		bad "$name: output differs from trace-cmd report"
		diff "$name.tc" "$name.tp" | head -10
	else
		ok
	fi
}

check_named badfmt "tpoint report: badfmt.dat: event tptest:broken: libtraceevent cannot parse its\
 format: [tptest:broken] function MAJOR not defined; its records print as [FAILED TO PARSE]" --bad-fmt
check_named unknown "tpoint report: unknown.dat: records with event id 4242 have no format; they\
 print as [UNKNOWN EVENT]" --unknown-id
# trace-cmd report itself dies of SIGFPE on this file
check_named divzero "tpoint report: divzero.dat: event tptest:ratio: libtraceevent stopped with\
 SIGFPE (a division by zero) while printing the record on CPU 0 at 1000.624655; its records print\
 as [FAILED TO PRINT]" --div-zero
# a print fmt naming a field the format lacks: trace-cmd report dies of SIGSEGV on it
corrupt missing_field basic.dat missing.dat
"$TPOINT" report missing.dat >missing.tp 2>missing.err
rc=$?
want="tpoint report: missing.dat: event tptest:inode_dirty: libtraceevent cannot parse its\
 format: the print fmt uses REC->flags, which is not a field; its records print as [UNKNOWN EVENT]"
if [ $rc -eq 1 ] && [ "$(cat missing.err)" = "$want" ] &&
	[ "$(grep -c 'sample: ' missing.tp)" -eq 4 ] &&
	[ "$(grep -c '^\[UNKNOWN EVENT\]\[UNKNOWN EVENT\] (NULL): ' missing.tp)" -eq 5 ]; then
	ok
else
	bad "missing_field: exit $rc, stderr '$(cat missing.err)'"
fi
if grep -q 'ratio:                ratio=2$' divzero.tp &&
	grep -q 'ratio:                \[FAILED TO PRINT\]$' divzero.tp; then
	ok
else
	bad "divzero: the ratio lines are not as expected"
fi

# 3. --stats, with and without tpoint's statistics option.
"$TPOINT" report --stats stats.dat >stats.out 2>stats.err
rc=$?
cat >stats.want <<'EOF'
event               hits  cond-skipped  filtered  recorded  lost  in-file  condition
tptest:inode_dirty    10             3         1         6     0        5  flags & (I_DIRTY_SYNC | I_DIRTY_DATASYNC)
tptest:sample          4             0         0         4     0        4
tptest:blob            5             0         0         2     3        2
lost: 123, all marked where they happened ([N EVENTS DROPPED] in the report), and an unknown number in 1 place
EOF
if [ $rc -eq 0 ] && cmp -s stats.out stats.want && [ ! -s stats.err ]; then ok; else
	bad "--stats: exit $rc"
	diff stats.want stats.out
fi
"$TPOINT" report --stats -i basic.dat >stats2.out 2>&1
rc=$?
cat >stats2.want <<'EOF'
basic.dat: no tpoint statistics in this file; counting the records in it
event               in-file
tptest:inode_dirty        5
tptest:sample             4
tptest:blob               2
lost: 123, all marked where they happened ([N EVENTS DROPPED] in the report), and an unknown number in 1 place
EOF
if [ $rc -eq 0 ] && cmp -s stats2.out stats2.want; then ok; else
	bad "--stats without statistics: exit $rc"
	diff stats2.want stats2.out
fi

# 4. Command line.
if "$TPOINT" report --help >help.out 2>&1 && grep -q '^usage: tpoint report' help.out; then ok; else
	bad "--help"
fi
# (several files are one report: tests/report_multi.sh)
for args in "--bogus" "-x basic.dat" "-i"; do
	# shellcheck disable=SC2086
	"$TPOINT" report $args >/dev/null 2>usage.err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <usage.err)" -eq 1 ]; then ok; else
		bad "'report $args': exit $rc, expected 2 and one line: $(cat usage.err)"
	fi
done
if "$TPOINT" report -i basic.dat >i.out 2>/dev/null && cmp -s i.out basic.tp; then ok; else
	bad "-i FILE"
fi
mkdir dflt && cp basic.dat dflt/trace.dat
if (cd dflt && "$TPOINT" report >../dflt.out 2>/dev/null) && cmp -s dflt.out basic.tp; then ok; else
	bad "the default file trace.dat"
fi

# 5. Damaged files: exit 1, nothing on stdout, exactly this line on stderr.
check_damage() { # KIND EXPECTED-REASON
	corrupt "$1" basic.dat c.dat || { bad "corrupt.py $1 failed"; return; }
	"$TPOINT" report c.dat >c.out 2>c.err
	rc=$?
	want="tpoint report: c.dat: $2"
	if [ $rc -ne 1 ] || [ -s c.out ] || [ "$(cat c.err)" != "$want" ]; then
		bad "damage $1: exit $rc, stderr '$(cat c.err)', expected '$want'"
	else
		ok
	fi
}

check_damage empty "not a trace-cmd file (bad magic)"
check_damage magic "not a trace-cmd file (bad magic)"
check_damage version5 "trace.dat version '5' is not supported (tpoint reads versions 6 and 7)"
# a version 6 file that says 7: read as version 7, whose compression's name would be there
# (damaged version 7 files: tests/v7.sh)
check_damage version7 "version 7: compression 'header_page' is not supported (zstd, zlib or none)"
check_damage long3 "bad long size 3 at offset 13 (4 or 8)"
check_damage pagesize0 "page size 0 is out of range (64..134217728)"
check_damage header_page_empty "header_page is empty (libtraceevent would then decode no event)"
check_damage cut_meta "truncated: event format 0 of system 'tptest' needs 876 bytes at offset\
 496, file has 1000"
check_damage cut_cpu "truncated: CPU 1 data needs 8192 bytes at offset 16384, file has 20480"
check_damage commit_big "page 1 of CPU 0 (file offset 8192): commit 5000 exceeds the page (4080\
 data bytes)"
check_damage event_len "page 0 of CPU 1 (file offset 16384): event at offset 0 of the data: a\
 data event's length is smaller than its length word (commit 148)"
check_damage lost_count "page 2 of CPU 0 (file offset 12288): the lost-event count after commit\
 4080 runs past the page"
check_damage cmdline "cmdlines line 2: expected \"<pid> <comm>\""
check_damage overlap "CPU 1 data at offset 4096 overlaps CPU 0 data (4096..16384)"
check_damage size_odd "CPU 0 data size 12188 is not a multiple of the page size 4096"
check_damage nonascii "event format 1 of system 'tptest': byte 0xe9 at offset 6 of its text is\
 not printable ASCII"
check_damage dup_id "event id 1001 is used by both tptest:inode_dirty and tptest:sample"

"$TPOINT" report /nonexistent/trace.dat >/dev/null 2>c.err
rc=$?
if [ $rc -eq 1 ] && [ "$(cat c.err)" = "tpoint report: /nonexistent/trace.dat: cannot open: No\
 such file or directory" ]; then ok; else
	bad "a missing file: exit $rc: $(cat c.err)"
fi

# 6. Truncations of a small file (1 KiB pages): every cut is refused with one
#    line, never a crash.  Cuts through the headers, then a stride through the pages:
#    every 7th and 127th byte (make check-stress, TPOINT_TEST_STRESS=1: every byte, and
#    every 61st).
size=$(wc -c <page1k.dat)
case ${TPOINT_TEST_STRESS:-0} in
0) head_step=7 page_step=127 ;;
*) head_step=1 page_step=61 ;;
esac
n=0
cuts=0
while [ $n -lt "$size" ]; do
	head -c $n page1k.dat >t.dat
	"$TPOINT" report t.dat >t.out 2>t.err
	rc=$?
	cuts=$((cuts + 1))
	if [ $rc -ne 1 ] || [ -s t.out ] || [ "$(wc -l <t.err)" -ne 1 ]; then
		bad "cut at $n of $size: exit $rc, $(wc -l <t.err) stderr lines"
		break
	fi
	if [ $n -lt 2600 ]; then n=$((n + head_step)); else n=$((n + page_step)); fi
done
[ $n -ge "$size" ] && ok

echo "report: $pass passed, $fail failed ($cuts truncations)"
[ $fail -eq 0 ]
