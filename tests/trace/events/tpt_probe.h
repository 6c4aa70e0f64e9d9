/* SPDX-License-Identifier: MIT */
/*
 * Events of probe_test. The condition calls a function of the test, so that the test can
 * count how often the condition was evaluated.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_probe

#if !defined(_TRACE_TPT_PROBE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_PROBE_H

#include <tpoint/tracepoint.h>

#ifndef TPT_PROBE_DECLS
#define TPT_PROBE_DECLS
int tpt_probe_cond(int v); /* counts its calls; true for v >= 0 */
#endif

TRACE_EVENT(probe_plain,

	TP_PROTO(int a, long b),

	TP_ARGS(a, b),

	TP_STRUCT__entry(
		__field(	int,	a	)
		__field(	long,	b	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),

	TP_printk("a=%d b=%ld", __entry->a, __entry->b)
);

TRACE_EVENT_CONDITION(probe_cond,

	TP_PROTO(int v, const char *s),

	TP_ARGS(v, s),

	TP_CONDITION(tpt_probe_cond(v)),

	TP_STRUCT__entry(
		__field(	int,	v	)
		__string(	s,	s	)
	),

	TP_fast_assign(
		__entry->v = v;
		__assign_str(s);
	),

	TP_printk("v=%d s=%s", __entry->v, __get_str(s))
);

/* A DEFINE_EVENT: its probes run from its class's loop, which is passed the event. */
DEFINE_EVENT(probe_plain, probe_alias,
	TP_PROTO(int a, long b),
	TP_ARGS(a, b)
);

#endif /* _TRACE_TPT_PROBE_H */

#include <tpoint/define_trace.h>
