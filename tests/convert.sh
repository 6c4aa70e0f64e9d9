#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint convert --to ctf|json and tpoint report --json (issue 25): files of every kind of
# field (tests/convtarget.c), of the example (examples/sample.c) and with lost events (a
# 64K pool) convert to CTF that babeltrace2 reads without a word but the discarded events,
# with the counts of report --stats, the values of the JSON lines, the lost total and the
# times of trace-cmd report -t to the ns (tests/convert/check.py); several files convert
# into one trace; and the bad inputs: a damaged file, a truncated one, an output that is
# not empty, a full disk, each one line and exit 1 with no output left looking complete.
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
S=$(cd "$(dirname "$0")" && pwd)
for t in babeltrace2 trace-cmd python3; do
	command -v $t >/dev/null || { echo "$t is not installed (scripts/deps.sh installs it)"; exit 77; }
done
echo "leak:libtraceevent.so" >lsan.supp
LSAN_OPTIONS="suppressions=$(pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

"$TPOINT" record -e 'tpt_conv,tpoint' -o conv.dat -- "$B/tests/convtarget" 400 >/dev/null 2>rec.err ||
	{ cat rec.err; fail "record convtarget exited $?"; }
# (the example keeps its probe registered to the end: a leak to LeakSanitizer, not ours)
ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
	TPOINT_EVENTS='sample:*' TPOINT_RECORD=sample.dat "$B/examples/sample" >/dev/null ||
	fail "sample exited $?"
"$TPOINT" record -b 64K -e 'tpt_conv,tpoint' -o lost.dat -- "$B/tests/convtarget" 10000 3 >/dev/null 2>rec.err ||
	{ cat rec.err; fail "record -b 64K convtarget exited $?"; }
"$TPOINT" report --stats lost.dat | grep -Eq '^lost: [0-9]+, (all|of which [1-9][0-9]* are) marked' ||
	{ cat rec.err; "$TPOINT" report --stats lost.dat; fail "a 64K pool lost nothing, or nothing marked"; }

# The example's sample_every_field has __print_array(..., len / sizeof(int), sizeof(int)),
# which libtraceevent 1.7.1 frees twice while parsing: the tool hands it the sizes as numbers
# (tools/tpoint/kprint.c), so the sanitizer builds convert it too.
files="conv sample lost"
for f in $files; do
	"$TPOINT" convert --to ctf -o $f.ctf $f.dat 2>err.txt || { cat err.txt; fail "convert $f.dat to CTF exited $?"; }
	[ -s err.txt ] && { cat err.txt; fail "convert $f.dat said something"; }
	[ -s $f.ctf/metadata ] || fail "$f.ctf has no metadata"
	"$TPOINT" convert --to json -o $f.json $f.dat 2>err.txt || { cat err.txt; fail "convert $f.dat to JSON exited $?"; }
	python3 "$S/convert/check.py" "$TPOINT" $f.dat $f.ctf $f.json || fail "$f.dat: see above"
done
ls -A | grep -q '^\.' && { ls -A; fail "a temporary name was left behind"; }
echo "ok: bytes per event: $(python3 -c "
import json, os
n = sum(1 for _ in open('lost.json'))
c = sum(os.path.getsize(os.path.join('lost.ctf', f)) for f in os.listdir('lost.ctf'))
print('trace.dat %.1f, CTF %.1f, JSON %.1f' % (os.path.getsize('lost.dat') / n, c / n, os.path.getsize('lost.json') / n))")"

# Files of another writer (tests/report/gen_tracedat.py: kernel-style formats, kallsyms,
# stored and unknown lost counts): little and big endian with 4-byte longs, an instance.
i=0
for opts in "" "--endian big --long 4" "--instance foo"; do
	i=$((i + 1))
	python3 "$S/report/gen_tracedat.py" $opts gen$i.dat >/dev/null || fail "gen_tracedat.py $opts"
	"$TPOINT" convert --to ctf -o gen$i.ctf gen$i.dat || fail "convert gen_tracedat.py $opts: exit $?"
	"$TPOINT" convert --to json -o gen$i.json gen$i.dat || fail "convert gen_tracedat.py $opts: exit $?"
	python3 "$S/convert/check.py" "$TPOINT" gen$i.dat gen$i.ctf gen$i.json || fail "gen_tracedat.py $opts: see above"
