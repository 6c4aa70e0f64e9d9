#!/bin/sh
# make bench-peers: tpoint next to LTTng-UST and USDT, measured in one run on this machine.
#
#   1. the peers: installed with apt-get when root, else skipped with the reason
#   2. the table: ns per call, 1 and 2 threads, median of REPS rounds (peers.c), then
#      instructions per call under callgrind (peers --callgrind), then the USDT rows
#      (usdt.c): tpoint's site disabled with and without USDT notes, and tpoint's probe and
#      a <sys/sdt.h> probe with bpftrace attached; a histogram keyed by a 32-byte string,
#      tpoint's in-process hist: trigger next to bpftrace's map through the same probe; the
#      latency between a start and an end event, tpoint's variables and onmatch() in the
#      process next to bpftrace pairing the two probes
#   3. throughput: one thread emits TPUT_EVENTS events into `tpoint record` (default mode,
#      --block, and paced at LTTng-UST's rate) and into an LTTng-UST session, all to tmpfs:
#      events/s and the fraction lost
#   4. scale: SCALE_THREADS threads, resident memory (scale.c)
#   5. tpoint top at about 100,000 dirty events/s: its CPU, its own writes' rank (top.sh)
#   6. kernel events through record -k: events/s, lost, the recorder's CPU per event
#   7. compressed trace.dat: bytes per event of v6 and v7 (zstd, zlib) and the CPU of the
#      compression (../compress.sh)
#
# It starts its own lttng-sessiond (a private LTTNG_HOME in a temporary directory) and stops
# it, by its pid, when it ends. As root, that daemon and every program that uses LTTng-UST
# run as the user nobody: a root session daemon is system-wide (one may already run, the
# package starts one under systemd), while a user's daemon, found through LTTNG_HOME, is
# private to this run. A peer that cannot be had is skipped with the reason; the
# script then still measures the rest and exits 0: it is a benchmark, not a test.
set -u
O=${O:?O: the build directory}
MAKE=${MAKE:-make}
CALLS=${CALLS:-2000000}
REPS=${REPS:-7}
TPUT_EVENTS=${TPUT_EVENTS:-20000000}
TPUT_RUNS=${TPUT_RUNS:-3}
SCALE_THREADS=${SCALE_THREADS:-1000}
# A uprobe costs microseconds a hit (16 us here, a VM): the consumer rows run fewer calls.
USDT_CALLS=${USDT_CALLS:-50000}
USDT_REPS=${USDT_REPS:-5}
PKGS="lttng-tools liblttng-ust-dev systemtap-sdt-dev bpftrace"

say() { printf 'bench-peers: %s\n' "$*"; }
sh ../cpu.sh

# Outputs go to tmpfs: what is timed is the tracers, not a disk's writeback.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
fi
export TMPDIR=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$TMPDIR/tpoint-peers.XXXXXX") || exit 0
sessiond_pid=
# Ours only: the daemon this script started, by the pid it got.
stop_sessiond() {
	[ -n "$sessiond_pid" ] || return 0
	$AS lttng --no-sessiond destroy --all >/dev/null 2>&1
	kill "$sessiond_pid" 2>/dev/null
	wait "$sessiond_pid" 2>/dev/null
	say "lttng-sessiond (pid $sessiond_pid) stopped"
	sessiond_pid=
}
cleanup() {
	stop_sessiond
	rm -rf "$tmp"
}
# The long parts run in the background while the shell waits for them (in_part): a shell
# runs no trap before a foreground command ends, so a SIGTERM would wait for the whole part,
# and a shell killed meanwhile would leave its programs running. On INT or TERM the part
# stops, with every process it started, and then the cleanup runs.
part=
in_part() { "$@" & part=$!; wait "$part"; st=$?; part=; return $st; }
# tree PID: PID and all its descendants, parents first (from /proc: ps may not be installed).
tree() {
	sed -n 's/^\([0-9]*\) (.*) . \([0-9]*\) .*/\1 \2/p' /proc/[0-9]*/stat 2>/dev/null |
		awk -v root="$1" '{ kids[$2] = kids[$2] " " $1 }
			END { n = 1; q[1] = root
			      for (i = 1; i <= n; i++) {
				      print q[i]; m = split(kids[q[i]], k, " ")
				      for (j = 1; j <= m; j++) q[++n] = k[j]
			      } }'
}
trap cleanup EXIT
trap '[ -n "$part" ] && kill -TERM $(tree "$part") 2>/dev/null; exit 130' INT TERM

