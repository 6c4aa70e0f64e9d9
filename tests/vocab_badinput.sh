#!/bin/sh
# The kernel's vocabulary used wrongly: each snippet must fail to compile with an error that
# names the macro or the field. And the conformance header (tests/trace/events/tpt_vocab.h)
# compiles without a warning as C11 and C++17 under -Werror -pedantic-errors.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
CC=${CC:-cc}
CXX=${CXX:-c++}
INC="-I$top/include -I. -I$top/tests"
mkdir -p trace/events

# expect NAME WANT-REGEX EVENT-BODY: a header with the event, defined; the error must match.
expect() {
	name=$1 want=$2 body=$3
	cat >trace/events/tpt_bad.h <<EOT
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_bad
#if !defined(_TPT_BAD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TPT_BAD_H
#include <tpoint/tracepoint.h>
$body
#endif
#include <tpoint/define_trace.h>
EOT
	printf '#define CREATE_TRACE_POINTS\n#include <trace/events/tpt_bad.h>\n' >bad.c
	if $CC -std=gnu11 -Wall -Wextra -Werror $INC -c bad.c -o bad.o 2>err.txt; then
		fail "$name: compiled"
	fi
	grep -Eq "$want" err.txt || { head -20 err.txt; fail "$name: no error naming /$want/"; }
	echo "$name: refused, naming $(grep -Eo "$want" err.txt | head -1)"
}

expect "wrong argument count" "TRACE_EVENT_FN.*requires 8 arguments|macro \"TRACE_EVENT_FN\"" \
'TRACE_EVENT_FN(e1, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;), TP_printk("%d", __entry->a));'
expect "__get_str of no such field" "__data_loc_nosuch" \
'TRACE_EVENT(e2, TP_PROTO(const char *s), TP_ARGS(s), TP_STRUCT__entry(__string(s, s)),
	TP_fast_assign(__assign_str(s);), TP_printk("%s", __get_str(nosuch)));'
expect "__entry->field that does not exist" "nofield" \
'TRACE_EVENT(e3, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;), TP_printk("%d", __entry->nofield));'
expect "__print_array of a non-array" "tpoint_print_array_check" \
'TRACE_EVENT(e4, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;), TP_printk("%s", __print_array(__entry->a, 1, 4)));'
expect "__print_array element size 3" "__print_array_el_size_must_be_1_2_4_or_8" \
'TRACE_EVENT(e5, TP_PROTO(const int *a), TP_ARGS(a), TP_STRUCT__entry(__array(int, a, 2)),
	TP_fast_assign(memcpy(__entry->a, a, 8);), TP_printk("%s", __print_array(__entry->a, 2, 3)));'
expect "reg of the wrong type" "vocab_wrong_reg|incompatible" \
'void vocab_wrong_reg(int);
TRACE_EVENT_FN(e6, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;), TP_printk("%d", __entry->a), vocab_wrong_reg, NULL);'
expect "__assign_bitmask of a non-bitmask field" "__data_loc_a" \
'TRACE_EVENT(e7, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__assign_bitmask(a, &a, 32);), TP_printk("%d", __entry->a));'

long=ev_0123456789012345678901234567890123456789012345678901234567890
expect "an event name of 64 characters" "name longer than 63 characters: $long" \
"TRACE_EVENT($long, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;), TP_printk(\"%d\", __entry->a));"
expect "a field name of 64 characters" "field type or name is longer than 63 characters: int $long" \
"TRACE_EVENT(e8, TP_PROTO(int a), TP_ARGS(a), TP_STRUCT__entry(__field(int, $long)),
	TP_fast_assign(__entry->$long = a;), TP_printk(\"%d\", __entry->$long));"

# The conformance header as C11 and C++17, pedantic, warnings as errors.
printf '#define CREATE_TRACE_POINTS\n#include <trace/events/tpt_vocab.h>\nint vocab_regs, vocab_unregs, vocab_reg_result;\nint vocab_reg(void) { return 0; }\nvoid vocab_unreg(void) {}\n' >ok.c
$CC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pedantic-errors $INC -c ok.c -o ok.o 2>err.txt ||
	{ head -30 err.txt; fail "tpt_vocab.h does not build as C11"; }
cp ok.c ok.cc
$CXX -std=c++17 -Wall -Wextra -Werror -pedantic-errors $INC -c ok.cc -o okxx.o 2>err.txt ||
	{ head -30 err.txt; fail "tpt_vocab.h does not build as C++17"; }
echo "tpt_vocab.h: C11 and C++17 builds without a warning"
