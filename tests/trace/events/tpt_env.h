/* SPDX-License-Identifier: MIT */
/* The event of env_test's child: something to record when the environment allows it. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_env

#if !defined(_TRACE_TPT_ENV_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_ENV_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(env_tick,

	TP_PROTO(int i),

	TP_ARGS(i),

	TP_STRUCT__entry(
		__field(	int,	i	)
	),

	TP_fast_assign(
		__entry->i = i;
	),

	TP_printk("i=%d", __entry->i)
);

#endif /* _TRACE_TPT_ENV_H */

#include <tpoint/define_trace.h>
