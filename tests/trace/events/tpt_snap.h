/* SPDX-License-Identifier: MIT */
/* Events of tests/snaptarget.c (tests/trigger_snapshot.sh): requests, some of them errors. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_snap

#if !defined(_TRACE_TPT_SNAP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_SNAP_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(int id, int status),
	TP_ARGS(id, status),
	TP_STRUCT__entry(__field(int, id) __field(int, status)),
	TP_fast_assign(__entry->id = id; __entry->status = status;),
	TP_printk("id=%d status=%d", __entry->id, __entry->status)
);

#endif

#include <tpoint/define_trace.h>