# ---- 1. the peers ----
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=
if command -v dpkg-query >/dev/null 2>&1; then
	for p in $PKGS; do installed "$p" || missing="$missing $p"; done
fi
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		say "not root, so not installing:$missing (as root: apt-get install$missing)"
	elif ! command -v apt-get >/dev/null 2>&1; then
		say "no apt-get here to install:$missing"
	else
		say "installing:$missing"
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			$missing >"$tmp/apt.log" 2>&1; then
			# The package lists may be stale or absent (a fresh container): refresh once.
			DEBIAN_FRONTEND=noninteractive apt-get update >>"$tmp/apt.log" 2>&1
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
				$missing >>"$tmp/apt.log" 2>&1 ||
				say "apt-get install$missing failed: $(tail -n 1 "$tmp/apt.log")"
		fi
	fi
fi

has_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
HAVE_LTTNG=0
HAVE_SDT=0
lttng_why=
if ! has_header lttng/tracepoint.h; then
	lttng_why="<lttng/tracepoint.h> not found (package liblttng-ust-dev)"
elif ! command -v lttng >/dev/null 2>&1 || ! command -v lttng-sessiond >/dev/null 2>&1; then
	lttng_why="lttng or lttng-sessiond not found (package lttng-tools)"
else
	HAVE_LTTNG=1
fi
if has_header sys/sdt.h; then
	HAVE_SDT=1
else
	say "USDT skipped: <sys/sdt.h> not found (package systemtap-sdt-dev)"
fi

$MAKE --no-print-directory -s programs O="$O" HAVE_LTTNG=$HAVE_LTTNG HAVE_SDT=$HAVE_SDT ||
	{ say "the benchmark programs did not build"; exit 0; }
B=$O/peers

