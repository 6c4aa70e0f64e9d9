/* SPDX-License-Identifier: MIT */
/*
 * Events of ctlstress_test: the self-checking record of stressutil.h (who wrote it, its
 * place in the writer's sequence, a checksum over the rest), hit while the process's own
 * control socket turns the events and their filters on and off underneath.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_ctlstress

#if !defined(_TRACE_TPT_CTLSTRESS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_CTLSTRESS_H

#include <tpoint/tracepoint.h>

DECLARE_EVENT_CLASS(cs_class,

	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum),

	TP_ARGS(tid, seq, val, pad, sum),

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

	/* stressutil.h's su_check() parses exactly this. */
	TP_printk("tid=%u seq=%llu val=%llu sum=%llu pad=<%s>", __entry->tid, __entry->seq,
		  __entry->val, __entry->sum, __get_str(pad))
);

/* No condition: what reaches the file is decided by the enable word and the filter. */
DEFINE_EVENT(cs_class, cs_plain,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum),
	TP_ARGS(tid, seq, val, pad, sum)
);

/*
 * A condition the reader can recompute from the record: a cs_cond record whose val is a
 * multiple of 3 in the file means the condition was bypassed.
 */
DEFINE_EVENT_CONDITION(cs_class, cs_cond,
	TP_PROTO(u32 tid, u64 seq, u64 val, const char *pad, u64 sum),
	TP_ARGS(tid, seq, val, pad, sum),
	TP_CONDITION(val % 3 != 0)
);

#endif /* _TRACE_TPT_CTLSTRESS_H */

#include <tpoint/define_trace.h>
