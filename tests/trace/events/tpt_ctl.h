/* SPDX-License-Identifier: MIT */
/* Events of the control-channel target (tests/ctltarget.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_ctl

#if !defined(_TRACE_TPT_CTL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_CTL_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(ctl_tick,
	TP_PROTO(unsigned long n, const char *name),
	TP_ARGS(n, name),
	TP_STRUCT__entry(
		__field(unsigned long, n)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(name);
	),
	TP_printk("n=%lu name=%s", __entry->n, __get_str(name))
);

TRACE_EVENT_CONDITION(ctl_odd,
	TP_PROTO(unsigned long n),
	TP_ARGS(n),
	TP_CONDITION(n & 1),
	TP_STRUCT__entry(__field(unsigned long, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%lu", __entry->n)
);

#endif

#include <tpoint/define_trace.h>
