/* SPDX-License-Identifier: MIT */
/* Events whose TP_printk libtraceevent cannot render: they must be refused, loudly. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM badfmt

#if !defined(_TRACE_BADFMT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BADFMT_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(badfmt_char,
	TP_PROTO(int c),
	TP_ARGS(c),
	TP_STRUCT__entry(__field(int, c)),
	TP_fast_assign(__entry->c = c;),
	TP_printk("c=%c", __entry->c)
);

TRACE_EVENT(badfmt_xor,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("a=%d", __entry->a ^ 1)
);

TRACE_EVENT(badfmt_fine,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("a=%d", __entry->a)
);

#endif

#include <tpoint/define_trace.h>
