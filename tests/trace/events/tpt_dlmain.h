/* SPDX-License-Identifier: MIT */
/* The main program's event in dlopen_test, hit while the plugin comes and goes. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_dlmain

#if !defined(_TRACE_TPT_DLMAIN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_DLMAIN_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(main_tick,

	TP_PROTO(int thread, int i),

	TP_ARGS(thread, i),

	TP_STRUCT__entry(
		__field(	int,	thread	)
		__field(	int,	i	)
	),

	TP_fast_assign(
		__entry->thread = thread;
		__entry->i = i;
	),

	TP_printk("thread=%d i=%d", __entry->thread, __entry->i)
);

#endif /* _TRACE_TPT_DLMAIN_H */

#include <tpoint/define_trace.h>
