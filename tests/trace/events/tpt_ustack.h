/* SPDX-License-Identifier: MIT */
/* tests/ustack.sh: the event after which tests/ustacktarget.c records its user stack. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_ustack

#if !defined(_TRACE_TPT_USTACK_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_USTACK_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(ustack_hit,
	TP_PROTO(int where),
	TP_ARGS(where),
	TP_STRUCT__entry(__field(int, where)),
	TP_fast_assign(__entry->where = where;),
	TP_printk("where=%d", __entry->where)
);

#endif

#include <tpoint/define_trace.h>
