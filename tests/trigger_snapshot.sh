#!/bin/sh
# SPDX-License-Identifier: MIT
# The snapshot trigger (issue 35): `snapshot if status >= 500` on tests/snaptarget.c's
# requests leaves PROGRAM-PID-N.dat whose last records are those before the error, the error
# last, read back by `tpoint report` (its header line names what fired it) and by trace-cmd;
# :3 makes exactly 3 files in a storm of 100 errors; firings from signal handlers, from 16
# threads at once and in a child after fork() each make a file or are counted in the one
# line that says so; a name taken is never overwritten; `tpoint list -p` lists the trigger
# as the kernel does; a directory that does not exist or that others may write in is
# refused when the trigger is set; nothing recording is said once; TPOINT_COMPRESS makes it
# version 7; `report --json` marks the record that fired it.
# (tests/trigger_snapshot_root.sh: another user's directory.)
set -u
fail() { echo "FAIL: $*"; exit 1; }
B=$(dirname "$TPOINT")
T=$B/tests/snaptarget
. "$(dirname "$0")/lib/wait.sh"
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
pids=""
trap 'for p in $pids; do kill -9 "$p" 2>/dev/null; done' EXIT
TRIG='tpt_snap:request:snapshot if status >= 500'

# snap DIR TRIGGER ARGS...: snaptarget ARGS with the trigger, its snapshots into DIR.
snap() {
	d=$1 trig=$2
	shift 2
	rm -rf "$d"
	mkdir "$d"
	TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$trig TPOINT_SNAPSHOT_DIR=$PWD/$d "$T" "$@" \
		2>"$d.err" || fail "snaptarget $* exited $?"
}

# valid FILE: both readers take it, and its last record is an error.
valid() {
	"$TPOINT" report "$1" >"$1.txt" 2>"$1.rerr" || { cat "$1.rerr"; fail "tpoint report $1"; }
	trace-cmd report "$1" >"$1.tc" 2>"$1.tcerr" || { cat "$1.tcerr"; fail "trace-cmd report $1"; }
	tail -1 "$1.txt" | grep -q 'status=503$' || { tail -3 "$1.txt"; fail "$1 does not end with an error"; }
	tail -1 "$1.tc" | grep -q 'status=503$' || { tail -3 "$1.tc"; fail "$1: trace-cmd's last record is no error"; }
}

# 1. One error among 100 requests: the file ends with it, ids 0..50 in order before it.
snap one "$TRIG" run 100 50 0
set -- one/snaptarget-*-1.dat
[ -f "$1" ] && [ "$(ls one | wc -l)" = 1 ] || { ls one; fail "one error: not one file PROG-PID-1.dat"; }
valid "$1"
sed -n 2p "$1.txt" | grep -Eq '^snapshot fired by tpt_snap:request: its record at [0-9]+\.[0-9]{6}, thread [0-9]+, ends the file$' ||
	{ head -3 "$1.txt"; fail "tpoint report: no header line for what fired the snapshot"; }
at=$(sed -n 2p "$1.txt" | sed 's/.* at \([0-9.]*\),.*/\1/')
tail -1 "$1.txt" | grep -q " $at: request: .*id=50 status=503\$" ||
	{ sed -n 2p "$1.txt"; tail -1 "$1.txt"; fail "the header's time is not the error's record's"; }
grep -o 'id=[0-9]*' "$1.txt" | tr -d 'id=' >ids.txt
seq 0 50 | cmp -s - ids.txt || { tail -5 ids.txt; fail "the records are not ids 0..50 in order"; }
grep -o 'id=[0-9]*' "$1.tc" | tr -d 'id=' | cmp -s - ids.txt ||
	fail "trace-cmd report shows other records than tpoint report"
echo "ok: snapshot if status >= 500 ends its file with the error, ids 0..50; both readers agree"

# 2. :3 in a storm of 100 errors: exactly 3 files, ending with errors 0, 10 and 20.
snap storm 'tpt_snap:request:snapshot:3 if status >= 500' run 1000 0 10
[ "$(ls storm | wc -l)" = 3 ] || { ls storm; fail "snapshot:3 made other than 3 files"; }
n=1
for id in 0 10 20; do
	f=$(ls storm/snaptarget-*-$n.dat)
	valid "$f"
	tail -1 "$f.txt" | grep -q "id=$id status=503\$" || { tail -1 "$f.txt"; fail "file $n: not error $id"; }
	n=$((n + 1))
