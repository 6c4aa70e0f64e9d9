#!/bin/sh
# Refusals of embedded recording that said nothing (issue 30): the README promises one line
# for a recording asked for by name that cannot be made. Each case below gets one line on
# stderr without TPOINT_DEBUG, naming the variable, the value and what was done instead; the
# program runs on and exits 0, and what was recorded stays readable:
#   - TPOINT_FILTER with a syntax error, an unknown event or field, or no event at all;
#   - TPOINT_RECORD in a directory that does not exist;
#   - TPOINT_RECORD's output replaced while the program runs (a symbolic link, a FIFO, a
#     directory): the recording is kept, and the line gives the command that makes the file;
#   - a full disk (a 256 KiB tmpfs, as root): the same; the file the command makes counts
#     the events lost.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/embtarget.sh"

# one_line PATTERN WHAT: err.txt is that one line.
one_line() {
	[ "$(wc -l <err.txt)" = 1 ] && grep -q -- "$1" err.txt ||
		{ cat err.txt; fail "$2: not one line like: $1"; }
}

# TPOINT_FILTER: the recording is made, unfiltered where the filter was not set.
filter() {
	rm -rf o.dat o.dat.*
	TPOINT_RECORD=o.dat TPOINT_FILTER=$1 "$E" exit 10 >out.txt 2>err.txt ||
		{ cat err.txt; fail "TPOINT_FILTER='$1': the program exited $?"; }
	one_line "$2" "TPOINT_FILTER='$1'"
	[ "$(events o.dat)" = 10 ] || fail "TPOINT_FILTER='$1': o.dat holds $(events o.dat) of 10 events"
	echo "ok: TPOINT_FILTER='$1': $(cat err.txt)"
}
filter 'msg_tick:n ==' "^tpoint: TPOINT_FILTER: 'msg_tick:n ==': syntax error .*; msg_tick records unfiltered$"
filter 'msg_tick:nn == 1' "^tpoint: TPOINT_FILTER: 'msg_tick:nn == 1': no field 'nn' in tpt_msg:msg_tick.*; msg_tick records unfiltered$"
filter 'tpt_msg:nosuch:n == 1' "^tpoint: TPOINT_FILTER: 'tpt_msg:nosuch:n == 1': no event 'tpt_msg:nosuch' in this program; the filter was ignored$"
filter 'n == 1' "^tpoint: TPOINT_FILTER: 'n == 1': expected system:event:expression or event:expression; ignored$"

# TPOINT_RECORD in a directory that does not exist: said, and the program runs untraced.
TPOINT_RECORD=nodir/o.dat "$E" exit 10 >out.txt 2>err.txt || { cat err.txt; fail "nodir: exit $?"; }
one_line "^tpoint: TPOINT_RECORD=nodir/o.dat: cannot record: nodir/o.dat: No such file or directory; running untraced$" \
	"TPOINT_RECORD=nodir/o.dat"
[ "$(cat out.txt)" = done ] || fail "nodir: the program did not run to its end"
echo "ok: TPOINT_RECORD=nodir/o.dat: $(cat err.txt)"

# kept WHAT OUT N: err.txt is the one line of a recording kept in its spool directory; the
# command it gives makes OUT (or FILE.assembled, when OUT cannot be) with N events.
kept() {
	one_line "^tpoint: TPOINT_RECORD=$2: .*; .*$2 is not written: the recording is kept in .*/$2\.spool\.[A-Za-z0-9]*, 'tpoint record --assemble .*/$2\.spool\.[A-Za-z0-9]* -o .*/$2' makes the file$" "$1"
	dir=$(sed -n "s/.*'tpoint record --assemble \(.*\) -o .*' makes the file$/\1/p" err.txt)
	[ -d "$dir" ] || fail "$1: the directory named is not there: $dir"
	"$TPOINT" record --assemble "$dir" -o assembled.dat 2>asm.txt ||
		{ cat asm.txt; fail "$1: the command given failed"; }
	[ ! -e "$dir" ] || fail "$1: --assemble left $dir"
	[ "$(events assembled.dat)" = "$3" ] || fail "$1: the file assembled holds $(events assembled.dat) of $3 events"
}

# The output replaced while the program runs: the file is not written through the
# replacement, and the recording is kept.
for k in link fifo dir; do
	# out.txt too: the shell empties it only once the program has started, and the last
	# round's "ready" would send the replacement ahead of the program's own o.dat.
	rm -rf o.dat o.dat.* go assembled.dat out.txt
	TPOINT_RECORD=o.dat "$E" wait 1000 go >out.txt 2>err.txt &
	P=$!
	wait_for out.txt ready 60 || { kill -9 $P; fail "$k: the program did not start"; }
	rm o.dat
	case $k in
	link) ln -s target o.dat ;;
	fifo) mkfifo o.dat ;;
	dir) mkdir o.dat ;;
	esac
	touch go
	timeout 60 sh -c "while kill -0 $P 2>/dev/null; do sleep 0.05; done"
	wait $P || { cat err.txt; fail "$k: the program exited $?"; }
	kept "o.dat replaced by a $k" o.dat 2000
	[ ! -e target ] || fail "$k: written through the link"
	echo "ok: o.dat replaced by a $k while it ran: $(cat err.txt)"
done
rm -rf o.dat go

# A full disk: a small tmpfs, mounted by the test (root only).
[ "$(id -u)" = 0 ] || { echo "not root: cannot mount a tmpfs to fill; the other cases passed"; exit 77; }
mkdir mnt
mount -t tmpfs -o size=256k tpoint-test mnt 2>/dev/null ||
	{ rmdir mnt; echo "cannot mount a tmpfs; the other cases passed"; exit 77; }
trap 'umount mnt 2>/dev/null' EXIT
TPOINT_RECORD=mnt/o.dat "$E" exit 200000 >out.txt 2>err.txt || { cat err.txt; fail "full disk: exit $?"; }
one_line "^tpoint: TPOINT_RECORD=mnt/o.dat: spool .*: No space left on device; .*: No space left on device; .*mnt/o.dat is not written: the recording is kept in .*mnt/o.dat.spool.[A-Za-z0-9]*, 'tpoint record --assemble .*mnt/o.dat.spool.[A-Za-z0-9]* -o .*mnt/o.dat' makes the file$" "full disk"
[ ! -e mnt/o.dat ] || fail "full disk: an empty mnt/o.dat is left"
dir=$(sed -n "s/.*'tpoint record --assemble \(.*\) -o .*' makes the file$/\1/p" err.txt)
"$TPOINT" record --assemble "$dir" -o full.dat 2>asm.txt || { cat asm.txt; fail "full disk: --assemble failed"; }
n=$(events full.dat)
[ "$n" -gt 0 ] && [ "$n" -lt 200000 ] || fail "full disk: the file assembled holds $n events"
"$TPOINT" report --stats full.dat >stats.txt || fail "report --stats full.dat"
grep -q "^tpt_msg:msg_tick  *200000  *0  *0  *$n  *$((200000 - n))  *$n" stats.txt ||
	{ cat stats.txt; fail "full disk: the counts do not add up to 200000 hits, $n recorded"; }
echo "ok: a full disk: $(cut -c1-100 err.txt)...; --assemble made $n events, $((200000 - n)) counted lost"
