#!/bin/sh
# SPDX-License-Identifier: MIT
# tpoint-test: serial (bpftrace attaches uprobes, under load)
# The kernel changes an event's USDT semaphore at any time: bpftrace attaches to and detaches
# from tpt_usdt:usdt_cond USDT_STRESS_ROUNDS times (default 2 per kind of site; 50 with
# `make check-stress` or `make check-usdt-stress`) while `tpoint enable/disable -p` switches the same event on and
# off as fast as it can, and two threads of the target hit it -- with load-and-branch sites,
# then with jump-label sites. No crash; the counters add up (tpoint counts no more hits than
# the threads made); the bpftrace rounds counted hits; at the end the word is exactly the
# library's bits (on: 1, off: 0) and the semaphore 0. A round takes about 2.5 s on 2 CPUs
# (bpftrace starts in ~1 s): 2 rounds a kind, ~10 s.
set -u
fail() { echo "FAIL: $*"; tail -5 target.out 2>/dev/null; exit 1; }
. "$(dirname "$0")/usdt.inc"
rounds=2
[ "${TPOINT_TEST_STRESS:-0}" = 0 ] || rounds=50
rounds=${USDT_STRESS_ROUNDS:-$rounds}

[ "$(uname -m)" = x86_64 ] || [ "$(uname -m)" = aarch64 ] ||
	{ echo "skip: USDT probes are written on x86-64 and arm64 only"; exit 77; }
need_bpftrace

json_field() { sed -n "s/.*\"$1\": \([0-9]*\),.*/\1/p" "$2"; }

for kind in plain jump; do
	T=$B/tests/usdttarget
	[ $kind = jump ] && T=$B/tests/usdttarget_jump
	start_target "$T"
	ask stress "^stress$"
	rm -f stop
	(
		while [ ! -f stop ]; do
			"$TPOINT" enable -p "$P" tpt_usdt:usdt_cond >/dev/null || echo "enable failed" >>flip.err
			"$TPOINT" disable -p "$P" tpt_usdt:usdt_cond >/dev/null || echo "disable failed" >>flip.err
		done
	) &
	flipper=$!
	pids="$pids $flipper"
	counted=0 r=0
	# The rounds asked for, and more until one of them counted hits: a round of 200 ms may
	# meet only instants in which a busy machine ran neither thread.
	while [ $r -lt "$rounds" ] || { [ $counted = 0 ] && [ $r -lt $((rounds + 20)) ]; }; do
		r=$((r + 1))
		timeout 60 bpftrace -e "usdt:$T:tpt_usdt:usdt_cond { @n = count(); }
			interval:ms:200 { exit(); }" >round.bt 2>&1 || { cat round.bt; fail "$kind: bpftrace round $r"; }
		grep -q '^@n: [1-9][0-9]*$' round.bt && counted=$((counted + 1))
		kill -0 "$P" 2>/dev/null || fail "$kind: the target died in round $r"
	done
	touch stop
	wait "$flipper"
	[ -f flip.err ] && fail "$kind: $(sort flip.err | uniq -c | tr '\n' ' ')"
	ask unstress "^unstress "
	hits=$(sed -n 's/^unstress //p' target.out | tail -n 1)
	[ "$counted" -ge 1 ] || fail "$kind: none of $r bpftrace rounds counted hits"

	wait_usdt tpt_usdt:usdt_cond -eq 0
	[ "$(word)" = 0 ] || fail "$kind: the event is off and nothing attached, yet the word is $(word)"
	"$TPOINT" enable -p "$P" tpt_usdt:usdt_cond >/dev/null || fail "enable"
	[ "$(word)" = 0x1 ] || fail "$kind: the event is on, the word should be 0x1: $(word)"
	"$TPOINT" disable -p "$P" tpt_usdt:usdt_cond >/dev/null || fail "disable"
	[ "$(word)" = 0 ] || fail "$kind: off again, yet the word is $(word)"

	"$TPOINT" stat -p "$P" --json -e usdt_cond >s.json || fail "stat"
	skipped=$(json_field condition_skipped s.json)
	rec=$(json_field recorded s.json)
	lost=$(json_field lost s.json)
	# In memory (the flight recorder) old records are overwritten: counted as lost.
	[ $((skipped + rec + lost)) -le "$hits" ] ||
		fail "$kind: tpoint counted $skipped + $rec + $lost hits, the threads made $hits"
	[ "$rec" -gt 0 ] || fail "$kind: nothing was recorded while the event was switched on and off"
	if [ $kind = jump ]; then
		"$TPOINT" stat -p "$P" | grep -q '^jump labels: [0-9]* sites, patched' ||
			fail "jump: the sites are not NOPs at the end"
	fi
	ask quit "^bye"
	exec 3>&-
	echo "ok: $kind: $r bpftrace attach/detach rounds ($counted counted hits) while the event flipped on/off under $hits hits of 2 threads; $rec recorded, $skipped skipped by the condition, $lost overwritten in memory; word 0 at the end"
done
