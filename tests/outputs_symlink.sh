#!/bin/sh
# SPDX-License-Identifier: MIT
# Intermediate symbolic links in an output's path (issue 30). In a sticky, world-writable
# directory, a link owned by another user (uid 63010) points at a root-only directory that
# holds precious/a: root's `tpoint convert --force -o sticky/userlink/a` (--to v6, json, ctf),
# `tpoint record -o sticky/userlink/a`, `tpoint snapshot -o` and a program's TPOINT_RECORD
# are refused with one line,
# and precious/a stays byte for byte what it was (before, each replaced it). A root-owned
# link in a directory only root writes is followed as before. `-o link/` and `-o .` of a CTF
# directory leave no .NAME.old-* directory behind, and a full disk no .NAME.tmp-* file.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"
T=$B/tests/ctltarget
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a link owned by another uid: chown -h)"; exit 77; }

ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$TPOINT" record -e sample \
	-o in.dat -- "$B/examples/sample" >/dev/null 2>err.txt || { cat err.txt; fail "record sample"; }
top=$(pwd)
mkdir -m 700 secret && mkdir secret/precious || fail "mkdir"
echo "root's own" >secret/precious/a
mkdir secret/precious/c && echo "root's own" >secret/precious/c/f
cp secret/precious/a a.orig
mkdir -m 1777 sticky && ln -s "$top/secret/precious" sticky/userlink && chown -h 63010 sticky/userlink ||
	fail "a link owned by uid 63010 in a sticky directory"

# intact WHAT: precious/a and precious/c untouched, nothing new beside them
intact() {
	cmp -s a.orig secret/precious/a || fail "$1: precious/a changed"
	[ "$(cat secret/precious/c/f)" = "root's own" ] || fail "$1: precious/c changed"
	[ "$(ls -A secret/precious | tr '\n' ' ')" = "a c " ] ||
		fail "$1: left in precious: $(ls -A secret/precious)"
	[ "$(ls -A sticky)" = userlink ] || fail "$1: left in sticky: $(ls -A sticky)"
}
# refused WHAT: exit 1, one line naming the link
refused() {
	[ "$rc" = 1 ] || { cat err.txt; fail "$1: exit $rc, want 1"; }
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$1: not one line"; }
	grep -q "sticky/userlink.* owned by uid 63010" err.txt || { cat err.txt; fail "$1: the line names no link"; }
	intact "$1"
	echo "ok: $1: $(cat err.txt)"
}

for to in v6 json; do
	"$TPOINT" convert --force --to $to -o sticky/userlink/a in.dat 2>err.txt
	rc=$? refused "convert --force --to $to -o sticky/userlink/a"
done
"$TPOINT" convert --force --to ctf -o sticky/userlink/c in.dat 2>err.txt
rc=$? refused "convert --force --to ctf -o sticky/userlink/c"
"$TPOINT" convert --force --to v6 -o "$top/sticky/userlink/../precious/a" in.dat 2>err.txt
rc=$? refused "convert --force -o $top/sticky/userlink/../precious/a"
timeout 60 "$TPOINT" record -e 'tpt_ctl:*' -o sticky/userlink/a -- "$T" 0.2 1000 >out.txt 2>err.txt
rc=$? refused "record -o sticky/userlink/a"
[ ! -s out.txt ] || fail "record -o sticky/userlink/a: the command ran"

# The library's own recording (TPOINT_RECORD) goes the same way: refused, the program runs on.
TPOINT_EVENTS='tpt_ctl:*' TPOINT_RECORD=sticky/userlink/a timeout 60 "$T" 0.2 1000 >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || { cat err.txt; fail "TPOINT_RECORD=sticky/userlink/a: the program exited $rc"; }
grep -q '^last [0-9]*$' out.txt || fail "TPOINT_RECORD=sticky/userlink/a: the program did not run to its end"
grep -q "^tpoint: TPOINT_RECORD: sticky/userlink/a: .* owned by uid 63010.*running untraced$" err.txt ||
	{ cat err.txt; fail "TPOINT_RECORD=sticky/userlink/a: not said"; }
