#!/bin/sh
# trace.dat version 7 with compressed sections, written directly (issue 25, item 0): the same
# spools assembled into version 6 and, with --compress, into version 7 must read back alike
# in the real trace-cmd (every line of `trace-cmd report`, the lost-events marks included),
# in a fraction of the bytes; TPOINT_COMPRESS does the same for a program's own recording;
# zlib and a level; a bad codec name refused with what is expected, or (from the
# environment) said and the recording written as version 6, never lost.
set -u
B=$(dirname "$TPOINT")
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
trace-cmd list -c 2>/dev/null | grep -q zstd ||
	{ echo "this trace-cmd reads no zstd-compressed file (trace-cmd list -c)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/wait.sh"
version() { dd if="$1" bs=1 skip=10 count=1 2>/dev/null; }
codec() { dd if="$1" bs=1 skip=18 count=4 2>/dev/null; }
size() { stat -c %s "$1"; }

# Spools of a recording: a main thread's ticks and a busy thread's events over some hundred
# pages, and a second recording in a pool so small that it loses events (overwrite).
# The counts of ticks are floors: a busy machine takes longer, never records less. What the
# overwrite pool holds at the end depends on how the threads' pages interleaved (a busy
# machine left one page of 100 events): the lossy file's test is its marks of loss, so it
# needs events, not a number of them.
mkdir sp lossy
TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$PWD/sp CTLTARGET_MIN_TICKS=2000 \
	"$B/tests/ctltarget" 1 500 busythread >/dev/null || fail "ctltarget exited $?"
TPOINT_EVENTS=tpt_ctl TPOINT_MODE=overwrite TPOINT_BUFFER_SIZE=64K TPOINT_SPOOL_DIR=$PWD/lossy \
	CTLTARGET_MIN_TICKS=10000 "$B/tests/ctltarget" 1 100 busythread >/dev/null ||
	fail "ctltarget (lossy) exited $?"

cp -a sp spools.keep
for d in sp lossy; do
	cp -a $d $d.v7
	cp -a $d $d.v7z
	"$TPOINT" record --assemble $d -o $d.v6.dat 2>err.txt || { cat err.txt; fail "assemble $d"; }
	"$TPOINT" record --assemble $d.v7 --compress -o $d.v7.dat 2>err.txt ||
		{ cat err.txt; fail "assemble $d --compress"; }
	[ "$(version $d.v7.dat)" = 7 ] || fail "$d.v7.dat is not version 7"
	[ "$(codec $d.v7.dat)" = zstd ] || fail "$d.v7.dat: codec '$(codec $d.v7.dat)', not zstd"
	trace-cmd report -i $d.v6.dat >$d.v6.txt 2>$d.v6.err || fail "trace-cmd report $d.v6.dat"
	trace-cmd report -i $d.v7.dat >$d.v7.txt 2>$d.v7.err ||
		{ cat $d.v7.err; fail "trace-cmd report $d.v7.dat exited $?"; }
	n=$(grep -c 'ctl_tick:\|ctl_odd:' $d.v6.txt)
	floor=1000
	[ $d = lossy ] && floor=0
	[ "$n" -gt $floor ] || fail "$d: only $n events in the file"
	cmp -s $d.v6.txt $d.v7.txt || { diff $d.v6.txt $d.v7.txt | head; fail "$d: version 7 reads otherwise"; }
	v6=$(size $d.v6.dat)
	v7=$(size $d.v7.dat)
	# Some hundred pages compress 3 times at least; the lossy file may hold a page or two
	# (a busy machine), and then its metadata, which compresses less, is most of it.
	ratio=3
	[ $d = lossy ] && ratio=1
	[ $((v7 * ratio)) -lt "$v6" ] || fail "$d: version 7 takes $v7 bytes, version 6 $v6"
	echo "ok: $d: $n events, the same in trace-cmd from version 6 ($v6 bytes) and 7 ($v7 bytes)"
	# At zstd's level 19: the same again.
	"$TPOINT" record --assemble $d.v7z --compress=zstd:19 -o $d.v7z.dat 2>err.txt ||
		{ cat err.txt; fail "assemble $d --compress=zstd:19"; }
	trace-cmd report -i $d.v7z.dat 2>/dev/null | cmp -s - $d.v6.txt ||
		fail "$d: zstd:19 reads otherwise"
done
grep -q 'LOST\|DROPPED' lossy.v7.txt || fail "the lossy recording marks no loss: nothing checked"
echo "ok: the lost-events marks of version 6 are in version 7 too"

# zlib: written with its name; read back where trace-cmd was built with it.
mkdir zl
TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$PWD/zl "$B/tests/ctltarget" 0.3 500 >/dev/null ||
	fail "ctltarget (zlib) exited $?"
"$TPOINT" record --assemble zl --compress=zlib:9 -o zl.dat 2>err.txt ||
	{ cat err.txt; fail "assemble --compress=zlib:9"; }
[ "$(codec zl.dat)" = zlib ] || fail "zl.dat: codec '$(codec zl.dat)', not zlib"
if trace-cmd list -c 2>/dev/null | grep -q zlib; then
	trace-cmd report -i zl.dat 2>/dev/null | grep -q 'ctl_tick:' || fail "trace-cmd reads no zlib file"
	echo "ok: zlib, read by trace-cmd"
else
	echo "ok: zlib written (this trace-cmd reads zstd only: trace-cmd list -c)"
fi

# A program's own recording, TPOINT_COMPRESS.
TPOINT_COMPRESS=zstd TPOINT_EVENTS=tpt_ctl TPOINT_RECORD=$PWD/own.dat "$B/tests/ctltarget" 0.3 500 \
	>/dev/null 2>err.txt || { cat err.txt; fail "ctltarget with TPOINT_COMPRESS exited $?"; }
[ "$(version own.dat)" = 7 ] || fail "TPOINT_COMPRESS=zstd wrote version '$(version own.dat)'"
n=$(trace-cmd report -i own.dat 2>/dev/null | grep -c 'ctl_tick:')
[ "$n" -gt 10 ] || fail "TPOINT_COMPRESS=zstd: $n ctl_tick events in trace-cmd"
echo "ok: TPOINT_COMPRESS=zstd: version 7, $n ticks"

# Bad names: the tool refuses before running anything; the environment says so and writes
# version 6.
for bad in xz zstd:0 zstd:23 zlib:10 'zstd:'; do
	"$TPOINT" record --compress="$bad" -e tpt_ctl -o never.dat -- "$B/tests/ctltarget" 0.1 \
		>/dev/null 2>err.txt
	rc=$?
	[ $rc = 2 ] || fail "--compress=$bad: exit $rc, not 2"
	grep -q "compression.*expected zstd or zlib\|zstd takes 1 to 22\|zlib takes 1 to 9" err.txt ||
		{ cat err.txt; fail "--compress=$bad: no word on what is expected"; }
	[ ! -e never.dat ] || fail "--compress=$bad: a file was written"
done
echo "ok: bad --compress values refused (exit 2) with what is expected"
TPOINT_COMPRESS=lz4 TPOINT_EVENTS=tpt_ctl TPOINT_RECORD=$PWD/six.dat "$B/tests/ctltarget" 0.2 500 \
	>/dev/null 2>err.txt || fail "ctltarget with TPOINT_COMPRESS=lz4 exited $?"
grep -q "TPOINT_COMPRESS: compression 'lz4': expected zstd or zlib.*version 6" err.txt ||
	{ cat err.txt; fail "TPOINT_COMPRESS=lz4: no word on it"; }
[ "$(version six.dat)" = 6 ] || fail "TPOINT_COMPRESS=lz4: version '$(version six.dat)'"
trace-cmd report -i six.dat 2>/dev/null | grep -q 'ctl_tick:' || fail "TPOINT_COMPRESS=lz4: no events"
echo "ok: TPOINT_COMPRESS=lz4 said so and wrote version 6"

# A running process (-p): its file compressed too.
"$B/tests/ctltarget" 5 500 >target.out &
target=$!
wait_ready target.out $target || fail "ctltarget did not start"
"$TPOINT" record -p $target --compress -e tpt_ctl --duration 1 -o p7.dat >/dev/null 2>err.txt ||
	{ kill $target; cat err.txt; fail "record -p --compress exited $?"; }
kill $target
wait $target 2>/dev/null
[ "$(version p7.dat)" = 7 ] || fail "record -p --compress wrote version '$(version p7.dat)'"
n=$(trace-cmd report -i p7.dat 2>/dev/null | grep -c 'ctl_tick:')
[ "$n" -gt 10 ] || fail "record -p --compress: $n ctl_tick events in trace-cmd"
echo "ok: record -p --compress: version 7, $n ticks"

# A full disk while the compressed file is written: the error said, no file or temporary
# left behind, the spools kept for another try.
if [ "$(id -u)" = 0 ] && mkdir -p tiny && mount -t tmpfs -o size=64k tpoint-test tiny 2>/dev/null; then
	trap 'umount tiny 2>/dev/null' EXIT
	dd if=/dev/zero of=tiny/filler bs=1k count=48 2>/dev/null
	cp -a spools.keep sp.full
	"$TPOINT" record --assemble sp.full --compress -o tiny/full.dat >/dev/null 2>err.txt
	rc=$?
	[ $rc = 1 ] || { cat err.txt; fail "--compress onto a full disk: exit $rc, not 1"; }
	grep -q "No space left on device" err.txt || { cat err.txt; fail "ENOSPC not said"; }
	[ "$(ls tiny)" = filler ] || { ls -la tiny; fail "the full disk holds more than the filler"; }
	ls sp.full/*.spool >/dev/null 2>&1 || fail "the spools went although no file was written"
	umount tiny && rmdir tiny
	trap - EXIT
	echo "ok: --compress onto a full disk: said, nothing left behind, the spools kept"
else
	echo "skipped: a full disk (needs root, to mount a tmpfs)"
fi
