#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (tpoint top: a tracefs instance)
# Every --json writes its strings with one writer (tools/tpoint/json.c), and every line is
# JSON in UTF-8, strictly, whatever bytes a process, a recording or a file name holds
# (issue 30, item 3.2): a byte that is not UTF-8 becomes \u00XX (its Latin-1 character),
# and so does a C1 control. stat --json printed the fake process's bytes raw; top --json the
# bytes of a file name that is not UTF-8. report --json of a recording with the same bytes
# in a __string and in the thread's name says them the same way.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it parses the JSON strictly)"
B=$(dirname "$TPOINT")
T=${TPOINT_TEST_TMP:-$(pwd)}
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done' EXIT

# strict FILE PYTHON-EXPR: every line of FILE parses as JSON after a strict UTF-8 decoding;
# the lines are `lines`, and the expression must hold.
strict() {
	python3 - "$1" "$2" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8", errors="strict")
except UnicodeDecodeError as e:
    sys.exit("%s is not UTF-8: %s" % (sys.argv[1], e))
lines = [json.loads(l) for l in text.splitlines() if l]
assert lines, "%s: no line" % sys.argv[1]
bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
assert not bad, "%s: controls in the JSON text: %r" % (sys.argv[1], bad)
ok = eval("(" + sys.argv[2] + ")")
assert ok, "%s: %s does not hold: %r" % (sys.argv[1], sys.argv[2], lines)
PY
}

# The bytes of ctlfake's and ctltarget's hostile names, as the JSON writer says them.
EVIL='\x1b]0;x\x07\x1b[2J\x9b\x9b\xff\xfe'

. "$(dirname "$0")/lib/hostile_fake.sh"
start_hostile_fake

"$TPOINT" stat -p "$F" --json >stat.json 2>stat.err || { cat stat.err; fail "stat --json exited $?"; }
strict stat.json "lines[0]['event'] == 'tpt_evil:name$EVIL' and
	lines[0]['condition'] == 'cond$EVIL' and
	lines[0]['refused'] == 'reg function returned -1$EVIL' and lines[1]['event'] == 'tpt_evil:plain'" ||
	fail "stat --json"
echo "ok: stat --json: names, conditions and refusals that are not UTF-8 parse strictly"

TPOINT_EVENTS=tpt_ctl:ctl_tick TPOINT_RECORD=h.dat "$B/tests/ctltarget" 0.05 1000 hostile \
	>t.out 2>&1 || { cat t.out; fail "ctltarget hostile exited $?"; }
"$TPOINT" report --json h.dat >report.json 2>report.err || { cat report.err; fail "report --json exited $?"; }
strict report.json "lines[0]['comm'] == '\x1b]0;x\x07\x1b[2J\x9b\xff' and
	lines[0]['fields']['name'] == '$EVIL' and lines[1]['fields']['name'] == 'beta'" ||
	fail "report --json"
echo "ok: report --json says the same bytes the same way"

# top --json: a file whose name is not UTF-8, dirtied (root and tracefs's writeback events).
. "$(dirname "$0")/lib/dirty_view.sh"
need_dirty_view
BAD="$T/bad-$(printf '\377\376\233').txt"
"$B/tests/toptarget" "$BAD" "$T/unlinked.txt" 200 30 >target.out 2>&1 &
pids="$pids $!"
P=""
for i in $(seq 600); do
	P=$(sed -n 's/^ready \([0-9]*\)$/\1/p' target.out | head -n 1)
	[ -n "$P" ] && break
	sleep 0.1
done
[ -n "$P" ] || { cat target.out; fail "toptarget did not start"; }
# Refreshes until the file shows, bounded: a loaded machine may hand its pages out late.
for try in 1 2 3 4 5; do
	"$TPOINT" top -n 3 -d 1 --json --dirty >top.json 2>top.err || { cat top.err; fail "top --json exited $?"; }
	grep -q 'bad-' top.json && break
done
strict top.json "any(d['path'] == '$T/bad-\xff\xfe\x9b.txt' for l in lines for d in l['dirty'])" ||
	fail "top --json"
echo "ok: top --json: a file name that is not UTF-8 parses strictly, each byte its Latin-1 character"
