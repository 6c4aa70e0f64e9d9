#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Footprint and start-up of generated events (docs/PERFORMANCE.md, "Footprint and start-up").
#
#	footprint.sh [BUILD_DIR]	(default: build; the library must be built there)
#
# 1. Bytes per TRACE_EVENT, per DEFINE_EVENT and per call site, from programs built out of
#    headers that bench/footprint_gen.sh writes (events with three scalar fields), linked
#    against libtpoint as any program is (PIE, the compiler's defaults, -O2): the growth of
#    each section that is loaded (`size -A`, the sections with an address), from 1 to 101
#    events or from 0 to 100 sites, divided by 100. A site's inline part is what it adds
#    to the straight line of its function up to the first `ret`, the out-of-line part the
#    rest of its growth (the block that passes the arguments and calls the hit function).
# 2. Start-up with nothing enabled: programs of 1,000 and 3,000 events (a tenth of them
#    TRACE_EVENTs, the rest DEFINE_EVENTs of one class; building 3,000 TRACE_EVENTs takes
#    minutes) against the same program with none, run without arguments: instructions
#    counted by callgrind (the whole process, the dynamic loader included; steady on a
#    loaded machine), then, if perf is installed, task-clock over RUNS runs of each program,
#    taken in turn (none, 1,000, 3,000, none, ...) so that a drift of the machine's speed
#    falls on all alike: median, mean, and the 10th and 90th percentiles.
#
# Nothing here asserts anything. CC, RUNS (default 200) and SIZES (default "1000 3000")
# may be set.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build}
CC=${CC:-cc}
RUNS=${RUNS:-200}
SIZES=${SIZES:-1000 3000}
work=$O/bench/footprint
mkdir -p "$work"
[ -e "$O/libtpoint.so" ] || { echo "footprint: $O/libtpoint.so is not built" >&2; exit 1; }

build() { # NAME TE DE SITES
	d=$work/$1
	sh "$top/bench/footprint_gen.sh" "$d" fp "$2" "$3" "$4"
	$CC -O2 -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -I"$d" -c -o "$d/define.o" \
		"$d/fp_define.c"
	$CC -O2 -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -I"$d" -c -o "$d/sites.o" \
		"$d/fp_sites.c"
	$CC -o "$d/prog" "$d/define.o" "$d/sites.o" -L"$O" -ltpoint -Wl,-rpath,"$O" -lpthread
}

# The loaded sections of a program, "name size" a line.
loaded() {
	size -A "$1" | awk 'NF == 3 && $3 ~ /^[0-9]+$/ && $3 > 0 { print $1, $2 }'
}

# Section by section, (B - A) / N, and the total; "label" first.
per_item() { # LABEL A B N
	printf '%s\n' "$1"
	loaded "$2" >"$work/a.txt"
	loaded "$3" >"$work/b.txt"
	awk -v n="$4" 'FNR == NR { a[$1] = $2; next }
		{ d = $2 - a[$1]; if (d != 0) printf "  %-18s %8.1f\n", $1, d / n; t += d }
		END { printf "  %-18s %8.1f B\n", "total", t / n }' "$work/a.txt" "$work/b.txt"
}

# The bytes of fp_fire() up to and including its first ret, and its whole size (.cold too).
fire_bytes() {
	objdump -d --no-show-raw-insn "$1" | awk '
		function hex(s,   i, v) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		/<fp_fire>:$/ { on = 1; next }
		on && /^$/ { exit }
		on { x = $1; sub(":", "", x); a = hex(x); if (start == "") start = a }
		on && /\tret/ && hot == "" { hot = a - start + 1 }
		END { print hot }'
	nm -t d -S "$1" | awk '$4 == "fp_fire" || $4 == "fp_fire.cold" { s += $2 + 0 }
		END { print s }'
}

echo "== footprint: bytes per event and per call site (events of 3 scalar fields, -O2) =="
build te1 1 0 0
build te101 101 0 0
build de1 0 1 0
build de101 0 101 0
build site0 100 0 0
build site50 100 0 50
build site100 100 0 100
per_item "per TRACE_EVENT (1 -> 101 events):" "$work/te1/prog" "$work/te101/prog" 100
per_item "per DEFINE_EVENT (1 class, 1 -> 101 events):" "$work/de1/prog" "$work/de101/prog" 100
per_item "per call site (0 -> 100 sites of 100 events):" "$work/site0/prog" \
	"$work/site100/prog" 100
set -- $(fire_bytes "$work/site50/sites.o") $(fire_bytes "$work/site100/sites.o")
awk -v h1="$1" -v t1="$2" -v h2="$3" -v t2="$4" 'BEGIN {
	printf "  of it in the caller (50 -> 100 sites): inline %.1f B, out of line %.1f B\n",
		(h2 - h1) / 50, ((t2 - h2) - (t1 - h1)) / 50 }'

echo
echo "== start-up with nothing enabled: the program against the same with no event =="
build none 0 0 0
for n in $SIZES; do
	build "n$n" $((n / 10)) $((n - n / 10)) 0
done
if command -v valgrind >/dev/null 2>&1; then
	ir() {
		valgrind -q --tool=callgrind --callgrind-out-file="$work/cg.out" "$1" >/dev/null
		awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.out"
	}
	base=$(ir "$work/none/prog")
	echo "instructions (callgrind, whole process): no event $base"
	for n in $SIZES; do
		i=$(ir "$work/n$n/prog")
		awk -v n="$n" -v i="$i" -v b="$base" 'BEGIN {
			printf "  %5d events: %d, +%d (%.0f per event)\n", n, i, i - b, (i - b) / n }'
	done
else
	echo "instructions: valgrind is not installed; skipped"
fi
if command -v perf >/dev/null 2>&1; then
	progs="none"
	for n in $SIZES; do progs="$progs n$n"; done
	for p in $progs; do : >"$work/$p.clock"; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for p in $progs; do
			perf stat -x, -e task-clock "$work/$p/prog" 2>&1 >/dev/null |
				awk -F, '$3 == "task-clock" { print $1 }' >>"$work/$p.clock"
		done
		i=$((i + 1))
	done
	# "median mean p10 p90" of a file of figures, one a line
	stats() {
		sort -n "$1" | awk '{ v[NR] = $1; s += $1 } END {
			printf "%.4f %.4f %.4f %.4f\n", v[int((NR + 1) / 2)], s / NR,
				v[int(NR * 0.1) + 1], v[int(NR * 0.9)] }'
	}
	set -- $(stats "$work/none.clock")
	echo "CPU (perf stat task-clock, $RUNS runs each, ms): no event: median $1, mean $2, p10-p90 $3-$4"
	base_med=$1 base_mean=$2
	for n in $SIZES; do
		set -- $(stats "$work/n$n.clock")
		awk -v n="$n" -v med="$1" -v mean="$2" -v lo="$3" -v hi="$4" -v bm="$base_med" \
			-v bmean="$base_mean" 'BEGIN {
			printf "  %5d events: median %.3f (+%.3f ms, %.2f us per event), mean %.3f " \
				"(+%.3f ms, %.2f us per event), p10-p90 %.3f-%.3f\n", n, med, med - bm,
				(med - bm) * 1000 / n, mean, mean - bmean, (mean - bmean) * 1000 / n,
				lo, hi }'
	done
else
	echo "CPU: perf is not installed; skipped"
fi
