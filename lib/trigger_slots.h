/* SPDX-License-Identifier: MIT */
/*
 * lib/trigger_slots.c: what trigger.c, trigger_linked.c and trigger_named.c all need of an
 * event's slot, below the three: the slot by name, a trigger's identity, a slot's set
 * copied and published (the old one retired), its linked entry replaced, trigger ids.
 */
#ifndef TPOINT_TRIGGER_SLOTS_H
#define TPOINT_TRIGGER_SLOTS_H

#include <stdint.h>
#include "hidden.h"
#include "registry.h"
#include "trigger_types.h"

/* A trigger id never given before (trigger_slots.c): the threads' caches compare them. */
HIDDEN uint64_t tp_trigger_new_id(void);
/* Under the lock (trigger_slots.c): a trigger freed (tp_registry_retire()'s free_fn). */
HIDDEN void tp_trigger_free(void *p);
/* The slot's new set (NULL: none) published and applied; the old set goes after grace. */
HIDDEN void tp_trigger_publish(struct event_slot *s, struct trigger_set *ts);
/* A copy of `old` (NULL: an empty set) with room for `extra` more; NULL without memory. */
HIDDEN struct trigger_set *tp_trigger_set_copy(const struct trigger_set *old, unsigned extra);
/* Under the lock: the slot that `event` names best ("sys:name" over "name"), or NULL. */
HIDDEN struct event_slot *tp_trigger_slot_named(const char *event);
/* A hist trigger's identity: its info text however it is paused (malloc'ed), or NULL. */
HIDDEN char *tp_trigger_info_of(const struct hist_spec *spec);
/*
 * Under the lock: the slot's TRIGGER_LINKED entry replaced by `entry` (NULL: none), its
 * triggers published; the old entry freed after grace. 0, or -ENOMEM (entry not taken).
 */
HIDDEN int tp_trigger_slot_relink(struct event_slot *s, struct trigger *entry);

#endif