# ---- the session daemon: ours, private, stopped at the end ----
# AS: how to run what talks to our session daemon. LT: where it may write.
AS=
LT="$tmp/lttng"
mkdir -p "$LT/home"
lttng_ok=0
if [ $HAVE_LTTNG = 1 ] && [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
		# setpriv execs: the pid the shell gets is the daemon's own.
		AS="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
		chmod 755 "$tmp"
		chown -R nobody "$LT"
	else
		lttng_why="running as root without setpriv or the user nobody to run a private \
lttng-sessiond as"
		HAVE_LTTNG=0
	fi
fi
export LTTNG_HOME="$LT/home"
if [ $HAVE_LTTNG = 1 ]; then
	$AS lttng-sessiond --no-kernel >"$tmp/sessiond.log" 2>&1 &
	sessiond_pid=$!
	for i in $(seq 1 50); do
		$AS lttng --no-sessiond list >/dev/null 2>&1 && { lttng_ok=1; break; }
		kill -0 "$sessiond_pid" 2>/dev/null || break
		sleep 0.2
	done
	if [ $lttng_ok = 1 ]; then
		say "lttng-sessiond started (pid $sessiond_pid${AS:+, as nobody}, LTTNG_HOME=$LTTNG_HOME)"
	else
		lttng_why="lttng-sessiond did not start: $(tail -n 1 "$tmp/sessiond.log")"
	fi
fi
[ -n "$lttng_why" ] && say "LTTng-UST enabled cases skipped: $lttng_why"

# lt CMD...: an lttng command whose chatter goes to the log; its failure is said.
lt() { $AS lttng --no-sessiond "$@" >>"$tmp/lttng.log" 2>&1 || { say "lttng $* failed: $(tail -n 1 "$tmp/lttng.log")"; return 1; }; }

# ---- 2. the table ----
echo
echo "== ns per call: tpoint, LTTng-UST, USDT (1 and 2 threads) =="
lttng_arg=
if [ $lttng_ok = 1 ]; then
	# In-memory snapshot sessions (rings that nothing reads), one per buffering scheme,
	# each enabling its own instance of the same event.
	if lt create peers-uid --snapshot &&
	   lt enable-channel -u -s peers-uid --buffers-uid ch &&
	   lt enable-event -u -s peers-uid -c ch 'peers_lttng:u64x3_uid,peers_lttng:str_uid' &&
	   lt start peers-uid &&
	   lt create peers-pid --snapshot &&
	   lt enable-channel -u -s peers-pid --buffers-pid ch &&
	   lt enable-event -u -s peers-pid -c ch peers_lttng:u64x3_pid &&
	   lt start peers-pid; then
		lttng_arg=--lttng
	fi
fi
# With LTTng-UST, the process must be nobody's too, to register with our daemon.
table() { ${lttng_arg:+$AS} "$B/peers" $lttng_arg "$CALLS" "$REPS" | tee "$tmp/peers.out"; }
in_part table
# ---- 2b. instructions, while the snapshot sessions exist ----
echo
echo "== instructions per call (callgrind) =="
if command -v valgrind >/dev/null 2>&1; then
	cg="$LT/cg"
	mkdir -p "$cg"
	[ -n "$AS" ] && chown nobody "$cg"
	in_part ${lttng_arg:+$AS} valgrind -q --tool=callgrind --separate-threads=yes --callgrind-out-file="$cg/cg.out" \
		"$B/peers" $lttng_arg --callgrind "$cg" 2>"$tmp/callgrind.err" ||
		say "callgrind run failed: $(tail -n 1 "$tmp/callgrind.err")"
else
	say "callgrind skipped: valgrind is not installed (make bench prints tpoint's alone)"
fi
if [ -n "$lttng_arg" ]; then
	$AS lttng --no-sessiond list peers-uid | sed -n 's/^ *\(Event-loss mode\|Sub-buffer size\|Sub-buffer count\)/  LTTng channel: \1/p' | sort -u
	lt destroy peers-uid
	lt destroy peers-pid
fi

# ---- 2c. USDT: tpoint's probes next to <sys/sdt.h>'s, a consumer attached ----
usdt_rows() {
echo
echo "== USDT: ns per call, 1 thread (median of $USDT_REPS batches) =="
# usdt_row LABEL BIN CASE CALLS [BPFTRACE-PROBE]: one row; with a probe, bpftrace counts it
# meanwhile (started first: the program waits for the kernel to raise the semaphore).
usdt_row() {
	bt=
	if [ -n "${5:-}" ]; then
		case $5 in
		*bench_str) prog="$5 { @[str(arg0)] = count(); }" ;;
		*bench_lat_start) # the pair: the start's time by key, the end's latency
			prog="$5 { @ts[arg0] = nsecs; }
${5%_start}_end /@ts[arg0]/ { @lat = hist(nsecs - @ts[arg0]); delete(@ts[arg0]); }" ;;
		*) prog="$5 { @n = count(); }" ;;
		esac
		bpftrace -e "$prog" >"$tmp/bt.out" 2>&1 &
		bt=$!
	fi
	r=$("$2" "$3" "$4" "$USDT_REPS" 2>"$tmp/usdt.err" | sed -n 's/^ns //p')
	if [ -n "$bt" ]; then
		kill -INT "$bt" 2>/dev/null
		wait "$bt" 2>/dev/null
	fi
	if [ -n "$r" ]; then
		set -- "$1" $r
		printf '%-58s %8.2f %8.2f - %8.2f\n' "$1" "$2" "$3" "$4"
	else
		say "$1: not measured: $(tail -n 1 "$tmp/usdt.err")"
	fi
}
printf '%-58s %8s %19s\n' "case" "ns/call" "min - max"
usdt_row "tpoint disabled, with USDT notes (the default)" "$B/usdt" tpoint-off "$CALLS"
usdt_row "tpoint disabled, built with -DTPOINT_NO_USDT" "$B/usdt-nousdt" tpoint-off "$CALLS"
if ! command -v bpftrace >/dev/null 2>&1; then
	say "USDT consumer rows skipped: bpftrace is not installed"
	return 0
