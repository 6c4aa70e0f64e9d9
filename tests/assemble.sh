#!/bin/sh
# Damaged spools for `tpoint record --assemble`, and files that are not trace.dat files for
# `tpoint report` and `tpoint list`. A spool is the traced program's writing: whatever is in
# it, the tool must say what it cannot read (the file, the offset, what is wrong) with a
# failure status, write what it can read, and leave the directory as it was; only a
# directory read to the end of every spool goes. Report and list refuse a FIFO or a device
# at once instead of waiting on it or reading it without end.
set -u
B=$(dirname "$TPOINT")
MUT=$B/tests/spoolmut
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
# Random mutations tried (on the two kinds of spool together), and bits flipped beyond the
# header's: enough for each kind of damage in make check, ten times that in make
# check-stress (TPOINT_TEST_STRESS=1); half under the sanitizers, which make each run some
# ten times slower.
case ${TPOINT_TEST_STRESS:-0} in
0) MUTATIONS=40 FLIPS=60 ;;
*) MUTATIONS=400 FLIPS=600 ;;
esac
case ${O:-build} in
*san*) MUTATIONS=$((MUTATIONS / 2)) FLIPS=$((FLIPS / 2)) ;;
esac
MUTATIONS=${TPOINT_TEST_MUTATIONS:-$MUTATIONS}
FLIPS=${TPOINT_TEST_FLIPS:-$FLIPS}

# The spools of a recording, as `record` keeps them when it cannot write the file: once
# with the pages packed (the default), once with the pages as they are.
mkdir packed raw
TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$PWD/packed "$B/tests/ctltarget" 0.5 500 >/dev/null ||
	fail "ctltarget (packed) exited $?"
TPOINT_SPOOL_PACK=0 TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$PWD/raw "$B/tests/ctltarget" 0.5 500 \
	>/dev/null || fail "ctltarget (raw) exited $?"

