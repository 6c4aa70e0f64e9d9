#!/bin/sh
# make check-private: the tests that run programs as another user, run from a copy of this
# tree inside a directory of mode 0700, as a clone under a private home is. Those tests must
# stage what the other user runs (tests/lib/user_stage.sh); one that reaches into the tree
# as that user fails here, even where the tree itself sits in a world-readable directory.
# The copy holds the tree as it is now (tracked and untracked files) and its build/, times
# kept, so that make in the copy finds it built (no second build of the same tree).
# Arguments: the tests, named as `make check TESTS=...` names them ($(O) is build/ there).
set -eu
# The make that runs this script keeps its jobserver to itself: the makes here choose
# their own jobs (one per CPU, or the -j they give) rather than fall back to one.
unset MAKEFLAGS MFLAGS MAKELEVEL
[ "$(id -u)" = 0 ] || { echo "check-private: not root: no other user to run tests as; nothing done"; exit 0; }
cd "$(dirname "$0")/.."
home=$(mktemp -d "${TMPDIR:-/tmp}/tpoint-private.XXXXXX")
trap 'rm -rf "$home"' EXIT
chmod 700 "$home"
mkdir "$home/tpoint"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do if [ -e "$f" ] || [ -L "$f" ]; then cp --parents -P --preserve=timestamps "$f" "$0"; fi; done' "$home/tpoint"
[ ! -d build ] || cp -a build "$home/tpoint/"
echo "check-private: building a copy in $home (mode 0700)"
make -C "$home/tpoint" -j2 --no-print-directory >"$home/build.log" 2>&1 ||
	{ tail -n 30 "$home/build.log"; exit 1; }
tests=""
for t in "$@"; do tests="$tests $(echo "$t" | sed 's|^[^/]*/tests/|build/tests/|')"; done
make -C "$home/tpoint" --no-print-directory check TESTS="$tests"
