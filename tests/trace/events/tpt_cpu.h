/* SPDX-License-Identifier: MIT */
/* The event of cpu_test: one thread's records, numbered, as it hops between CPUs. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_cpu

#if !defined(_TRACE_TPT_CPU_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_CPU_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(cpu_hop,

	TP_PROTO(int seq, int cpu),

	TP_ARGS(seq, cpu),

	TP_STRUCT__entry(
		__field(	int,	seq	)
		__field(	int,	cpu	)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->cpu = cpu;
	),

	TP_printk("seq=%d cpu=%d", __entry->seq, __entry->cpu)
);

#endif /* _TRACE_TPT_CPU_H */

#include <tpoint/define_trace.h>