done
[ -s storm.err ] && { cat storm.err; fail "snapshot:3 said something"; }
echo "ok: snapshot:3 made exactly 3 files in a storm of 100 errors"

# written_or_said DIR FIRINGS: each firing made a file or is counted in the line said.
written_or_said() {
	files=$(ls "$1" | wc -l)
	said=$(sed -n 's/^tpoint: snapshot: \([0-9]*\) more firings\{0,1\} came while .*: not written, nor counted against snapshot:N$/\1/p' "$1.err" |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$files" -ge 1 ] && [ $((files + said)) = "$2" ] ||
		{ cat "$1.err"; fail "$1: $files files and $said said, of $2 firings"; }
	for f in "$1"/*.dat; do
		valid "$f"
	done
}

# 3. From signal handlers, from 16 threads at once, and in a child after fork().
snap sig "$TRIG" signals 20
written_or_said sig 20
for f in sig/*.dat; do
	tail -1 "$f.txt" | grep -Eq 'id=100[0-9]{2} status=503$' || fail "$f: not a handler's error"
done
snap thr "$TRIG" threads 16
written_or_said thr 16
snap fork "$TRIG" fork
[ "$(ls fork | wc -l)" = 2 ] || { ls fork; cat fork.err; fail "fork: not a file each"; }
for f in fork/*.dat; do
	valid "$f"
done
[ "$(grep -l 'id=50 status=503$' fork/*.dat.txt | wc -l)" = 1 ] || fail "fork: the child's file"
echo "ok: firings in signal handlers, 16 threads and a forked child: each a file or counted"

# 4. From outside: a name taken is skipped, never written over; list -p shows the trigger.
mkdir out
TPOINT_EVENTS='tpt_snap:*' TPOINT_SNAPSHOT_DIR=$PWD/out "$T" wait >wait.out 2>wait.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' wait.out || fail "snaptarget wait did not start"
echo mine >out/snaptarget-$P-1.dat
"$TPOINT" trigger -p "$P" -e tpt_snap:request 'snapshot:2 if status >= 500' >/dev/null ||
	fail "trigger -p snapshot:2 exited $?"
"$TPOINT" list -p "$P" | grep -qx '  triggers: snapshot:count=2 if status >= 500 (fired 0)' ||
	{ "$TPOINT" list -p "$P"; fail "list -p: snapshot:count=2"; }
kill -USR1 "$P"
wait_until 30 grep -q '^round 1 done' wait.out || fail "round 1"
wait_until 30 test -s out/snaptarget-$P-2.dat || { ls -l out; fail "no PROG-PID-2.dat"; }
[ "$(cat out/snaptarget-$P-1.dat)" = mine ] || fail "a snapshot wrote over a file of the name"
valid out/snaptarget-$P-2.dat
"$TPOINT" list -p "$P" | grep -qx '  triggers: snapshot:count=1 if status >= 500 (fired 1)' ||
	{ "$TPOINT" list -p "$P"; fail "list -p: snapshot:count=1 (fired 1)"; }
"$TPOINT" trigger -p "$P" -e tpt_snap:request '!snapshot' >/dev/null || fail "!snapshot"
"$TPOINT" trigger -p "$P" -e tpt_snap:request 'snapshot' >/dev/null || fail "snapshot"
"$TPOINT" list -p "$P" | grep -qx '  triggers: snapshot:unlimited (fired 0)' ||
	{ "$TPOINT" list -p "$P"; fail "list -p: snapshot:unlimited"; }
echo "ok: a name taken is skipped; list -p shows snapshot:count=N and snapshot:unlimited"

# 5. Refused when set: no such directory, one others may write in; a sticky one is taken.
kill "$P"
wait "$P" 2>/dev/null
mkdir open sticky
chmod 0777 open
chmod 1777 sticky
TPOINT_SNAPSHOT_DIR=$PWD/nosuch "$T" wait >wait2.out 2>wait2.err &
P=$!
pids=$P
wait_until 30 grep -q '^ready' wait2.out || fail "snaptarget wait did not start"
"$TPOINT" trigger -p "$P" -e tpt_snap:request 'snapshot' >t.out 2>t.err
[ $? = 1 ] && grep -qx "tpoint trigger: snapshot directory $PWD/nosuch: No such file or directory" t.err ||
	{ cat t.err; fail "trigger -p: a directory that does not exist"; }
"$TPOINT" list -p "$P" | grep -q 'triggers:' && fail "a refused trigger is listed"
kill "$P"
wait "$P" 2>/dev/null
TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$TRIG TPOINT_SNAPSHOT_DIR=$PWD/open "$T" run 100 50 0 2>open.err ||
	fail "snaptarget exited $?"
grep -qx "tpoint: TPOINT_TRIGGER: '$TRIG': snapshot directory $PWD/open: others can write in it and it is not sticky (mode 0777); ignored" open.err ||
	{ cat open.err; fail "TPOINT_TRIGGER: a directory others may write in"; }
[ -z "$(ls open)" ] || fail "a refused trigger wrote a file"
TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$TRIG TPOINT_SNAPSHOT_DIR=$PWD/nosuch "$T" run 100 50 0 2>nosuch.err
grep -qx "tpoint: TPOINT_TRIGGER: '$TRIG': snapshot directory $PWD/nosuch: No such file or directory; ignored" nosuch.err ||
	{ cat nosuch.err; fail "TPOINT_TRIGGER: a directory that does not exist"; }
snap sticky "$TRIG" run 100 50 0
[ "$(ls sticky | wc -l)" = 1 ] || fail "a sticky directory of others' files is refused"
echo "ok: a directory that does not exist or others may write in is refused when set"

# 6. Nothing records (no event enabled): said once, no file.
mkdir none
TPOINT_TRIGGER='tpt_snap:request:snapshot:3 if status >= 500' TPOINT_SNAPSHOT_DIR=$PWD/none \
	"$T" run 1000 0 10 2>none.err || fail "snaptarget exited $?"
[ "$(grep -c 'nothing records in this process' none.err)" = 1 ] || { cat none.err; fail "nothing records: not said once"; }
[ -z "$(ls none)" ] || { ls none; fail "nothing records: files left"; }
echo "ok: nothing recording is said once, and leaves no file"

# 7. Beside TPOINT_RECORD's file (a spool running): the snapshot ends with the error, the
# recording goes on to the end.
mkdir rec
TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$TRIG TPOINT_RECORD=$PWD/rec/all.dat "$T" run 100 50 0 ||
	fail "snaptarget exited $?"
set -- rec/snaptarget-*-1.dat
[ -f "$1" ] || { ls rec; fail "no snapshot beside TPOINT_RECORD's file"; }
valid "$1"
"$TPOINT" report rec/all.dat | tail -1 | grep -q 'id=99 status=200$' || fail "TPOINT_RECORD's file"
echo "ok: beside TPOINT_RECORD's file"

# 8. TPOINT_COMPRESS: the snapshot is version 7, compressed as the recording would be, and
# reads back as the version 6 one does (where trace-cmd reads zstd).
if trace-cmd list -c 2>/dev/null | grep -q zstd; then
	mkdir z
	TPOINT_COMPRESS=zstd TPOINT_EVENTS='tpt_snap:*' TPOINT_TRIGGER=$TRIG \
		TPOINT_SNAPSHOT_DIR=$PWD/z "$T" run 100 50 0 2>z.err || fail "snaptarget exited $?"
	set -- z/snaptarget-*-1.dat
	[ -f "$1" ] || { ls z; cat z.err; fail "TPOINT_COMPRESS: no snapshot"; }
	[ "$(dd if="$1" bs=1 skip=10 count=1 2>/dev/null)" = 7 ] ||
		{ cat z.err; fail "TPOINT_COMPRESS=zstd: the snapshot is not version 7"; }
	valid "$1"
	grep -o 'id=[0-9]*' "$1.tc" | tr -d 'id=' | cmp -s - ids.txt ||
		fail "TPOINT_COMPRESS: trace-cmd shows other records than in version 6"
	sed -n 2p "$1.txt" | grep -q '^snapshot fired by tpt_snap:request: ' ||
		fail "TPOINT_COMPRESS: tpoint report does not say what fired the snapshot"
	echo "ok: TPOINT_COMPRESS=zstd: the snapshot is version 7 and reads as version 6 does"
else
	echo "skip: this trace-cmd reads no zstd-compressed file (trace-cmd list -c)"
fi

# 9. tpoint report --json marks the record that fired the snapshot, and no other.
set -- one/snaptarget-*-1.dat
"$TPOINT" report --json "$1" >one.json || fail "report --json $1"
[ "$(grep -c '"snapshot_fired":true' one.json)" = 1 ] || fail "report --json: not one record marked as the one that fired"
tail -1 one.json | grep -q '"snapshot_fired":true' || { tail -1 one.json; fail "report --json: the last record is not the one marked"; }
tail -1 one.json | grep -q '"status":503' || fail "report --json: the record marked is not the error"
echo "ok: report --json marks the record that fired the snapshot"
