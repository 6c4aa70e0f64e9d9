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
#include "filter.h"
#include "hidden.h"
#include "hist.h"
#include "registry.h"

struct thread_rec;

/* One thread record's table of one histogram. */
struct hist_node {
	struct hist_node *next;
	const struct thread_rec *owner;
	uint64_t gen; /* the trigger's clear generation this table was last cleared at */
	struct hist_table *table;
	char comm[HIST_COMM_LEN]; /* the owner's name when the table was made (.execname) */
};

/*
 * The commands after TRIGGER_HIST, in the order of trigger.c's table of them; then
 * TRIGGER_LINKED: an event's hist triggers that link to others (trigger_linked.h), as one;
 * TRIGGER_NAMED: a name= trigger: its own filter, the shared histogram's tables
 * (trigger_named.c).
 */
enum trigger_kind {
	TRIGGER_HIST,
	TRIGGER_STACKTRACE,
	TRIGGER_SNAPSHOT,
	TRIGGER_TRACEON,
	TRIGGER_TRACEOFF,
	TRIGGER_ENABLE_EVENT,
	TRIGGER_DISABLE_EVENT,
	TRIGGER_LINKED,
	TRIGGER_NAMED,
};

/* What a hit's triggers ask of the writer once the record is published or dropped. */
#define TRIGGER_FIRE_STACK 1u    /* record the calling thread's user stack after the event */
#define TRIGGER_FIRE_SNAPSHOT 2u /* write what the buffers hold to a new file */
#define TRIGGER_FIRE_SYNTH 4u    /* write the synthetic records the hit made (synth_pending.h) */
/*
 * Set by lib/snapshot_trigger.c before any snapshot trigger is: a place in its writer's queue
 * for a snapshot about to fire (false: none free), and the place given back (no firing left).
 * Async-signal-safe. Pointers, as the writer stands above this file.
 */
extern HIDDEN bool (*tp_snapshot_reserve_hook)(void);
extern HIDDEN void (*tp_snapshot_unreserve_hook)(void);
#define TRIGGER_FIRE_TRACEON 8u /* tracing_on switched on by this hit: its record is kept */
/* tracing_on switched off: its log slot + 1 (tracing_on.h), for the writer to stamp once
 * the record has its time stamp (so the record that fired it is in the file). */
#define TRIGGER_FIRE_TRACEOFF_SHIFT 16

struct trigger {
	uint64_t id;              /* unique for ever: the threads' caches compare it */
	enum trigger_kind kind;
	int64_t count;            /* atomic: firings left (:N), or -1 for unlimited */
	uint64_t fired;           /* atomic: how often it fired */
	struct filter *filter;    /* a command's `if FILTER` (hist: the spec has its own) */
	struct hist_spec *spec;   /* hist: its own, filter included; NULL for a command */
	/* enable_event/disable_event: the event it switches, by counters' index and name */
	uint32_t target;
	char *target_name;        /* "system:event" */
	char *info;               /* the trigger info text, without [active]: its identity */
	bool paused;              /* atomic: :pause / :cont */
	uint64_t gen;             /* atomic: :clear bumps it */
	uint64_t no_table;        /* atomic: hits dropped because no table could be mapped */
	struct hist_node *nodes;  /* atomic push; never popped until the trigger is freed */
	struct trigger *shared;   /* TRIGGER_NAMED: the named histogram's owner (a TRIGGER_HIST) */
	/* TRIGGER_LINKED: the process's set of linked triggers, and this event's index in it */
	struct trig_linked *linked;
	int linked_ev;
	bool linked_time, linked_cpu; /* its hits must bring their time, their CPU */
};

/* An event's triggers, published as a whole. */
struct trigger_set {
	bool soft; /* atomic: the event is on for its triggers alone */
	/* Another event's enable_event/disable_event switches this one: whether its records
	 * are kept is tp_trigger_soft_off[its index], not `soft` (the kernel's soft mode). */
	bool switched;
	const bool *soft_at; /* &soft, or that flag while switched: set as it is published */
	unsigned n;
	struct trigger *t[];
};



/*
 * What the hits of an event with triggers load from ev->filter: a filter that is never
 * judged inline (fast_size UINT64_MAX sends it to the library's checked path) and has no
 * program (ops NULL, which no compiled filter has), holding the event's own filter and its
 * triggers. So an event without triggers pays nothing for them, filtered or not.
 */
struct trigger_gate {
	struct filter f;
	const struct filter *filter; /* the event's own, or NULL */
	struct trigger_set *ts;
};

static inline const struct trigger_gate *tp_trigger_gate(const struct filter *f)
{
	return f && !f->ops ? (const struct trigger_gate *)(const void *)f : NULL;
}

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
 * (lib/trigger_run.c). What the commands ask of the writer after the record: TRIGGER_FIRE_*. No lock, no allocation but
 * a thread's first hit of a histogram, which maps its table.
 */
HIDDEN unsigned tp_trigger_run(const struct trigger_set *ts, struct thread_rec *rec,
			       const void *entry, uint32_t size);

/* The event is on for its triggers alone (not recorded), or switched off by another
 * event's trigger: its records are not kept. */
/*
 * Per event index, while enable_event/disable_event triggers switch it: its records are not
 * kept (the kernel's SOFT_DISABLED). Indexes, not pointers: a trigger whose target's object
 * went (dlclose) writes a flag nobody reads.
 */
extern HIDDEN bool tp_trigger_soft_off[TPOINT_MAX_EVENTS];

static inline bool tp_trigger_soft(const struct trigger_set *ts)
{
	return __atomic_load_n(ts->soft_at, __ATOMIC_RELAXED);
}

/*
 * Under the registry lock, as an event's slot is applied (`index`: its event's, or
 * TPOINT_MAX_EVENTS for none): does the event have triggers? `records` says whether its
 * records are wanted; without, the triggers still run (the kernel's soft mode).
 */
HIDDEN bool tp_trigger_event_update(uint32_t index, bool records);
/* Under the lock: were the event's records wanted when its slot was last applied? */
HIDDEN bool tp_trigger_recorded(uint32_t index);

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
/* A trigger id never given before (trigger_slots.c): the threads' caches compare them. */
HIDDEN uint64_t tp_trigger_new_id(void);
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
/* At the end of a module's registration: TPOINT_TRIGGER items that failed, tried again. */
HIDDEN void tp_trigger_module_added(void);

/* The triggers of a slot, as the kernel's trigger file lists them; "" if none. */
HIDDEN void tp_trigger_slot_describe(const struct event_slot *s, FILE *out);

#endif