events() { trace-cmd report "$1" 2>/dev/null | grep -c 'ctl_tick:\|ctl_odd:'; }
sanitizer() { grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$1"; }

# The whole of each: exit 0, every event in the file, the directory gone.
for kind in packed raw; do
	cp -a $kind $kind.whole
	"$TPOINT" record --assemble $kind.whole -o $kind.dat 2>err.txt ||
		{ cat err.txt; fail "--assemble of an intact $kind spool exited $?"; }
	[ ! -e $kind.whole ] || fail "--assemble of an intact $kind spool left the directory"
	n=$(events $kind.dat)
	[ "$n" -gt 100 ] || fail "only $n events in $kind.dat"
	eval "all_$kind=$n"
done
echo "ok: intact spools: $all_packed and $all_raw events, exit 0, the directories gone"

# CASE KIND: a copy of KIND's directory in CASE.d, damaged by the commands that follow on
# stdin (with $spool set), kept as CASE.orig; then --assemble of it. Sets rc.
damage() {
	rm -rf "$1.d" "$1.orig" && cp -a "$2" "$1.d" || fail "cannot copy $2"
	spool=$(ls "$1.d"/*.spool)
	. /dev/stdin >"$1.mut" || fail "$1: cannot damage $spool"
	cp -a "$1.d" "$1.orig"
	timeout 120 "$TPOINT" record --assemble "$1.d" -o "$1.dat" >/dev/null 2>"$1.err"
	rc=$?
	! sanitizer "$1.err" || { cat "$1.err"; fail "$1: a sanitizer report"; }
}

# CASE: refused with the spool's name and the offset, the directory as it was, and the file
# holds what could be read (trace-cmd reads it; the summary says what it holds).
refused() {
	[ "$rc" = 1 ] || { cat "$1.err"; fail "$1: exit $rc, expected 1: $(cat "$1.mut")"; }
	diff -r "$1.orig" "$1.d" >/dev/null || fail "$1: the directory was changed or removed"
	grep -q "$(basename "$spool"): offset $2: " "$1.err" ||
		{ cat "$1.err"; fail "$1: the spool and offset $2 not named"; }
	trace-cmd report "$1.dat" >/dev/null 2>&1 || fail "$1: trace-cmd cannot read $1.dat"
	kept=$(events "$1.dat")
	said=$(sed -n 's/.*\.dat: \([0-9]*\) events from.*/\1/p' "$1.err")
	[ "$kept" = "$said" ] || { cat "$1.err"; fail "$1: $kept events in the file, $said said"; }
}

# A chunk that says it is 0xfffffff0 bytes long, half way through: the events before it are
# kept, nothing after it can be found.
nchunks=$("$MUT" packed/*.spool list | awk '$2 == 7 || $2 == 8' | wc -l)
damage huge packed <<EOF
"$MUT" "\$spool" hugesize $((nchunks / 2))
EOF
refused huge "$(cat huge.mut)"
# The middle one of the page chunks: packed (type 8) or, where packing did not pay, as it is (7).
grep -q "page chunk (type [78]) of 4294967280 bytes" huge.err || { cat huge.err; fail "huge: what"; }
[ "$kept" -gt 0 ] && [ "$kept" -lt "$all_packed" ] ||
	fail "huge: $kept events kept of $all_packed, expected those before the damage"
echo "ok: a chunk of 0xfffffff0 bytes: exit 1, offset named, $kept of $all_packed events kept, the directory kept"

# A damaged page: a packed page's header, and the second record's header in a page as it
# is. The rest of the spool is read: only that page's records are missing, and said.
damage pagehdr packed <<EOF
"$MUT" "\$spool" packedhdr 3
EOF
refused pagehdr "$(cat pagehdr.mut)"
grep -q "does not unpack" pagehdr.err || { cat pagehdr.err; fail "pagehdr: what"; }
[ "$kept" -gt $((all_packed / 2)) ] && [ "$kept" -lt "$all_packed" ] ||
	fail "pagehdr: $kept events kept of $all_packed"
damage rechdr raw <<EOF
"$MUT" "\$spool" rechdr 3
EOF
refused rechdr "$(cat rechdr.mut)"
grep -q "page chunk of [0-9]* bytes: no record at byte" rechdr.err || { cat rechdr.err; fail "rechdr: what"; }
[ "$kept" -gt $((all_raw / 2)) ] && [ "$kept" -lt "$all_raw" ] ||
	fail "rechdr: $kept events kept of $all_raw"
echo "ok: a damaged page header: exit 1, offset named, the other pages' events kept"

# A record whose string says it runs past the record's end, in a spool whose checksums are
# right (made so on purpose): that record is left out and said, the rest is read. Before, it
# went into the file, which `tpoint report` then called corrupt.
damage dataloc raw <<EOF
"$MUT" "\$spool" dataloc 3
EOF
refused dataloc "$(cat dataloc.mut)"
grep -q "1 records of event tpt_ctl:ctl_tick shorter than its format's [0-9]* bytes, or with a string or array past their end" \
	dataloc.err || { cat dataloc.err; fail "dataloc: what"; }
[ "$kept" = $((all_raw - 1)) ] || fail "dataloc: $kept events kept of $all_raw, expected all but one"
"$TPOINT" report dataloc.dat >/dev/null 2>dataloc.rep ||
	{ cat dataloc.rep; fail "dataloc: tpoint report refuses what --assemble wrote"; }
echo "ok: a record whose string runs past its end: exit 1, offset named, that record left out"

# A spool cut to its 40-byte header: nothing in it says the recording ended.
damage short packed <<EOF
truncate -s 40 "\$spool" && echo 40
EOF
refused short 40
grep -q "incomplete: .*no end mark" short.err || { cat short.err; fail "short: what"; }
echo "ok: a spool of 40 bytes: exit 1, said to be incomplete, the directory kept"

# A byte that is not printable ASCII in an event's format text (libtraceevent 1.7.1 takes it
# for the text's end and crashes; trace-cmd report too): that event is left out, and said.
fmt_off=$("$MUT" packed/*.spool list | awk '$2 == 1 { print $1; exit }')
damage nonascii packed <<EOF
off=\$(grep -abo 'field:' "\$spool" | awk -F: '\$1 > $fmt_off { print \$1; exit }')
printf '\\316' | dd of="\$spool" bs=1 seek=\$off conv=notrunc 2>/dev/null &&
	"$MUT" "\$spool" reseal && echo $fmt_off
EOF
refused nonascii "$(cat nonascii.mut)"
grep -q "event chunk of [0-9]* bytes: not an id and four strings of printable text" \
	nonascii.err || { cat nonascii.err; fail "nonascii: what"; }
"$TPOINT" report nonascii.dat >/dev/null 2>nonascii.rep ||
	{ cat nonascii.rep; fail "nonascii: tpoint report refuses what --assemble wrote"; }
echo "ok: a format text that is not ASCII: exit 1, offset named, the event left out, the file readable"

# An event's name of 200 letters (names are shorter than 64 with their NUL): the event is
# left out and said, as any other damaged event chunk (a formats block overflowed a buffer).
damage longname packed <<EOF
"$MUT" "\$spool" longname 200
EOF
refused longname "$(cat longname.mut)"
grep -q "event chunk of [0-9]* bytes: .*names of at most 63 characters" longname.err ||
	{ cat longname.err; fail "longname: what"; }
echo "ok: an event name of 200 letters: exit 1, offset named, the event left out"

# More distinct events than a file has ids (0x7000 to 0xffff): each one past them is named,
# and the spool is read to its end (the search for a free id went round without end before).
damage manyevents packed <<EOF
"$MUT" "\$spool" manyevents 36900
EOF
[ "$rc" = 1 ] || { tail -3 manyevents.err; fail "manyevents: exit $rc, expected 1"; }
grep -q "offset [0-9]*: event tpoint:many3686[0-9]: the file has no id left for it (36864 distinct" \
	manyevents.err || { tail -3 manyevents.err; fail "manyevents: what"; }
rm -f manyevents.dat
echo "ok: 36900 events more in a spool: exit 1, those past the file's ids named"

# Not a spool at all, and a FIFO in the spool's place: named, never waited on.
damage notspool packed <<EOF
echo 'not a spool' >"\$spool" && echo 0
EOF
refused notspool 0
damage fifo packed <<EOF
rm "\$spool" && mkfifo "\$spool" && echo 0
EOF
[ "$rc" = 1 ] && grep -q "offset 0: not a regular file" fifo.err || { cat fifo.err; fail "fifo spool: exit $rc"; }
echo "ok: a file that is not a spool, and a FIFO: refused by name, exit 1"

# Random damage: whatever it is, no crash and no hang; refused with the directory as it was,
# or taken whole (damage no check can see, as in a record's values) into a file trace-cmd
# reads.
i=0 refusals=0
while [ $i -lt "$MUTATIONS" ]; do
	kind=packed
	[ $((i % 2)) = 0 ] || kind=raw
	damage rnd $kind <<EOF
"$MUT" "\$spool" random $i
EOF
	case $rc in
	0) ;;
	1) refusals=$((refusals + 1))
	   diff -r rnd.orig rnd.d >/dev/null || fail "mutation $i ($kind, $(cat rnd.mut)): the directory was changed"
	   grep -q "damaged: \|incomplete: " rnd.err || { cat rnd.err; fail "mutation $i: exit 1 without saying what"; } ;;
	*) cat rnd.err; fail "mutation $i ($kind, $(cat rnd.mut)): exit $rc" ;;
	esac
	trace-cmd report rnd.dat >/dev/null 2>&1 ||
		fail "mutation $i ($kind, $(cat rnd.mut)): trace-cmd cannot read what --assemble wrote"
	i=$((i + 1))
done
# Half of the mutations are in chunks' headers: most of those must be seen.
[ $refusals -ge $((MUTATIONS / 4)) ] || fail "only $refusals of $MUTATIONS random mutations refused"
echo "ok: $MUTATIONS random mutations: $refusals refused with the directory kept, no crash, every file readable"

# One flipped bit anywhere, as a disk or someone else's hand may flip it: each chunk and the
# header have a checksum, so every such spool is refused (exit 1, the directory kept, the
# damage named), and none makes a different file with exit 0. Every byte of the header, and
# bits spread over the whole file, each bit of a byte in turn.
for kind in packed raw; do
	bits=$("$MUT" $kind/*.spool bits)
	i=0
	while [ $i -lt $((FLIPS / 2 + 40)) ]; do
		if [ $i -lt 40 ]; then
			bit=$((i * 8 + i % 8))
		else
			j=$((i - 40))
			bit=$((j * (bits / 8) / (FLIPS / 2) * 8 + j % 8))
		fi
		damage flip $kind <<EOF
"$MUT" "\$spool" flip $bit
EOF
		[ "$rc" = 1 ] || { cat flip.err; fail "bit $bit of $kind flipped ($(cat flip.mut)): exit $rc, expected 1"; }
		diff -r flip.orig flip.d >/dev/null ||
			fail "bit $bit of $kind flipped: the directory was changed"
		grep -q "damaged: .*\.spool: offset [0-9]*: " flip.err ||
			{ cat flip.err; fail "bit $bit of $kind flipped: exit 1 without naming the damage"; }
		i=$((i + 1))
	done
done
echo "ok: $((2 * (FLIPS / 2 + 40))) spools with one bit flipped: each refused, damage named, the directory kept"

# report and list: a device that never ends and a FIFO nobody writes are refused at once.
mkfifo fifo
for args in "report /dev/zero" "report fifo" "list fifo" "list /dev/zero"; do
	timeout 20 "$TPOINT" $args >/dev/null 2>err.txt
	rc=$?
	[ $rc = 1 ] || { cat err.txt; fail "tpoint $args: exit $rc, expected 1 at once"; }
	grep -q "not a regular file" err.txt || { cat err.txt; fail "tpoint $args: the reason"; }
done
echo "ok: report and list refuse /dev/zero and a FIFO at once"
