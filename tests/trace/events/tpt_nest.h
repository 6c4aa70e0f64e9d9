/* SPDX-License-Identifier: MIT */
/*
 * Events of nest_test. Filling a nest_level record traces the next depth (its TP_fast_assign
 * calls tpt_nest_descend()), so records nest inside each other as a signal handler's would,
 * but deterministically, and deeper than the library's levels.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_nest

#if !defined(_TRACE_TPT_NEST_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_NEST_H

#include <tpoint/tracepoint.h>

#ifndef TPT_NEST_DECLS
#define TPT_NEST_DECLS
int tpt_nest_descend(int depth, int round); /* traces depth + 1, returns it */
#endif

TRACE_EVENT(nest_level,

	TP_PROTO(int depth, int round),

	TP_ARGS(depth, round),

	TP_STRUCT__entry(
		__field(	int,	depth	)
		__field(	int,	round	)
		__field(	int,	inner	)
	),

	TP_fast_assign(
		__entry->depth = depth;
		__entry->round = round;
		__entry->inner = tpt_nest_descend(depth, round);
	),

	TP_printk("depth=%d round=%d inner=%d", __entry->depth, __entry->round, __entry->inner)
);

TRACE_EVENT(nest_after,

	TP_PROTO(int round),

	TP_ARGS(round),

	TP_STRUCT__entry(
		__field(	int,	round	)
	),

	TP_fast_assign(
		__entry->round = round;
	),

	TP_printk("round=%d", __entry->round)
);

#endif /* _TRACE_TPT_NEST_H */

#include <tpoint/define_trace.h>
