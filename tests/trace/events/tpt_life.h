/* SPDX-License-Identifier: MIT */
/*
 * Events of the lifecycle tests (bufcap_test, enabled_test, forkexit_test): which image or
 * process emitted (`who`) and the event's number within it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_life

#if !defined(_TRACE_TPT_LIFE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_LIFE_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(life_emit,

	TP_PROTO(int who, int i),

	TP_ARGS(who, i),

	TP_STRUCT__entry(
		__field(	int,	who	)
		__field(	int,	i	)
	),

	TP_fast_assign(
		__entry->who = who;
		__entry->i = i;
	),

	TP_printk("who=%d i=%d", __entry->who, __entry->i)
);

#endif /* _TRACE_TPT_LIFE_H */

#include <tpoint/define_trace.h>
