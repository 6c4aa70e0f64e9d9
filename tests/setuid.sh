#!/bin/sh
# A setuid-root program linked with libtpoint, run by an unprivileged user (issue 30,
# item 1): the caller's TPOINT_* variables and XDG_RUNTIME_DIR are not the program's
# owner's wishes. With TPOINT_EVENTS, TPOINT_RECORD naming a root-owned file,
# TPOINT_SPOOL_DIR naming a root-only directory, TPOINT_POOL/TPOINT_COLLECT naming
# descriptors and XDG_RUNTIME_DIR a root-owned directory:
#   - the root file stays byte for byte, nothing appears in the root-only directories;
#   - the program still runs, and stderr has one line naming what was ignored and why;
#   - root still reaches the program through its control socket (tpoint list -p);
#   - a plain (not setuid) copy still obeys the same variables.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "not root: cannot make a setuid-root program"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv is not installed"; exit 77; }
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
U=63005 # its own user: tests that run at the same time must not share /tmp/tpoint-UID
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
. "$(dirname "$0")/lib/user_stage.sh"
T=$TPOINT_TEST_TMP
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf /tmp/tpoint-$U; user_unstage; }
trap cleanup EXIT

# The programs link libtpoint.a, not the shared library: for a setuid program the dynamic
# loader expands $ORIGIN in a run path only into its trusted system directories (glibc's
# secure-execution rules), so the stage's libtpoint.so (found through $ORIGIN/..) would
# not load at all. Libc stays shared, as with pkg-config tpoint-static.
[ -f "$B/libtpoint.a" ] || fail "no $B/libtpoint.a"
san=""
nm "$B/libtpoint.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
nm "$B/libtpoint.a" 2>/dev/null | grep -q __tsan_ && san="-fsanitize=thread"
$CC -O2 $san -I"$top/include" -I"$top/examples" "$top/examples/hello.c" -o hello \
	"$B/libtpoint.a" -lpthread 2>err.txt || { cat err.txt; fail "link of hello with libtpoint.a"; }
$CC -O2 $san -I"$top/include" -I"$top/tests" "$top/tests/ctltarget.c" -o ctltarget \
	"$B/libtpoint.a" -lpthread 2>err.txt || { cat err.txt; fail "link of ctltarget with libtpoint.a"; }

user_stage
cp hello "$STAGE/tests/hello_suid" && cp hello "$STAGE/tests/hello_plain" &&
	cp ctltarget "$STAGE/tests/ctl_suid" || fail "cannot copy the programs to $STAGE"
chown root:root "$STAGE/tests/hello_suid" "$STAGE/tests/ctl_suid" &&
	chmod 4755 "$STAGE/tests/hello_suid" "$STAGE/tests/ctl_suid" || fail "chmod 4755"
case ",$(findmnt -no OPTIONS -T "$STAGE" 2>/dev/null)," in
*,nosuid,*) echo "$STAGE is on a nosuid mount: a setuid program gains nothing there"; exit 77 ;;
esac
# Is the bit honoured here (no nosuid, no NO_NEW_PRIVS from a container)? The copy of id.
cp "$(command -v id)" "$STAGE/tests/id_suid" && chmod 4755 "$STAGE/tests/id_suid"
[ "$(as_user "$STAGE/tests/id_suid" -u)" = 0 ] ||
	{ echo "setuid programs do not gain their owner's uid here"; exit 77; }

# Root's things the caller names.
mkdir -m 700 "$T/root" "$T/root/spool" "$T/root/xdg"
head -c 65536 /dev/urandom >"$T/root/victim"
chmod 600 "$T/root/victim"
cp "$T/root/victim" "$T/victim.orig"
chmod 755 "$T"
hostile() {
	as_user env TPOINT_EVENTS='*' TPOINT_RECORD="$T/root/victim" \
		TPOINT_SPOOL_DIR="$T/root/spool" TPOINT_POOL="$$:3:1:8:4096:0" \
		TPOINT_COLLECT="4:1" TPOINT_DEBUG=1 XDG_RUNTIME_DIR="$T/root/xdg" "$@"
}
check_root_untouched() {
	cmp -s "$T/root/victim" "$T/victim.orig" || fail "$1: root's file named by TPOINT_RECORD was written"
	[ -z "$(ls -A "$T/root/spool")" ] || fail "$1: TPOINT_SPOOL_DIR planted: $(ls -A "$T/root/spool")"
	[ "$(ls -A "$T/root" | sort | tr '\n' ' ')" = "spool victim xdg " ] ||
		fail "$1: something appeared beside root's file: $(ls -A "$T/root")"
	[ -z "$(ls -A "$T/root/xdg")" ] || fail "$1: XDG_RUNTIME_DIR was used: $(ls -A "$T/root/xdg")"
}

