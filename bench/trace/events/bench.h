/* SPDX-License-Identifier: MIT */
/*
 * The events the hot-path benchmark fires, and the peers benchmark (bench/peers, figures in
 * docs/PERFORMANCE.md) with them: three u64 (what its LTTng-UST provider records too), the
 * same three behind a condition or a filter, and one 32-byte string (31 characters and the NUL).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench

#if !defined(_TRACE_BENCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(bench_u64x3,

	TP_PROTO(u64 a, u64 b, u64 c),

	TP_ARGS(a, b, c),

	TP_STRUCT__entry(
		__field(	u64,	a	)
		__field(	u64,	b	)
		__field(	u64,	c	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("a %llu b %llu c %llu", (unsigned long long)__entry->a,
		  (unsigned long long)__entry->b, (unsigned long long)__entry->c)
);

/* The benchmark passes an even `a` to measure a condition that says no. */
TRACE_EVENT_CONDITION(bench_cond,

	TP_PROTO(u64 a, u64 b, u64 c),

	TP_ARGS(a, b, c),

	TP_CONDITION(a & 1),

	TP_STRUCT__entry(
		__field(	u64,	a	)
		__field(	u64,	b	)
		__field(	u64,	c	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("a %llu b %llu c %llu", (unsigned long long)__entry->a,
		  (unsigned long long)__entry->b, (unsigned long long)__entry->c)
);

/*
 * The same three u64 as bench_u64x3, as events of their own so that a filter on them leaves
 * the unfiltered cases alone. hotpath.c gives each a filter for good: one that rejects every
 * record, one of two predicates that accepts every record.
 */
DECLARE_EVENT_CLASS(bench_u64x3_filtered,

	TP_PROTO(u64 a, u64 b, u64 c),

	TP_ARGS(a, b, c),

	TP_STRUCT__entry(
		__field(	u64,	a	)
		__field(	u64,	b	)
		__field(	u64,	c	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("a %llu b %llu c %llu", (unsigned long long)__entry->a,
		  (unsigned long long)__entry->b, (unsigned long long)__entry->c)
);

DEFINE_EVENT(bench_u64x3_filtered, bench_filt_rej,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

DEFINE_EVENT(bench_u64x3_filtered, bench_filt_acc,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

/* A DEFINE_EVENT that a hist: trigger aggregates, recorded or not. */
DEFINE_EVENT(bench_u64x3_filtered, bench_hist,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

/* A DEFINE_EVENT with a stacktrace trigger: the calling thread's stack after each record. */
DEFINE_EVENT(bench_u64x3_filtered, bench_stack,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

/* A request's start and end, keyed by `a`: the latency pair of make bench-peers. */
DEFINE_EVENT(bench_u64x3_filtered, bench_lat_start,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

DEFINE_EVENT(bench_u64x3_filtered, bench_lat_end,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

/* A DEFINE_EVENT with no filter: the enabled path of an event that shares its class. */
DEFINE_EVENT(bench_u64x3_filtered, bench_u64x3_de,
	TP_PROTO(u64 a, u64 b, u64 c),
	TP_ARGS(a, b, c)
);

TRACE_EVENT(bench_str,

	TP_PROTO(const char *s),

	TP_ARGS(s),

	TP_STRUCT__entry(
		__string(	s,	s	)
	),

	TP_fast_assign(
		__assign_str(s);
	),

	TP_printk("s %s", __get_str(s))
);

#endif /* _TRACE_BENCH_H */

/* This part must be outside protection */
#include <tpoint/define_trace.h>
