/* SPDX-License-Identifier: MIT */
/*
 * lib/trigger.c: the kernel's event triggers on a program's events (TPOINT_TRIGGER,
 * tpoint_set_trigger(), `tpoint trigger -p`): `hist:` and the commands (stacktrace,
 * snapshot, traceon, traceoff, enable_event, disable_event). Hist triggers that link
 * (variables, onmatch(), synthetic events) live in the process's hist set
 * (trigger_linked.h); name= triggers share a histogram (trigger_named.c); what all of them
 * publish per slot is in trigger_slots.c. An event with triggers goes
 * through the library's filtered path (TPOINT_ENABLED_FILTER), which runs them on the
 * filled record before the event's own filter judges it, as the kernel's
 * event_triggers_call() runs before its discard test.
 */
#ifndef TPOINT_TRIGGER_H
#define TPOINT_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hidden.h"
#include "registry.h"
#include "trigger_types.h"

/*
 * Add (or, with '!', remove; or, with :pause/:cont/:clear, change) a trigger of the event
 * "system:name" or "name". 0, or -errno with err saying why in the kernel's words.
 */
HIDDEN int tp_trigger_set_text(const char *event, const char *text, char *err, size_t errlen);
/* TPOINT_TRIGGER: the same for an event that may register later (checked as it does). */
HIDDEN void tp_trigger_env_parse(const char *value);
/* A slot just registered (under the lock): the triggers TPOINT_TRIGGER wants for it. */
HIDDEN void tp_trigger_slot_added(struct event_slot *s);
/* At exit: the TPOINT_TRIGGER items whose event never registered. */
HIDDEN void tp_trigger_env_report(void);
/* The slot's object goes (dlclose): its triggers go, after the grace period. */
HIDDEN void tp_trigger_slot_drop(struct event_slot *s);

/*
 * The histograms of the events `globs` selects (NULL: all), merged over threads: as the
 * kernel's hist file prints an event's (one event), each after a "==> system:name <=="
 * line (several), or one JSON object each. The number of histograms printed, or -errno.
 */
HIDDEN int tp_trigger_hist_print(FILE *out, const char *globs, bool json);
/* At the end of a module's registration: TPOINT_TRIGGER items that failed, tried again. */
HIDDEN void tp_trigger_module_added(void);

/* The triggers of a slot, as the kernel's trigger file lists them; "" if none. */
HIDDEN void tp_trigger_slot_describe(const struct event_slot *s, FILE *out);

#endif
