#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The off path of docs/DECISIONS.md, on the machine code: while an event is off, its call site
# costs one load of the event's enable word and one conditional branch, and nothing else --
# the arguments, and the condition of TRACE_EVENT_CONDITION, are computed only behind the
# branch.
#
# trace_NAME() is a function, as in the kernel: C evaluates arguments with side effects
# before its test, so the sites that must evaluate nothing while off use the macro
# tpoint_trace(NAME, args...). The test compiles such call sites, whose arguments are
# expensive (calls to an external function), and kernel-style trace_NAME() sites whose
# arguments are plain field reads and arithmetic (which must also wait behind the branch),
# with -O2, by every C compiler at hand (cc, and clang), disassembles them and follows the
# code from the function's entry:
#
#	1. the first instruction (after endbr64) loads the event's enable word: either
#	   `cmp $0x0,<__tpoint_event_NAME__made_by_CREATE_TRACE_POINTS>(%rip)`, or a `mov` of it into a register that the
#	   next instruction tests (clang may form the address with a `lea` first);
#	2. the next is a conditional branch;
#	3. one side of it is the disabled path: it must return at once;
#	4. the other side calls expensive() (for tpoint_trace sites) and then calls (or jumps
#	   to) __tpoint_hit_NAME.
#
# Registers, addresses and block order differ between compilers and versions: the test
# parses objdump's output and follows the branches, it compares no text.
#
# Exit 0 when it holds (with an explanation), 1 with the disassembly when not, 77 when it
# cannot tell (no objdump, not x86-64, the library not built).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/disasm.inc"

# More call sites, besides site_plain and site_cond (tests/disasm_sites.c), in a file of
# their own for the same reason: nothing else in it tells the compiler what expensive()
# does or when the events are on.
cat >"$work/site.c" <<'EOF'
#include "trace/events/disasm.h"

extern u64 expensive(u64 x);

/*
 * The kernel's form, with arguments at hand (parameters, locals): the arithmetic on them
 * must not be computed while off. (Loads through pointers are another matter: C evaluates
 * a function's arguments before its body, so the compiler may load them before the test;
 * that is what tpoint_trace() is for.)
 */
void site_kernel(u64 a, u64 b, u64 c, u64 x)
{
	trace_disasm_cond(a, b * 3 + x, c ^ x);
}

/*
 * What decision 2 asks trace_disasm_plain() to compile to, written out by hand: the test
 * first checks that it recognises this, so that a failure above is the call site's and
 * not the test's.
 */
void site_reference(u64 x)
{
	if (__builtin_expect(__atomic_load_n(&TPOINT_EVENT_SYM(disasm_plain).enabled,
					     __ATOMIC_RELAXED) != 0, 0))
		__tpoint_hit_disasm_plain(expensive(x), expensive(x + 1), expensive(x + 2));
}
EOF

cat >"$work/events.c" <<'EOF'
#define CREATE_TRACE_POINTS
#include "trace/events/disasm.h"

void site_plain(u64 x);
void site_cond(u64 x);
void site_reference(u64 x);
void site_kernel(u64 a, u64 b, u64 c, u64 x);

u64 expensive(u64 x)
{
	return x * 0x9e3779b97f4a7c15ull;
}

int main(void)
{
	site_plain(1); /* off: nothing happens, and nothing may crash */
	site_cond(2);
	site_reference(3);
	site_kernel(4, 5, 6, 7);
	return 0;
}
EOF

