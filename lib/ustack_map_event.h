/* SPDX-License-Identifier: MIT */
/*
 * tpoint:user_stack_map, one executable mapping of a file in the process that recorded
 * user stacks (ftrace:user_stack): what a reader needs to name their addresses, the
 * mappings as they were when the stacks were taken. lib/ustack_maps.c writes them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpoint

#if !defined(_TPOINT_USTACK_MAP_EVENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TPOINT_USTACK_MAP_EVENT_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(user_stack_map,

	TP_PROTO(unsigned int tgid, unsigned long start, unsigned long end, unsigned long pgoff,
		 const char *path),

	TP_ARGS(tgid, start, end, pgoff, path),

	TP_STRUCT__entry(
		__field(	unsigned int,	tgid	)
		__field(	unsigned long,	start	)
		__field(	unsigned long,	end	)
		__field(	unsigned long,	pgoff	)
		__string(	path,		path	)
	),

	TP_fast_assign(
		__entry->tgid = tgid;
		__entry->start = start;
		__entry->end = end;
		__entry->pgoff = pgoff;
		__assign_str(path);
	),

	TP_printk("tgid=%u %lx-%lx %lx %s", __entry->tgid, __entry->start, __entry->end,
		  __entry->pgoff, __get_str(path))
);

#endif /* _TPOINT_USTACK_MAP_EVENT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ustack_map_event
#include <tpoint/define_trace.h>
