/* SPDX-License-Identifier: MIT */
/*
 * lib/tracing_on.c: the process's tracing_on, as the kernel's (the traceon and traceoff
 * triggers, TPOINT_TRACING_ON=0), kept as a log of its switches by raw clock reading. The
 * writers never look at it: the records of an off window are left out where spools become a
 * trace.dat (lib/tracedat.c), by their time, through the SPOOL_TRACING chunks the drain
 * copies this log into. So an event without triggers pays nothing for it, and a switch takes
 * no lock and may happen in a signal handler.
 */
#ifndef TPOINT_TRACING_ON_H
#define TPOINT_TRACING_ON_H

#include <stdbool.h>
#include <stdint.h>
#include "hidden.h"

/* The switches a process logs: those after are not (the state still changes); said once. */
#define TP_TRACING_LOG_MAX 32768u

/* The switches so far: even while on, odd while off (read inline by the writer's slow path). */
extern HIDDEN uint64_t tp_tracing_switches;

static inline bool tp_tracing_is_on(void)
{
	return !(__atomic_load_n(&tp_tracing_switches, __ATOMIC_RELAXED) & 1);
}
/*
 * Switch tracing on or off at raw clock reading `clock` (1 and up). True if this call changed
 * the state (one of two racing calls does). Lock-free, async-signal-safe.
 */
HIDDEN bool tp_tracing_switch(bool on, uint64_t clock);
/*
 * A switch now whose clock reading comes later (traceoff: once the record that fired it has
 * its time stamp): its log slot + 1, 0 if the state was off already; then tp_tracing_stamp().
 * A slot past the log needs no stamp (said at the spool's next pass).
 */
HIDDEN uint32_t tp_tracing_claim(bool on);
HIDDEN void tp_tracing_stamp(uint32_t slot_plus_1, uint64_t clock);
/*
 * The switches logged from `from` on, into out[] (raw clock readings; a switch from on to off
 * at even indexes, from off to on at odd ones): how many, up to max; fewer when one is still
 * being written. *total: how many the process has made.
 */
HIDDEN uint32_t tp_tracing_log(uint32_t from, uint64_t *out, uint32_t max, uint64_t *total);
/*
 * In a fork child: a switch another thread claimed and had not stamped yet (that thread is
 * not in the child) gets the clock now, lest the log stop there for good.
 */
HIDDEN void tp_tracing_after_fork(void);
/* TPOINT_TRACING_ON=0: the process starts with tracing off (read at start-up). */
HIDDEN void tp_tracing_from_env(void);

#endif
