#!/bin/sh
# tpoint-test: serial (a tracefs instance, and it checks a hit rate)
# tpoint top: who dirties which file (the kernel's writeback event through a private tracefs
# instance) and the rates of a program's events (its control socket). A target of known pid
# appends to a known file and to one it unlinked, and hits an event 200 times a second on
# absolute deadlines: top must show its pid with both files (the unlinked one as deleted),
# dirty rates above zero, a hit rate within 10 % of 200; remove its instance at the end, on
# SIGTERM, and after a SIGKILL at the next run; and, not root, say why the dirty view is
# missing while the events view still works.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/lib/wait.sh"
skip() { echo "$*"; exit 77; }
B=$(dirname "$TPOINT")
TB=$B # where toptarget is run from: the tree, or the copy that nobody can read
T=${TPOINT_TEST_TMP:-$(pwd)}
pids=""
. "$(dirname "$0")/lib/user_stage.sh"
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; user_unstage; }
trap cleanup EXIT

. "$(dirname "$0")/lib/dirty_view.sh"
need_dirty_view
command -v python3 >/dev/null || skip "skip: python3 is missing (it checks the JSON)"

# start USER-PREFIX... DIR: a toptarget appending in DIR for 30 s; $P its pid.
start() {
	dir=$1
	shift
	rm -f "$dir/target.out"
	"$@" "$TB/tests/toptarget" "$dir/dirtied.txt" "$dir/unlinked.txt" 200 30 \
		>"$dir/target.out" 2>&1 &
	pids="$pids $!"
	for i in $(seq 50); do
		P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$dir/target.out" 2>/dev/null | head -n 1)
		[ -n "$P" ] && pids="$pids $P" && return 0
		sleep 0.1
	done
	fail "toptarget did not start: $(cat "$dir/target.out")"
}
# The instance of top PID: tpoint-top-PID-RANDOM.
has_instance() { ls "$TR/instances" 2>/dev/null | grep -q "^tpoint-top-$1-"; }

start "$T"
"$TPOINT" enable -p "$P" tpt_ctl:ctl_tick >/dev/null || fail "enable -p $P"
# Its output goes to a file here, on the test's file system: top must not show itself.
"$TPOINT" top -n 3 -d 1 --json >top.json 2>top.err &
tp=$!
wait $tp || fail "top exited $?: $(cat top.err)"
[ "$(wc -l <top.json)" -eq 3 ] || fail "3 refreshes should be 3 JSON lines: $(wc -l <top.json)"
python3 - "$P" "$T/dirtied.txt" "$T/unlinked.txt" top.json "$tp" <<'PY' || fail "top.json: see above"
import json, sys
pid, path, unlinked, file = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
lines = [json.loads(l) for l in open(file)]
itself = [d for l in lines for d in l["dirty"] if d["pid"] == int(sys.argv[5])]
assert not itself, "top shows its own writes among the dirtiers: %s" % itself
last = lines[-1]
for k in ("time", "interval", "dirty", "events", "dirty_lost"):
    assert k in last, "key %s missing: %s" % (k, sorted(last))
mine = [d for d in last["dirty"] if d["pid"] == pid]
for d in mine:
    assert set(d) >= {"pid", "comm", "path", "dev", "ino", "events", "rate", "flags"}, d
    assert d["comm"] == "toptarget", d
byname = {d["path"]: d for d in mine}
assert path in byname, "no row for %s of pid %d: %s" % (path, pid, mine)
assert byname[path]["events"] > 0, byname[path]
assert "I_DIRTY" in byname[path]["flags"], byname[path]
gone = [d for d in mine if d["path"] == unlinked + " (deleted)" and d["deleted"]]
assert gone, "the unlinked file is not shown deleted: %s" % mine
# A rate above zero in some refresh: on a loaded machine one second may pass in which the
# kernel handed out none of the pages holding the target's events (they count at the next).
def rates(p):
    return [d["rate"] for l in lines for d in l["dirty"] if d["pid"] == pid and d["path"] == p]
assert max(rates(path)) > 0, "%s: no refresh with a rate above zero: %s" % (path, rates(path))
assert max(rates(gone[0]["path"])) > 0, "the unlinked file: rates %s" % rates(gone[0]["path"])
for n, l in enumerate(lines):
    ev = [e for e in l["events"] if e["pid"] == pid and e["event"] == "tpt_ctl:ctl_tick"]
    assert ev, "refresh %d: no tpt_ctl:ctl_tick of pid %d: %s" % (n, pid, l["events"])
    for k in ("comm", "condition", "hits", "condition_skipped", "filtered", "recorded", "lost"):
        assert k in ev[0], "events: key %s missing: %s" % (k, ev[0])
    assert 180 <= ev[0]["hits"] <= 220, "refresh %d: hit rate %s, known 200/s" % (n, ev[0]["hits"])
