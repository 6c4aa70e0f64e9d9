# Sourced by the tests of text that other processes choose, after they define fail() and
# set B (the build directory) and pids (what their EXIT trap kills).
# start_hostile_fake: starts `ctlfake hostile` (every answer carries terminal controls and
# bytes that are not UTF-8) with its socket under ./xdg, exports XDG_RUNTIME_DIR there so
# that the tool finds it, and sets F to its pid.
start_hostile_fake() {
	mkdir -m 700 xdg
	export XDG_RUNTIME_DIR=$PWD/xdg
	"$B/tests/ctlfake" hostile "$PWD/xdg/tpoint" >fake.out 2>&1 &
	pids="$pids $!"
	for _i in $(seq 200); do
		grep -q '^ready' fake.out && break
		sleep 0.1
	done
	F=$(sed -n 's/^ready //p' fake.out)
	[ -n "$F" ] || { cat fake.out; fail "the fake process did not start"; }
}
