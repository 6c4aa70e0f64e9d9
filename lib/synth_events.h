/* SPDX-License-Identifier: MIT */
/*
 * lib/synth_events.c: the process's synthetic events as ordinary events of system
 * "synthetic" (the kernel's SYNTH_SYSTEM): each definition gets a block (synth_format.h)
 * whose one-event module is registered as an object's would be, so that it has an id and a
 * slot, is listed, enabled, filtered, counted and recorded, and its format goes into the
 * trace.dat. A name's block is kept for the process's life: its descriptor is what the hits
 * of its set point at (trigger_linked.c), and what its slot names when it is defined again.
 */
#ifndef TPOINT_SYNTH_EVENTS_H
#define TPOINT_SYNTH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <tpoint/event.h>
#include "hidden.h"
#include "hist_set.h"

/*
 * Under the registry lock: the block of the definition made (or found: the same name with
 * the same fields), not yet wanted. 0, or -EEXIST/-ENOMEM with err saying why (the name was
 * defined before with other fields: its id keeps that record's layout).
 */
HIDDEN int tp_synth_event_prepare(const struct hist_synth *syn, char *err, size_t errlen);
/* Under the lock: the named event is defined (registered at the next sync), or no longer. */
HIDDEN void tp_synth_event_want(const char *name, bool want);
/* Under the lock: the descriptor of a prepared name, or NULL. */
HIDDEN struct tpoint_event *tp_synth_event_of(const char *name);

/*
 * With no library lock held: the modules of the wanted events registered, the others'
 * unregistered (registration takes the registry lock, and runs the layers' callbacks), with
 * the calls that entry.c gives (tpoint_module_register()/unregister()).
 */
HIDDEN void tp_synth_events_sync(void);
/*
 * In a fork child (after the registry's lock is new): a block another thread was
 * (un)registering is no longer busy, for the next sync to do again (both calls are
 * idempotent: the registry skips an event registered, or not, already).
 */
HIDDEN void tp_synth_events_after_fork(void);
HIDDEN void tp_synth_events_set_calls(void (*reg)(const struct tpoint_module *),
				      void (*unreg)(const struct tpoint_module *));

#endif
