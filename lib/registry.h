/* SPDX-License-Identifier: MIT */
/*
 * lib/registry.c: every registered event's slot, by index, the registry lock and the enable
 * words. The slot table (tp_slots) is for the registry's own files, under the lock:
 * patterns.c, event_filter.c, probes.c, control_text.c, stats.c, entry.c.
 */
#ifndef TPOINT_REGISTRY_H
#define TPOINT_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tpoint/tpoint.h>
#include "event_limits.h"
#include "hidden.h"


struct event_slot {
	struct tpoint_event *ev; /* NULL while the object that defines it is unloaded */
	/*
	 * Its records and their names: in its object while it is loaded, then in the copy
	 * its object left (struct meta_copy, lib/registry.c); the records NULL and the names
	 * "?" if that copy failed.
	 */
	const struct tpoint_meta_class *class_meta;
	const struct tpoint_meta_event *meta;
	const char *system;
	const char *name;
	struct meta_copy *meta_copy;
	/* Built on first need (tp_registry_slot(), tp_registry_slot_prepare()), not at registration: */
	char *condition;         /* source text, "" if none */
	char *format;            /* tracefs format text */
	char *refused;           /* why, when broken (tpoint list -p, stat -p, the spool) */
	/* Its compiled filter (event_filter.c); what hits load, ev->filter, is this or the
	 * gate of its triggers (trigger.h), which holds it. */
	struct filter *filter;
	/* TRACE_EVENT_FN: copies of the descriptor's reg/unreg, and where they stand (fn_*). */
	int (*reg)(void);
	void (*unreg)(void);
	int fn_error;            /* what the last failed reg() returned, 0 if none */
	uint16_t id;
	/* The flags last, packed: a slot is 104 bytes (a program of 3,000 events writes 76
	 * pages of them as it starts). */
	bool prepared;           /* condition, format and the print check are done */
	bool record;             /* wanted state of TPOINT_ENABLED_RECORD */
	bool client;             /* an attached client records it too (tp_registry_set_client()) */
	bool broken;             /* print format libtraceevent cannot render: never enabled
				  * (known once prepared) */
	bool refusal_said;       /* the refusal was said on stderr, once */
	bool fn_on;              /* reg() succeeded and unreg() has not run since */
	bool fn_busy;            /* a thread runs reg() or unreg() now, without the lock */
	bool fn_failed;          /* reg() failed; not called again until the event is off */
};
/* The registry lock guards the slot table; the drain thread takes it to read formats. */
HIDDEN void tp_registry_lock(void);
/*
 * The reg()/unreg() calls of TRACE_EVENT_FN events switched since the last run. Called with
 * no library lock held, by every entry point that may switch an event (the C API, probes,
 * module (un)registration, the control thread after each request): the function may take
 * any of them.
 */
HIDDEN void tp_registry_run_fn_calls(void);
HIDDEN void tp_registry_unlock(void);
HIDDEN uint32_t tp_registry_count(void);
/* Under the lock; the slot comes prepared (its format built, its print format checked). */
HIDDEN struct event_slot *tp_registry_slot(uint32_t index);
/* Events (or, of an unknown ABI, objects) refused for the ABI they were built for; *abi the
 * last such ABI. */
HIDDEN uint32_t tp_registry_refused_by_abi(unsigned *abi);
/* "system:name" of a registered event (else its address) for a message, without the lock. */
HIDDEN const char *tp_registry_event_label(const struct tpoint_event *ev, char *buf, size_t len);
/* Recording on/off for every event whose slot says record. */
HIDDEN void tp_registry_apply_recording(bool on);
/* Is any registered event enabled (and recordable)? Then something must record it. */
HIDDEN bool tp_registry_wants_recording(void);
/* After a fork, in the child: the lock, then the client's globs (patterns.c), forgotten. */
HIDDEN void tp_registry_after_fork(void);
/*
 * An object's events into the registry (false: none, the object refused), each slot given
 * to `added` as it fills, under the lock; and out of it, each slot given to `removed` before
 * it lets go of its event (false: not registered). entry.c is the caller.
 */
HIDDEN bool tp_registry_add_module(const struct tpoint_module *mod,
				   void (*added)(struct event_slot *s));
HIDDEN bool tp_registry_remove_module(const struct tpoint_module *mod,
				      void (*removed)(struct event_slot *s));
/* The hook the registry calls, under its lock, after it changed an event's enable word. */
HIDDEN void tp_registry_on_enable_change(void (*changed)(struct tpoint_event *ev));

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

#endif
