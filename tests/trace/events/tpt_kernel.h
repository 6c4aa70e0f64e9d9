/* SPDX-License-Identifier: MIT */
/* The event of kernel_test: one of each pair, the kernel's trace_marker write the other. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_kernel

#if !defined(_TRACE_TPT_KERNEL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_KERNEL_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(kernel_pair,

	TP_PROTO(int seq),

	TP_ARGS(seq),

	TP_STRUCT__entry(
		__field(	int,	seq	)
	),

	TP_fast_assign(
		__entry->seq = seq;
	),

	TP_printk("seq=%d", __entry->seq)
);

#endif /* _TRACE_TPT_KERNEL_H */

#include <tpoint/define_trace.h>
