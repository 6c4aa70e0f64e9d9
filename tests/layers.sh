#!/bin/sh
# The files of lib/, and those of tools/tpoint/, are layers: no cycle between the files of
# either. A file depends on another when it uses a non-static function or variable the
# other defines (nm: its U symbols, the other's defined ones); the graph of these must have
# no cycle, so that each file can be read, and tested, with only those below it. A cycle
# fails here, named file by file, with the symbols that close it.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null || { echo "nm (binutils) is not installed"; exit 77; }
command -v tsort >/dev/null || { echo "tsort (coreutils) is not installed"; exit 77; }
export LC_ALL=C

# objects DIR: the objects of DIR (under $B), its subdirectories' too (lib/arch, lib/fmt).
objects() {
	for o in "$B/$1"/*.o "$B/$1"/*/*.o; do
		[ -f "$o" ] && echo "$o"
	done
}

# uses DIR: "user definer symbol" for each global one file of DIR takes from another (nm -A
# names the object on each line: one nm for all of them).
uses() {
	nm -A --defined-only $(objects "$1") |
		awk -v d="$B/$1/" '$(NF - 1) ~ /^[A-Z]$/ {
			f = $1; sub(/:.*/, "", f); sub(d, "", f); sub(/\.o$/, "", f); print $NF, f }' |
		sort -k1,1 >defs.txt
	[ -s defs.txt ] || fail "nm lists no definition in $B/$1"
	nm -A -u $(objects "$1") |
		awk -v d="$B/$1/" '{ f = $1; sub(/:.*/, "", f); sub(d, "", f); sub(/\.o$/, "", f)
				     print $NF, f }' | sort -k1,1 | join defs.txt - |
		awk '$2 != $3 { print $3, $2, $1 }' | sort -u
}

# layered DIR: passes when the files of DIR have no cycle.
layered() {
	[ -n "$(objects "$1")" ] || fail "no objects of $1/ in $B/$1"
	uses "$1" >uses.txt
	cut -d' ' -f1,2 uses.txt | sort -u >edges.txt
	if ! tsort edges.txt >order.txt 2>loops.txt; then
		# GNU tsort says each loop as "tsort: FILE" lines after "input contains a loop:".
		grep -v 'contains a loop' loops.txt | sed 's/^tsort: //' | sort -u >loop-files.txt
		echo "FAIL: a cycle between files of $1/, through: $(tr '\n' ' ' <loop-files.txt)"
		echo "the uses between those files (user -> definer: symbol):"
		awk 'NR == FNR { in_loop[$1] = 1; next }
		     in_loop[$1] && in_loop[$2] { print "  " $1 " -> " $2 ": " $3 }' \
			loop-files.txt uses.txt
		exit 1
	fi
	echo "ok: $(wc -l <edges.txt) dependencies between $(wc -l <order.txt) files of $1/, no cycle"
}

layered lib
layered tools/tpoint
