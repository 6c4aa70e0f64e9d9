/* SPDX-License-Identifier: MIT */
/*
 * Events of tests/disasm_test.sh, which reads the machine code of their call sites: one
 * plain event and one behind a condition on its arguments, so that the test can show that
 * neither the arguments nor the condition are computed while the event is off.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM disasm

#if !defined(_TRACE_DISASM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DISASM_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(disasm_plain,

	TP_PROTO(u64 a, u64 b, u64 c),

	TP_ARGS(a, b, c),

	TP_STRUCT__entry(
		__field(	u64,	a	)
		__field(	u64,	b	)
		__field(	u64,	c	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("a %llu b %llu c %llu", (unsigned long long)__entry->a,
		  (unsigned long long)__entry->b, (unsigned long long)__entry->c)
);

TRACE_EVENT_CONDITION(disasm_cond,

	TP_PROTO(u64 a, u64 b, u64 c),

	TP_ARGS(a, b, c),

	TP_CONDITION(a > b && b != c),

	TP_STRUCT__entry(
		__field(	u64,	a	)
		__field(	u64,	b	)
		__field(	u64,	c	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("a %llu b %llu c %llu", (unsigned long long)__entry->a,
		  (unsigned long long)__entry->b, (unsigned long long)__entry->c)
);

#endif /* _TRACE_DISASM_H */

/* This part must be outside protection */
#include <tpoint/define_trace.h>
