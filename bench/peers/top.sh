#!/bin/sh
# The `tpoint top` row of make bench-peers (run.sh part 5): a program rewrites DIRTY_FILES
# small files (open, append, close: bench/peers/dirtier.c, DIRTY_PROCS processes, one a CPU
# by default; about one writeback_mark_inode_dirty event a rewrite) at each of DIRTY_RATES
# rewrites a second
# (10,000 and 100,000) on a disk file system (DIRTY_DIR: /var/tmp; tmpfs has no writeback),
# while `tpoint top -d 1 --json` watches for DIRTY_SECONDS. Measured: the dirty events/s top
# saw from the program, the share of them it named (fanotify heard each close), what the
# kernel lost, top's CPU (utime + stime from /proc/PID/stat over the run), and where top's own
# writes rank among the dirtiers and its share of the dirtier's rate (its JSON goes to a file
# on the same disk, as a user's redirection would). Then, where bpftrace is installed, the
# same question asked of it (count writeback_mark_inode_dirty by pid, comm and inode) at the
# same rate, with its CPU. A machine that cannot rewrite that fast reports the rate it
# reached. Targets: CPU < 5 % of one CPU at 100,000/s; top's own writes never among the
# dirtiers it shows (its kernel filter leaves its pid out). Needs root (tracefs).
#	O=build sh bench/peers/top.sh
set -u
O=${O:?O: the build directory}
B=$O/peers
DIR=${DIRTY_DIR:-/var/tmp}
# Many files: a file's times change at most once a clock tick, so 64 files appended to
# 100,000 times a second gave few more dirty events than at 10,000.
FILES=${DIRTY_FILES:-4096}
RATES=${DIRTY_RATES:-10000 100000}
SECONDS_=${DIRTY_SECONDS:-5}
PROCS=${DIRTY_PROCS:-$(getconf _NPROCESSORS_ONLN)}
say() { printf 'bench-peers: %s\n' "$*"; }

[ "$(id -u)" = 0 ] || { say "tpoint top skipped: the dirty view needs root (tracefs)"; exit 0; }
[ -x "$B/dirtier" ] || { say "tpoint top skipped: $B/dirtier not built"; exit 0; }
# cpu_until_exit PID: until it exits, its utime + stime (fields 14, 15 after the comm) as
# last sampled in $ticks, clock ticks of $hz a second, over $t0 .. $t1.
cpu_until_exit() {
	hz=$(getconf CLK_TCK)
	t0=$(date +%s.%N)
	ticks=0
	while kill -0 "$1" 2>/dev/null; do
		t=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }')
		[ -n "$t" ] && ticks=$t
		sleep 0.2
	done
	t1=$(date +%s.%N)
}

# measure REWRITES: top beside the dirtier at that rate.
measure() {
	w=$(mktemp -d "$DIR/tpoint-top-bench.XXXXXX") || { say "tpoint top skipped: no $DIR"; exit 0; }
	dp="" tp=""
	trap 'kill $dp $tp 2>/dev/null; rm -rf "$w"' EXIT INT TERM
	"$B/dirtier" "$w" "$FILES" "$1" $((SECONDS_ + 2)) "$PROCS" >"$w/dirtier.out" 2>&1 &
	dp=$!
	sleep 1
	"$O/tpoint" top -d 1 -n "$SECONDS_" --json --dirty >"$w/top.json" 2>"$w/top.err" &
	tp=$!
	cpu_until_exit "$tp"
	wait "$tp" || { say "tpoint top failed: $(tail -n 1 "$w/top.err")"; return 0; }
	wait "$dp"
	python3 - "$w/top.json" "$dp" "$tp" "$ticks" "$hz" "$t0" "$t1" "$1" <<-'PY'
	import json, sys
	f, dp, tp, ticks, hz, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
	    float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
	asked = int(sys.argv[8])
	lines = [json.loads(l) for l in open(f)][1:] or [json.loads(l) for l in open(f)]
	# the dirtier's processes, all of them named so
	rate = sum(sum(d["rate"] for d in l["dirty"] if d["comm"] == "dirtier") for l in lines) / len(lines)
	mine = [d for d in lines[-1]["dirty"] if d["comm"] == "dirtier"]
	named = sum(d["events"] for d in mine if d["path"]) / max(1, sum(d["events"] for d in mine))
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
	print("tpoint top at %d rewrites/s: %.0f dirty events/s from the dirtier (%d processes), %.1f %% "
	      "of them named, lost by the kernel %d, top's CPU %.1f %% of one CPU"
	      % (asked, rate, len({d["pid"] for d in mine}), 100 * named, lost, cpu))
	print("tpoint top: its own writes: %.1f dirty events/s, rank %s among the dirtiers (0: absent)"
	      % (own, ranks))
	if asked >= 100000:
	    print("target: tpoint top at >= 100,000 dirty events/s uses < 5 %% of one CPU: %.1f %% at %.0f/s (%s)"
	          % (cpu, rate, "met" if cpu < 5 and rate >= 100000 else "NOT met" if cpu >= 5 else
	             "rate below 100,000/s: this machine rewrote no faster"))
	print("target: tpoint top's own writes never among the dirtiers it shows: %s (%.1f events/s of its own seen)"
	      % ("met" if not any(ranks) else "NOT met", own))
	PY
	rm -rf "$w"
}

# bpftrace REWRITES: the same question asked of bpftrace, its CPU and what it counted.
bpftrace_peer() {
	command -v bpftrace >/dev/null || { say "bpftrace: not installed"; return 0; }
	# the seed's flags as top's kernel filter has them ("flags & MASK" in its header)
	mask=$("$O/tpoint" top -n 1 -d 0.1 --dirty 2>/dev/null |
		sed -n 's/^Dirty files (writeback:[a-z_]*, flags & \([0-9]*\)).*/\1/p')
	[ -n "$mask" ] || { say "bpftrace: no flags mask from tpoint top"; return 0; }
	w=$(mktemp -d "$DIR/tpoint-top-bench.XXXXXX") || return 0
	"$B/dirtier" "$w" "$FILES" "$1" $((SECONDS_ + 4)) "$PROCS" >"$w/dirtier.out" 2>&1 &
	dp=$!
	sleep 1
	bpftrace -e "tracepoint:writeback:writeback_mark_inode_dirty
		/ (args->flags & $mask) != 0 / { @[pid, comm, args->ino] = count(); }
		interval:s:$SECONDS_ { exit(); }" >"$w/bt.out" 2>&1 &
	bp=$!
	cpu_until_exit "$bp"
	wait "$dp"
	python3 - "$w/bt.out" "$dp" "$ticks" "$hz" "$t0" "$t1" "$1" "$SECONDS_" <<'PY'
import re, sys
f, dp, ticks, hz, t0, t1, asked, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8])
n = sum(int(c) for comm, c in re.findall(r"^@\[\d+, ([^,]*), \d+\]: (\d+)$", open(f).read(), re.M)
        if comm == "dirtier")
print("bpftrace at %d rewrites/s: %.0f dirty events/s from the dirtier counted by (pid, comm, "
      "inode), bpftrace's CPU %.1f %% of one CPU (no names: inodes only)"
      % (asked, n / secs, 100.0 * ticks / hz / (t1 - t0)))
PY
	rm -rf "$w"
}

for r in $RATES; do
	measure "$r"
	bpftrace_peer "$r"
done
