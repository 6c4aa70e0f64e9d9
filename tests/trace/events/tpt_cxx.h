/* SPDX-License-Identifier: MIT */
/*
 * Events of cxx_test: a trace header as a C++ program writes it, with C++ types in
 * TP_PROTO (a std::string reference, bool) that TP_fast_assign turns into plain fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_cxx

#if !defined(_TRACE_TPT_CXX_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_CXX_H

#include <tpoint/tracepoint.h>
#include <string>

TRACE_EVENT_CONDITION(cxx_call,

	TP_PROTO(const std::string &who, unsigned depth, bool ok),

	TP_ARGS(who, depth, ok),

	/* Deep recursion is noise. */
	TP_CONDITION(depth < 10),

	TP_STRUCT__entry(
		__string(	who,	who.c_str()	)
		__field(	unsigned,	depth	)
		__field(	bool,		ok	)
	),

	TP_fast_assign(
		__assign_str(who);
		__entry->depth = depth;
		__entry->ok = ok;
	),

	TP_printk("who=%s depth=%u ok=%d", __get_str(who), __entry->depth, __entry->ok)
);

#endif /* _TRACE_TPT_CXX_H */

#include <tpoint/define_trace.h>
