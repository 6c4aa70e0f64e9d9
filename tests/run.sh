#!/bin/sh
# The test runner: runs each test program or script given, from a scratch directory, and
# ends with one line "N passed, N failed, N skipped". Exit status 77 means skipped (the
# test names the missing tool or privilege on its last output line). Each test gets
# $TPOINT (the tool), $O (the build directory) and $TPOINT_TEST_TMP (its own scratch dir).
# A test that runs longer than $TPOINT_TEST_TIMEOUT seconds (300) fails.
pass=0 fail=0 skip=0 failed=""
top=$(pwd)
for t in "$@"; do
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
	out=$(cd "$tmp" && TPOINT_TEST_TMP=$tmp timeout "${TPOINT_TEST_TIMEOUT:-300}" $cmd 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS $name"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1))
		echo "SKIP $name: $(printf '%s\n' "$out" | tail -n 1)"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL $name (exit $rc)"
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /'
	fi
	rm -rf "$tmp"
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
