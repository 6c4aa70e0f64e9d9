#!/bin/sh
# TPOINT_RECORD in a shared directory (issue 30): another user who created FILE.spool
# beforehand in a sticky directory, with a hard link to it, read the whole recording of
# root's program (opened without O_EXCL, written through the planted file) and could
# rewrite it before it was read at exit. The library spools into a directory of its own,
# made with a name nobody knows beforehand (FILE.spool.XXXXXX, mode 0700): the planted
# file, its link, a planted FIFO and symbolic link stay as they were, and the recordings
# are made; while one runs, the other user can neither list nor read its spool.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "not root: cannot plant files as another user"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
. "$(dirname "$0")/lib/embtarget.sh"
U=63002
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
S=$(mktemp -d /tmp/tpoint-sticky.XXXXXX) || { echo "cannot make a directory in /tmp"; exit 77; }
P=
trap '[ -n "$P" ] && kill -9 $P 2>/dev/null; rm -rf "$S"' EXIT
chmod 1777 "$S"
as_user sh -c "cd '$S' && echo planted >x.dat.spool && chmod 666 x.dat.spool &&
	ln x.dat.spool keep && mkfifo -m 666 f.dat.spool && ln -s /etc/hostname l.dat.spool" ||
	fail "planting files as uid $U"
was=$(stat -c '%s %Y %h %u %a' "$S/x.dat.spool")

# While it runs: the spools are in a directory the other user cannot enter.
TPOINT_RECORD=$S/x.dat "$E" wait 3000 "$S/go" >out.txt 2>err.txt &
P=$!
wait_for out.txt ready 60 || fail "the program did not start"
set -- "$S"/x.dat.spool.*
d=$1
if [ $# = 1 ] && [ -d "$d" ]; then
	[ "$(stat -c '%a %u' "$d")" = "700 0" ] || fail "the spool directory: $(stat -c '%a %u' "$d"), want 700 0"
	[ "$(stat -c '%a %u %h' "$d/x.dat.spool")" = "600 0 1" ] ||
		fail "the spool: $(stat -c '%a %u %h' "$d/x.dat.spool"), want 600 0 1"
	as_user ls "$d" >/dev/null 2>&1 && fail "uid $U lists the spool directory"
	as_user cat "$d/x.dat.spool" >/dev/null 2>&1 && fail "uid $U reads the spool"
else
	d= # said below, after what the planted file shows
fi
wc -c <"$S/keep" >keep.size
touch "$S/go"
wait $P
rc=$?
P=
[ "$(cat "$S/x.dat.spool")" = planted ] && [ "$(cat "$S/keep")" = planted ] ||
	fail "the planted spool or its hard link changed: uid $U's link held $(cat keep.size) bytes of the recording while it ran, $(wc -c <"$S/keep") at the end"
[ "$(stat -c '%s %Y %h %u %a' "$S/x.dat.spool")" = "$was" ] ||
	fail "the planted spool: $(stat -c '%s %Y %h %u %a' "$S/x.dat.spool"), was $was"
[ -n "$d" ] || fail "not one spool directory beside x.dat while it ran: $*"
[ $rc = 0 ] || { cat err.txt; fail "the program exited $rc"; }
[ ! -s err.txt ] || { cat err.txt; fail "the recording said something"; }
[ "$(events "$S/x.dat")" = 6000 ] || fail "x.dat holds $(events "$S/x.dat") events, want 6000"
echo "ok: a planted x.dat.spool and its hard link: untouched; x.dat recorded (6000 events) in a 0700 directory of its own"

# A planted FIFO and symbolic link by the spool's old name: left as they are, no word, and
# the recording made (the FIFO never blocks it).
for k in f l; do
	TPOINT_RECORD=$S/$k.dat timeout 60 "$E" exit 2000 >out.txt 2>err.txt
	rc=$?
	[ $rc = 0 ] || { cat err.txt; fail "TPOINT_RECORD=$k.dat beside a planted $k.dat.spool: exit $rc"; }
	[ ! -s err.txt ] || { cat err.txt; fail "$k.dat: the recording said something"; }
	[ "$(events "$S/$k.dat")" = 2000 ] || fail "$k.dat holds $(events "$S/$k.dat") events, want 2000"
done
[ -p "$S/f.dat.spool" ] && [ "$(readlink "$S/l.dat.spool")" = /etc/hostname ] ||
	fail "the planted FIFO or link changed: $(ls -l "$S")"
left=$(ls "$S" | grep -v -x -e x.dat -e x.dat.spool -e keep -e f.dat -e f.dat.spool -e l.dat \
	-e l.dat.spool -e go)
[ -z "$left" ] || fail "left behind: $left"
echo "ok: a planted FIFO and symbolic link by the spool's name: untouched, f.dat and l.dat recorded"
