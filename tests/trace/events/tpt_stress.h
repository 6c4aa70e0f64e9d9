/* SPDX-License-Identifier: MIT */
/*
 * Events of stress_test and signal_test: each record carries who wrote it, its place in
 * the writer's sequence and a checksum over everything else, so that a reader can tell an
 * intact record from a torn, mixed or duplicated one.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_stress

#if !defined(_TRACE_TPT_STRESS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_STRESS_H

#include <tpoint/tracepoint.h>

DECLARE_EVENT_CLASS(stress_class,

	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),

	TP_ARGS(tid, seq, val, pad, sum, keep),

	TP_STRUCT__entry(
		__field(	u32,	tid	)
		__field(	u64,	seq	)
		__field(	u64,	val	)
		__field(	u64,	sum	)
		__string(	pad,	pad	)
	),

	TP_fast_assign(
		__entry->tid = tid;
		__entry->seq = seq;
		__entry->val = val;
		__entry->sum = sum;
		__assign_str(pad);
	),

	/* The string last, in brackets: it may be empty. */
	TP_printk("tid=%u seq=%llu val=%llu sum=%llu pad=<%s>", __entry->tid, __entry->seq,
		  __entry->val, __entry->sum, __get_str(pad))
);

/* Every call is recorded (or lost). */
DEFINE_EVENT(stress_class, stress_rec,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),
	TP_ARGS(tid, seq, val, pad, sum, keep)
);

/* Only the calls whose `keep` is set. */
DEFINE_EVENT_CONDITION(stress_class, stress_cond,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),
	TP_ARGS(tid, seq, val, pad, sum, keep),
	TP_CONDITION(keep)
);

/* signal_test: hit by the interrupted thread, its signal handler and a nested one. */
DEFINE_EVENT(stress_class, sig_loop,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),
	TP_ARGS(tid, seq, val, pad, sum, keep)
);

DEFINE_EVENT(stress_class, sig_handler,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),
	TP_ARGS(tid, seq, val, pad, sum, keep)
);

DEFINE_EVENT(stress_class, sig_nested,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum, int keep),
	TP_ARGS(tid, seq, val, pad, sum, keep)
);

#endif /* _TRACE_TPT_STRESS_H */

#include <tpoint/define_trace.h>
