#!/bin/sh
# Every build a C or C++ program has, with gcc and clang: no -O and -O0 to -O3, -Og and -Os,
# with and without -g, PIE and not, LTO, C11 and GNU11 under -pedantic-errors, C++17 and
# C++20, jump-label sites, and C and C++ files mixed both ways (one defines the events with
# CREATE_TRACE_POINTS, the other calls them). Each build must compile without a warning
# (-Wall -Wextra -Werror -pedantic-errors; clang adds -Wextra-semi) and record every event
# it hits, which `tpoint report` reads back. A program whose events no file defines fails to
# link with an error that names CREATE_TRACE_POINTS. Then the library itself at -O0 -g, as
# `make CFLAGS='-O0 -g'` builds it, with a program that links it statically.
# make check builds each kind of build once (no -O, -O0 -g, -O2, -Os, C11, PIE, LTO, jump
# labels, C++ both ways); make check-stress (TPOINT_TEST_STRESS=1) every optimisation level
# of each.
set -u
B=$(cd "$(dirname "$TPOINT")" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
nm -D "$B/libtpoint.so" 2>/dev/null | grep -q __asan_ &&
	{ echo "a sanitizer build: the matrix builds plain programs, run it in the plain build"; exit 77; }
command -v clang >/dev/null && command -v clang++ >/dev/null ||
	{ echo "clang is not installed (scripts/deps.sh installs it)"; exit 77; }

INC="-I$top/include -I$top/tests"
LINK="-L$B -ltpoint -Wl,-rpath,$B -lpthread"
builds=0
# full RUN-ARGS...: a build of the whole matrix only, in make check-stress.
full() {
	[ "${TPOINT_TEST_STRESS:-0}" = 0 ] || run "$@"
}

# run NAME CC-FOR-DEFS CC-FOR-MAIN LINKER "FLAGS" ["LINK-ONLY FLAGS" [LIBS]]: build, run
# with every event on, and count what the recording holds.
run() {
	name=$1 dcc=$2 mcc=$3 ld=$4 flags=$5 ldflags=${6:-} libs=${7:-$LINK}
	warn="-Wall -Wextra -Werror -pedantic-errors"
	case $dcc$mcc in *clang*) warn="$warn -Wextra-semi" ;; esac
	rm -f defs.o main.o prog out.dat
	$dcc $flags $warn $INC -c "$top/tests/matrix/defs.c" -o defs.o 2>err.txt &&
		$mcc $flags $warn $INC -c "$top/tests/matrix/main.c" -o main.o 2>>err.txt &&
		$ld $flags $ldflags defs.o main.o -o prog $libs 2>>err.txt ||
		{ cat err.txt; fail "$name: does not build"; }
	[ -s err.txt ] && { cat err.txt; fail "$name: warnings"; }
	TPOINT_EVENTS='tpt_matrix:*' TPOINT_RECORD=out.dat ./prog >stdout.txt 2>&1 ||
		{ cat stdout.txt; fail "$name: the program exited $?"; }
	grep -qx 'probe 2000 enabled 1' stdout.txt ||
		{ cat stdout.txt; fail "$name: want 'probe 2000 enabled 1'"; }
	"$TPOINT" report out.dat >report.txt 2>&1 || { tail report.txt; fail "$name: report failed"; }
	for want in matrix_kv:2000 matrix_even:1000 matrix_read:2000 matrix_write:1000 \
		matrix_sync:2000; do
		n=$(grep -c " ${want%:*}: " report.txt)
		[ "$n" = "${want#*:}" ] || fail "$name: ${want%:*}: recorded $n, want ${want#*:}"
	done
	grep -q 'matrix_kv: *op=put key=k7 len=7 tag=mtx$' report.txt &&
		grep -q 'matrix_read: *fd=3 bytes=5 path=/data/r flags=R|W$' report.txt &&
		grep -q 'matrix_sync: *sync fd=1$' report.txt ||
		{ grep -m 3 matrix_ report.txt; fail "$name: records not rendered as expected"; }
	builds=$((builds + 1))
}

for cc in gcc clang; do
	case $cc in gcc) cxx=g++ ;; clang) cxx=clang++ ;; esac
	for o in "" "-O0 -g" "-O2" "-Os"; do
		run "$cc ${o:-(no -O)}" $cc $cc $cc "-std=gnu11 $o"
	done
	for o in "-O0" "-Og" "-O1" "-O2 -g" "-O3" "-Os -g"; do
		full "$cc $o" $cc $cc $cc "-std=gnu11 $o"
	done
	full "$cc -std=c11 -O0" $cc $cc $cc "-std=c11 -O0"
	run "$cc -std=c11 -O2" $cc $cc $cc "-std=c11 -O2"
	run "$cc -O0 -fPIE -pie" $cc $cc $cc "-O0 -fPIE" -pie
	run "$cc -O2 -fno-pie -no-pie" $cc $cc $cc "-O2 -fno-pie" -no-pie
	full "$cc -O0 -fno-pie -no-pie" $cc $cc $cc "-O0 -fno-pie" -no-pie
	full "$cc jump labels -O0" $cc $cc $cc "-O0 -DTPOINT_JUMP_LABEL"
	run "$cc jump labels -O2 -g" $cc $cc $cc "-O2 -g -DTPOINT_JUMP_LABEL"
	printf 'int main(void) { return 0; }\n' >lto.c
	if $cc -O2 -flto lto.c -o lto 2>/dev/null; then
		run "$cc -O2 -flto" $cc $cc $cc "-O2 -flto"
		full "$cc -O0 -flto" $cc $cc $cc "-O0 -flto"
	else
		echo "note: $cc -flto does not link here (no linker plugin); LTO skipped for $cc"
	fi
	# C++: both files, then each way round with C.
	run "$cxx -std=c++17 -O0" "$cxx -x c++" "$cxx -x c++" $cxx "-std=c++17 -O0"
	run "$cxx -std=c++20 -O2" "$cxx -x c++" "$cxx -x c++" $cxx "-std=c++20 -O2"
	run "C defines, $cxx -std=c++17 calls, -O0 -g" $cc "$cxx -std=c++17 -x c++" $cxx "-O0 -g"
	run "$cxx -std=c++20 defines, C calls, -O2" "$cxx -std=c++20 -x c++" $cc $cxx "-O2"
	run "$cxx jump labels -O0" "$cxx -x c++" "$cxx -x c++" $cxx "-std=c++17 -O0 -DTPOINT_JUMP_LABEL"
done
echo "ok: $builds builds of the matrix program compiled quietly and recorded every event"

# No file defines the events (CREATE_TRACE_POINTS forgotten): the link fails, naming the cause.
gcc -O2 $INC -c "$top/tests/matrix/main.c" -o main.o && ! gcc main.o -o prog $LINK 2>err.txt ||
	fail "a program whose events no file defines links"
grep -q "undefined reference to .__tpoint_event_matrix_[a-z]*__made_by_CREATE_TRACE_POINTS" err.txt ||
	{ cat err.txt; fail "the link error does not name CREATE_TRACE_POINTS"; }
echo "ok: without CREATE_TRACE_POINTS the link error names it"

# The library at -O0 -g, built by its own Makefile, linked statically into the -O0 program.
L=$(pwd)/lib-O0
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" O="$L" CFLAGS='-O0 -g' \
	"$L/libtpoint.a" >make.txt 2>&1 || { tail -20 make.txt; fail "make CFLAGS='-O0 -g' fails on the library"; }
run "libtpoint.a built at -O0 -g" gcc gcc gcc "-O0 -g" "" "$L/libtpoint.a -lpthread"
echo "ok: the library builds at -O0 -g and records"
