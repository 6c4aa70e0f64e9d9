/* SPDX-License-Identifier: MIT */
/* lib/trigger_named.c: name= triggers, one histogram shared by several events' triggers. */
#ifndef TPOINT_TRIGGER_NAMED_H
#define TPOINT_TRIGGER_NAMED_H

#include <stddef.h>
#include "hidden.h"
#include "registry.h"
#include "trigger_types.h"

/*
 * Under the lock (trigger_named.c): a name= trigger's member for the slot's event, which takes
 * `spec` and `info`, sharing the histogram of that name (made if new); NULL with err in the
 * kernel's words if the name's histogram has other keys or values.
 */
HIDDEN struct trigger *tp_trigger_named_new(struct event_slot *s, const char *text,
					    struct hist_spec *spec, char *info, char *err,
					    size_t errlen);
/* A member leaves (its event's set no longer lists it): the last one's histogram goes. */
HIDDEN void tp_trigger_named_release(struct trigger *member);

#endif
