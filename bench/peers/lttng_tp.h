/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST provider of the peers benchmark: the payloads of bench/trace/events/bench.h
 * (three u64, one 32-byte string) as LTTng events. One class, several instances, so that each
 * session of the benchmark enables an event of its own while all of them record the same
 * thing: *_uid go to the per-UID snapshot session, *_pid to the per-PID one, *_off is never
 * enabled (the disabled case).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER peers_lttng

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(PEERS_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define PEERS_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT_CLASS(peers_lttng, u64x3,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c),
	TP_FIELDS(
		ctf_integer(uint64_t, a, a)
		ctf_integer(uint64_t, b, b)
		ctf_integer(uint64_t, c, c)
	)
)
TRACEPOINT_EVENT_INSTANCE(peers_lttng, u64x3, u64x3_uid,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c))
TRACEPOINT_EVENT_INSTANCE(peers_lttng, u64x3, u64x3_pid,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c))
TRACEPOINT_EVENT_INSTANCE(peers_lttng, u64x3, u64x3_off,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c))
/* The throughput run's event, enabled only in its own (discard-mode) session. */
TRACEPOINT_EVENT_INSTANCE(peers_lttng, u64x3, u64x3_tput,
	TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c))

TRACEPOINT_EVENT_CLASS(peers_lttng, str,
	TP_ARGS(const char *, s),
	TP_FIELDS(
		ctf_string(s, s)
	)
)
TRACEPOINT_EVENT_INSTANCE(peers_lttng, str, str_uid, TP_ARGS(const char *, s))

#endif /* PEERS_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
