/* SPDX-License-Identifier: MIT */
/*
 * Events of pause_test: a record of 40 bytes and one of 32 (8-byte header, 8-byte common
 * header, three or two u64 fields), so that the test can place a record exactly at the end
 * of a page.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_pause

#if !defined(_TRACE_TPT_PAUSE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_PAUSE_H

#include <tpoint/tracepoint.h>

TRACE_EVENT(pause_big,

	TP_PROTO(uint64_t seq, uint64_t b, uint64_t c),

	TP_ARGS(seq, b, c),

	TP_STRUCT__entry(
		__field(	uint64_t,	seq	)
		__field(	uint64_t,	b	)
		__field(	uint64_t,	c	)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->b = b;
		__entry->c = c;
	),

	TP_printk("seq=%llu", (unsigned long long)__entry->seq)
);

TRACE_EVENT(pause_small,

	TP_PROTO(uint64_t seq, uint64_t b),

	TP_ARGS(seq, b),

	TP_STRUCT__entry(
		__field(	uint64_t,	seq	)
		__field(	uint64_t,	b	)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->b = b;
	),

	TP_printk("seq=%llu", (unsigned long long)__entry->seq)
);

#endif

#include <tpoint/define_trace.h>
