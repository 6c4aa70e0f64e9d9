/* SPDX-License-Identifier: MIT */
/* Events of fork_test: who emitted (parent, its other thread, the forked child) and when. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_fork

#if !defined(_TRACE_TPT_FORK_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_FORK_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(fork_emit,

	TP_PROTO(int pid, int role, int i),

	TP_ARGS(pid, role, i),

	TP_STRUCT__entry(
		__field(	int,	pid	)
		__field(	int,	role	)
		__field(	int,	i	)
	),

	TP_fast_assign(
		__entry->pid = pid;
		__entry->role = role;
		__entry->i = i;
	),

	TP_printk("pid=%d role=%s i=%d", __entry->pid,
		  __print_symbolic(__entry->role, { 0, "parent" }, { 1, "child" }, { 2, "thread" }),
		  __entry->i)
);

#endif /* _TRACE_TPT_FORK_H */

#include <tpoint/define_trace.h>
