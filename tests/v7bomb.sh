#!/bin/sh
# SPDX-License-Identifier: MIT
# Decompression bombs (issue 30): a 49 KB trace.dat version 7 whose 288 zstd chunks of zeros
# declare 1.1 GiB of pages, its zlib twin (1.2 MB), and the issue's 43 KB file of 18 chunks of
# 64 MiB (more than a chunk may hold). Every verb that reads them (report,
# report --json, convert --to ctf|json|v6) exits 1 with one line that names the file and the
# ratio, within 128 MB of memory (peak RSS) and without writing 32 MiB to any file (ulimit -f:
# the old reader filled $TMPDIR with the expansion); $TMPDIR is left empty. A legitimate v7
# file still reads as its version 6 original, and without writing any file (it is read in
# memory, a chunk at a time).
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
S=$(cd "$(dirname "$0")" && pwd)
for t in python3 zstd; do
	command -v $t >/dev/null || { echo "SKIP: $t is not installed (scripts/deps.sh installs it)"; exit 77; }
done
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time is not installed (package time)"; exit 77; }
echo "leak:libtraceevent.so" >lsan.supp
LSAN_OPTIONS="suppressions=$(pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
# the sanitizers' shadow memory is not the reader's
case "${ASAN_OPTIONS:-}${LD_PRELOAD:-}" in *asan*) rss_max=400000 ;; *) rss_max=131072 ;; esac
nm "$TPOINT" 2>/dev/null | grep -q __asan_init && rss_max=400000

ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$TPOINT" record -e sample -o s.dat \
	-- "$B/examples/sample" >/dev/null 2>rec.err || { cat rec.err; fail "record sample exited $?"; }
"$TPOINT" report s.dat >s.tp || fail "report s.dat exited $?"
for z in zstd zlib; do
	"$TPOINT" convert s.dat --to v7 --compress=$z -o s.$z.dat || fail "convert --to v7 --compress=$z"
	"$TPOINT" report s.$z.dat >s.$z.tp || fail "report s.$z.dat exited $?"
	cmp -s s.tp s.$z.tp || fail "s.$z.dat does not report as s.dat does"
	# read in memory, a chunk at a time: not one byte written to a file (ulimit -f 0)
	(ulimit -f 0; exec "$TPOINT" report s.$z.dat) >/dev/null 2>err.txt ||
		{ cat err.txt; fail "report s.$z.dat wrote a file (a version 6 copy?): exit $?"; }
	python3 "$S/v7/bomb.py" s.$z.dat bomb.$z.dat 288 || fail "bomb.py $z"
done
python3 "$S/v7/bomb.py" s.zstd.dat bomb64.zstd.dat 18 64 || fail "bomb.py 18 64"
[ "$(stat -c %s bomb.zstd.dat)" -lt 65536 ] || fail "the zstd bomb is $(stat -c %s bomb.zstd.dat) bytes"

mkdir tmp
for f in bomb.zstd.dat bomb.zlib.dat bomb64.zstd.dat; do
	for verb in "report" "report --json" "convert --to ctf -o out.ctf" \
		"convert --to json -o out.json" "convert --to v6 -o out6.dat"; do
		# shellcheck disable=SC2086
		(ulimit -f 65536; TMPDIR=$(pwd)/tmp exec /usr/bin/time -o rss.txt -f %M \
			"$TPOINT" $verb $f) >out.txt 2>err.txt
		rc=$?
		[ $rc = 1 ] || { cat err.txt; fail "$verb $f exited $rc, not 1"; }
		[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$verb $f: not one line"; }
		# the ratio, or (the 64 MiB chunks) the size a chunk claims
		want="chunk [0-9]* of CPU 0 .*( [0-9]* times its| claims 67108864 bytes uncompressed)"
		grep -Eq "^tpoint [a-z]*: $f: version 7: $want" err.txt ||
			{ cat err.txt; fail "$verb $f: the line names no file, chunk or ratio"; }
		rss=$(tail -n 1 rss.txt)
		[ "$rss" -lt $rss_max ] || fail "$verb $f: peak RSS $rss KB (at most $rss_max)"
		[ -z "$(ls -A tmp)" ] || { ls -la tmp; fail "$verb $f left files in \$TMPDIR"; }
		[ ! -s out.txt ] || fail "$verb $f wrote to stdout"
		ls out.ctf out.json out6.dat 2>/dev/null && fail "$verb $f left an output"
	done
done
exit 0
