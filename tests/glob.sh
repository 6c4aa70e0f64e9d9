#!/bin/sh
# SPDX-License-Identifier: MIT
# One glob language (tpoint(1)), one matcher (lib/globs.c, whose table of cases is
# tests/globs_test.c; the -e/-f rules around it are tests/selection_test.c's): the runtime
# library (TPOINT_EVENTS, tpoint enable -p: lib/patterns.c) and every verb of the tool that
# takes globs (filter, stat -e, and the selections of stream -e and record -p -e:
# tools/tpoint/glob.c) reach it, so they select the same events of a running process: here
# one glob, end to end; the tables hold every other case.
set -u
export LC_ALL=C
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/ctltarget.inc"

# ctl_tick every 10 ms, ctl_odd with it when n is odd.
start 120 10000
D=tpt_ctl:ctl_odd

# The events of the process each way selects, sorted, one line: "" for none.
by_library() {
	"$TPOINT" enable -p "$P" "$1" >/dev/null 2>err.txt || { echo ""; return; }
	"$TPOINT" list -p "$P" | sed -n 's/^\([^ ]*\)  \[enabled\]$/\1/p' | sort | tr '\n' ' '
	"$TPOINT" disable -p "$P" "$1" >/dev/null 2>&1 || fail "disable -p '$1' exited $?"
	echo
}
by_filter() {
	"$TPOINT" filter -p "$P" "$1" 'common_pid != 0' >/dev/null 2>err.txt || { echo ""; return; }
	"$TPOINT" list -p "$P" | awk '/^[^ ]/ { ev = $1 } /^  filter: / { print ev }' | sort |
		tr '\n' ' '
	"$TPOINT" filter -p "$P" "$1" --clear >/dev/null 2>&1 || fail "filter --clear '$1' exited $?"
	echo
}
by_stat() {
	"$TPOINT" stat -p "$P" -e "$1" 2>err.txt | awk '$1 ~ /:/ && $1 != "jump" { print $1 }' |
		sort | tr '\n' ' '
	echo
}
# Six lines of stream -e: ctl_tick and ctl_odd alternate in the process, so six lines hold
# every one of them the glob selects, and none it does not.
by_stream() {
	# The last glob's lines must not be taken for these: the shell truncates s.out only
	# once the stream has started.
	rm -f s.out
	"$TPOINT" stream -p "$P" -e "$1" >s.out 2>err.txt &
	s=$!
	if ! wait_lines s.out 6 ': ' 20; then
		kill -INT $s 2>/dev/null
		wait $s
		echo ""
		return
	fi
	kill -INT $s
	wait $s || fail "stream -e '$1' ended by SIGINT exited $?"
	head -n 6 s.out | sed -n 's/.* \([a-z_]*\): .*/tpt_ctl:\1/p' | sort -u | tr '\n' ' '
	echo
}

check() { # GLOB EXPECTED
	want=$2
	for way in library filter stat stream; do
		got=$(by_$way "$1")
		# stream sees only events that fire: tpoint:print never does here.
		[ $way = stream ] && want=$(echo "$2" | sed 's/tpoint:print //')
		[ "$got" = "$want" ] ||
			fail "'$1' by $way selects '$got', expected '$want' ($(head -c 200 err.txt))"
	done
	echo "ok: '$1' selects '${2:-nothing}' in the library, filter, stat and stream"
}

check "tpt_*:ctl_[o]dd" "$D "
