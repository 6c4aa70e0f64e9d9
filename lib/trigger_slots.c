/* SPDX-License-Identifier: MIT */
/*
 * The slots' side of the triggers (see trigger.h), below both trigger.c (simple triggers and
 * commands) and trigger_linked.c (the process's hist set): finding an event's slot by name,
 * a trigger's identity, and publishing an event's trigger set as a whole, what it replaces
 * freed after the filters' grace period. All under the registry lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "event_filter.h"
#include "fmt/selection.h"
#include "hist.h"
#include "trigger_run.h"
#include "trigger_slots.h"

static uint64_t next_id = 1;

uint64_t tp_trigger_new_id(void)
{
	return next_id++;
}

void tp_trigger_free(void *p)
{
	struct trigger *tr = p;

	if (!tr)
		return;
	for (struct hist_node *n = tr->nodes, *next; n; n = next) {
		next = n->next;
		tp_hist_table_free(n->table); /* the node lives in the table's mapping */
	}
	tp_hist_spec_free(tr->spec);
	tp_filter_free(tr->filter);
	free(tr->target_name);
	free(tr->info);
	free(tr);
}

char *tp_trigger_info_of(const struct hist_spec *spec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tp_hist_spec_print(f, spec, false);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Publish the slot's new set (NULL: none) and apply the slot; the old set goes after grace. */
void tp_trigger_publish(struct event_slot *s, struct trigger_set *ts)
{
	if (ts) /* where a hit reads whether its record is kept (tp_trigger_soft()) */
		ts->soft_at = ts->switched ? &tp_trigger_soft_off[s->ev->index] : &ts->soft;
	struct trigger_set *old = __atomic_exchange_n(&tp_trigger_sets[s->ev->index], ts,
						      __ATOMIC_ACQ_REL);

	tp_registry_publish_judge(s); /* the gate, the enable bits, the new set's soft flag */
	tp_registry_retire(old, free);
}

struct trigger_set *tp_trigger_set_copy(const struct trigger_set *old, unsigned extra)
{
	unsigned n = old ? old->n : 0;
	struct trigger_set *ts = calloc(1, sizeof(*ts) + (n + extra) * sizeof(ts->t[0]));

	if (ts && old) {
		memcpy(ts->t, old->t, n * sizeof(ts->t[0]));
		ts->n = n;
		ts->soft = old->soft;
		ts->switched = old->switched;
	}
	return ts;
}

struct event_slot *tp_trigger_slot_named(const char *event)
{
	struct event_slot *best = NULL;
	enum event_naming how = EVENT_NOT_NAMED;

	for (uint32_t i = 0; i < tp_nslots; i++) {
		enum event_naming h;

		if (!tp_slots[i].ev)
			continue;
		h = tp_event_named(event, tp_slots[i].system, tp_slots[i].name);
		if (h > how) {
			how = h;
			best = &tp_slots[i];
		}
	}
	return best;
}

int tp_trigger_slot_relink(struct event_slot *s, struct trigger *entry)
{
	struct trigger_set *cur = tp_trigger_set_of(s->ev->index), *ts = NULL;
	struct trigger *old = NULL;
	unsigned keep = 0;

	for (unsigned i = 0; cur && i < cur->n; i++)
		if (cur->t[i]->kind == TRIGGER_LINKED)
			old = cur->t[i];
		else
			keep++;
	if (!old && !entry)
		return 0;
	/* A switched event (enable_event's target) keeps its set, empty or not. */
	if (keep || entry || (cur && cur->switched)) {
		ts = tp_trigger_set_copy(NULL, keep + !!entry);
		if (!ts)
			return -ENOMEM;
		for (unsigned i = 0; cur && i < cur->n; i++)
			if (cur->t[i]->kind != TRIGGER_LINKED)
				ts->t[ts->n++] = cur->t[i];
		if (entry)
			ts->t[ts->n++] = entry;
		ts->soft = cur ? cur->soft : false;
		ts->switched = cur ? cur->switched : false;
	}
	tp_trigger_publish(s, ts); /* retires cur */
	tp_registry_retire(old, tp_trigger_free);
	return 0;
}
