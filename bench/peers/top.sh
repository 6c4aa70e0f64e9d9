#!/bin/sh
# The `tpoint top` row of make bench-peers (run.sh part 5): a program rewrites DIRTY_FILES
# small files DIRTY_REWRITES times a second (bench/peers/dirtier.c; about 100,000
# writeback_mark_inode_dirty events/s at the default) on a disk file system (DIRTY_DIR:
# /var/tmp; tmpfs has no writeback), while `tpoint top -d 1 --json` watches for
# DIRTY_SECONDS. Measured: the dirty events/s top saw from the program, what the kernel lost,
# top's CPU (utime + stime from /proc/PID/stat over the run), and where top's own writes rank
# among the dirtiers and its share of the dirtier's rate (its JSON goes to a file on the same
# disk, as a user's redirection would). About one event per rewrite: a machine that cannot
# rewrite 100,000 files a second reports the rate it reached. Targets: CPU < 5 % of one CPU;
# top's own writes never among the dirtiers it shows (its kernel filter leaves its pid out).
# Needs root (tracefs).
#	O=build sh bench/peers/top.sh
set -u
O=${O:?O: the build directory}
B=$O/peers
DIR=${DIRTY_DIR:-/var/tmp}
FILES=${DIRTY_FILES:-64}
REWRITES=${DIRTY_REWRITES:-100000}
SECONDS_=${DIRTY_SECONDS:-5}
say() { printf 'bench-peers: %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { say "tpoint top skipped: the dirty view needs root (tracefs)"; exit 0; }
[ -x "$B/dirtier" ] || { say "tpoint top skipped: $B/dirtier not built"; exit 0; }
w=$(mktemp -d "$DIR/tpoint-top-bench.XXXXXX") || { say "tpoint top skipped: no $DIR"; exit 0; }
trap 'kill "$dp" "$tp" 2>/dev/null; rm -rf "$w"' EXIT INT TERM
"$B/dirtier" "$w" "$FILES" "$REWRITES" $((SECONDS_ + 2)) >"$w/dirtier.out" 2>&1 &
dp=$!
sleep 1
"$O/tpoint" top -d 1 -n "$SECONDS_" --json --dirty >"$w/top.json" 2>"$w/top.err" &
tp=$!
hz=$(getconf CLK_TCK)
t0=$(date +%s.%N)
# utime + stime of top, the last sample before it exits (fields 14, 15 after the comm).
ticks=0
while kill -0 "$tp" 2>/dev/null; do
	t=$(sed 's/.*) //' "/proc/$tp/stat" 2>/dev/null | awk '{ print $12 + $13 }')
	[ -n "$t" ] && ticks=$t
	sleep 0.2
done
t1=$(date +%s.%N)
wait "$tp" || { say "tpoint top failed: $(tail -n 1 "$w/top.err")"; exit 0; }
wait "$dp"
python3 - "$w/top.json" "$dp" "$tp" "$ticks" "$hz" "$t0" "$t1" <<'PY'
import json, sys
f, dp, tp, ticks, hz, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
lines = [json.loads(l) for l in open(f)][1:] or [json.loads(l) for l in open(f)]
rate = sum(sum(d["rate"] for d in l["dirty"] if d["pid"] == dp) for l in lines) / len(lines)
lost = lines[-1].get("dirty_lost", 0)
cpu = 100.0 * ticks / hz / (t1 - t0)
ranks, own = [], 0.0
for l in lines:
    own += sum(d["rate"] for d in l["dirty"] if d["pid"] == tp) / len(lines)
    by = {}
    for d in l["dirty"]:
        by[d["pid"]] = by.get(d["pid"], 0) + d["rate"]
    order = sorted(by, key=lambda p: -by[p])
    ranks.append(order.index(tp) + 1 if tp in order else 0)
print("tpoint top: %.0f dirty events/s from the dirtier, lost by the kernel %d, top's CPU %.1f %% "
      "of one CPU" % (rate, lost, cpu))
print("tpoint top: its own writes: %.1f dirty events/s, rank %s among the dirtiers (0: absent)"
      % (own, ranks))
print("target: tpoint top at >= 100,000 dirty events/s uses < 5 %% of one CPU: %.1f %% at %.0f/s (%s)"
      % (cpu, rate, "met" if cpu < 5 and rate >= 100000 else "NOT met" if cpu >= 5 else
         "rate below 100,000/s: this machine rewrote no faster"))
print("target: tpoint top's own writes never among the dirtiers it shows: %s (%.1f events/s of its own seen)"
      % ("met" if not any(ranks) else "NOT met", own))
PY
