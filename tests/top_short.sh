#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (a tracefs instance and fanotify marks)
# A short run of tpoint top shows a program that ended within it (issue 33): `top -n 1 -d 2`
# while the writeback example runs for a fraction of a second shows its files, by name, and
# its events, marked ended, with rates above zero.
. "$(dirname "$0")/lib/top_json.sh"
[ -x "$B/examples/writeback" ] || skip "skip: $B/examples/writeback is not built"
D=$T/wb
mkdir -p "$D"
tp=""
cleanup() { [ -n "$tp" ] && kill -KILL "$tp" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

has_instance() { ls "$TR/instances" 2>/dev/null | grep -q "^tpoint-top-$1-"; }
# One try: top's first look, then the example, then what top's one refresh showed. The
# first look races a program that starts right after it (its control socket may appear
# after top's scan): a try that missed the example is made once more before failing.
attempt() {
	"$TPOINT" top -n 1 -d 2 --json >short.json 2>short.err &
	tp=$!
	wait_until 60 has_instance "$tp" || fail "no instance of top: $(cat short.err)"
	sleep 0.3 # top's first look at the processes there: the example must come after it
	TPOINT_EVENTS='writeback:*' "$B/examples/writeback" "$D" 2000 >wb.out 2>&1 &
	wp=$!
	wait "$wp" || fail "the example failed: $(cat wb.out)"
	kill -0 "$tp" 2>/dev/null || skip "skip: top ended before the example did (a loaded machine)"
	wait "$tp" || fail "top exited $?: $(cat short.err)"
	tp=""
	python3 - short.json "$wp" "$D" <<-'PY'
	import json, sys
	line = [json.loads(l) for l in open(sys.argv[1])][-1]
	pid, d = int(sys.argv[2]), sys.argv[3]
	files = [r for r in line["dirty"] if r["comm"] == "writeback" and (r["path"] or "").startswith(d + "/")]
	assert files and all(r["events"] > 0 for r in files), line["dirty"]
	ev = [e for e in line["events"] if e["pid"] == pid]
	assert ev and all(e["ended"] for e in ev), line["events"]
	w = [e for e in ev if e["event"] == "writeback:writeback_write"]
	assert w and w[0]["hits"] > 0 and w[0]["total_hits"] > 0, ev
	print("ok: the example that ended: %d files by name, %s at %.0f/s (%d in all)"
	      % (len(files), w[0]["event"], w[0]["hits"], w[0]["total_hits"]))
	PY
}
attempt || { echo "first try missed the example; once more"; rm -rf "$D"; mkdir -p "$D"; attempt; } ||
	fail "short.json: see above"