fi
usdt_row "tpoint USDT probe, bpftrace attached (count)" "$B/usdt" tpoint "$USDT_CALLS" \
	"usdt:$B/usdt:bench:bench_u64x3"
[ $HAVE_SDT = 1 ] && usdt_row "USDT (sys/sdt.h) probe, bpftrace attached (count)" "$B/usdt" sdt \
	"$USDT_CALLS" "usdt:$B/usdt:peers_usdt:u64x3"
echo "(tpoint's own enabled cost: 'tpoint enabled, 3 x u64' in the table above)"
echo
echo "== a histogram keyed by a 32-byte string: ns per call, 1 thread (median of $USDT_REPS batches) =="
printf '%-58s %8s %19s\n' "case" "ns/call" "min - max"
usdt_row "tpoint hist:keys=s trigger, in the process" "$B/usdt" tpoint-hist "$CALLS"
usdt_row "bpftrace @[str(arg0)] = count() on its USDT probe" "$B/usdt" str "$USDT_CALLS" \
	"usdt:$B/usdt:bench:bench_str"
echo "(the record floor: 'record floor' in the table above)"
echo
echo "== latency between a start and an end event, keyed by id: ns per pair, 1 thread (median of $USDT_REPS batches) =="
printf '%-58s %8s %19s\n' "case" "ns/call" "min - max"
usdt_row "tpoint: ts0, onmatch().trace(), lat.log2, in the process" "$B/usdt" tpoint-lat "$CALLS"
usdt_row "bpftrace: @ts[arg0] = nsecs; @lat = hist(nsecs - @ts[arg0])" "$B/usdt" lat \
	"$USDT_CALLS" "usdt:$B/usdt:bench:bench_lat_start"
}
in_part usdt_rows

# ---- 3. throughput ----
throughput() {
echo
echo "== throughput: one thread emits $TPUT_EVENTS events (3 x u64) as fast as it can, to $TMPDIR =="
# The middle value of a column of numbers.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
: >"$tmp/tput.tpoint"
: >"$tmp/tput.lttng"
: >"$tmp/tput.paced"
: >"$tmp/tput.block"
# tpoint_run LABEL FILE [RATE] [RECORD-OPTION]: one run under tpoint record; a row, and
# "rate lost%" to FILE.
tpoint_run() {
	out="$tmp/tput.dat"
	if "$O/tpoint" record ${4:-} -e bench:bench_u64x3 -o "$out" -- "$B/emit" tpoint "$TPUT_EVENTS" ${3:-} \
		>"$tmp/emit.out" 2>"$tmp/record.err"; then
		secs=$(awk '/^emit:/ { print $5 }' "$tmp/emit.out")
		drain=$(awk '/^drain:/ { print $2 }' "$tmp/emit.out")
		# hits cond-skipped filtered recorded lost in-file
		set -- "$1" "$2" $("$O/tpoint" report --stats "$out" 2>/dev/null |
			awk '$1 == "bench:bench_u64x3" { print $2, $5, $6, $7 }')
		if [ $# = 6 ] && [ -n "$secs" ]; then
			awk -v n="$TPUT_EVENTS" -v s="$secs" -v hits="$3" -v rec="$4" -v lost="$5" \
			    -v infile="$6" -v run="$run" -v label="$1" -v drain="${drain:--}" 'BEGIN {
				printf "%-50s %3d %9.1f %9d %7.2f%% %8s%s\n", label, run, n / s / 1e6,
				       lost, 100 * lost / hits, drain,
				       rec + lost == hits && infile == rec ? "" : "  (counts do not add up)"
				print n / s / 1e6, 100 * lost / hits > "/dev/stderr"
			}' 2>>"$2"
		else
			say "tpoint report --stats gave no figures for run $run"
		fi
	else
		say "tpoint record failed: $(tail -n 1 "$tmp/record.err")"
	fi
	rm -f "$out"
}
printf '%-50s %3s %9s %9s %8s %8s\n' "tracer" "run" "Mevents/s" "lost" "lost %" "drain ns"
lt_rate=
for run in $(seq 1 "$TPUT_RUNS"); do
	tpoint_run "tpoint record (default pool, 8 MiB)" "$tmp/tput.tpoint"
	tpoint_run "tpoint record --block (default pool)" "$tmp/tput.block" "" --block
	if [ $lttng_ok = 1 ]; then
		# Per-UID buffers, discard mode, the channel's default sizes, written to tmpfs.
		ltout="$LT/tput"
		if lt create peers-tput --output="$ltout" &&
		   lt enable-channel -u -s peers-tput --buffers-uid --discard ch &&
		   lt enable-event -u -s peers-tput -c ch peers_lttng:u64x3_tput &&
		   lt start peers-tput; then
			$AS "$B/emit" lttng "$TPUT_EVENTS" >"$tmp/emit.out" 2>>"$tmp/lttng.log"
			lt stop peers-tput # returns once the consumer has written everything out
			secs=$(awk '/^emit:/ { print $5 }' "$tmp/emit.out")
			lost=$($AS lttng --no-sessiond list peers-tput | awk '/Discarded events:/ { d += $3 } END { print d + 0 }')
			[ $run = 1 ] && $AS lttng --no-sessiond list peers-tput |
				sed -n 's/^ *\(Sub-buffer size\|Sub-buffer count\)/  LTTng channel: \1/p'
			lt destroy peers-tput
			if [ -n "$secs" ]; then
				awk -v n="$TPUT_EVENTS" -v s="$secs" -v lost="$lost" -v run="$run" 'BEGIN {
					printf "%-50s %3d %9.1f %9d %7.2f%% %8s\n",
					       "LTTng-UST (per-UID, discard, default channel)", run,
					       n / s / 1e6, lost, 100 * lost / n, "-"
					print n / s / 1e6, 100 * lost / n > "/dev/stderr"
				}' 2>>"$tmp/tput.lttng"
				lt_rate=$(awk -v n="$TPUT_EVENTS" -v s="$secs" 'BEGIN { printf "%d", n / s }')
			fi
		fi
		rm -rf "$ltout"
	fi
	# The same number of events into tpoint, no faster than LTTng-UST emitted them just now
	# (without LTTng-UST: 10 M events/s).
	rate=${lt_rate:-10000000}
	tpoint_run "tpoint record, paced at $(awk -v r="$rate" 'BEGIN { printf "%.1f", r / 1e6 }') M/s${lt_rate:+ (LTTng's rate)}" \
		"$tmp/tput.paced" "$rate"
