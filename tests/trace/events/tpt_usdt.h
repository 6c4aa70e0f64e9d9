/* SPDX-License-Identifier: MIT */
/* Events of the USDT target (tests/usdttarget.c): each is also a USDT probe. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_usdt

#if !defined(_TRACE_TPT_USDT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_USDT_H

#include <stdbool.h>
#include <tpoint/tracepoint.h>

#ifndef TPT_USDT_PAIR
#define TPT_USDT_PAIR
struct tpt_usdt_pair {
	int a, b;
};
#endif

/* A third of the hits pass the condition: a USDT consumer must see exactly those. */
TRACE_EVENT_CONDITION(usdt_cond,
	TP_PROTO(int i, long v, const char *s),
	TP_ARGS(i, v, s),
	TP_CONDITION(i % 3 == 0),
	TP_STRUCT__entry(
		__field(int, i)
		__field(long, v)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->i = i;
		__entry->v = v;
		__assign_str(s);
	),
	TP_printk("i=%d v=%ld s=%s", __entry->i, __entry->v, __get_str(s))
);

/* Every kind of argument: sizes and signs in the note, a struct and a double as 0. */
TRACE_EVENT(usdt_kinds,
	TP_PROTO(s8 a, u16 b, s64 c, void *p, struct tpt_usdt_pair pair, double d, bool f,
		 unsigned char uc),
	TP_ARGS(a, b, c, p, pair, d, f, uc),
	TP_STRUCT__entry(
		__field(s8, a)
		__field(u16, b)
		__field(s64, c)
		__field(int, pa)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		__entry->pa = pair.a + (int)d + f + uc + (p != 0);
	),
	TP_printk("a=%d b=%u c=%lld pa=%d", __entry->a, __entry->b, (long long)__entry->c,
		  __entry->pa)
);

/* Thirteen arguments: the note carries the first twelve, the format's limit. */
TRACE_EVENT(usdt_wide,
	TP_PROTO(int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10,
		 int a11, int a12, int a13),
	TP_ARGS(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13),
	TP_STRUCT__entry(__field(int, sum)),
	TP_fast_assign(
		__entry->sum = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13;
	),
	TP_printk("sum=%d", __entry->sum)
);

#endif

#include <tpoint/define_trace.h>
