#!/bin/sh
# A spool made sparse and huge by its writer (issue 30, item 2): the user whose process root
# records owns the spool root lent them, and one truncate() makes it 1.5 GB of zeros that
# cost nothing. Root's tool must read it in bounded memory and time: stop at the first
# damage, say it in one line (offset and length), keep the spool, exit 1.
#   1. --assemble of such a spool, the user's (copied in windows) and root's own (mapped);
#   2. record -p of the user's process, which makes its spool sparse while recorded.
# Peak memory is measured with /usr/bin/time (%M, KB); the bound is far from what a copy of
# the file would take and far above what reading a small spool takes.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "not root: cannot lend a spool to another user"; exit 77; }
B=$(dirname "$TPOINT")
T=$TPOINT_TEST_TMP
U=63002
SIZE=1536M
MAX_KB=65536
# The sanitizers' shadow memory and quarantine add their own tens of MB.
case ${O:-build} in *san*) MAX_KB=262144 ;; esac
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
. "$(dirname "$0")/lib/user_stage.sh"
chmod 755 "$T"
rm -rf /tmp/tpoint-$U
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf /tmp/tpoint-$U; user_unstage; }
trap cleanup EXIT

# One damaged line for the spool, with the offset and the bytes not read; nothing per chunk.
one_line() {
	n=$(grep -c "damaged: " "$1")
	[ "$n" = 1 ] || { head -n 20 "$1"; fail "$2: $n lines of damage, expected 1"; }
	grep -q "damaged: .*: offset [0-9]*: .*: damage; the [0-9]* bytes from here to the end are not read" "$1" ||
		{ cat "$1"; fail "$2: the damage's offset and length not said"; }
}
peak() { sed -n 's/^peak \([0-9]*\)$/\1/p' "$1"; }

# 1. --assemble: the spool of a short recording, made 1.5 GB.
mkdir -m 755 "$T/spools"
TPOINT_EVENTS=tpt_ctl TPOINT_SPOOL_DIR=$T/spools "$B/tests/ctltarget" 0.3 300 >/dev/null ||
	fail "ctltarget exited $?"
for owner in user root; do
	rm -rf "$T/a.$owner" && cp -a "$T/spools" "$T/a.$owner"
	spool=$(ls "$T/a.$owner"/*.spool)
	truncate -s $SIZE "$spool" || fail "cannot make $spool sparse"
	[ $owner = root ] || chown -R $U:$U "$T/a.$owner"
	cp -a "$T/a.$owner" "$T/a.$owner.orig"
	timeout 120 /usr/bin/time -f "peak %M" "$TPOINT" record --assemble "$T/a.$owner" \
		-o "$T/a.$owner.dat" >/dev/null 2>"$T/a.$owner.err"
	rc=$?
	[ $rc = 1 ] || { head -n 20 "$T/a.$owner.err"; fail "--assemble of a sparse $SIZE spool ($owner's): exit $rc, expected 1"; }
	kb=$(peak "$T/a.$owner.err")
	[ -n "$kb" ] && [ "$kb" -lt $MAX_KB ] ||
		fail "--assemble of a sparse $SIZE spool ($owner's): peak memory ${kb:-?} KB, bound $MAX_KB KB"
	one_line "$T/a.$owner.err" "--assemble ($owner's spool)"
	[ "$(stat -c %s "$spool")" = $((1536 << 20)) ] && [ -d "$T/a.$owner" ] ||
		fail "--assemble ($owner's spool): the spool was not kept as it was"
	echo "ok: --assemble of a sparse $SIZE spool ($owner's): exit 1, one line of damage, peak ${kb} KB"
done

# The user's process, and its pid once it is ready.
start_user_target() {
	as_user env -u XDG_RUNTIME_DIR "$UB/tests/ctltarget" 60 300 >"$T/target$1.out" 2>&1 &
	pids="$pids $!"
	P=""
	for i in $(seq 600); do
		P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$T/target$1.out" | head -n 1)
		[ -n "$P" ] && return 0
		sleep 0.1
	done
	fail "the user's ctltarget did not start"
}

# 2. record -p: the user's process; its spool made sparse while root records it.
user_stage ctltarget
start_user_target 2
/usr/bin/time -f "peak %M" "$TPOINT" record -p "$P" -e tpt_ctl -o "$T/p.dat" --duration 3 \
	>"$T/p.log" 2>&1 &
r=$!
D=""
for i in $(seq 600); do
	for d in "$T"/.tpoint-spool.*; do
		[ -s "$d/$P.spool" ] && D=$d
	done
	[ -n "$D" ] && break
	sleep 0.1
done
[ -n "$D" ] || fail "no spool appeared in $T"
as_user truncate -s $SIZE "$D/$P.spool" || fail "the user cannot make the spool sparse"
ok=""
for i in $(seq 1200); do
	kill -0 $r 2>/dev/null || { ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || { kill -9 $r; fail "record -p of a sparse spool did not finish in 120 s"; }
wait $r
rc=$?
[ $rc = 1 ] || { head -n 20 "$T/p.log"; fail "record -p of a spool made sparse: exit $rc, expected 1"; }
kb=$(peak "$T/p.log")
[ -n "$kb" ] && [ "$kb" -lt $MAX_KB ] ||
	fail "record -p of a spool made sparse: peak memory ${kb:-?} KB, bound $MAX_KB KB"
one_line "$T/p.log" "record -p"
echo "ok: record -p of a spool its process made sparse ($SIZE): exit 1, one line of damage, peak ${kb} KB"

# 3. stream -p: the same while the tool streams the process; the stream stops at the
#    damage with one line and exit 1, in bounded memory.
start_user_target 3
/usr/bin/time -f "peak %M" "$TPOINT" stream -p "$P" -e tpt_ctl >"$T/s.out" 2>"$T/s.log" &
r=$!
S=""
for i in $(seq 600); do
	# (stream lends a spool in /tmp: tools/tpoint/stream.c)
	grep -q " ctl_tick: " "$T/s.out" 2>/dev/null && for d in /tmp/.tpoint-spool.*; do
		[ -s "$d/$P.spool" ] && S=$d/$P.spool
	done
	[ -n "$S" ] && break
	sleep 0.1
done
[ -n "$S" ] || { kill $r; cat "$T/s.log"; fail "stream -p: no spool, or nothing streamed"; }
as_user truncate -s $SIZE "$S" || fail "the user cannot make the stream's spool sparse"
ok=""
for i in $(seq 1200); do
	kill -0 $r 2>/dev/null || { ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || { kill -9 $r; fail "stream -p of a sparse spool did not stop in 120 s"; }
wait $r
rc=$?
[ $rc = 1 ] || { head -n 20 "$T/s.log"; fail "stream -p of a spool made sparse: exit $rc, expected 1"; }
kb=$(peak "$T/s.log")
[ -n "$kb" ] && [ "$kb" -lt $MAX_KB ] ||
	fail "stream -p of a spool made sparse: peak memory ${kb:-?} KB, bound $MAX_KB KB"
n=$(grep -c ": offset [0-9]*: .*: damage; the [0-9]* bytes from here to the end are not read" "$T/s.log")
[ "$n" = 1 ] || { cat "$T/s.log"; fail "stream -p: $n lines of damage, expected 1"; }
echo "ok: stream -p of a spool its process made sparse ($SIZE): exit 1, one line of damage, peak ${kb} KB"
