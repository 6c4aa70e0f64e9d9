/* SPDX-License-Identifier: MIT */
/*
 * A request's start and end, for tests/report_latency.sh: the kernel's latency histogram
 * (variables, onmatch(), a synthetic event) over a recording of tests/lattarget.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_lat

#if !defined(_TRACE_TPT_LAT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_LAT_H

#include <stdio.h>
#include <tpoint/tracepoint.h>

TRACE_EVENT(lat_start,
	TP_PROTO(unsigned int id),
	TP_ARGS(id),
	TP_STRUCT__entry(__field(unsigned int, id)),
	TP_fast_assign(__entry->id = id;),
	TP_printk("id=%u", __entry->id)
);

TRACE_EVENT(lat_end,
	TP_PROTO(unsigned int id, const char *cmd),
	TP_ARGS(id, cmd),
	TP_STRUCT__entry(
		__field(unsigned int, id)
		__array(char, cmd, 16)
	),
	TP_fast_assign(
		__entry->id = id;
		snprintf(__entry->cmd, sizeof(__entry->cmd), "%s", cmd);
	),
	TP_printk("id=%u cmd=%s", __entry->id, __entry->cmd)
);

#endif

#include <tpoint/define_trace.h>
