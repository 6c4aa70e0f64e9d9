#!/bin/sh
# The exported ABI is written down twice and built once, and the three agree:
#	lib/libtpoint.map	the version script: every export by name under its version node
#	lib/libtpoint.abi	the committed list, symbol@VERSION
#	libtpoint.so.1		what the built library exports (nm -D --defined-only)
# and the library's objects declare with default visibility (TPOINT_EXPORT) exactly the names
# the script lists: an export added to or removed from the code, the script or the list
# without the others fails here, as does a glob in the script (a name that joins a version
# unnoticed).
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
map=$top/lib/libtpoint.map
abi=$top/lib/libtpoint.abi
fail() { echo "FAIL: $*"; exit 1; }
for t in nm readelf; do
	command -v $t >/dev/null || { echo "$t (binutils) is not installed"; exit 77; }
done
[ -f "$B/libtpoint.so.1" ] && [ -f "$B/libtpoint.a" ] || fail "no libtpoint.so.1 or libtpoint.a in $B"
export LC_ALL=C

# The script: name@NODE for each name in a node's global: part. Its comments are one-line or
# whole-line blocks; names are one to a line, as the script writes them.
sed -e 's|/\*.*\*/||' -e '/\/\*/,/\*\//d' "$map" | awk '
	/^[A-Za-z0-9_.]+[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); mode = ""; next }
	/^[ \t]*global:/ { mode = "global"; next }
	/^[ \t]*local:/ { mode = "local"; next }
	/^[ \t]*\}/ { node = ""; next }
	mode == "global" && NF { sub(/;.*/, ""); gsub(/[ \t]/, ""); print $0 "@" node }
' | sort >map.txt
[ -s map.txt ] || fail "found no exported name in $map"
grep '[][*?]' map.txt && fail "$map names exports by a glob; name each one under its version"
grep -v '^[A-Za-z_][A-Za-z0-9_]*@TPOINT_[0-9.]*$' map.txt &&
	fail "$map: the entries above are not name@TPOINT_N"

grep -v -e '^#' -e '^[ \t]*$' "$abi" >abi-raw.txt
sort -u abi-raw.txt >abi.txt
[ "$(wc -l <abi.txt)" = "$(wc -l <abi-raw.txt)" ] || fail "$abi lists a symbol twice"

# The library: versioned definitions only (type A are the version nodes themselves).
nm -D --defined-only "$B/libtpoint.so.1" | awk '$2 != "A" { print $3 }' | sed 's/@@/@/' |
	sort >so.txt
[ -s so.txt ] || fail "nm -D lists no export of $B/libtpoint.so.1"

# The code: globals of the archive's objects with default visibility, the sanitizers' aside.
readelf -sW "$B/libtpoint.a" |
	awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" && NF >= 8 { print $8 }' |
	grep -Ev '^__(asan|ubsan|odr_asan|lsan|tsan|sancov)' | sort -u >code.txt
[ -s code.txt ] || fail "readelf finds no default-visibility global in $B/libtpoint.a"

rc=0
compare() {
	if ! diff -u "$1" "$2" >d.txt; then
		echo "FAIL: $3 (- only in the first, + only in the second):"
		grep '^[-+][^-+]' d.txt
		rc=1
	fi
}
compare abi.txt map.txt "lib/libtpoint.abi and lib/libtpoint.map disagree"
compare abi.txt so.txt "lib/libtpoint.abi and the exports of libtpoint.so.1 disagree"
sed 's/@.*//' map.txt | sort >map-names.txt
compare map-names.txt code.txt "lib/libtpoint.map and the default-visibility symbols of the objects disagree"
[ $rc = 0 ] || exit 1
echo "ok: $(wc -l <abi.txt) exports in $(cut -d@ -f2 abi.txt | sort -u | wc -l) versions;" \
	"lib/libtpoint.abi, lib/libtpoint.map, libtpoint.so.1 and the code agree"
