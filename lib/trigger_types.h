/* SPDX-License-Identifier: MIT */
/*
 * What an event's triggers are (lib/trigger.c sets them, lib/trigger_run.c runs them, the
 * writer and the event filter hand hits to them): a trigger, an event's set of them, the
 * gate that sends an event's hits to its set, and the fire bits a hit gives the writer.
 * Types only, so that all of those stand apart from each other.
 */
#ifndef TPOINT_TRIGGER_TYPES_H
#define TPOINT_TRIGGER_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include "filter_eval.h"
#include "hist.h"

struct thread_rec;
struct trig_linked;

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

static inline bool tp_trigger_soft(const struct trigger_set *ts)
{
	return __atomic_load_n(ts->soft_at, __ATOMIC_RELAXED);
}

#endif
