/* SPDX-License-Identifier: MIT */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hello
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_hello

#if !defined(_TRACE_HELLO_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_HELLO_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(hello_greet,
	TP_PROTO(const char *who, int n),
	TP_ARGS(who, n),
	TP_STRUCT__entry(
		__string(who, who)
		__field(int, n)
	),
	TP_fast_assign(
		__assign_str(who);
		__entry->n = n;
	),
	TP_printk("hello %s #%d", __get_str(who), __entry->n)
);

#endif

#include <tpoint/define_trace.h>
