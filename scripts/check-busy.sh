#!/bin/sh
# make check-busy: make check -j2 with two CPU-bound busy loops running beside it, as on a
# loaded CI machine. No test may fail here: a test waits for what it wants to see (a line, a
# file, a count) with a generous deadline, never for a time in which it should have
# happened, and its conditions are about correctness, never a rate. Arguments go to make
# (make check-busy passes SANITIZE=1 and TESTS=... on).
set -u
cd "$(dirname "$0")/.."
sh -c 'while :; do :; done' &
b1=$!
sh -c 'while :; do :; done' &
b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT
trap 'exit 130' INT TERM
echo "check-busy: make check -j2 beside two busy loops (processes $b1 and $b2)"
env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory check -j2 "$@"
