/* SPDX-License-Identifier: MIT */
/*
 * The hit's side of the triggers (see trigger.h): run an event's triggers on the thread that
 * hits it. Below the registry and the writer, which call it; trigger.c sets and reads them.
 *
 * A histogram is a set of tables, one per thread record (struct thread_rec, reused by the
 * threads that come after one exits), each updated by its thread alone with no lock
 * (lib/hist_table.c), and merged when read. A thread finds its table through a small cache
 * in its record, keyed by the trigger's id (never reused, so a cache entry of a removed
 * trigger can never match a new one); on a miss it walks the trigger's list of tables for
 * the one its record owned before, or maps a new one (one anonymous mapping, as a handler
 * may hit first) and pushes it on the list with a compare-and-swap. `:clear` bumps the
 * trigger's generation: each thread clears its own table at its next hit, and readers skip
 * tables not cleared yet.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include "clock.h"
#include "hist.h"
#include "thread_rec.h"
#include "tracing_on.h"
#include "trigger_linked_run.h"
#include "trigger_run.h"

struct trigger_set *tp_trigger_sets[TPOINT_MAX_EVENTS];
bool (*tp_snapshot_reserve_hook)(void);
void (*tp_snapshot_unreserve_hook)(void);
bool tp_trigger_soft_off[TPOINT_MAX_EVENTS];
/* Whether each event's records were wanted when its slot was last applied. */
static bool recorded[TPOINT_MAX_EVENTS];

static struct hist_node *node_new(struct trigger *tr, const struct thread_rec *rec)
{
	struct hist_node *n;
	void *extra;
	struct hist_table *t = tp_hist_table_new_with(tr->spec, sizeof(*n), &extra);

