#!/bin/sh
# The test runner: runs each test program or script given, from a scratch directory, and
# ends with one line "N passed, N failed, N skipped". Exit status 77 means skipped (the
# test names the missing tool or privilege on its last output line). Each test gets
# $TPOINT (the tool), $O (the build directory) and $TPOINT_TEST_TMP (its own scratch dir).
# A test that runs longer than $TPOINT_TEST_TIMEOUT seconds (900) fails: a hang, not a slow
# machine (a test takes seconds of CPU, a loaded machine's wall clock many times that).
#
#	tests/run.sh [-j N] TEST...
#
# With -j N (make check -j2 passes it on), up to N tests run at once. A test that must
# not run beside another such test says so in its source with the line "tpoint-test:
# serial" and why (it saturates the CPUs, or holds machine-wide state such as a tracefs
# instance or a fixed user's directory): those run one by one in a lane of their own, which
# takes one of the N places from the start, beside the other tests. (Every test passes
# with the machine busy: make check-busy.) Each
# result line gives the test's wall-clock seconds and the CPU seconds it used (user + system,
# of the processes it waited for): the wall clock grows with the machine's load, the CPU
# time does not.
jobs=1
case "${1:-}" in
-j) jobs=${2:-1}; shift 2 ;;
esac
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1

# run_one TEST: runs it, prints its result (with its output's tail when it failed) in one
# write, and leaves pass/fail/skip in $results.
run_one() {
	t=$1
	name=$(basename "$(dirname "$t")")/$(basename "$t")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-test.XXXXXX")
	case "$t" in
	/*) path=$t ;;
	*) path=$top/$t ;;
	esac
	case "$t" in
	*.sh) cmd="sh $path" ;;
	*) cmd="$path" ;;
	esac
	t0=$(date +%s)
	out=$(cd "$tmp" && TPOINT_TEST_TMP=$tmp timeout "${TPOINT_TEST_TIMEOUT:-900}" $cmd 2>&1
	      rc=$?; times >"$tmp.cpu"; exit $rc)
	rc=$?
	secs=$(($(date +%s) - t0))
	# times: the children's user and system time on its second line, as 0m1.230000s.
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
		    printf "%.1f", t }' "$tmp.cpu" 2>/dev/null)
	rm -f "$tmp.cpu"
	key=$results/$(printf '%s' "$name" | tr '/' '_')
	if [ $rc -eq 0 ]; then
		echo "pass $name" >"$key"
		msg="PASS $name (${secs} s, ${cpu:-?} s CPU)"
	elif [ $rc -eq 77 ]; then
		echo "skip $name" >"$key"
		msg="SKIP $name: $(printf '%s\n' "$out" | tail -n 1)"
	else
		echo "fail $name" >"$key"
		msg="FAIL $name (exit $rc, ${secs} s, ${cpu:-?} s CPU)
$(printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /')"
	fi
	printf '%s\n' "$msg"
	rm -rf "$tmp"
}

# The source of a test, where its "tpoint-test: serial" line would be.
source_of() {
	case "$1" in
	*.sh) echo "$1" ;;
	*) b=$(basename "$1"); ls "$top/tests/$b.c" "$top/tests/$b.cc" 2>/dev/null | head -n 1 ;;
	esac
}

# tests/run.sh --one TEST, with $top and $results set: one test (the parallel runner's unit);
# --one --lane: the serial tests in $lane, one after the other.
if [ "${1:-}" = --one ]; then
	if [ "$2" = --lane ]; then
		for t in $lane; do run_one "$t"; done
	else
		run_one "$2"
	fi
	exit 0
fi

top=$(pwd)
results=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-results.XXXXXX")
trap 'rm -rf "$results"' EXIT
lane="" shared=""
for t in "$@"; do
	s=$(source_of "$t")
	if [ "$jobs" -gt 1 ] && [ -n "$s" ] && grep -q "tpoint-test: serial" "$s"; then
		lane="$lane $t"
	else
		shared="$shared $t"
	fi
done

if [ "$jobs" -gt 1 ]; then
	export top results lane
	{
		[ -n "$lane" ] && echo --lane
		for t in $shared; do printf '%s\n' "$t"; done
	} | xargs -P "$jobs" -I{} sh "$0" --one {}
else
	for t in $shared; do run_one "$t"; done
fi

count() { cat "$results"/* 2>/dev/null | grep -c "^$1 "; }
pass=$(count pass) fail=$(count fail) skip=$(count skip)
[ "$fail" -gt 0 ] && echo "failed:$(cat "$results"/* | sed -n 's/^fail / /p' | tr -d '\n')"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
