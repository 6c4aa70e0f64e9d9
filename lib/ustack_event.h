/* SPDX-License-Identifier: MIT */
/*
 * ftrace:user_stack, the kernel's own record of a user stack trace (its format in
 * /sys/kernel/tracing/events/ftrace/user_stack/format: the thread group, then 8 callers),
 * written by the library for a `stacktrace` trigger or tpoint_record_user_stack(), so that
 * trace-cmd report prints it as it prints the kernel's. Defined like any program's event:
 * counted, listed and lost like one. A caller of 0 ends the stack.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftrace

#if !defined(_TPOINT_USTACK_EVENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TPOINT_USTACK_EVENT_H

#include <string.h>
#include <tpoint/tracepoint.h>

TRACE_EVENT(user_stack,

	TP_PROTO(unsigned int tgid, const unsigned long *callers),

	TP_ARGS(tgid, callers),

	TP_STRUCT__entry(
		__field(	unsigned int,	tgid		)
		__array(	unsigned long,	caller,	8	)
	),

	TP_fast_assign(
		__entry->tgid = tgid;
		memcpy(__entry->caller, callers, sizeof(__entry->caller));
	),

	TP_printk("\t=> %ps\n\t=> %ps\n\t=> %ps\n\t=> %ps\n\t=> %ps\n\t=> %ps\n\t=> %ps\n\t=> %ps\n",
		  (void *)__entry->caller[0], (void *)__entry->caller[1],
		  (void *)__entry->caller[2], (void *)__entry->caller[3],
		  (void *)__entry->caller[4], (void *)__entry->caller[5],
		  (void *)__entry->caller[6], (void *)__entry->caller[7])
);

#endif /* _TPOINT_USTACK_EVENT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ustack_event
#include <tpoint/define_trace.h>
