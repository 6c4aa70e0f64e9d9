/* SPDX-License-Identifier: MIT */
/*
 * lib/trigger_linked_run.c: the hit of the process's linked hist triggers (trigger_linked.h),
 * below trigger_run.c, which calls it: the set they live in, the thread records' contexts of
 * it, and the synthetic records its actions make.
 */
#ifndef TPOINT_TRIGGER_LINKED_RUN_H
#define TPOINT_TRIGGER_LINKED_RUN_H

#include <stdint.h>
#include "hidden.h"
#include "hist_set.h"
#include "trigger_types.h"

/*
 * Thread records that can hit linked triggers; the hits of any more are not counted. A
 * context costs its tables only once a thread record has bound it (hist_set.c).
 */
#define LINKED_CONTEXTS 1024

/* A thread record's context of a set, bound at its first hit and kept. */
struct ctx_bind {
	const struct thread_rec *owner; /* atomic: claimed from NULL by compare-and-swap */
	struct hist_ctx *ctx;
	char comm[HIST_COMM_LEN];       /* the first thread's name (.execname) */
};

struct trig_linked {
	uint64_t id;                    /* unique for ever: the thread records' caches compare it */
	struct hist_set *set;
	unsigned nfields;
	struct filter_field *fields[HIST_SET_EVENTS_MAX]; /* the events' fields, the set's */
	uint64_t no_ctx;                /* atomic: hits of thread records beyond LINKED_CONTEXTS */
	/* Each synthetic event's descriptor (synth_events.h: never freed), by the set's index */
	struct tpoint_event *synth_ev[HIST_SET_EVENTS_MAX];
	struct ctx_bind bind[LINKED_CONTEXTS];
	/* Under the registry lock (trigger_linked.c): each trigger's item (its uid), by the
	 * set's index; the set it was rebuilt from and the one rebuilt from it, while they
	 * are not freed. */
	uint64_t uid[HIST_SET_TRIGGERS_MAX];
	struct trig_linked *pred, *succ;
};

/*
 * The hit of an event's TRIGGER_LINKED entry, on the hitting thread (trigger_linked_run.c):
 * TRIGGER_FIRE_SYNTH when it left synthetic records to write after its own, else 0.
 */
HIDDEN unsigned tp_trigger_linked_run(const struct trigger *tr, struct thread_rec *rec,
				      const void *entry, uint32_t size);
/*
 * The set's callback (tp_hist_set_on_synth(), arg the trig_linked, user the thread record):
 * the record of a synthetic event that records now is queued on the thread
 * (synth_pending.h), its common_type made the event's id.
 */
HIDDEN void tp_trigger_linked_synth_made(void *arg, void *user, int event, const void *rec,
					 uint32_t size);

#endif
