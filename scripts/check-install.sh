#!/bin/sh
# make check-install: install into a scratch prefix, then build a C11 and a C++17 program
# against what was installed, as a user would (pkg-config, the installed headers only), link
# each shared and static, run them with their events on, and read their files back with
# the installed tpoint. Exits non-zero on the first failure.
set -eu
# The make that runs this script keeps its jobserver to itself: the makes here choose
# their own jobs (one per CPU, or the -j they give) rather than fall back to one.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-install: FAIL: $*" >&2; exit 1; }

make -s -C "$top" install PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "make install"; }
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cflags=$(pkg-config --cflags tpoint) && libs=$(pkg-config --libs tpoint) &&
	static=$(pkg-config --libs tpoint-static) || fail "pkg-config does not know tpoint"

mkdir -p "$tmp/app/trace/events"
cat >"$tmp/app/trace/events/app.h" <<'HDR'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM app
#if !defined(_TRACE_APP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_APP_H
#include <tpoint/tracepoint.h>
TRACE_EVENT(app_op,
	TP_PROTO(int n, const char *what),
	TP_ARGS(n, what),
	TP_STRUCT__entry(
		__field(int, n)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(what);
	),
	TP_printk("n=%d what=%s", __entry->n, __get_str(what))
);
#endif
#include <tpoint/define_trace.h>
HDR
cat >"$tmp/app/main.c" <<'SRC'
#define CREATE_TRACE_POINTS
#include <trace/events/app.h>
int main(void)
{
	for (int i = 0; i < 10; i++)
		trace_app_op(i, "installed");
	return 0;
}
SRC
cp "$tmp/app/main.c" "$tmp/app/main.cc"

cd "$tmp/app"
n=0
for build in "cc -std=c11 main.c" "c++ -std=c++17 main.cc"; do
	for link in shared static; do
		case $link in
		shared) l="$libs -Wl,-rpath,$tmp/prefix/lib" ;;
		static) l="$static" ;;
		esac
		# shellcheck disable=SC2086 # the flags are words
		$build -O2 -Wall -Wextra -Werror -pedantic-errors -I. $cflags -o prog $l \
			2>err.txt || { cat err.txt; fail "$build, linked $link"; }
		if [ $link = static ] && ldd ./prog | grep -q libtpoint; then
			fail "$build, linked static, still needs libtpoint.so"
		fi
		rm -f out.dat
		TPOINT_EVENTS='app:*' TPOINT_RECORD=out.dat ./prog || fail "$build ($link) exited $?"
		c=$("$tmp/prefix/bin/tpoint" report out.dat | grep -c 'app_op: *n=[0-9] what=installed$') ||
			true
		[ "$c" = 10 ] || fail "$build ($link): the installed tpoint reads $c of 10 events"
		n=$((n + 1))
	done
done
man -l "$tmp/prefix/share/man/man1/tpoint.1" >/dev/null 2>&1 ||
	[ -s "$tmp/prefix/share/man/man1/tpoint.1" ] || fail "tpoint(1) is not installed"
echo "check-install: $n programs built against the installed tree (C11 and C++17, shared and static) recorded their events"
