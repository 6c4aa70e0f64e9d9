#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (tracefs instances and fanotify marks)
# tpoint top's choices of what to show (issue 33), each checked in --json: --by comm and
# --by file group the rows, --comm and --path keep only the matching ones, --limit caps the
# groups and their rows, -p takes a comma-separated list, and processes gone for a refresh
# are folded into one "exited" group per command. Bad values are refused with exit 2.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
. "$(dirname "$0")/lib/wait.sh"

# Bad values first: they need no root.
bad() { # EXPECTED-TEXT ARGS...
	want=$1
	shift
	"$TPOINT" top "$@" >/dev/null 2>err.txt
	rc=$?
	[ $rc -eq 2 ] && grep -q "^tpoint top: $want" err.txt ||
		{ cat err.txt; fail "top $*: exit $rc, wanted 2 and '$want'"; }
}
bad "--by 'proc': expected pid, comm or file" --by proc
bad "--limit '0': expected a number of rows" --limit 0
bad "--limit 'x': expected a number of rows" --limit x
bad "'x' is not a process id" -p 1,x
bad "'' is not a process id" -p 1,
bad "--comm '': expected a glob" --comm ''
echo "ok: bad values exit 2 naming them"

. "$(dirname "$0")/lib/dirty_view.sh"
need_dirty_json
B=$(dirname "$TPOINT")
T=${TPOINT_TEST_TMP:-$(pwd)}
D=$T/files
mkdir -p "$D"
pids=""
cleanup() { for p in $pids; do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

"$B/tests/owcwriter" "$D/a.txt" 20 >a.out &
A=$!
"$B/tests/owcwriter" "$D/b.txt" 20 >b.out &
W=$!
sh -c "while :; do echo x >>'$D/c.txt'; sleep 0.02; done" &
S=$!
# a process a time that appends once and ends: these fold into one "exited" group
sh -c "while :; do sh -c \"echo x >>'$D/e.txt'\"; sleep 0.05; done" &
E=$!
pids="$A $W $S $E"
wait_ready a.out "$A" && wait_ready b.out "$W" || fail "the writers did not start"

top() { # OUT ARGS...
	out=$1
	shift
	"$TPOINT" top -n 3 -d 1 --dirty --json "$@" >"$out" 2>"$out.err" &
	pids="$pids $!"
}
top comm.json --by comm --comm owcwriter
top file.json --by file --path "$D/*"
top limit.json --limit 1
top pids.json -p "$A,$W"
top exited.json --path "$D/*"
refreshes() { [ "$(wc -l <"$1" 2>/dev/null)" -ge 3 ]; }
for f in comm file limit pids exited; do
	wait_until 120 refreshes $f.json || fail "$f: $(cat $f.json.err)"
done
python3 - "$D" "$A" "$W" "$S" <<'PY' || fail "see above"
import json, sys
D, A, W, S = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def last(f):
    return [json.loads(l) for l in open(f)][-1]

c = last("comm.json")
assert c["by"] == "comm", c["by"]
assert [g["comm"] for g in c["groups"]] == ["owcwriter"], c["groups"]
g = c["groups"][0]
assert g["processes"] == 2 and g["pid"] is None and g["events"] > 0, g
assert c["dirty"] and all(d["comm"] == "owcwriter" for d in c["dirty"]), c["dirty"]
assert {d["pid"] for d in c["dirty"]} == {A, W}, c["dirty"]
print("ok: --by comm --comm owcwriter: one group of 2 processes, %d events" % g["events"])

f = last("file.json")
assert f["by"] == "file" and f["groups"], f
paths = {g["path"] for g in f["groups"]}
assert all(p and p.startswith(D + "/") for p in paths), paths
assert {D + "/a.txt", D + "/b.txt", D + "/c.txt"} <= paths, paths
assert all(d["path"].startswith(D + "/") for d in f["dirty"]), f["dirty"]
print("ok: --by file --path: %d files, all under the directory" % len(paths))

l = last("limit.json")
assert len(l["groups"]) == 1 and l["more_groups"] >= 0, l["groups"]
assert len(l["dirty"]) == 1, l["dirty"]
print("ok: --limit 1: one group, one row (%d more groups)" % l["more_groups"])

p = last("pids.json")
assert {d["pid"] for d in p["dirty"]} == {A, W}, p["dirty"]
print("ok: -p A,W: the rows of those two only")

e = last("exited.json")
ex = [g for g in e["groups"] if g["exited"]]
assert ex and all(g["pid"] is None for g in ex), e["groups"]
sh = [g for g in ex if g["comm"] == "sh"]
assert sh and sh[0]["processes"] >= 2, ex
live = [g for g in e["groups"] if not g["exited"]]
assert {g["pid"] for g in live} >= {A, W, S}, live
gone = [d for d in e["dirty"] if d["exited"]]
assert gone and all(d["path"] == D + "/e.txt" for d in gone if d["comm"] == "sh"), gone
print("ok: %d exited sh processes in one group, the live writers on their own" %
      sh[0]["processes"])
PY