# Follow the code of function $2 in disassembly $1 for event $3; print what was found and
# exit 0, or print why not and exit 1.
check() {
	awk -v func_name="$2" -v event="$3" -v want_calls="${4:-3}" '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
	function target(ops) { split(ops, t, " "); return t[1] }
	function is_nop(m) { return m ~ /^(nop|nopl|nopw|xchg)$/ }
	function is_frame(m, o) {
		return m ~ /^(push|pushq|pop|popq)$/ ||
		       (m ~ /^(sub|add)q?$/ && o ~ /^\$0x[0-9a-f]+,%rsp$/)
	}
	function fail(why) { print "NOT PROVEN for " func_name ": " why; bad = 1; exit 1 }
	/^[0-9a-f]+ <.*>:$/ {
		cur = $2
		sub(/^</, "", cur)
		sub(/>:$/, "", cur)
		next
	}
	/^ +[0-9a-f]+:\t/ {
		n++
		split($0, f, "\t")
		a = trim(f[1])
		sub(/:$/, "", a)
		ins = f[2]
		cmt = ""
		if (index(ins, "#")) {
			cmt = substr(ins, index(ins, "#") + 1)
			ins = substr(ins, 1, index(ins, "#") - 1)
		}
		ins = trim(ins)
		m = ins
		sub(/[ \t].*/, "", m)
		ops = trim(substr(ins, length(m) + 1))
		# Prefixes say nothing about what the instruction does here.
		while (m ~ /^(rep|repz|notrack|bnd|cs|ds|data16)$/) {
			m = ops
			sub(/[ \t].*/, "", m)
			ops = trim(substr(ops, length(m) + 1))
		}
		addr[n] = a; mn[n] = m; op[n] = ops; cm[n] = trim(cmt); fn[n] = cur
		text[n] = a ":\t" trim(f[2])
		at[a] = n
		if (cur == func_name && !entry)
			entry = n
	}
	END {
		if (bad)
			exit 1
		if (!entry)
			fail("no function <" func_name "> in the disassembly")
		i = entry
		if (mn[i] == "endbr64")
			i++
		# Some compilers (clang 14) save callee-saved registers before the test instead
		# of shrink-wrapping: that is the compiler'"'"'s frame, not tpoint'"'"'s work. It is
		# allowed, and shown; anything else before the test is not.
		while (is_frame(mn[i], op[i])) {
			frame = frame "\n    " text[i] "\t<- frame set-up"
			i++
		}
		word = "<__tpoint_event_" event "__made_by_CREATE_TRACE_POINTS>"
		# 1. the load of the enable word
		if (mn[i] ~ /^cmp[lq]?$/ && op[i] ~ /^\$0x0,/ && op[i] ~ /\(%rip\)$/ &&
		    index(cm[i], word)) {
			load = text[i]
			i++
		} else if (mn[i] ~ /^mov[lq]?$/ && op[i] ~ /\(%rip\),%[a-z0-9]+$/ &&
			   index(cm[i], word)) {
			reg = op[i]
			sub(/.*,/, "", reg)
			if (!(mn[i + 1] ~ /^test[lq]?$/ && op[i + 1] == reg "," reg) &&
			    !(mn[i + 1] ~ /^cmp[lq]?$/ && op[i + 1] == "$0x0," reg))
				fail("the enable word is loaded into " reg " but not tested next")
			load = text[i] "\n    " text[i + 1]
			i += 2
		} else if (mn[i] == "lea" && op[i] ~ /\(%rip\),%[a-z0-9]+$/ &&
			   index(cm[i], word)) {
			# clang forms the address, then loads through it: still one load.
			areg = op[i]
			sub(/.*,/, "", areg)
			reg = op[i + 1]
			sub(/.*,/, "", reg)
			if (!(mn[i + 1] ~ /^mov[lq]?$/ && op[i + 1] == "(" areg ")," reg))
				fail("the address of " word " is formed but not loaded next")
			if (!(mn[i + 2] ~ /^test[lq]?$/ && op[i + 2] == reg "," reg) &&
			    !(mn[i + 2] ~ /^cmp[lq]?$/ && op[i + 2] == "$0x0," reg))
				fail("the enable word is loaded into " reg " but not tested next")
			load = text[i] "\n    " text[i + 1] "\n    " text[i + 2]
			i += 3
		} else {
			# Say what runs first: most likely the arguments.
			nc = 0
			for (k = i; k <= n && fn[k] == func_name; k++) {
				if (mn[k] == "call" && index(op[k], "<expensive>"))
					nc++
				if (index(cm[k], word))
					break
			}
			if (nc && index(cm[k], word))
				fail(nc " calls to expensive() -- the arguments -- run before the" \
				     " enable word is loaded at " addr[k] ": they are evaluated" \
				     " while the event is off")
			fail("the first instruction is not a load of " word ": " text[i])
		}
		# 2. one conditional branch
		if (!(mn[i] ~ /^j/) || mn[i] == "jmp")
			fail("the load is not followed by a conditional branch: " text[i])
		branch = text[i]
		taken = at[target(op[i])]
		if (!taken)
			fail("the branch leaves the function: " text[i])
		succ[1] = i + 1
		succ[2] = taken
		# 3. and 4.: walk each side, following unconditional jumps.
		off_side = 0
		for (s = 1; s <= 2; s++) {
			j = succ[s]
			steps = 0
			ncalls = 0
			hit = ""
			while (steps++ < 200) {
				if (is_nop(mn[j])) {
					j++
					continue
				}
				if (mn[j] ~ /^ret/) {
					break
				}
				if ((mn[j] == "call" || mn[j] == "jmp") &&
				    index(op[j], "<__tpoint_hit_" event ">")) {
					hit = text[j]
					break
				}
				if (mn[j] == "jmp" && at[target(op[j])]) {
					j = at[target(op[j])]
					continue
				}
				if (frame != "" && is_frame(mn[j], op[j])) {
					undo[s] = undo[s] " " mn[j]
					j++
					continue
				}
				if (mn[j] == "call" && index(op[j], "<expensive>"))
					ncalls++
				path[s] = path[s] "\n      " text[j]
				j++
			}
			if (mn[j] ~ /^ret/ && path[s] == "" && !off_side) {
				off_side = s
				disabled = text[j]
			} else if (hit != "") {
				on_side = s
				on_calls = ncalls
				on_hit = hit
			}
		}
		if (!off_side)
			fail("neither side of the branch returns at once: the disabled path does" \
			     " more than the test (branch " branch ")" \
			     "\n    fall-through:" path[1] "\n    taken:" path[2])
		if (!on_side)
			fail("no side of the branch reaches __tpoint_hit_" event)
		if (on_calls < want_calls)
			fail("only " on_calls " of the " want_calls " calls to expensive() lie on" \
			     " the enabled side: the others run whether the event is on or not")
		print "  " func_name " (event " event "):" frame
		print "    " load "\t<- the one load: the event'"'"'s enable word"
		print "    " branch "\t<- the one branch"
		print "    disabled (" (off_side == 1 ? "fall-through" : "taken") "): " \
		      (undo[off_side] != "" ? "frame undone (" trim(undo[off_side]) "), then " : "") \
		      disabled
		print "    enabled (" (on_side == 1 ? "fall-through" : "taken") "): " on_calls \
		      " calls to expensive(), then " on_hit
	}' "$1"
}

