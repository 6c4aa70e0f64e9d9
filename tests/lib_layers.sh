#!/bin/sh
# The files of lib/ are layers: no cycle between them. A file depends on another when it
# uses a non-static function or variable the other defines (nm: its U symbols, the other's
# defined ones); the graph of these must have no cycle, so that each file can be read, and
# tested, with only those below it. A cycle fails here, named file by file.
set -u
B=$(dirname "$TPOINT")
fail() { echo "FAIL: $*"; exit 1; }
command -v nm >/dev/null || { echo "nm (binutils) is not installed"; exit 77; }
command -v tsort >/dev/null || { echo "tsort (coreutils) is not installed"; exit 77; }
[ -f "$B/lib/registry.o" ] || fail "no objects of lib/ in $B/lib"
export LC_ALL=C

# symbol file, for every global a file of lib/ defines (lib/arch/*.o and lib/fmt/*.o are
# named by their directory too).
for o in "$B"/lib/*.o "$B"/lib/*/*.o; do
	[ -f "$o" ] || continue
	f=${o#"$B"/lib/}
	nm --defined-only "$o" | awk -v f="${f%.o}" 'NF == 3 && $2 ~ /[A-Z]/ { print $3, f }'
done | sort -k1,1 >defs.txt
[ -s defs.txt ] || fail "nm lists no definition in $B/lib"

# user used: one edge a line, the user first.
for o in "$B"/lib/*.o "$B"/lib/*/*.o; do
	[ -f "$o" ] || continue
	f=${o#"$B"/lib/}
	nm -u "$o" | awk '{ print $NF }' | sort -u | join - defs.txt |
		awk -v f="${f%.o}" '$2 != f { print f, $2 }'
done | sort -u >edges.txt

if ! tsort edges.txt >order.txt 2>loops.txt; then
	# GNU tsort says each loop as "tsort: FILE" lines after "input contains a loop:".
	grep -v 'contains a loop' loops.txt | sed 's/^tsort: //' | sort -u >loop-files.txt
	echo "FAIL: a cycle between files of lib/, through: $(tr '\n' ' ' <loop-files.txt)"
	echo "the uses between those files (user -> definer: symbol):"
	for o in "$B"/lib/*.o "$B"/lib/*/*.o; do
		f=${o#"$B"/lib/}
		nm -u "$o" | awk '{ print $NF }' | sort -u | join - defs.txt |
			awk -v f="${f%.o}" '$2 != f { print f, $2, $1 }'
	done | awk 'NR == FNR { in_loop[$1] = 1; next }
		    in_loop[$1] && in_loop[$2] { print "  " $1 " -> " $2 ": " $3 }' loop-files.txt -
	exit 1
fi
echo "ok: $(wc -l <edges.txt) dependencies between $(wc -l <order.txt) files of lib/, no cycle"
