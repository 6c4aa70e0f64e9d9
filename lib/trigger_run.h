/* SPDX-License-Identifier: MIT */
/*
 * lib/trigger_run.c: the hit of an event's triggers, on the hitting thread (what the writer
 * calls), and the per-event state the hits read: each event's set of triggers, its soft
 * mode, whether its records are wanted.
 */
#ifndef TPOINT_TRIGGER_RUN_H
#define TPOINT_TRIGGER_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "event_limits.h"
#include "hidden.h"
#include "trigger_types.h"

/*
 * Set by lib/snapshot_trigger.c before any snapshot trigger is: a place in its writer's queue
 * for a snapshot about to fire (false: none free), and the place given back (no firing left).
 * Async-signal-safe. Pointers, as the writer stands above this file.
 */
extern HIDDEN bool (*tp_snapshot_reserve_hook)(void);
extern HIDDEN void (*tp_snapshot_unreserve_hook)(void);

/*
 * Per event index: its triggers, or NULL; replaced as a whole, and freed after the filters'
 * grace period (a hit loads it with its nesting level claimed and is done with it before
 * it lets the level go).
 */
extern HIDDEN struct trigger_set *tp_trigger_sets[TPOINT_MAX_EVENTS];

static inline struct trigger_set *tp_trigger_set_of(uint32_t index)
{
	return index < TPOINT_MAX_EVENTS
		       ? __atomic_load_n(&tp_trigger_sets[index], __ATOMIC_ACQUIRE)
		       : NULL;
}

/*
 * A hit: run the triggers on the record (`size` payload bytes from common_type, the common
 * header written) on the hitting thread (its record `rec`), whose level is claimed
 * (lib/trigger_run.c). What the commands ask of the writer after the record: TRIGGER_FIRE_*.
 * No lock, no allocation but a thread's first hit of a histogram, which maps its table.
 */
HIDDEN unsigned tp_trigger_run(const struct trigger_set *ts, struct thread_rec *rec,
			       const void *entry, uint32_t size);

/*
 * Per event index, while enable_event/disable_event triggers switch it: its records are not
 * kept (the kernel's SOFT_DISABLED). Indexes, not pointers: a trigger whose target's object
 * went (dlclose) writes a flag nobody reads.
 */
extern HIDDEN bool tp_trigger_soft_off[TPOINT_MAX_EVENTS];

/*
 * Under the registry lock, as an event's slot is applied (`index`: its event's, or
 * TPOINT_MAX_EVENTS for none): does the event have triggers? `records` says whether its
 * records are wanted; without, the triggers still run (the kernel's soft mode).
 */
HIDDEN bool tp_trigger_event_update(uint32_t index, bool records);
/* Under the lock: were the event's records wanted when its slot was last applied? */
HIDDEN bool tp_trigger_recorded(uint32_t index);

#endif
