/* SPDX-License-Identifier: MIT */
/*
 * Events of tests/fmttarget.c. hexoff's TP_printk passes the runtime's check (every
 * construct in it is one libtraceevent knows) but hands __print_hex() an expression, not a
 * field: libtraceevent 1.7.1 then follows a pointer it never set. The tool must refuse to
 * print it, and say so, in report and stream alike (tests/render.sh).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_unsafe

#if !defined(_TRACE_TPT_UNSAFE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_UNSAFE_H

#include <string.h>
#include <tpoint/tracepoint.h>

TRACE_EVENT(hexoff,
	TP_PROTO(unsigned long n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(unsigned long, n)
		__array(unsigned char, buf, 8)
	),
	TP_fast_assign(
		__entry->n = n;
		memset(__entry->buf, 1, sizeof(__entry->buf));
	),
	TP_printk("n=%lu buf=%s", __entry->n, __print_hex(__entry->buf + 1, 4))
);

TRACE_EVENT(fine,
	TP_PROTO(unsigned long n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(unsigned long, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%lu", __entry->n)
);

#endif

#include <tpoint/define_trace.h>
