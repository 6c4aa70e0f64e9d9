#!/bin/sh
# SPDX-License-Identifier: MIT
# One size grammar (tpoint(1), tpoint(3)), one parser (lib/poolsize.c, whose table of
# spellings is tests/poolsize_test.c): TPOINT_BUFFER_SIZE, read by the library, and
# `tpoint record -b`, read by the tool, both reach it, so they take and refuse the same
# values and give the same pool: here one spelling each takes and one each refuses. Each
# way's pool is read from the process's memory map (its memfd:tpoint-pool mapping); a
# refusal names the value.
set -u
export LC_ALL=C
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

# The size of the pool mapping of process $1, waiting for it for 10 s at most; "" if none.
pool_of() {
	for i in $(seq 100); do
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

# The library: TPOINT_BUFFER_SIZE=$1 in the environment. Prints the pool's size or "refused".
by_library() {
	rm -f lib.out # not the last run's lines: the shell empties it once the target started
	TPOINT_DEBUG=1 TPOINT_BUFFER_SIZE=$1 TPOINT_EVENTS=tpt_ctl:ctl_tick \
		"$B/tests/ctltarget" 60 10000 >lib.out 2>&1 &
	t=$!
	pids="$pids $t"
	wait_lines lib.out 1 '^ready ' 10 || fail "ctltarget did not start"
	if grep -q "TPOINT_BUFFER_SIZE" lib.out; then
		grep -qF "TPOINT_BUFFER_SIZE='$1': expected a size" lib.out ||
			{ cat lib.out; fail "the library's refusal of '$1' does not name it"; }
		echo refused
	else
		pool_of $t
	fi
	kill $t
	wait $t 2>/dev/null
}

# The tool: tpoint record -b $1 -p of a process started for it (a pool, once made, stays).
# Prints the pool's size or "refused".
by_tool() {
	start 60 10000
	"$TPOINT" record -p "$P" -b "$1" -e ctl_tick -o t.dat --duration 60 >/dev/null 2>rec.err &
	r=$!
	pids="$pids $r"
	size=$(pool_of "$P")
	if [ -n "$size" ]; then
		kill -INT $r
		wait $r || { cat rec.err; fail "record -b '$1' ended by SIGINT exited $?"; }
		kill "$P"
		echo "$size"
		return
	fi
	wait $r
	rc=$?
	kill "$P"
	[ $rc = 2 ] || { cat rec.err; fail "record -b '$1': no pool, and exit $rc, not 2"; }
	[ "$(wc -l <rec.err)" = 1 ] && grep -qF "'$1': expected a size" rec.err ||
		{ cat rec.err; fail "record -b '$1': not one line naming the value"; }
	echo refused
}

check() { # VALUE EXPECTED(ok|refused)
	lib=$(by_library "$1")
	tool=$(by_tool "$1")
	[ "$lib" = "$tool" ] || fail "'$1': the library gives '$lib', record -b '$tool'"
	case $2 in
	refused) [ "$lib" = refused ] || fail "'$1' was taken ($lib bytes), expected a refusal" ;;
	*) [ "$lib" != refused ] || fail "'$1' was refused, expected it taken" ;;
	esac
	[ "$2" = refused ] || eval "size_$3=\${size_$3:-$lib}; [ \"\$size_$3\" = $lib ]" ||
		fail "'$1' gives a pool of $lib bytes, another spelling of the same size another"
	echo "ok: '$1': ${lib}${2:+ ($2)} by both"
}

check 2048KiB ok 2m
check 8Mi refused
