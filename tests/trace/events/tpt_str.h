/* SPDX-License-Identifier: MIT */
/*
 * Events of strcopy_test: a __string alone, and one after a field, so that the string
 * starts at another offset of the record.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_str

#if !defined(_TRACE_TPT_STR_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_STR_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(str_only,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(__string(s, s)),
	TP_fast_assign(__assign_str(s);),
	TP_printk("%s", __get_str(s))
);

TRACE_EVENT(str_after,
	TP_PROTO(int n, const char *s),
	TP_ARGS(n, s),
	TP_STRUCT__entry(__field(int, n) __string(s, s)),
	TP_fast_assign(__entry->n = n; __assign_str(s);),
	TP_printk("%d %s", __entry->n, __get_str(s))
);

#endif

#include <tpoint/define_trace.h>
