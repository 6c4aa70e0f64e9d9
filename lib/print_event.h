/* SPDX-License-Identifier: MIT */
/*
 * The library's own event, tpoint:print: a message formatted by tpoint_printf(), as the
 * kernel's trace_printk() writes ftrace:print. Defined like any program's event, so that it is
 * enabled, filtered, counted and recorded like one.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpoint

#if !defined(_TPOINT_PRINT_EVENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TPOINT_PRINT_EVENT_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(print,

	TP_PROTO(const char *msg),

	TP_ARGS(msg),

	TP_STRUCT__entry(
		__string(	msg,	msg	)
	),

	TP_fast_assign(
		__assign_str(msg);
	),

	TP_printk("%s", __get_str(msg))
);

#endif /* _TPOINT_PRINT_EVENT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE print_event
#include <tpoint/define_trace.h>
