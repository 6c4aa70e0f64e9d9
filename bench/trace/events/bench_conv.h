/* SPDX-License-Identifier: MIT */
/* The conversion benchmark's event (bench/convert.sh): Redis's shape, a command and two numbers. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench_conv

#if !defined(_TRACE_BENCH_CONV_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_CONV_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(redis_cmd,
	TP_PROTO(const char *cmd, u64 key, u64 usec),
	TP_ARGS(cmd, key, usec),
	TP_STRUCT__entry(
		__string(cmd, cmd)
		__field(u64, key)
		__field(u64, usec)
	),
	TP_fast_assign(
		__assign_str(cmd);
		__entry->key = key;
		__entry->usec = usec;
	),
	TP_printk("cmd=%s key=%llu usec=%llu", __get_str(cmd), __entry->key, __entry->usec)
);

#endif

#include <tpoint/define_trace.h>
