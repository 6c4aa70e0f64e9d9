/* SPDX-License-Identifier: MIT */
/*
 * lib/patterns.c: which events are selected, by the patterns of tpoint_enable(),
 * tpoint_disable() and TPOINT_EVENTS, and by an attached client's globs. Under the registry
 * lock, except the functions that take it.
 */
#ifndef TPOINT_PATTERNS_H
#define TPOINT_PATTERNS_H

#include <stdbool.h>
#include "hidden.h"
#include "registry.h"

HIDDEN int tp_registry_enable_patterns(const char *patterns, bool on, bool from_env);
/*
 * The events an attached client (tpoint record -p, tpoint stream) records besides the
 * process's own: comma-separated globs, or NULL for none. Kept apart from the patterns, so
 * that what the process enables or disables meanwhile stays when the client goes. Returns
 * the number of events the globs match, or -EINVAL.
 */
HIDDEN int tp_registry_set_client(const char *globs);
/* Patterns of TPOINT_EVENTS that matched no event, for the message at the end. */
HIDDEN void tp_registry_report_unmatched(void);
/* TPOINT_RECORD wrote `file` with no event enabled: say so, once, and why (tp_notice()). */
HIDDEN void tp_registry_say_nothing_enabled(const char *file);
HIDDEN void tp_registry_client_after_fork(void);

HIDDEN void tp_registry_slot_apply_patterns(struct event_slot *s);
HIDDEN bool tp_registry_slot_client_matches(const struct event_slot *s);

#endif