	if (!t)
		return NULL;
	n = extra;
	n->owner = rec;
	n->table = t;
	n->gen = __atomic_load_n(&tr->gen, __ATOMIC_RELAXED);
	if (prctl(PR_GET_NAME, n->comm) < 0)
		strcpy(n->comm, "<...>");
	n->comm[HIST_COMM_LEN - 1] = 0;
	n->next = __atomic_load_n(&tr->nodes, __ATOMIC_RELAXED);
	/* Release: the node is whole before a reader can find it. */
	while (!__atomic_compare_exchange_n(&tr->nodes, &n->next, n, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return n;
}

static struct hist_node *node_of(struct trigger *tr, struct thread_rec *rec)
{
	struct trig_cache *c = &rec->trig_cache[tr->id % TRIG_CACHE_WAYS];
	struct hist_node *n;

	if (__builtin_expect(c->id == tr->id, 1))
		return c->node;
	for (n = __atomic_load_n(&tr->nodes, __ATOMIC_ACQUIRE); n; n = n->next)
		if (n->owner == rec)
			break;
	if (!n)
		n = node_new(tr, rec);
	if (n) {
		c->id = tr->id;
		c->node = n;
	}
	return n;
}

/* A firing left, taken (:N counts down, -1 is unlimited). */
static bool take_firing(struct trigger *tr)
{
	int64_t left = __atomic_load_n(&tr->count, __ATOMIC_RELAXED);

	while (left > 0 && !__atomic_compare_exchange_n(&tr->count, &left, left - 1, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return left != 0;
}

/* A firing taken and counted as fired. */
static bool count_down(struct trigger *tr)
{
	if (!take_firing(tr))
		return false;
	__atomic_fetch_add(&tr->fired, 1, __ATOMIC_RELAXED);
	return true;
}

/* A command fires if its filter says yes and it has firings left. */
static bool command_fires(struct trigger *tr, const void *entry, uint32_t size)
{
	return (!tr->filter || filter_match(tr->filter, entry, size)) && count_down(tr);
}

/*
 * A snapshot fires only with a place in the writer's queue: one that finds none is no firing
 * (its count kept, so :N makes N files), and the writer counts it as not written.
 */
static bool snapshot_fires(struct trigger *tr, const void *entry, uint32_t size)
{
	bool (*reserve)(void) = __atomic_load_n(&tp_snapshot_reserve_hook, __ATOMIC_ACQUIRE);

	if ((tr->filter && !filter_match(tr->filter, entry, size)) || !reserve || !reserve())
		return false;
	if (count_down(tr))
		return true;
	tp_snapshot_unreserve_hook();
	return false;
}

/*
 * A command that switches a state (traceon, traceoff, enable_event, disable_event) fires if
 * the state is not already the one it wants, its filter says yes and it has firings left: a
 * count is used only by a change, as the kernel's traceon_count_trigger() and
 * event_enable_count_trigger(). A change another thread made first gives the count back.
 */
static bool switch_wanted(struct trigger *tr, const void *entry, uint32_t size, bool already)
{
	if (already || (tr->filter && !filter_match(tr->filter, entry, size)))
		return false;
	return take_firing(tr); /* `fired` counts changes: switch_done() */
}

static void switch_done(struct trigger *tr, bool changed)
{
	if (changed)
		__atomic_fetch_add(&tr->fired, 1, __ATOMIC_RELAXED);
	else if (__atomic_load_n(&tr->count, __ATOMIC_RELAXED) >= 0)
		__atomic_fetch_add(&tr->count, 1, __ATOMIC_RELAXED);
}

/* enable_event/disable_event: flip the target's flag (the kernel's SOFT_DISABLED). */
static void switch_event(struct trigger *tr, const void *entry, uint32_t size, bool off)
{
	bool *flag = &tp_trigger_soft_off[tr->target];

	if (switch_wanted(tr, entry, size, __atomic_load_n(flag, __ATOMIC_RELAXED) == off))
		switch_done(tr, __atomic_exchange_n(flag, off, __ATOMIC_RELAXED) != off);
}

/* A command that switches a state; what it asks of the writer (TRIGGER_FIRE_*). */
static __attribute__((noinline)) unsigned run_switch(struct trigger *tr, const void *entry,
						     uint32_t size)
{
	switch (tr->kind) {
	case TRIGGER_TRACEON: /* on before the record's time stamp: it is in the file */
		if (switch_wanted(tr, entry, size, tp_tracing_is_on())) {
			bool changed = tp_tracing_switch(true, tpoint_arch_clock());

			switch_done(tr, changed);
			return changed ? TRIGGER_FIRE_TRACEON : 0;
		}
		return 0;
	case TRIGGER_TRACEOFF: /* off now, stamped after the record: trigger_commit() */
		if (switch_wanted(tr, entry, size, !tp_tracing_is_on())) {
			uint32_t slot = tp_tracing_claim(false);

			switch_done(tr, slot != 0);
			return slot << TRIGGER_FIRE_TRACEOFF_SHIFT;
		}
		return 0;
	case TRIGGER_ENABLE_EVENT:
	case TRIGGER_DISABLE_EVENT:
		switch_event(tr, entry, size, tr->kind == TRIGGER_DISABLE_EVENT);
		return 0;
	default:
		return 0;
	}
}

/* A trigger other than a histogram's own: what it asks of the writer (TRIGGER_FIRE_*). */
static __attribute__((noinline)) unsigned run_other(struct trigger *tr, struct thread_rec *rec,
						    const void *entry, uint32_t size)
{
	switch (tr->kind) {
	case TRIGGER_LINKED:
		return tp_trigger_linked_run(tr, rec, entry, size);
	case TRIGGER_STACKTRACE:
		return command_fires(tr, entry, size) ? TRIGGER_FIRE_STACK : 0;
	case TRIGGER_SNAPSHOT:
		return snapshot_fires(tr, entry, size) ? TRIGGER_FIRE_SNAPSHOT : 0;
	default: /* traceon, traceoff, enable_event, disable_event */
		return run_switch(tr, entry, size);
	}
}

/*
 * The histograms first and inline, the common case: everything else out of line, so that
 * a hit of one histogram saves no more registers than it needs.
 */
unsigned tp_trigger_run(const struct trigger_set *ts, struct thread_rec *rec, const void *entry,
			uint32_t size)
{
	unsigned fire = 0;

	for (unsigned i = 0; i < ts->n; i++) {
		struct trigger *tr = ts->t[i];
		struct hist_node *n;
		uint64_t gen;

		if (tr->kind == TRIGGER_NAMED) { /* name=: its own filter, the shared tables */
			if (tr->spec->filter && !filter_match(tr->spec->filter, entry, size))
				continue;
			tr = tr->shared;
		} else if (tr->kind != TRIGGER_HIST) {
			fire |= run_other(tr, rec, entry, size);
			continue;
		}
		if (__atomic_load_n(&tr->paused, __ATOMIC_RELAXED))
			continue;
		n = node_of(tr, rec);
		if (!n) {
			__atomic_fetch_add(&tr->no_table, 1, __ATOMIC_RELAXED);
			continue;
		}
		gen = __atomic_load_n(&tr->gen, __ATOMIC_ACQUIRE);
		if (n->gen != gen) { /* a :clear since this thread's last hit */
			tp_hist_table_clear(n->table);
			__atomic_store_n(&n->gen, gen, __ATOMIC_RELEASE);
		}
		struct hist_hit h = { .rec = entry, .size = size, .comm = n->comm };

		if (tr->spec->cpu)
			h.cpu = (uint32_t)sched_getcpu();
		if (tr->spec->timestamps)
			h.ts_ns = tp_mono_now();
		tp_hist_hit(n->table, &h);
	}
	return fire;
}

bool tp_trigger_event_update(uint32_t i, bool records)
{
	struct trigger_set *ts = tp_trigger_set_of(i);

	if (i < TPOINT_MAX_EVENTS && recorded[i] != records) {
		recorded[i] = records;
		/* Switched on or off for itself, as the kernel's enable clears SOFT_DISABLED. */
		if (ts && ts->switched)
			__atomic_store_n(&tp_trigger_soft_off[i], !records, __ATOMIC_RELAXED);
	}
	if (!ts)
		return false;
	__atomic_store_n(&ts->soft, !records, __ATOMIC_RELAXED);
	return true;
}

bool tp_trigger_recorded(uint32_t index)
{
	return index < TPOINT_MAX_EVENTS && recorded[index];
}