done
tp_lost=$(cut -d' ' -f2 "$tmp/tput.tpoint" | median)
if [ -n "$tp_lost" ]; then
	printf 'median: tpoint %.1f M events/s, %.2f %% lost' \
		"$(cut -d' ' -f1 "$tmp/tput.tpoint" | median)" "$tp_lost"
	[ -s "$tmp/tput.lttng" ] && printf '; LTTng-UST %.1f M events/s, %.2f %% lost' \
		"$(cut -d' ' -f1 "$tmp/tput.lttng" | median)" "$(cut -d' ' -f2 "$tmp/tput.lttng" | median)"
	[ -s "$tmp/tput.paced" ] && printf '; tpoint paced %.2f %% lost' \
		"$(cut -d' ' -f2 "$tmp/tput.paced" | median)"
	[ -s "$tmp/tput.block" ] && printf '; tpoint --block %.1f M events/s, %.2f %% lost' \
		"$(cut -d' ' -f1 "$tmp/tput.block" | median)" "$(cut -d' ' -f2 "$tmp/tput.block" | median)"
	echo
	# What the file system takes: the spool holds a page's bytes, 40 per event (8 of header),
	# or fewer where the drain packs them (lib/pack.h).
	dd if=/dev/zero of="$tmp/sink" bs=1M count=512 2>"$tmp/dd.err" >/dev/null
	rm -f "$tmp/sink"
	awk '/copied/ { for (i = 1; i < NF; i++) if ($i == "s,") s = $(i - 1); b = $1 }
	     END { if (s > 0) printf "sink: %s takes new data at %.2f GB/s (dd, 512 MiB): %.1f M events/s of unpacked spool at 40 B each\n", ENVIRON["TMPDIR"], b / s / 1e9, b / s / 40 / 1e6 }' "$tmp/dd.err"
	awk -v l="$tp_lost" 'BEGIN { printf "target: tpoint lost <= 1 %% at full speed, default mode (discard): %.2f %% (%s)\n", l, l <= 1 ? "met" : "NOT met" }'
	bl_lost=$(cut -d' ' -f2 "$tmp/tput.block" | median)
	[ -n "$bl_lost" ] && awk -v l="$bl_lost" -v r="$(cut -d' ' -f1 "$tmp/tput.block" | median)" 'BEGIN { printf "target: tpoint lost <= 1 %% at full speed, --block: %.2f %% at %.1f M events/s (%s)\n", l, r, l <= 1 ? "met" : "NOT met" }'
