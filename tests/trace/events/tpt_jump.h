/* SPDX-License-Identifier: MIT */
/*
 * Events of the jump-label test (tests/jump_test.c, tests/jump_plain.c, tests/tp_jumplib.c).
 * Their condition is false, but it marks *seen first: the test knows of every hit that
 * reached the hit function, whether or not anything was recorded.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_jump

#if !defined(_TRACE_TPT_JUMP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_JUMP_H

#include <tpoint/tracepoint.h>

DECLARE_EVENT_CLASS(tpt_jump_class,
	TP_PROTO(int *seen, int v),
	TP_ARGS(seen, v),
	TP_STRUCT__entry(__field(int, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%d", __entry->v)
);

DEFINE_EVENT_CONDITION(tpt_jump_class, jump_a,
	TP_PROTO(int *seen, int v),
	TP_ARGS(seen, v),
	TP_CONDITION((*seen = 1) == 0)
);

DEFINE_EVENT_CONDITION(tpt_jump_class, jump_b,
	TP_PROTO(int *seen, int v),
	TP_ARGS(seen, v),
	TP_CONDITION((*seen = 1) == 0)
);

#endif

#include <tpoint/define_trace.h>
