/* SPDX-License-Identifier: MIT */
/* Events of abi_test: one built as usual, whose descriptor the test copies as an old one. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_abi

#if !defined(_TRACE_TPT_ABI_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_ABI_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(abi_now,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_STRUCT__entry(
		__field(	int,	v	)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("v=%d", __entry->v)
);

#endif /* _TRACE_TPT_ABI_H */

#include <tpoint/define_trace.h>
