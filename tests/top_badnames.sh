#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (a tracefs instance and fanotify marks)
# Bad file names in tpoint top (issue 33): names with a newline, an escape sequence, a byte
# that is not UTF-8, and a path of about 4,000 bytes, each written by an open-write-close
# loop. The text view shows them escaped (\xHH, never the raw byte); --json gives them as
# strings that parse strictly as UTF-8 (a byte that is not UTF-8 as \u00XX), byte for byte.
. "$(dirname "$0")/lib/top_json.sh"
D=$T/bad
pids=""
cleanup() { for p in $pids; do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

LONG=$D
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	LONG=$LONG/$(printf '%0240d' "$i")
done
mkdir -p "$LONG" || skip "skip: cannot make a path of $(printf %s "$LONG" | wc -c) bytes"
NL=$(printf 'new\nline.') ESC=$(printf 'esc\033[31mred') BAD=$(printf 'bad\377utf8')
for name in "$D/$NL" "$D/$ESC" "$D/$BAD" "$LONG/long.txt"; do
	"$B/tests/owcwriter" "$name" 20 >/dev/null &
	pids="$pids $!"
done

"$TPOINT" top -n 2 -d 1 --dirty --json --path "$D/*" >bad.json 2>bad.err &
tj=$!
"$TPOINT" top -n 2 -d 1 --dirty --path "$D/*" >bad.txt 2>badtxt.err &
tt=$!
pids="$pids $tj $tt"
wait "$tj" || fail "top --json: $(cat bad.err)"
wait "$tt" || fail "top: $(cat badtxt.err)"
python3 - bad.json "$D" "$LONG" <<'PY' || fail "bad.json: see above"
import json, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "strict")  # valid UTF-8 or it raises
last = [json.loads(l) for l in text.splitlines()][-1]
d, long_ = sys.argv[2], sys.argv[3]
want = {d + "/new\nline.", d + "/esc\x1b[31mred", d + "/bad\u00ffutf8", long_ + "/long.txt"}
paths = {r["path"] for r in last["dirty"]}
assert want <= paths, "missing: %r, have %r" % (want - paths, paths)
print("ok: --json: the 4 names byte for byte, the longest %d bytes" % len(long_ + "/long.txt"))
PY
grep -q "$D/new\\\\x0aline\." bad.txt && grep -q "$D/esc\\\\x1b\[31mred" bad.txt &&
	grep -q "$D/bad\\\\xffutf8" bad.txt || { cat -v bad.txt; fail "text: names not escaped"; }
if LC_ALL=C grep -q "$(printf '\033')" bad.txt || LC_ALL=C grep -q "$(printf '\377')" bad.txt; then
	cat -v bad.txt
	fail "text: a raw escape or non-UTF-8 byte"
fi
grep -q "^ .* $D/0000000000" bad.txt || { cat -v bad.txt; fail "text: no row for the long path"; }
echo "ok: text: the names escaped, no raw control or non-UTF-8 byte"
