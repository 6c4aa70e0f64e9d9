/* SPDX-License-Identifier: MIT */
/* Events of trigger_test and trigger.sh: a number, a size and a path, whose distributions
 * the tests choose; and a code address, for .sym keys. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_trig

#if !defined(_TRACE_TPT_TRIG_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_TRIG_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(trig_req,
	TP_PROTO(int id, unsigned long long bytes, const char *path),
	TP_ARGS(id, bytes, path),
	TP_STRUCT__entry(__field(int, id) __field(unsigned long long, bytes) __string(path, path)),
	TP_fast_assign(__entry->id = id; __entry->bytes = bytes; __assign_str(path);),
	TP_printk("id=%d bytes=%llu path=%s", __entry->id, __entry->bytes, __get_str(path))
);

TRACE_EVENT(trig_call,
	TP_PROTO(unsigned long site),
	TP_ARGS(site),
	TP_STRUCT__entry(__field(unsigned long, site)),
	TP_fast_assign(__entry->site = site;),
	TP_printk("site=%lx", __entry->site)
);

#endif

#include <tpoint/define_trace.h>
