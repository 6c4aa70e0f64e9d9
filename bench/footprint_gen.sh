#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Writes the trace header and the C files that bench/footprint.sh measures (and that
# tests/many_events.sh builds): generated events with three scalar fields each.
#
#	footprint_gen.sh DIR SYSTEM TE DE SITES
#
# DIR/trace/events/SYSTEM.h	TE TRACE_EVENTs SYSTEM_te<i>, then one DECLARE_EVENT_CLASS
#				and DE DEFINE_EVENTs SYSTEM_de<i> of it (the class only if DE > 0)
# DIR/SYSTEM_define.c		defines them (CREATE_TRACE_POINTS)
# DIR/SYSTEM_sites.c		SYSTEM_fire(): SITES call sites, one per event (te first, then de)
#				and a main() that calls it when argc > 1 (nothing is enabled
#				by default, so a plain run measures start-up)
#
# Compile with -IDIR (the header is found as <trace/events/SYSTEM.h>).
# Fields: u32 a, u32 b, u64 c: a record of 24 bytes with the common header.
set -eu
[ $# -eq 5 ] || { echo "usage: $0 DIR SYSTEM TE DE SITES" >&2; exit 2; }
dir=$1 sys=$2 te=$3 de=$4 sites=$5
mkdir -p "$dir/trace/events"

awk -v sys="$sys" -v te="$te" -v de="$de" 'BEGIN {
	printf "#undef TRACE_SYSTEM\n#define TRACE_SYSTEM %s\n\n", sys
	printf "#if !defined(_TRACE_%s_H) || defined(TRACE_HEADER_MULTI_READ)\n", toupper(sys)
	printf "#define _TRACE_%s_H\n\n#include <tpoint/tracepoint.h>\n\n", toupper(sys)
	proto = "TP_PROTO(u32 a, u32 b, u64 c), TP_ARGS(a, b, c)"
	body = "TP_STRUCT__entry(__field(u32, a) __field(u32, b) __field(u64, c)),\n" \
	       "\tTP_fast_assign(__entry->a = a; __entry->b = b; __entry->c = c;),\n" \
	       "\tTP_printk(\"a=%u b=%u c=%llu\", __entry->a, __entry->b,\n" \
	       "\t\t  (unsigned long long)__entry->c)"
	for (i = 0; i < te; i++)
		printf "TRACE_EVENT(%s_te%d, %s,\n\t%s);\n\n", sys, i, proto, body
	if (de > 0)
		printf "DECLARE_EVENT_CLASS(%s_class, %s,\n\t%s);\n\n", sys, proto, body
	for (i = 0; i < de; i++)
		printf "DEFINE_EVENT(%s_class, %s_de%d, %s);\n", sys, sys, i, proto
	printf "\n#endif\n\n#include <tpoint/define_trace.h>\n"
}' >"$dir/trace/events/$sys.h"

cat >"$dir/${sys}_define.c" <<EOF
#define CREATE_TRACE_POINTS
#include "trace/events/$sys.h"
EOF

awk -v sys="$sys" -v te="$te" -v de="$de" -v sites="$sites" 'BEGIN {
	printf "#include <stdio.h>\n#include \"trace/events/%s.h\"\n\n", sys
	printf "__attribute__((noinline)) void %s_fire(u32 x, u64 y)\n{\n\t(void)x;\n\t(void)y;\n", sys
	for (i = 0; i < sites; i++) {
		name = i < te ? sprintf("%s_te%d", sys, i) : sprintf("%s_de%d", sys, i - te)
		printf "\ttrace_%s(x, x + %d, y);\n", name, i
	}
	printf "}\n\nint main(int argc, char **argv)\n{\n"
	printf "\tif (argc > 1)\n\t\t%s_fire((u32)argc, (u64)(size_t)argv);\n", sys
	printf "\treturn 0;\n}\n"
}' >"$dir/${sys}_sites.c"
