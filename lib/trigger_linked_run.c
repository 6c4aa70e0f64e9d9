/* SPDX-License-Identifier: MIT */
/*
 * The hit of the process's linked hist triggers (see trigger_linked.h), below trigger_run.c
 * which calls it: the hitting thread's record finds its context of the current set through
 * its trigger cache (keyed by the set's id, never reused), or binds a free one at its first
 * hit; the clock and the CPU are read only when the event's triggers want them.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include "clock.h"
#include "event_limits.h"
#include "synth_pending.h"
#include "thread_rec.h"
#include "trigger_linked_run.h"

static struct ctx_bind *bind_of(struct trig_linked *lk, const struct thread_rec *rec)
{
	for (unsigned i = 0; i < LINKED_CONTEXTS; i++) {
		const struct thread_rec *owner = __atomic_load_n(&lk->bind[i].owner,
								 __ATOMIC_RELAXED);

		if (owner == rec) /* this record bound it: only its threads write it */
			return &lk->bind[i];
		if (!owner && __atomic_compare_exchange_n(&lk->bind[i].owner, &owner, rec, false,
							  __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			struct ctx_bind *b = &lk->bind[i];

			/* As many contexts as binds: the set has one for each. */
			b->ctx = tp_hist_set_context(lk->set);
			if (prctl(PR_GET_NAME, b->comm) < 0)
				strcpy(b->comm, "<...>");
			b->comm[HIST_COMM_LEN - 1] = 0;
			return b;
		}
	}
	return NULL;
}

void tp_trigger_linked_synth_made(void *arg, void *user, int event, const void *rec,
				  uint32_t size)
{
	struct tpoint_event *ev = ((struct trig_linked *)arg)->synth_ev[event];
	struct thread_rec *thread = user;

	if (!ev || !thread || !(tpoint_enabled_peek(ev) & TPOINT_ENABLED_RECORD))
		return; /* not recorded now: only the set's triggers see it */
	/* No room in the queue: lost, in this thread's own counters (the writer is above). */
	if (!tp_synth_pending_add(&thread->synth_pending, ev, rec, size) && thread->counters &&
	    ev->index < TPOINT_MAX_EVENTS)
		tpoint_count_one(&thread->counters[ev->index].lost);
}

unsigned tp_trigger_linked_run(const struct trigger *tr, struct thread_rec *rec,
			       const void *entry, uint32_t size)
{
	struct trig_linked *lk = tr->linked;
	struct trig_cache *c = &rec->trig_cache[lk->id % TRIG_CACHE_WAYS];
	struct ctx_bind *b;

	if (__builtin_expect(c->id == lk->id, 1)) {
		b = c->node;
	} else {
		b = bind_of(lk, rec);
		if (!b || !b->ctx) {
			__atomic_fetch_add(&lk->no_ctx, 1, __ATOMIC_RELAXED);
			return 0;
		}
		c->id = lk->id;
		c->node = b;
	}
	struct hist_set_hit h = { .rec = entry, .size = size, .comm = b->comm, .user = rec };

	if (tr->linked_cpu)
		h.cpu = (uint32_t)sched_getcpu();
	if (tr->linked_time)
		h.ts_ns = tp_mono_now();
	tp_hist_set_hit(lk->set, b->ctx, tr->linked_ev, &h);
	return rec->synth_pending && rec->synth_pending->n != rec->synth_pending->head
		       ? TRIGGER_FIRE_SYNTH
		       : 0;
}