print("ok: pid %d: %s at %.0f/s (%s), the unlinked file deleted at %.0f/s, ticks at %s/s"
      % (pid, path, max(rates(path)), byname[path]["flags"], max(rates(gone[0]["path"])),
         [[e["hits"] for e in l["events"] if e["pid"] == pid and
           e["event"] == "tpt_ctl:ctl_tick"][0] for l in lines]))
PY
# Its own instance (tpoint-top-PID-...): other tests' tops may come and go meanwhile.
! has_instance "$tp" || fail "top left its tracefs instance behind"
echo "ok: the instance is removed at the end"

# Plain text when stdout is not a terminal: a summary line for the process, then its files.
"$TPOINT" top -n 1 -d 0.5 -p "$P" >top.txt 2>&1 || fail "top (text) exited $?"
grep -q "^ *$P  *toptarget .* [0-9]* files$" top.txt || { cat top.txt; fail "no summary line"; }
grep -q "^ *$P toptarget .* $T/dirtied.txt \[I_DIRTY" top.txt || { cat top.txt; fail "no file row"; }
grep -q "^ *$P toptarget  *tpt_ctl:ctl_tick " top.txt || { cat top.txt; fail "no event row"; }
echo "ok: plain text, -p"

# SIGTERM: the instance goes. SIGKILL: it stays, and the next top removes it.
"$TPOINT" top -d 5 --json --dirty >/dev/null 2>&1 &
tp=$!
pids="$pids $tp"
wait_until 60 has_instance "$tp" || fail "no instance tpoint-top-$tp"
kill -TERM "$tp"
wait "$tp"
has_instance "$tp" && fail "SIGTERM left the instance tpoint-top-$tp"
"$TPOINT" top -d 5 --json --dirty >/dev/null 2>&1 &
tp=$!
pids="$pids $tp"
wait_until 60 has_instance "$tp" || fail "no instance tpoint-top-$tp (before SIGKILL)"
kill -KILL "$tp"
wait "$tp" 2>/dev/null
has_instance "$tp" || fail "no instance left by SIGKILL"
"$TPOINT" top -n 1 -d 0.1 --dirty >/dev/null || fail "top after a SIGKILL"
has_instance "$tp" && fail "the next top did not remove tpoint-top-$tp"
echo "ok: SIGTERM removes the instance; a SIGKILLed one's goes at the next run"

# Bad input: one line naming the bad value, exit 2.
"$TPOINT" top -d abc 2>err.txt && fail "-d abc accepted"
grep -q "^tpoint top: -d 'abc': expected seconds" err.txt || { cat err.txt; fail "-d message"; }
"$TPOINT" top --dirty --events 2>err.txt; [ $? -eq 2 ] || fail "--dirty --events accepted"
"$TPOINT" top -p 0 2>/dev/null; [ $? -eq 2 ] || fail "-p 0 accepted"
echo "ok: bad arguments"

# Not root: the dirty view says why it is missing, the events view still works.
U=$(mktemp -d /tmp/tpoint-top-user.XXXXXX)
chown 65534:65534 "$U"
chmod 755 "$U"
as_user() { env -u XDG_RUNTIME_DIR setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { rm -rf "$U"; skip "skip: setpriv cannot become nobody"; }
user_stage toptarget
TB=$UB
TPOINT=$UTPOINT
start "$U" as_user
NP=$P
as_user "$TPOINT" enable -p "$NP" tpt_ctl:ctl_tick >/dev/null || fail "enable as nobody"
as_user "$TPOINT" top -n 2 -d 0.5 --json >user.json 2>user.err || fail "top as nobody: $(cat user.err)"
python3 - "$NP" user.json <<'PY' || { rm -rf "$U"; fail "user.json: see above"; }
import json, sys
pid = int(sys.argv[1])
last = [json.loads(l) for l in open(sys.argv[2])][-1]
assert last["dirty"] == [] and "needs root" in last.get("dirty_error", ""), last
assert [e for e in last["events"] if e["pid"] == pid and e["hits"] > 0], last["events"]
print("ok: not root: dirty_error %r; the events view shows pid %d" % (last["dirty_error"], pid))
PY
as_user "$TPOINT" top -n 1 -d 0.2 >user.txt 2>&1
grep -q "^Dirty files: not shown: needs root" user.txt || { cat user.txt; fail "text: why"; }
as_user "$TPOINT" top -n 1 -d 0.2 --dirty 2>user.err; rc=$?
[ $rc -eq 1 ] && grep -q "^tpoint top: needs root" user.err ||
	{ cat user.err; rm -rf "$U"; fail "--dirty as nobody: exit $rc"; }
rm -rf "$U"
echo "ok: not root: --dirty fails saying why"
