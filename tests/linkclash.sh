#!/bin/sh
# A closed link surface: a program with functions of its own named as the library's internals
# used to be named (pool_create, registry_lock, filter_compile, ...) links with libtpoint.a
# and records, and every global symbol of the archive carries the library's prefix: tpoint_
# (the API and what the API's macros name), __tpoint_ (what TRACE_EVENT() generates) or tp_
# (internal). Before the internals were renamed, this link failed with "multiple definition".
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$B/libtpoint.a" ] || fail "no $B/libtpoint.a"
nm "$B/libtpoint.a" 2>/dev/null | grep -q __asan_ &&
	{ echo "a sanitizer build: ASan does not link statically"; exit 77; }

# Every global the archive defines (nm -g: T, D, B, R, ... with a value; U is undefined).
nm -g --defined-only "$B/libtpoint.a" | awk 'NF == 3 { print $3 }' | sort -u >globals.txt
[ -s globals.txt ] || fail "nm lists no global symbol in $B/libtpoint.a"
# _.stapsdt.base: the USDT notes' base (include/tpoint/usdt.h), weak, hidden and in a COMDAT
# group, defined alike by <sys/sdt.h>: one copy per object by design, not a clash.
grep -Ev '^(tpoint_|__tpoint_|tp_)' globals.txt | grep -vx '_\.stapsdt\.base' >unprefixed.txt
[ -s unprefixed.txt ] && { cat unprefixed.txt; fail "libtpoint.a defines these globals" \
	"without the prefix tpoint_, __tpoint_ or tp_: a program's own symbol of the same name" \
	"clashes with them"; }
echo "ok: all $(wc -l <globals.txt) globals of libtpoint.a carry tpoint_, __tpoint_ or tp_"

printf 'int main(void) { return 0; }\n' >probe.c
$CC -static probe.c -o probe 2>/dev/null || { echo "no static libc to link with ($CC -static)"; exit 77; }

# The names the library's internals had, one of each module: a program may well have these.
names="pool_create pool_destroy pool_take_free pool_put_full registry_lock registry_unlock
registry_slot filter_compile filter_free filter_text control_start control_after_fork
mono_now clock_sample_now page_decode pack_decode pack_encoder spool_start spool_stop
spool_path spool_snapshot writer_init session_attach session_recording tracedat_from_spools
jump_arch_init jump_event_changed log_init_from_env output_open ownfd_close handover_publish
collect_make counters_sum thread_list_head pid_gone pool_size_fit"
{
	echo '#include <stdio.h>'
	echo '#define CREATE_TRACE_POINTS'
	echo '#define TRACE_INCLUDE_PATH .'
	echo '#include "trace_hello.h"'
	n=0
	for f in $names; do
		n=$((n + 1))
		echo "int $f(void) { return $n; }"
	done
	echo 'static int (*const mine[])(void) = {'
	for f in $names; do echo "	$f,"; done
	echo '};'
	cat <<'PROG'
int main(void)
{
	int sum = 0;

	for (unsigned i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		sum += mine[i]();
	for (int i = 0; i < 3; i++)
		trace_hello_greet("clash", i);
	printf("%d\n", sum);
	return 0;
}
PROG
} >clash.c
want=0 n=0
for f in $names; do n=$((n + 1)); want=$((want + n)); done

$CC -O2 -static -I"$top/include" -I"$top/examples" clash.c -o clash "$B/libtpoint.a" -lpthread \
	2>err.txt || { head -n 20 err.txt; fail "static link of a program with its own pool_create()," \
	"registry_lock(), filter_compile(), ... against libtpoint.a"; }
echo "ok: a program defining $n of the old internal names links statically"

# A filter (the library's filter compiler, not the program's filter_compile()) and the
# control socket (the library's control_start(), not the program's) are in use.
got=$(TPOINT_EVENTS='hello:*' TPOINT_FILTER='hello_greet:n != 1' TPOINT_RECORD=clash.dat \
	./clash) || fail "clash exited $?"
[ "$got" = "$want" ] || fail "the program's own functions returned $got, expected $want"
[ -f clash.dat ] || fail "the program wrote no clash.dat: the recording never started"
"$TPOINT" report clash.dat >report.txt 2>&1 || { cat report.txt; fail "tpoint report clash.dat"; }
n=$(grep -c 'hello_greet:.*hello clash #[02]' report.txt)
[ "$n" = 2 ] && ! grep -q 'hello clash #1' report.txt ||
	{ cat report.txt; fail "expected hello_greet #0 and #2 (#1 filtered out), got $n"; }
echo "ok: it records with the library's own internals: 2 events, the filtered one left out"
