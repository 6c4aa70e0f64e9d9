#!/bin/sh
# SPDX-License-Identifier: MIT
# One size grammar (tpoint(1), tpoint(3)), one parser (lib/poolsize.c, whose table of
# spellings and refusals is tests/poolsize_test.c): TPOINT_BUFFER_SIZE, read by the library,
# and `tpoint record -b`, read by the tool, both reach it, so they give the same pool: here
# one spelling, end to end. Each way's pool is read from the process's memory map (its
# memfd:tpoint-pool mapping).
set -u
export LC_ALL=C
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

# The size of the pool mapping of process $1, waiting for it for 60 s at most; "" if none.
pool_of() {
	for i in $(seq 600); do
		m=$(awk '/memfd:tpoint-pool/ { split($1, a, "-"); print a[1], a[2]; exit }' \
			"/proc/$1/maps" 2>/dev/null)
		if [ -n "$m" ]; then
			set -- $m
			echo $((0x$2 - 0x$1))
			return
		fi
		sleep 0.1
	done
}

# The library: TPOINT_BUFFER_SIZE=$1 in the environment. Prints the pool's size.
by_library() {
	rm -f lib.out # not the last run's lines: the shell empties it once the target started
	TPOINT_DEBUG=1 TPOINT_BUFFER_SIZE=$1 TPOINT_EVENTS=tpt_ctl:ctl_tick \
		"$B/tests/ctltarget" 60 10000 >lib.out 2>&1 &
	t=$!
	pids="$pids $t"
	wait_lines lib.out 1 '^ready ' 60 || fail "ctltarget did not start"
	! grep -q "TPOINT_BUFFER_SIZE" lib.out || { cat lib.out; fail "TPOINT_BUFFER_SIZE='$1' refused"; }
	pool_of $t
	kill $t
	wait $t 2>/dev/null
}

# The tool: tpoint record -b $1 -p of a process started for it (a pool, once made, stays).
# Prints the pool's size.
by_tool() {
	start 60 10000
	"$TPOINT" record -p "$P" -b "$1" -e ctl_tick -o t.dat --duration 60 >/dev/null 2>rec.err &
	r=$!
	pids="$pids $r"
	size=$(pool_of "$P")
	[ -n "$size" ] || { cat rec.err; fail "record -b '$1': no pool"; }
	kill -INT $r
	wait $r || { cat rec.err; fail "record -b '$1' ended by SIGINT exited $?"; }
	kill "$P"
	echo "$size"
}

lib=$(by_library 2048KiB)
tool=$(by_tool 2048KiB)
[ -n "$lib" ] && [ "$lib" = "$tool" ] || fail "'2048KiB': the library gives '$lib', record -b '$tool'"
echo "ok: '2048KiB': a pool of $lib bytes by both"
