#!/bin/sh
# What a new user meets when something records nothing or less than asked (issue 19, items
# 7 and 8): every silent zero is said, once, where the user looks.
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }

# The command's failure is record's exit status (as with trace-cmd record and perf record);
# the file is written all the same.
"$TPOINT" record -e hello -o st.dat -- sh -c "'$B/examples/hello' >/dev/null; exit 3" 2>err.txt
rc=$?
[ $rc = 3 ] || { cat err.txt; fail "a command that exits 3: record exited $rc"; }
n=$(trace-cmd report st.dat 2>/dev/null | grep -c 'hello_greet:')
[ "$n" = 3 ] || fail "the failed command's 3 events: trace-cmd shows $n"
"$TPOINT" record -e hello -o st.dat -- sh -c "'$B/examples/hello' >/dev/null; kill -TERM \$\$" 2>err.txt
rc=$?
[ $rc = 143 ] || { cat err.txt; fail "a command killed by SIGTERM: record exited $rc, not 128+15"; }
grep -q "killed by signal 15" err.txt || { cat err.txt; fail "the signal is not said"; }
"$TPOINT" record -e hello -o st.dat -- "$B/examples/hello" >/dev/null 2>err.txt ||
	{ cat err.txt; fail "a command that succeeds: record exited $?"; }
echo "ok: record exits with the command's status (3, 128+15, 0)"
