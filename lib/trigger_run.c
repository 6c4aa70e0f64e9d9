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
#include "trigger_linked.h"
#include "writer.h"

struct trigger_set *tp_trigger_sets[TPOINT_MAX_EVENTS];

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

/* A command fires if its filter says yes and it has firings left (:N counts down). */
static bool command_fires(struct trigger *tr, const void *entry, uint32_t size)
{
	int64_t left = __atomic_load_n(&tr->count, __ATOMIC_RELAXED);

	if (tr->filter && !filter_match(tr->filter, entry, size))
		return false;
	while (left > 0 && !__atomic_compare_exchange_n(&tr->count, &left, left - 1, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (!left)
		return false;
	__atomic_fetch_add(&tr->fired, 1, __ATOMIC_RELAXED);
	return true;
}

unsigned tp_trigger_run(const struct trigger_set *ts, struct thread_rec *rec, const void *entry,
			uint32_t size)
{
	unsigned fire = 0;

	for (unsigned i = 0; i < ts->n; i++) {
		struct trigger *tr = ts->t[i];
		struct hist_node *n;
		uint64_t gen;

		if (tr->kind == TRIGGER_LINKED) {
			tp_trigger_linked_run(tr, rec, entry, size);
			continue;
		}
		if (tr->kind == TRIGGER_STACKTRACE) {
			if (command_fires(tr, entry, size))
				fire |= TRIGGER_FIRE_STACK;
			continue;
		}
		if (tr->kind == TRIGGER_NAMED) { /* name=: its own filter, the shared tables */
			if (tr->spec->filter && !filter_match(tr->spec->filter, entry, size))
				continue;
			tr = tr->shared;
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

bool tp_trigger_slot_update(const struct event_slot *s, bool records)
{
	struct trigger_set *ts = s->ev ? tp_trigger_set_of(s->ev->index) : NULL;

	if (!ts)
		return false;
	__atomic_store_n(&ts->soft, !records, __ATOMIC_RELAXED);
	return true;
}
