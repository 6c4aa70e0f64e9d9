#!/bin/sh
# The pool's page metadata starts with a versioned header that its readers check
# (tests/poolmeta_check.c says what is checked). Built here against libtpoint.a, whose
# internals a static link can reach.
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
san=
nm "$B/libtpoint.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
$CC $san -O2 -g -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -I"$top/lib" \
	-o poolmeta_check "$top/tests/poolmeta_check.c" "$B/libtpoint.a" -lpthread 2>err.txt ||
	{ cat err.txt; echo "FAIL: cannot build poolmeta_check"; exit 1; }
./poolmeta_check
