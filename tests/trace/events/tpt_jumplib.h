/* SPDX-License-Identifier: MIT */
/* The event of the jump-label test's shared library (tests/tp_jumplib.c); see tpt_jump.h. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_jumplib

#if !defined(_TRACE_TPT_JUMPLIB_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_JUMPLIB_H

#include <tpoint/tracepoint.h>

TRACE_EVENT_CONDITION(jump_lib,
	TP_PROTO(int *seen, int v),
	TP_ARGS(seen, v),
	TP_CONDITION((*seen = 1) == 0),
	TP_STRUCT__entry(__field(int, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%d", __entry->v)
);

#endif

#include <tpoint/define_trace.h>
