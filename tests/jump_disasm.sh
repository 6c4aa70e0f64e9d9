#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Issue 4's proof, on the live machine code: a jump-label site (-DTPOINT_JUMP_LABEL) of an
# event that is off is the 5-byte NOP, and the code that runs through it loads no enable
# word, calls nothing and branches nowhere before it returns.
#
# The site file holds tpoint_trace() sites whose arguments call an external function. For
# every C compiler at hand (cc, and clang), at -O2, the test
#	1. disassembles the executable: the site as compiled is a `jmp` (its checked path,
#	   which is what a process that may not patch its code runs);
#	2. runs the program, which copies the live bytes of each site function (after the
#	   library patched them) to a file, with the offset of its site, and disassembles
#	   those: the site is `nopl 0x0(%rax,%rax,1)`, and from the function's entry to its
#	   `ret`, no instruction reads memory (no `(%rip)` operand), calls or branches.
# The events carry USDT notes, as by default; the sites built with -DTPOINT_NO_USDT must be
# the same instructions (tests/disasm.inc, usdt_same).
# Exit 0 when it holds, 1 with the disassembly when not, 77 when it cannot tell.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/disasm.inc"

# The call sites are tests/disasm_sites.c's, built with jump labels.
cat >"$work/main.c" <<'EOF'
#define CREATE_TRACE_POINTS
#include "trace/events/disasm.h"
#include <stdio.h>
#include <tpoint/tpoint.h>

void site_plain(u64 x);
void site_cond(u64 x);
extern const struct tpoint_jump_entry __start_tpoint_jump[], __stop_tpoint_jump[];

u64 expensive(u64 x)
{
	return x * 0x9e3779b97f4a7c15ull;
}

/* The live bytes of fn, and the offsets of the sites in them. */
static void dump(const char *dir, const char *name, void (*fn)(u64))
{
	const unsigned char *code = (const unsigned char *)fn;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	f = fopen(path, "wb");
	fwrite(code, 1, 96, f);
	fclose(f);
	for (const struct tpoint_jump_entry *e = __start_tpoint_jump; e < __stop_tpoint_jump; e++) {
		const unsigned char *site = (const unsigned char *)&e->site + e->site;

		if (site >= code && site < code + 96)
			printf("%s %ld\n", name, (long)(site - code));
	}
}

int main(int argc, char **argv)
{
	struct tpoint_jump_stats js;

	(void)argc;
	site_plain(1); /* off: nothing happens */
	site_cond(2);
	if (tpoint_jump_stats(&js) == 0 && js.checked) {
		printf("refused %s\n", js.reason);
		return 0;
	}
	dump(argv[1], "site_plain", site_plain);
	dump(argv[1], "site_cond", site_cond);
	return 0;
}
EOF

# Disassembly $1 (of raw bytes) of function $2 whose site is at offset $3.
check_live() {
	awk -v func_name="$2" -v site="$3" '
	function hex(s,   v, i) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/^ *[0-9a-f]+:\t/ {
		split($0, part, "\t")
		sub(/^ +/, "", part[1]); sub(/:$/, "", part[1])
		addr = hex(part[1])
		insn = part[3]
		if (addr == site) {
			found = 1
			if (part[2] !~ /^0f 1f 44 00 00 *$/) {
				printf "%s: the site holds \"%s\", not the 5-byte NOP\n", func_name, insn
				bad = 1
			}
		}
		if (insn ~ /^ret/) { done = 1; exit }
		if (insn ~ /\(%rip\)/ || insn ~ /^call/ || insn ~ /^j/) {
			printf "%s: the disabled path runs \"%s\" at +%#x\n", func_name, insn, addr
			bad = 1
		}
	}
	END {
		if (!found) { printf "%s: no instruction starts at the site (+%d)\n", func_name, site; bad = 1 }
		if (!done) { printf "%s: no ret on the disabled path\n", func_name; bad = 1 }
		exit bad
	}' "$1"
}

status=0
compilers=cc
command -v clang >/dev/null 2>&1 && compilers="cc clang"
for c in $compilers; do
	exe=$work/jsite-$c
	if ! $c -O2 -std=gnu11 -DTPOINT_JUMP_LABEL -I"$top/include" -I"$top/tests" -o "$exe" \
		"$top/tests/disasm_sites.c" "$work/main.c" \
		-L"$O" -ltpoint -Wl,-rpath,"$O" 2>"$work/cc.err"; then
		echo "$c: cannot build the sites:"
		cat "$work/cc.err"
		status=1
		continue
	fi
	# 1. As compiled: the site is the jump to its checked path.
	objdump -d --no-show-raw-insn "$exe" >"$work/static-$c.txt"
	for f in site_plain site_cond; do
		if ! awk -v f="<$f>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' \
			"$work/static-$c.txt" | grep -q 'jmp'; then
			echo "$c: $f has no jmp as compiled:"
			awk -v f="<$f>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' "$work/static-$c.txt"
			status=1
		fi
	done
	# With USDT notes (the default) and without them, the sites compile alike.
	if $c -O2 -std=gnu11 -DTPOINT_JUMP_LABEL -DTPOINT_NO_USDT -I"$top/include" \
		-I"$top/tests" -o "$exe-nousdt" "$top/tests/disasm_sites.c" "$work/main.c" \
		-L"$O" -ltpoint -Wl,-rpath,"$O" 2>"$work/cc.err"; then
		objdump -d --no-show-raw-insn "$exe-nousdt" >"$work/static-$c-nousdt.txt"
		usdt_same "$work/static-$c.txt" "$work/static-$c-nousdt.txt" \
			"disasm_plain disasm_cond" "site_plain site_cond" "$exe" "$exe-nousdt" |
			sed "s/^ */$c: /" >"$work/usdt.txt"
		cat "$work/usdt.txt"
		grep -q "the same instructions" "$work/usdt.txt" || status=1
	else
		echo "$c: cannot build the sites with -DTPOINT_NO_USDT:"
		cat "$work/cc.err"
		status=1
	fi
	# 2. Live, with the events off.
	rm -f "$work"/*.bin
	out=$("$exe" "$work") || { echo "$c: the site program failed"; status=1; continue; }
	case "$out" in
	refused*)
		echo "skipped: this machine refuses patching code (${out#refused }); tests/jump_test covers the checked path"
		exit 77
		;;
	esac
	n=0
	echo "$out" | while read -r f off; do
		objdump -D -b binary -m i386:x86-64 "$work/$f.bin" | sed -n '/<.data>:/,$p' >"$work/live-$c-$f.txt"
		if ! check_live "$work/live-$c-$f.txt" "$c $f" "$off"; then
			cat "$work/live-$c-$f.txt"
			exit 1
		fi
	done || status=1
	for f in site_plain site_cond; do
		echo "$out" | grep -q "^$f " || { echo "$c: $f has no site in the table"; status=1; }
	done
	[ $status = 0 ] && echo "$c: the disabled sites are the 5-byte NOP; the path through them reads no memory, calls and branches nowhere"
done
exit $status
