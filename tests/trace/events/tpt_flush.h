/* SPDX-License-Identifier: MIT */
/* The event of flush_test: threads' records, numbered, while the main thread flushes. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_flush

#if !defined(_TRACE_TPT_FLUSH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_FLUSH_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(flush_hammer,

	TP_PROTO(u64 seq, u64 val),

	TP_ARGS(seq, val),

	TP_STRUCT__entry(
		__field(	u64,	seq	)
		__field(	u64,	val	)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->val = val;
	),

	TP_printk("seq=%llu val=%llu", (unsigned long long)__entry->seq,
		  (unsigned long long)__entry->val)
);

#endif /* _TRACE_TPT_FLUSH_H */

#include <tpoint/define_trace.h>
