# Sourced by the tests of embedded recording (TPOINT_RECORD: tests/embedded_*.sh): builds
# tests/embtarget.c against this build's library (sanitized like it, if it is) into
# ./embtarget, as tests/messages.sh builds its program. Sets B (the build directory) and
# E (the program). Defines fail() unless the test did, and wait_for FILE PATTERN SECONDS.
B=$(dirname "$TPOINT")
_top=$(cd "$(dirname "$0")/.." && pwd)
command -v fail >/dev/null 2>&1 || fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }
_san=
nm -D "$B/libtpoint.so" 2>/dev/null | grep -q __asan_ && _san="-fsanitize=address,undefined"
${CC:-cc} -O2 -g $_san -I"$_top/include" -I"$_top/tests" -o embtarget "$_top/tests/embtarget.c" \
	-L"$B" -ltpoint -Wl,-rpath,"$B" -lpthread 2>build.err || { cat build.err; fail "cannot build embtarget"; }
E=$(pwd)/embtarget
export TPOINT_EVENTS=tpt_msg:msg_tick
unset TPOINT_RECORD TPOINT_FILTER TPOINT_DEBUG TPOINT_SPOOL_DIR TPOINT_RECORD_OWNER TPOINT_POOL \
	TPOINT_COLLECT TPOINT_WATCH

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN; false after SECONDS.
wait_for() {
	_n=$(($3 * 20))
	while [ $_n -gt 0 ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		_n=$((_n - 1))
	done
	return 1
}

# events FILE: how many msg_tick trace-cmd reads in FILE.
events() { trace-cmd report "$1" 2>/dev/null | grep -c 'msg_tick:'; }
