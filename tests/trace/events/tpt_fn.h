/* SPDX-License-Identifier: MIT */
/* tests/fntarget.c's event: a TRACE_EVENT_FN whose reg() and unreg() the program counts. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_fn

#if !defined(_TRACE_TPT_FN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_FN_H

#include <tpoint/tracepoint.h>

int fn_reg(void);
void fn_unreg(void);

TRACE_EVENT_FN(fn_tick,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(	int,	n	)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("n=%d", __entry->n),
	fn_reg, fn_unreg
);

#endif /* _TRACE_TPT_FN_H */

#include <tpoint/define_trace.h>
