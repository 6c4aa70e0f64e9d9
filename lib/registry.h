/* SPDX-License-Identifier: MIT */
/*
 * The registry's own files share these: registry.c (the slots, the lock, modules, enable
 * words), patterns.c, event_filter.c, probes.c and control_text.c. The rest of the library
 * uses the registry through internal.h ("registry"). All of it under the registry lock
 * (registry.c says what the lock guards).
 */
#ifndef TPOINT_REGISTRY_H
#define TPOINT_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include "internal.h"

/* ---- registry.c ---- */
/* Every event ever registered, by index, the first tp_nslots; written under the lock. */
extern HIDDEN struct event_slot tp_slots[];
extern HIDDEN uint32_t tp_nslots;
/* A TRACE_EVENT_FN event waits for its reg() or unreg() (tp_registry_run_fn_calls()). */
extern HIDDEN bool tp_fn_calls_pending;
/* The one writer of an event's enable word. */
HIDDEN void tp_registry_set_enable_word(struct tpoint_event *ev, uint32_t word);
/* The enable word from what the slot wants: selected, recorded, probed. */
HIDDEN void tp_registry_slot_apply(struct event_slot *s);
/*
 * What registration left for later: the condition's copy, the format, the print check.
 * Called by whatever needs them (enabling, listing, recording, a control request).
 */
HIDDEN void tp_registry_slot_prepare(struct event_slot *s);

/* ---- patterns.c ---- */
HIDDEN void tp_registry_slot_apply_patterns(struct event_slot *s);
HIDDEN bool tp_registry_slot_client_matches(const struct event_slot *s);

/* ---- event_filter.c ---- */
/* The filter wanted for the slot's event by name, if any, compiled and attached. */
HIDDEN void tp_registry_slot_apply_filter(struct event_slot *s);
/* The event's object goes (dlclose): its compiled filter is freed after a grace period. */
HIDDEN void tp_registry_slot_drop_filter(struct event_slot *s);
/* The source text of the slot's filter, or "". */
HIDDEN const char *tp_registry_slot_filter_text(const struct event_slot *s);

#endif
