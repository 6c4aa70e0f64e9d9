/* SPDX-License-Identifier: MIT */
/*
 * Events of tests/tp_plugin.c, a shared library that dlopen_test loads, unloads and loads
 * again: its events live in the library, and their formats must outlive it. plugin_idle is
 * never selected nor called: its format is built only after the library went, from the
 * copy of its records that the runtime kept.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM plugin

#if !defined(_TRACE_PLUGIN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PLUGIN_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(plugin_work,

	TP_PROTO(int phase, int thread, int i, const char *msg),

	TP_ARGS(phase, thread, i, msg),

	TP_STRUCT__entry(
		__field(	int,	phase	)
		__field(	int,	thread	)
		__field(	int,	i	)
		__string(	msg,	msg	)
	),

	TP_fast_assign(
		__entry->phase = phase;
		__entry->thread = thread;
		__entry->i = i;
		__assign_str(msg);
	),

	TP_printk("phase=%d thread=%d i=%d kind=%s msg=%s", __entry->phase, __entry->thread,
		  __entry->i, __print_symbolic(__entry->i % 3, { 0, "zero" }, { 1, "one" },
					       { 2, "two" }),
		  __get_str(msg))
);

TRACE_EVENT(plugin_idle,

	TP_PROTO(unsigned int ticks),

	TP_ARGS(ticks),

	TP_STRUCT__entry(
		__field(	unsigned int,	ticks	)
	),

	TP_fast_assign(
		__entry->ticks = ticks;
	),

	TP_printk("idle for %u ticks", __entry->ticks)
);

#endif /* _TRACE_PLUGIN_H */

#include <tpoint/define_trace.h>
