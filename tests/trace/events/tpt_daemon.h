/* SPDX-License-Identifier: MIT */
/* Events of daemon_test: a tick of the program before it became a daemon, and after. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_daemon

#if !defined(_TRACE_TPT_DAEMON_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_DAEMON_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(daemon_tick,

	TP_PROTO(int daemon, int i),

	TP_ARGS(daemon, i),

	TP_STRUCT__entry(
		__field(	int,	daemon	)
		__field(	int,	i	)
	),

	TP_fast_assign(
		__entry->daemon = daemon;
		__entry->i = i;
	),

	TP_printk("daemon=%d i=%d", __entry->daemon, __entry->i)
);

#endif /* _TRACE_TPT_DAEMON_H */

#include <tpoint/define_trace.h>