fi
}
throughput_part() { throughput | tee "$tmp/tput.out"; }
in_part throughput_part

# ---- 4. scale ----
echo
echo "== scale: $SCALE_THREADS threads =="
scale_part() { "$B/scale" "$SCALE_THREADS" | tee "$tmp/scale.out"; }
in_part scale_part

# ---- 5. tpoint top ----
echo
echo "== tpoint top: a program rewriting small files, ~100,000 dirty events/s =="
top_part() { O="$O" sh ./top.sh | tee "$tmp/top.out"; }
in_part top_part

# ---- 6. kernel events through record -k ----
# A getppid() loop for 5 s with syscalls:sys_enter_getppid recorded (its own calls only, as
# root): events/s in the file, lost as the kernel counts it (overrun, dropped), and the
# recorder's CPU per kernel event (the run's CPU less the loop's own), at the kernel's default
# instance buffer (buffer_size_kb, printed).
echo
echo "== kernel events: record -k, a system call in a loop, 5 s =="
kernel_part() {
	if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/syscalls/sys_enter_getppid ]; then
		echo "kernel events: not measured (needs root and syscalls:sys_enter_getppid)"
		return 0
	fi
	/usr/bin/time -f 'run_cpu_s %U %S' -o "$tmp/k.time" "$O/tpoint" record \
		-k syscalls:sys_enter_getppid --kernel-pids -o "$tmp/k.dat" -- "$B/ksyscall" 5 \
		>"$tmp/k.out" 2>"$tmp/k.err"
	awk '/^calls/ { calls = $2; own = $4 }
	     /^run_cpu_s/ { run = $2 + $3 }
	     /kernel \(instance/ { for (i = 1; i <= NF; i++) { if ($i == "KiB") kb = $(i - 1);
		if ($i == "events,") ev = $(i - 1); if ($i == "lost") lost = $(i - 1) } }
	     END { if (!ev) { print "kernel events: the recording failed"; exit }
		   printf "kernel events: %.2f M events/s recorded (%d of %d calls), %d lost as the kernel counts it, recorder %.2f us CPU per event, buffer %s KiB a CPU\n",
			ev / 5 / 1e6, ev, calls, lost, (run - own) * 1e6 / ev, kb
		   printf "target: -k loses nothing beyond the kernel'"'"'s own overrun: %d lost (%s)\n", lost, lost == 0 ? "met" : "see the kernel'"'"'s counts" }' \
		"$tmp/k.out" "$tmp/k.time" "$tmp/k.err" | tee "$tmp/kernel.out"
}
in_part kernel_part

# ---- 7. compressed trace.dat: bytes per event and the compression's CPU ----
echo
compress_part() {
	$MAKE --no-print-directory -C .. O="$O" "$O/bench/convert_gen" >/dev/null &&
		sh ../compress.sh "$O" | tee "$tmp/compress.out"
}
in_part compress_part

# ---- the summary, and the line it ends with ----
echo
echo "== targets =="
grep -h '^target:' "$tmp/peers.out" "$tmp/tput.out" "$tmp/scale.out" "$tmp/top.out" \
	"$tmp/kernel.out" "$tmp/compress.out" 2>/dev/null
stop_sessiond
line=$(grep '^tpoint vs LTTng-UST' "$tmp/peers.out")
echo "${line:-tpoint vs LTTng-UST (enabled, 1 thread): not measured}"
exit 0
