/* SPDX-License-Identifier: MIT */
/*
 * lib/trigger_linked.c: the hist triggers that link to each other in a process — variables
 * (`ts0=common_timestamp.usecs`), references (`$ts0`), onmatch() actions, triggers on
 * synthetic events — and the synthetic events themselves (the kernel's `synthetic_events`
 * file: `tpoint_set_trigger("synthetic_events", "lat u64 lat; char cmd[16]")`).
 *
 * They all live in one process-wide hist set (hist_set.h), rebuilt under the registry lock
 * whenever one is added or removed (each trigger of the new set that is one of the old
 * goes on from it: its variables are the old one's store, and what the old one counted is
 * printed with it, then added into it once the old set is freed), and published as a
 * whole: each event with
 * linked triggers gets one TRIGGER_LINKED entry in its trigger set (trigger.h), which hits
 * the current set; the old set is freed after the filters' grace period. Each thread record
 * binds one context of the set at its first hit, and keeps it (its next thread goes on
 * with it, as with the simple triggers' tables). Triggers without links stay on the simple
 * path (trigger_run.c), which this module does not touch.
 */
#ifndef TPOINT_TRIGGER_LINKED_H
#define TPOINT_TRIGGER_LINKED_H

#include "hist_set.h"
#include "registry.h"
#include "trigger_linked_run.h"

/* The event name that takes synthetic event definitions, as the kernel's tracefs file. */
#define LINKED_SYNTH_FILE "synthetic_events"

/* Does the trigger need the hist set: variables, references, actions? */
HIDDEN bool tp_trigger_spec_links(const struct hist_spec *spec);

/*
 * Under the registry lock. A linked trigger for the slot's event (`s` NULL for a synthetic
 * event, `event` "synthetic:NAME"), set, removed ('!'), paused, continued or cleared (the
 * kernel's words; :clear rebuilds the set, where that trigger alone starts over).
 * 0, or -errno with err saying why.
 */
HIDDEN int tp_trigger_linked_set(struct event_slot *s, const char *event, const char *text,
				 char *err, size_t errlen);
/* Under the lock: a definition as the kernel's synthetic_events takes it, or "!NAME". */
HIDDEN int tp_trigger_synthetic_set(const char *text, char *err, size_t errlen);
/* Is `event` ("synthetic:NAME" or "NAME") a synthetic event defined now? */
HIDDEN bool tp_trigger_synthetic_named(const char *event);

/* Under the lock: the slot's object goes; linked triggers on its event go with it. */
HIDDEN void tp_trigger_linked_slot_drop(struct event_slot *s);

/*
 * Under the lock: print the linked histograms of the event the entry hits (`*nth` counts the
 * histograms printed for that event). How many, or -errno.
 */
HIDDEN int tp_trigger_linked_print(FILE *out, const struct trigger *tr, unsigned *nth,
				   bool json);
/* The synthetic events with histograms that `globs` selects (NULL: all), counted. */
HIDDEN unsigned tp_trigger_synth_hist_count(const char *globs);
/* Print them, each after "==> synthetic:NAME <==" if `headers`; the number printed or -errno. */
HIDDEN int tp_trigger_synth_hist_print(FILE *out, const char *globs, bool json, bool headers,
				       bool first);
/* The linked triggers of the entry's event, a line each, as the kernel's trigger file. */
HIDDEN void tp_trigger_linked_describe(const struct trigger *tr, FILE *out);
/* Under the lock: the set's triggers of the synthetic event of slot `s` (synth_events.c). */
HIDDEN void tp_trigger_synth_describe(const struct event_slot *s, FILE *out);

#endif
