# Sourced by the tests that wait for something to happen: each wait polls every 50 ms and
# returns as soon as the awaited thing is there, with a deadline generous enough for a busy
# machine (a fixed sleep is too short there, and too long everywhere else).

# wait_until SECONDS COMMAND...: until COMMAND succeeds; false after SECONDS.
wait_until() {
	_wu_n=$(($1 * 20))
	shift
	while ! "$@"; do
		_wu_n=$((_wu_n - 1))
		[ $_wu_n -gt 0 ] || return 1
		sleep 0.05
	done
}

# wait_ready FILE PID: until a test program (tests/ctltarget.c, toptarget.c...) said
# "ready PID" in FILE, its output; false after 60 s.
wait_ready() {
	wait_until 60 grep -q "^ready $2\$" "$1"
}

