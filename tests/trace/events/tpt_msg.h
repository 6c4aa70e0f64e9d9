/* SPDX-License-Identifier: MIT */
/* tests/messages.sh: an event to record, one the library refuses (%f), one with a string. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_msg

#if !defined(_TRACE_TPT_MSG_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_MSG_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(msg_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(int, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%d", __entry->n)
);

/* libtraceevent renders no %f: the event is refused and stays off. */
TRACE_EVENT(msg_ratio,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(int, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("ratio=%f", __entry->n / 2.0)
);

TRACE_EVENT(msg_text,
	TP_PROTO(const char *text),
	TP_ARGS(text),
	TP_STRUCT__entry(__string(text, text)),
	TP_fast_assign(__assign_str(text);),
	TP_printk("%s", __get_str(text))
);

#endif

#include <tpoint/define_trace.h>
