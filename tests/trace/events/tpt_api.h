/* SPDX-License-Identifier: MIT */
/* The event of api_test: one counter. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_api

#if !defined(_TRACE_TPT_API_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_API_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(api_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(int, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%d", __entry->n)
);

#endif

#include <tpoint/define_trace.h>
