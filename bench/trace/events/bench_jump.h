/* SPDX-License-Identifier: MIT */
/* The event of bench/jump.c: always off; only the cost of its call sites is measured. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench_jump

#if !defined(_TRACE_BENCH_JUMP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_JUMP_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(jump_off,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c),
	TP_STRUCT__entry(
		__field(u64, a)
		__field(u64, b)
		__field(u64, c)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),
	TP_printk("a=%llu b=%llu c=%llu", __entry->a, __entry->b, __entry->c)
);

#endif

#include <tpoint/define_trace.h>
