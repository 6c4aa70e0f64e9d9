/* SPDX-License-Identifier: MIT */
/*
 * A request's begin and end with the program's own clock `t` (µs), for tests/trigger_latency.sh:
 * the kernel's latency triggers set in the process (variables, onmatch(), a synthetic event),
 * whose buckets the test knows exactly when the latency is taken from `t`.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_hlat

#if !defined(_TRACE_TPT_HLAT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_HLAT_H

#include <stdio.h>
#include <tpoint/tracepoint.h>

TRACE_EVENT(hl_begin,
	TP_PROTO(unsigned int id, unsigned long long t),
	TP_ARGS(id, t),
	TP_STRUCT__entry(
		__field(unsigned int, id)
		__field(unsigned long long, t)
	),
	TP_fast_assign(__entry->id = id; __entry->t = t;),
	TP_printk("id=%u t=%llu", __entry->id, __entry->t)
);

TRACE_EVENT(hl_done,
	TP_PROTO(unsigned int id, unsigned long long t, const char *cmd),
	TP_ARGS(id, t, cmd),
	TP_STRUCT__entry(
		__field(unsigned int, id)
		__field(unsigned long long, t)
		__array(char, cmd, 16)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->t = t;
		snprintf(__entry->cmd, sizeof(__entry->cmd), "%s", cmd);
	),
	TP_printk("id=%u t=%llu cmd=%s", __entry->id, __entry->t, __entry->cmd)
);

#endif

#include <tpoint/define_trace.h>