# 1. The setuid program: nothing of the caller's wishes, one line that says so. Once with
#    every variable (TPOINT_SPOOL_DIR wins over TPOINT_RECORD), once without TPOINT_SPOOL_DIR.
for how in all record; do
	case $how in
	all) hostile "$STAGE/tests/hello_suid" >out.txt 2>err.txt ;;
	record) hostile env -u TPOINT_SPOOL_DIR "$STAGE/tests/hello_suid" >out.txt 2>err.txt ;;
	esac
	rc=$?
	[ $rc = 0 ] || { cat err.txt; fail "$how: the setuid hello exited $rc"; }
	grep -q 'hello: 3 greetings traced' out.txt || fail "$how: the setuid hello did not run: $(cat out.txt)"
	check_root_untouched "$how"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$how: expected one line on stderr"; }
	for v in TPOINT_EVENTS TPOINT_RECORD TPOINT_POOL TPOINT_COLLECT TPOINT_DEBUG XDG_RUNTIME_DIR; do
		grep -q "$v" err.txt || { cat err.txt; fail "$how: the line does not name $v"; }
	done
	grep -qi 'setuid\|privilege' err.txt || { cat err.txt; fail "$how: the line does not say why"; }
done
echo "ok: setuid: root's file untouched, nothing planted, one line: $(cat err.txt)"

# 2. No variable of ours set: not a word.
unset_ours=$(env | sed -n 's/^\(TPOINT_[A-Za-z0-9_]*\)=.*/-u \1/p')
as_user env -u XDG_RUNTIME_DIR $unset_ours "$STAGE/tests/hello_suid" >out.txt 2>err.txt ||
	fail "the setuid hello exited $? with a clean environment"
[ -s err.txt ] && { cat err.txt; fail "the setuid hello spoke with no TPOINT_* variable set"; }
echo "ok: setuid, clean environment: silent"

# 3. Root traces the setuid program through its control socket (in /tmp/tpoint-0: the
#    caller's XDG_RUNTIME_DIR is not used).
hostile "$STAGE/tests/ctl_suid" 60 1000 >ctl.out 2>ctl.err &
pids="$pids $!"
P=""
for i in $(seq 200); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' ctl.out | head -n 1)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || { cat ctl.err; fail "the setuid ctltarget did not start"; }
ok=""
for i in $(seq 600); do
	"$TPOINT" list -p "$P" >list.txt 2>list.err && grep -q 'tpt_ctl:ctl_tick' list.txt &&
		{ ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || { cat list.err; fail "root cannot list the setuid program's events (list -p)"; }
grep -q 'enabled' list.txt &&
	fail "TPOINT_EVENTS='*' enabled events in the setuid program: $(cat list.txt)"
kill -9 "$P" 2>/dev/null
check_root_untouched "ctltarget"
echo "ok: root reaches the setuid program through its control socket"

# 4. The same program without the setuid bit, run by the user: the variables hold.
mkdir -m 700 "$T/user" && chown $U:$U "$T/user"
as_user env TPOINT_EVENTS='hello:*' TPOINT_RECORD="$T/user/plain.dat" \
	"$STAGE/tests/hello_plain" >out.txt 2>err.txt || { cat err.txt; fail "plain hello exited $?"; }
[ -s "$T/user/plain.dat" ] || { cat err.txt; fail "the plain hello recorded nothing"; }
grep -q 'ignored' err.txt && { cat err.txt; fail "the plain hello ignored its variables"; }
n=$("$TPOINT" report "$T/user/plain.dat" 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "the plain hello: expected 3 events, report shows $n"
echo "ok: without the setuid bit the variables hold (3 events recorded)"