done
# A record whose id has no format converts as its bytes, named once; the exit status says it.
python3 "$S/report/gen_tracedat.py" --unknown-id unk.dat >/dev/null || fail "gen_tracedat.py --unknown-id"
"$TPOINT" convert --to ctf -o unk.ctf unk.dat 2>err.txt
rc=$?
[ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q 'event id 4242 have no format' err.txt ||
	{ cat err.txt; fail "unknown id: exit $rc, not one line naming it"; }
babeltrace2 unk.ctf 2>&1 | grep -q 'unknown:id_4242: .*raw = \[' || fail "unknown id: not in the CTF as its bytes"
echo "ok: a record with no format: $(cat err.txt)"

# Several files (tpoint's and another writer's): one trace, one stream class each; the JSON
# merged by time.
"$TPOINT" convert --to ctf -o both.ctf conv.dat gen1.dat 2>err.txt || { cat err.txt; fail "convert of two files exited $?"; }
a=$(babeltrace2 conv.ctf | wc -l) b=$(babeltrace2 gen1.ctf 2>/dev/null | wc -l)
[ "$(babeltrace2 both.ctf 2>/dev/null | wc -l)" = $((a + b)) ] || fail "two files: babeltrace2 shows not $a + $b events"
"$TPOINT" convert --to json -o both.json conv.dat gen1.dat || fail "JSON of two files exited $?"
python3 -c "
import json, sys
ts = [json.loads(l)['ts'] for l in open('both.json')]
sys.exit(0 if ts == sorted(ts) and len(ts) == $a + $b else 1)" || fail "two files: JSON not merged by time"
echo "ok: two files convert into one CTF trace ($a + $b events) and one time-ordered JSON"

# Bad input: one line naming the problem, exit 1, nothing left looking complete.
expect_fail() { # what, then the command
	what=$1
	shift
	"$@" >out.txt 2>err.txt
	rc=$?
	[ $rc = 1 ] || { cat err.txt; fail "$what: exit $rc, expected 1"; }
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$what: not one line on stderr"; }
	ls -A | grep -q '^\.' && { ls -A; fail "$what: a temporary name was left behind"; }
	echo "ok: $what: $(cat err.txt)"
}
head -c 20000 conv.dat >trunc.dat
expect_fail "truncated input" "$TPOINT" convert --to ctf -o trunc.ctf trunc.dat
[ -e trunc.ctf ] && fail "a CTF directory of a truncated file"
python3 -c "
d = bytearray(open('conv.dat', 'rb').read()); d[12] = 0x7f
open('bad.dat', 'wb').write(d)"
expect_fail "corrupt input" "$TPOINT" convert --to json -o bad.json bad.dat
[ -e bad.json ] && fail "a JSON file of a corrupt input"
# A page damaged past the metadata (the last one's commit word): the CTF writer checks each
# page as it reads it, after it wrote the pages before it; the JSON writer checks all first.
python3 -c "
d = bytearray(open('conv.dat', 'rb').read())
assert len(d) % 4096 == 0, 'conv.dat does not end with a whole page'
d[-4096 + 8:-4096 + 12] = (0x7ffffff).to_bytes(4, 'little')
open('badpage.dat', 'wb').write(d)"
expect_fail "a damaged last page, to CTF" "$TPOINT" convert --to ctf -o badpage.ctf badpage.dat
grep -q 'page [0-9]* of CPU [0-9]* (file offset [0-9]*): commit 134217727 exceeds' err.txt ||
	fail "a damaged page: not named"
[ -e badpage.ctf ] && fail "a CTF directory of a file with a damaged page"
expect_fail "a damaged last page, to JSON" "$TPOINT" convert --to json -o badpage.json badpage.dat
[ -e badpage.json ] && fail "a JSON file of a file with a damaged page"
expect_fail "non-empty output" "$TPOINT" convert --to ctf -o conv.ctf conv.dat
grep -q 'not empty; --force' err.txt || fail "non-empty output: --force not named"
"$TPOINT" convert --to ctf --force -o conv.ctf gen1.dat || fail "--force exited $?"
[ "$(babeltrace2 conv.ctf 2>/dev/null | wc -l)" = "$b" ] || fail "--force did not replace conv.ctf"
echo "ok: --force replaces a CTF directory"
mkdir -p keep.ctf/sub
expect_fail "a directory holding a directory, --force" "$TPOINT" convert --to ctf --force -o keep.ctf conv.dat
[ -d keep.ctf/sub ] || fail "keep.ctf/sub is gone"

# A CPU whose pages hold no record (each page's commit word 0): its stream has nothing to
# write, and the writer never had a buffer (UBSan once stopped here on memmove(NULL)).
python3 - gen1.dat empty.dat <<'PY' || fail "cannot make empty.dat"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
t = d.index(b"flyrecord\0") + 10
off, size = struct.unpack_from("<QQ", d, t)  # CPU 0's pages
for p in range(off, off + size, 4096):
    d[p + 8:p + 16] = bytes(8)
open(sys.argv[2], "wb").write(d)
PY
"$TPOINT" convert --to ctf -o empty.ctf empty.dat 2>err.txt
rc=$?
[ $rc = 0 ] || { cat err.txt; fail "a CPU of empty pages: convert exited $rc"; }
[ -s err.txt ] && { cat err.txt; fail "a CPU of empty pages: convert said something"; }
n=$(babeltrace2 empty.ctf 2>/dev/null | wc -l)
[ "$n" -gt 0 ] || fail "a CPU of empty pages: babeltrace2 reads no event of the other CPU"
echo "ok: a CPU of empty pages converts ($n events of the other CPU)"

# A full disk: a file size limit (EFBIG) for anyone; a small tmpfs (ENOSPC) as root.
expect_fail "file size limit" sh -c "trap '' XFSZ; ulimit -f 64; exec \"$TPOINT\" convert --to ctf -o big.ctf lost.dat"
[ -e big.ctf ] && fail "a CTF directory after a write error"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c "mount -t tmpfs -o size=256k none $TPOINT_TEST_TMP" 2>/dev/null; then
	mkdir full
	unshare -m sh -c "mount -t tmpfs -o size=128k none full && cd full &&
		\"$TPOINT\" convert --to json -o out.json \"$PWD/lost.dat\"; echo \$? >../rc
		ls -A >../ls" 2>err.txt
	[ "$(cat rc)" = 1 ] || { cat err.txt; fail "full disk: exit $(cat rc)"; }
	[ "$(wc -l <err.txt)" = 1 ] && grep -q 'No space left on device' err.txt ||
		{ cat err.txt; fail "full disk: not one line saying ENOSPC"; }
	[ -s ls ] && fail "full disk: left behind: $(cat ls)"
	echo "ok: a full tmpfs: $(cat err.txt)"
else
	echo "note: not root or no mount namespace: the full-disk case ran with a file size limit only"
fi