status=0
tried=0
for cc in "${CC:-cc}" clang; do
	command -v "$cc" >/dev/null 2>&1 || continue
	[ "$cc" = clang ] && [ "$(command -v "${CC:-cc}")" = "$(command -v clang)" ] && continue
	tried=$((tried + 1))
	bin="$work/disasm-$(basename "$cc")"
	if ! "$cc" -O2 -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -I"$here" \
		-o "$bin" "$here/disasm_sites.c" "$work/site.c" "$work/events.c" -L"$O" -ltpoint \
		-Wl,-rpath,"$O" -lpthread; then
		echo "FAIL: $cc cannot build the call sites"
		status=1
		continue
	fi
	if ! "$bin"; then
		echo "FAIL: the program built by $cc did not run cleanly"
		status=1
		continue
	fi
	objdump -d --no-show-raw-insn "$bin" >"$bin.dis"
	echo "$cc -O2: $("$cc" --version | head -n 1)"
	if ! check "$bin.dis" site_reference disasm_plain >"$work/ref.txt"; then
		cat "$work/ref.txt"
		echo "  the test does not recognise the hand-written reference site: fix the test"
		status=1
		continue
	fi
	# The same sources without USDT notes: the sites (and the hit functions, up to the
	# condition's verdict) must not change by one instruction.
	if ! "$cc" -O2 -std=gnu11 -Wall -Wextra -Werror -DTPOINT_NO_USDT -I"$top/include" \
		-I"$here" -o "$bin-nousdt" "$here/disasm_sites.c" "$work/site.c" "$work/events.c" \
		-L"$O" -ltpoint -Wl,-rpath,"$O" -lpthread; then
		echo "FAIL: $cc cannot build the call sites with -DTPOINT_NO_USDT"
		status=1
		continue
	fi
	objdump -d --no-show-raw-insn "$bin-nousdt" >"$bin-nousdt.dis"
	usdt_same "$bin.dis" "$bin-nousdt.dis" "disasm_plain disasm_cond" \
		"site_plain site_cond site_kernel __tpoint_hit_disasm_plain __tpoint_hit_disasm_cond" \
		"$bin" "$bin-nousdt" || status=1
	# The recording path is in the hit function (a TRACE_EVENT's is inline there), which
	# usdt_same found the same without the notes: the USDT branch is out of line, behind
	# the hit's test of the word for "recording alone".
	for e in disasm_plain disasm_cond; do
		echo "  __tpoint_hit_$e: $(fn_body "$bin.dis" "__tpoint_hit_$e" | wc -l) instructions, with USDT notes and without"
	done
	for fe in site_plain:disasm_plain:3 site_cond:disasm_cond:3 site_kernel:disasm_cond:0; do
		f=${fe%%:*}
		e=${fe#*:}
		calls=${e#*:}
		e=${e%%:*}
		if ! check "$bin.dis" "$f" "$e" "$calls"; then
			status=1
			echo "  disassembly of $f ($cc -O2):"
			awk -v f="$f" '$2 == "<" f ">:" || $2 ~ "^<" f "[.]" { p = 1 }
				p && /^$/ { p = 0 } p' "$bin.dis" | sed 's/^/    /'
		fi
	done
done
if [ "$tried" -eq 0 ]; then
	echo "skipped: no C compiler (${CC:-cc}, clang) found"
	exit 77
fi
[ "$status" -eq 0 ] &&
	echo "holds: off, each call site costs one load and one branch; arguments and conditions wait behind it"
exit "$status"