rc=1 refused "TPOINT_RECORD=sticky/userlink/a"

start 60 1000
"$TPOINT" enable -p "$P" 'tpt_ctl:*' >/dev/null || fail "enable -p"
timeout 60 "$TPOINT" snapshot -p "$P" -o sticky/userlink/a 2>err.txt
rc=$? refused "snapshot -o sticky/userlink/a"

# A link of root's, in a directory only root writes: followed.
mkdir plain && ln -s ../secret/precious plain/rootlink || fail "plain/rootlink"
"$TPOINT" convert --to v6 -o plain/rootlink/b in.dat || fail "convert -o plain/rootlink/b exited $?"
cmp -s in.dat secret/precious/b || fail "plain/rootlink/b is not the input"
"$TPOINT" record -e 'tpt_ctl:*' -o plain/rootlink/r.dat -- "$T" 0.2 1000 >/dev/null 2>err.txt ||
	{ cat err.txt; fail "record -o plain/rootlink/r.dat exited $?"; }
"$TPOINT" report secret/precious/r.dat >/dev/null || fail "plain/rootlink/r.dat does not read"
rm secret/precious/b secret/precious/r.dat
echo "ok: a root-owned link in a root-only directory is followed"

# -o LINK/ and -o . of a CTF directory: whatever is said, no .NAME.old-* left anywhere.
mkdir secret/ctfout && touch secret/ctfout/x && ln -s ../secret/ctfout plain/ctflink
"$TPOINT" convert --force --to ctf -o plain/ctflink/ in.dat 2>err.txt
echo "convert -o plain/ctflink/: exit $? $(cat err.txt)"
mkdir onlyfiles && touch onlyfiles/x
(cd onlyfiles && "$TPOINT" convert --force --to ctf -o . ../in.dat) 2>err.txt
echo "convert -o .: exit $? $(cat err.txt)"
left=$(find . -name '*.old-*' -o -name '*.tmp-*')
[ -z "$left" ] || fail "left behind: $left"
echo "ok: -o link/ and -o . leave no .old-* or .tmp-* behind"

# A full disk (a tmpfs of 16 KiB, filled): the library's trace.dat (`record --assemble`, the
# writer of TPOINT_RECORD's file) and convert's v6, JSON and CTF outputs are written as
# .NAME.tmp-* beside their target (lib/outplace.c), fail, and leave none behind.
mkdir full spool || fail "mkdir full spool"
TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$top/spool "$T" 0.2 500 >/dev/null || fail "ctltarget exited $?"
if mount -t tmpfs -o size=16k tmpfs full 2>/dev/null; then
	trap 'umount full 2>/dev/null' EXIT
	head -c 16384 /dev/zero >full/fill 2>/dev/null
	"$TPOINT" record --assemble spool -o full/p.dat 2>err.txt &&
		fail "record --assemble on a full disk exited 0"
	grep -q "No space left on device" err.txt ||
		{ cat err.txt; fail "record --assemble on a full disk: ENOSPC not said"; }
	for to in v6 json ctf; do
		"$TPOINT" convert --to $to -o full/c.$to in.dat 2>err.txt &&
			fail "convert --to $to on a full disk exited 0"
		grep -q "No space left on device" err.txt ||
			{ cat err.txt; fail "convert --to $to on a full disk: ENOSPC not said"; }
	done
	left=$(find full -name '*.tmp-*' -o -name 'c.*' -o -name 'p.dat')
	[ -z "$left" ] || fail "a full disk: left behind: $left"
	umount full && trap - EXIT
	echo "ok: a full disk leaves no .tmp-* behind, of the library or of convert"
else
	echo "a full disk: not tried (no tmpfs mount here)"
fi
exit 0
