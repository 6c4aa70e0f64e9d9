/* SPDX-License-Identifier: MIT */
/* lib/event_filter.c: the filters attached to events, by name, and their reclaim. */
#ifndef TPOINT_EVENT_FILTER_H
#define TPOINT_EVENT_FILTER_H

#include <stddef.h>
#include "hidden.h"
#include "registry.h"

/* Set (or, with "", clear) the filter of "system:name" or "name"; err says why not. */
HIDDEN int tp_registry_set_filter(const char *event, const char *expr, char *err, size_t errlen);
/* The same for "system:name" or "name", registered yet or not (TPOINT_FILTER). */
HIDDEN int tp_registry_want_filter(const char *event, const char *expr, char *err, size_t errlen);
/*
 * Does expr compile for the registered event "system:name" or "name" names? 0, -ENOENT (none
 * registered yet) or the error, with err saying why; nothing is set: the filter wanted
 * already (tp_registry_want_filter()) is the one the name's rank picks (tp_event_named()).
 */
HIDDEN int tp_registry_try_filter(const char *event, const char *expr, char *err, size_t errlen);

/* The filter wanted for the slot's event by name, if any, compiled and attached. */
HIDDEN void tp_registry_slot_apply_filter(struct event_slot *s);
/*
 * Publish what the slot's hits load: its filter, or a gate holding it and its triggers
 * (lib/trigger.h). Under the registry lock; the slot's enable bits follow.
 */
HIDDEN void tp_registry_publish_judge(struct event_slot *s);
/* The event's object goes (dlclose): its compiled filter is freed after a grace period. */
HIDDEN void tp_registry_slot_drop_filter(struct event_slot *s);
struct filter_field;
/*
 * The slot's fields as filters and histograms read them, the common ones first: *fields
 * malloc'ed, its names the slot's. 0, -ENOMEM, or -EINVAL with err set.
 */
HIDDEN int tp_registry_slot_fields(const struct event_slot *s, struct filter_field **fields,
				   size_t *nfields, char *err, size_t errlen);
/*
 * Free p with free_fn once no hit can hold it: the grace period of replaced filters, for
 * whatever a hit loads after claiming its nesting level and drops before releasing it.
 * Under the registry lock.
 */
HIDDEN void tp_registry_retire(void *p, void (*free_fn)(void *));
/* The source text of the slot's filter, or "". */
HIDDEN const char *tp_registry_slot_filter_text(const struct event_slot *s);

#endif
