/* SPDX-License-Identifier: MIT */
/*
 * A process's tracing_on off windows, as its spool's SPOOL_TRACING chunks give them
 * (lib/spool_format.h; the runtime's side is lib/tracing_on.c): the switches by raw clock,
 * off at even indexes, on at odd ones. Read by the trace.dat writer (lib/tracedat.c) and
 * tpoint stream, which leave out the records of an off window. Pure: libc only.
 */
#ifndef TPOINT_FMT_TRACING_WINDOWS_H
#define TPOINT_FMT_TRACING_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tracing_windows {
	uint64_t *at; /* raw clocks, made non-decreasing (racing switches: a window of none) */
	size_t n;
};

/*
 * A SPOOL_TRACING chunk's payload: `body` holds a u64 index, then `count` u64 clocks. Those
 * after the switches known are added; a chunk that starts past them (one before it was lost
 * to damage) adds nothing. 0, or -ENOMEM.
 */
int tp_tracing_windows_add(struct tracing_windows *w, const void *body, size_t count);
/*
 * Was tracing off at raw clock c: after an off switch, before the next on switch (or with
 * none after)? The record that fired a traceoff was stamped before its switch, the one that
 * fired a traceon after its switch: both are outside.
 */
bool tp_tracing_windows_off(const struct tracing_windows *w, uint64_t c);
void tp_tracing_windows_free(struct tracing_windows *w);

#endif
