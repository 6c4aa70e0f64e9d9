#!/bin/sh
# A program with thousands of events registers every one of them, although registration
# defers their formats and print checks until something asks (docs/DECISIONS.md,
# "Registration defers"): tpoint list FILE and tpoint list -p count them all, tpoint_enable()
# of a glob counts them all, the last one is found by its name (its filter set by
# "system:name", a lookup in the registry's hash) and records under its own id, and a format
# that cannot be rendered is still refused when it is enabled. No timing is asserted.
set -u
B=$(dirname "$TPOINT")
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
fail() { echo "FAIL: $*"; exit 1; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 77; }

TE=20
DE=1980
N=$((TE + DE))
LAST=many_de$((DE - 1))
sh "$top/bench/footprint_gen.sh" . many $TE $DE 0 || fail "generator exited $?"

# One more event whose TP_printk libtraceevent cannot render (%c), in a header of its own.
mkdir -p trace/events
cat >trace/events/manybad.h <<'EOF'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM manybad
#if !defined(_TRACE_MANYBAD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MANYBAD_H
#include <tpoint/tracepoint.h>
TRACE_EVENT(manybad_char, TP_PROTO(int c), TP_ARGS(c),
	TP_STRUCT__entry(__field(int, c)), TP_fast_assign(__entry->c = c;),
	TP_printk("%c", __entry->c));
#endif
#include <tpoint/define_trace.h>
EOF

cat >driver.c <<EOF
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#define CREATE_TRACE_POINTS
#include "trace/events/manybad.h"
#undef CREATE_TRACE_POINTS
#include "trace/events/many.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait")) { /* for tpoint list -p, until killed */
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		sleep(120);
		return 0;
	}
	printf("enabled %d\n", tpoint_enable("many:*"));
	printf("disabled %d\n", tpoint_disable("many:*"));
	printf("stats %d\n", tpoint_stats(NULL, 0));
	printf("filter %d\n", tpoint_set_filter("many:$LAST", "b == 7"));
	printf("last %d", tpoint_enable("many:$LAST"));
	printf(" %d\n", (int)trace_${LAST}_enabled());
	printf("bad %d", tpoint_enable("manybad:*"));
	printf(" %d\n", (int)trace_manybad_char_enabled());
	if (tpoint_record_start("many.dat") < 0)
		return 1;
	trace_${LAST}(1, 7, 3);
	trace_${LAST}(1, 8, 3); /* the filter says no */
	trace_many_te0(1, 7, 3); /* off */
	trace_manybad_char('x'); /* refused */
	return tpoint_record_stop() < 0;
}
EOF
san=
nm -D "$B/libtpoint.so" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
# -O0: the registration is the same at any level, and it builds in a few seconds.
$CC -O0 $san -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -I. -o driver driver.c \
	many_define.c -L"$B" -ltpoint -Wl,-rpath,"$B" -lpthread || fail "cannot build the driver"

n=$("$TPOINT" list ./driver | grep -c "^many:")
[ "$n" = $N ] || fail "tpoint list FILE shows $n events of many, want $N"
echo "ok: tpoint list FILE shows all $N events"

./driver >out.txt 2>err.txt || { cat out.txt err.txt; fail "driver exited $?"; }
want="enabled $N
disabled $N
stats $((N + 4))
filter 0
last 1 1
bad 1 0"
[ "$(cat out.txt)" = "$want" ] || { cat out.txt err.txt; fail "the driver's counts differ from: $want"; }
grep -q "manybad:manybad_char.*%c" err.txt ||
	{ cat err.txt; fail "the refusal of manybad_char was not said when it was enabled"; }
echo "ok: tpoint_enable counts all $N (and the library's three), the last found by name"

"$TPOINT" report many.dat >report.txt 2>&1 || { cat report.txt; fail "report exited $?"; }
[ "$(grep -c "$LAST:" report.txt)" = 1 ] && grep -q "$LAST: *a=1 b=7 c=3" report.txt ||
	{ cat report.txt; fail "want the one record of $LAST that its filter let through"; }
grep -q "many_te0:\|manybad_char:" report.txt && fail "an event that was off recorded"
trace-cmd report many.dat 2>&1 | grep -q "$LAST: *a=1 b=7 c=3" ||
	fail "trace-cmd does not read the record of $LAST"
echo "ok: the last event records under its own id and format"

./driver wait >target.out 2>&1 &
tpid=$!
trap 'kill -9 $tpid 2>/dev/null' EXIT
for i in $(seq 600); do
	grep -q "^ready" target.out && break
	sleep 0.1
done
grep -q "^ready" target.out || fail "the driver did not start"
"$TPOINT" list -p $tpid >list.txt 2>&1 || { cat list.txt; fail "list -p exited $?"; }
n=$(grep -c "^many:" list.txt)
[ "$n" = $N ] || fail "tpoint list -p shows $n events of many, want $N"
grep -A3 "^manybad:manybad_char" list.txt | grep -q "%c" ||
	{ grep -A3 "^manybad" list.txt; fail "list -p does not show manybad_char refused"; }
echo "ok: tpoint list -p shows all $N, and the refusal, on request"
