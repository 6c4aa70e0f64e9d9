#!/bin/sh
# Outputs are regular files. An output that exists and is not one (a device node, a FIFO, a
# symbolic link) is refused, said, and left as it is: by TPOINT_RECORD (the program runs on
# untraced, and a FIFO does not block it in the library's constructor), by tpoint record -o
# (before the command runs) and by tpoint snapshot -o. Before, each replaced the node with
# a regular file (as root, `tpoint record -o /dev/null` would replace /dev/null) and
# TPOINT_RECORD=FIFO hung the program before main.
# The device node is a scratch one (mknod c 1 3, /dev/null's numbers): root only; without
# root the FIFO and link cases still run, and the test ends with exit 77 saying so.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"
T=$B/tests/ctltarget

kinds="fifo link"
mkfifo fifo || fail "mkfifo"
echo "the link's target" >target.dat
ln -s target.dat link
if [ "$(id -u)" = 0 ] && mknod dev c 1 3 2>/dev/null; then
	kinds="dev $kinds"
fi

# The output is still what it was: the same node, the same link, the target untouched.
intact() {
	case $1 in
	dev) [ -c dev ] && [ "$(stat -c %t:%T dev)" = "1:3" ] ;;
	fifo) [ -p fifo ] ;;
	link) [ -L link ] && [ "$(readlink link)" = target.dat ] &&
		[ "$(cat target.dat)" = "the link's target" ] ;;
	esac || fail "$2: $1 is not what it was: $(ls -l "$1")"
	# Nothing beside it either: no spool, no half-written file, no spool directory.
	leftovers=$(ls -A | grep -v -e '^dev$' -e '^fifo$' -e '^link$' -e '^target.dat$' \
		-e '\.txt$' -e '^snap-ok.dat$' -e '^target.out$')
	[ -z "$leftovers" ] || fail "$2: left behind: $leftovers"
}

what() {
	case $1 in
	dev) echo "is a character device, not a regular file" ;;
	fifo) echo "is a FIFO, not a regular file" ;;
	link) echo "is a symbolic link" ;;
	esac
}

for k in $kinds; do
	# The library: refused with one line (even without TPOINT_DEBUG), the program runs on.
	TPOINT_EVENTS='tpt_ctl:*' TPOINT_RECORD=$k timeout 60 "$T" 0.2 1000 >out.txt 2>err.txt
	rc=$?
	[ $rc = 124 ] && fail "TPOINT_RECORD=$k: the program hung (killed after 60 s)"
	[ $rc = 0 ] || { cat err.txt; fail "TPOINT_RECORD=$k: the program exited $rc"; }
	grep -q '^last [0-9]*$' out.txt || fail "TPOINT_RECORD=$k: the program did not run to its end"
	grep -q "^tpoint: TPOINT_RECORD: $k $(what $k).*running untraced$" err.txt ||
		{ cat err.txt; fail "TPOINT_RECORD=$k: not said on stderr"; }
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "TPOINT_RECORD=$k: more than one line"; }
	intact $k "TPOINT_RECORD=$k"
	echo "ok: TPOINT_RECORD=$k: refused in one line, the program ran untraced, $k untouched"

	# tpoint record -o: refused before the command runs.
	timeout 60 "$TPOINT" record -e 'tpt_ctl:*' -o $k -- "$T" 0.2 1000 >out.txt 2>err.txt
	rc=$?
	[ $rc = 1 ] || { cat err.txt; fail "record -o $k: exit $rc, want 1"; }
	grep -q "^tpoint record: $k $(what $k)" err.txt ||
		{ cat err.txt; fail "record -o $k: no error naming $k"; }
	[ ! -s out.txt ] || fail "record -o $k: the command ran: $(cat out.txt)"
	intact $k "record -o $k"
	echo "ok: record -o $k: refused before the command ran ($(cat err.txt))"
done

# tpoint snapshot -o: of a process keeping events in memory; a good one first.
start 60 1000
"$TPOINT" enable -p "$P" 'tpt_ctl:*' >/dev/null || fail "enable -p"
wait_count "$P" tpt_ctl:ctl_tick recorded 10 || fail "nothing recorded in memory"
"$TPOINT" snapshot -p "$P" -o snap-ok.dat 2>err.txt || { cat err.txt; fail "snapshot to a file"; }
for k in $kinds; do
	timeout 60 "$TPOINT" snapshot -p "$P" -o $k 2>err.txt
	rc=$?
	[ $rc = 1 ] || { cat err.txt; fail "snapshot -o $k: exit $rc, want 1"; }
	grep -q "^tpoint snapshot: $k $(what $k)" err.txt ||
		{ cat err.txt; fail "snapshot -o $k: no error naming $k"; }
	intact $k "snapshot -o $k"
	echo "ok: snapshot -o $k: refused, $k untouched"
done
# And --assemble, the other way the tool writes a file.
mkdir spools && cp snap-ok.dat spools/not-a-spool.spool
"$TPOINT" record --assemble spools -o fifo 2>err.txt
[ $? = 1 ] && grep -q "fifo $(what fifo)" err.txt || { cat err.txt; fail "--assemble -o fifo"; }
[ -d spools ] || fail "--assemble -o fifo removed its input"
rm -r spools
intact fifo "record --assemble -o fifo"
echo "ok: record --assemble -o fifo: refused, the spools kept"

case $kinds in
dev*) ;;
*) echo "device-node cases need root (mknod); the FIFO and link cases passed"; exit 77 ;;
esac
