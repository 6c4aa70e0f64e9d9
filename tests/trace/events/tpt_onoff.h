/* SPDX-License-Identifier: MIT */
/*
 * Events of tests/onofftarget.c (tests/trigger_onoff.sh): start and stop carry the traceon,
 * traceoff, enable_event and disable_event triggers; tick is recorded; detail is the event
 * that enable_event switches.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_onoff

#if !defined(_TRACE_TPT_ONOFF_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_ONOFF_H

#include <tpoint/tracepoint.h>

DECLARE_EVENT_CLASS(onoff_seq,
	TP_PROTO(int seq, int thread),
	TP_ARGS(seq, thread),
	TP_STRUCT__entry(__field(int, seq) __field(int, thread)),
	TP_fast_assign(__entry->seq = seq; __entry->thread = thread;),
	TP_printk("seq=%d thread=%d", __entry->seq, __entry->thread)
);
DEFINE_EVENT(onoff_seq, start, TP_PROTO(int seq, int thread), TP_ARGS(seq, thread));
DEFINE_EVENT(onoff_seq, stop, TP_PROTO(int seq, int thread), TP_ARGS(seq, thread));
DEFINE_EVENT(onoff_seq, tick, TP_PROTO(int seq, int thread), TP_ARGS(seq, thread));
DEFINE_EVENT(onoff_seq, detail, TP_PROTO(int seq, int thread), TP_ARGS(seq, thread));

#endif

#include <tpoint/define_trace.h>
