/* SPDX-License-Identifier: MIT */
/*
 * Linked hist triggers in the process (see trigger_linked.h): the list of linked triggers
 * and synthetic event definitions, kept in the order they were set (the kernel registers
 * triggers in order: a reference names a variable set before it), the set built from that
 * list, its publication, its hits and its printing. All but the hit run under the registry
 * lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "event_filter.h"
#include "globs.h"
#include "hist_set.h"
#include "synth_events.h"
#include "trigger_linked.h"
#include "trigger_run.h"
#include "trigger_slots.h"

struct linked_item {
	char *event; /* "sys:name" as the slot names it, or "synthetic:NAME" */
	char *text;  /* the trigger as set */
	char *info;  /* its identity (tp_trigger_info_of()) */
	bool paused;
	/* What it counted since it was set or cleared: the sets' trigger of this uid goes on
	 * from the last set's (never given twice). */
	uint64_t uid;
};

static struct linked_item *items;
static unsigned nitems;
static char **synths; /* definitions, as given */
static unsigned nsynths;
static struct trig_linked *current;
/* The top bit keeps these ids apart from the simple triggers' (trigger.c counts from 1). */
static uint64_t next_set_id = 1;
static uint64_t next_uid = 1;

bool tp_trigger_spec_links(const struct hist_spec *spec)
{
	return spec->nvars || spec->nrefs || spec->nactions;
}

/* ---- building and publishing a set ---- */

/* The set's trigger that goes on from `uid`, or -1. */
static int trigger_of_uid(const struct trig_linked *lk, uint64_t uid)
{
	for (unsigned t = 0; t < tp_hist_set_triggers(lk->set); t++)
		if (lk->uid[t] == uid)
			return (int)t;
	return -1;
}

/*
 * Under the registry lock, once no hit can hold the set (or it was never published): what
 * its triggers counted goes into the next set's triggers that go on from them, which
 * printed them meanwhile by walking back to it (print_trigger()); then it leaves the chain.
 */
static void linked_free(void *p)
{
	struct trig_linked *lk = p;

	if (!lk)
		return;
	for (unsigned t = 0; lk->succ && t < tp_hist_set_triggers(lk->set); t++) {
		int st = trigger_of_uid(lk->succ, lk->uid[t]);

		if (st >= 0)
			tp_hist_set_absorb(lk->succ->set, (unsigned)st, lk->set, t);
	}
	if (lk->succ)
		lk->succ->pred = lk->pred;
	if (lk->pred)
		lk->pred->succ = lk->succ;
	tp_hist_set_free(lk->set);
	for (unsigned i = 0; i < lk->nfields; i++)
		free(lk->fields[i]);
	free(lk);
}

static bool is_synthetic(const char *event)
{
	return !strncmp(event, HIST_SYNTH_SYSTEM ":", strlen(HIST_SYNTH_SYSTEM ":"));
}

/* The set's index of a program event (added with its fields if new), or -1 with err. */
static int add_slot_event(struct trig_linked *lk, const char *event, char *err, size_t errlen)
{
	char label[2 * TPOINT_NAME_MAX + 2];
	struct event_slot *s;
	struct filter_field *fields;
	size_t n;
	int e;

	if (is_synthetic(event)) {
		e = tp_hist_set_find_event(lk->set, event);
		if (e < 0)
			snprintf(err, errlen, "no event '%s' in this process", event);
		return e;
	}
	s = tp_trigger_slot_named(event);
	if (!s) {
		snprintf(err, errlen, "no event '%s' in this process", event);
		return -1;
	}
	snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
	e = tp_hist_set_find_event(lk->set, label);
	if (e >= 0)
		return e;
	if (lk->nfields == HIST_SET_EVENTS_MAX) {
		snprintf(err, errlen, "too many events with linked triggers (%u at most)",
			 HIST_SET_EVENTS_MAX);
		return -1;
	}
	if (tp_registry_slot_fields(s, &fields, &n, err, errlen) < 0)
		return -1;
	lk->fields[lk->nfields++] = fields;
	e = tp_hist_set_event(lk->set, label, fields, n);
	if (e < 0)
		snprintf(err, errlen, "too many events with linked triggers (%u at most)",
			 HIST_SET_EVENTS_MAX);
	return e;
}

/* The events that onmatch(sys.event) names: the set must know them before the trigger. */
static void add_onmatch_events(struct trig_linked *lk, const char *text)
{
	char name[2 * TPOINT_NAME_MAX + 2], err[256];

	for (const char *p = text; (p = strstr(p, "onmatch(")) != NULL;) {
		size_t n;
		char *dot;

		p += strlen("onmatch(");
		n = strcspn(p, ")");
		if (n >= sizeof(name))
			continue;
		memcpy(name, p, n);
		name[n] = 0;
		dot = strchr(name, '.');
		if (!dot)
			continue;
		*dot = ':';
		if (tp_trigger_slot_named(name))
			add_slot_event(lk, name, err, sizeof(err)); /* else the set says it */
	}
}

/*
 * A set from definitions and triggers, in order. `skip` (or NULL): a trigger that fails is
 * left out and marked there, rather than failing the whole (an event that goes).
 */
static struct trig_linked *build(const struct linked_item *its, unsigned n, char *const *defs,
				 unsigned ndefs, bool *skip, char *err, size_t errlen)
{
	struct trig_linked *lk = calloc(1, sizeof(*lk));
	struct hist_error herr;

	if (!lk || !(lk->set = tp_hist_set_new(LINKED_CONTEXTS))) {
		free(lk);
		snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_NOMEM));
		return NULL;
	}
	/* Synthetic records go to the thread that made them (trigger_linked_run.c). */
	tp_hist_set_on_synth(lk->set, tp_trigger_linked_synth_made, lk);
	for (unsigned i = 0; i < ndefs; i++) {
		int e = tp_hist_set_synthetic(lk->set, defs[i], &herr);

		if (e < 0) {
			snprintf(err, errlen, "%s", herr.msg);
			goto fail;
		}
		/* Its event (synth_events.c), recorded when it is enabled. */
		lk->synth_ev[e] = tp_synth_event_of(tp_hist_set_synth(lk->set, e)->name);
	}
	for (unsigned i = 0; i < n; i++) {
		int e = add_slot_event(lk, its[i].event, err, errlen), t = -1, ct;

		if (e >= 0) {
			add_onmatch_events(lk, its[i].text);
			t = tp_hist_set_trigger(lk->set, e, its[i].text, &herr);
			if (t < 0)
				snprintf(err, errlen, "%s", herr.msg);
		}
		if (t < 0 && !skip)
			goto fail;
		if (t < 0) {
			skip[i] = true;
			continue;
		}
		/* as last set, whatever its text said when it was added */
		tp_hist_set_pause(lk->set, (unsigned)t, its[i].paused);
		lk->uid[t] = its[i].uid;
		/* Its variables go on from the current set's: a start seen there pairs with
		 * its end seen here. */
		ct = current ? trigger_of_uid(current, its[i].uid) : -1;
		if (ct >= 0)
			tp_hist_set_share_vars(lk->set, (unsigned)t, current->set, (unsigned)ct);
	}
	lk->id = 1ull << 63 | next_set_id++;
	return lk;
fail:
	linked_free(lk);
	return NULL;
}

/* Whether the set's event `e` has triggers: some item names it. */
static bool has_items(const struct trig_linked *lk, int e)
{
	const char *name = tp_hist_set_event_name(lk->set, e);

	for (unsigned i = 0; name && i < tp_hist_set_triggers(lk->set); i++)
		if (tp_hist_set_trigger_event(lk->set, i) == e)
			return true;
	return false;
}

/* Every slot's TRIGGER_LINKED entry pointed at `lk` (NULL: none); the old set retired. */
static void publish(struct trig_linked *lk)
{
	struct trig_linked *old = current;

	for (uint32_t i = 0; i < tp_nslots; i++) {
		struct event_slot *s = &tp_slots[i];
		char label[2 * TPOINT_NAME_MAX + 2];
		struct trigger *entry = NULL;
		int e;

		if (!s->ev || s->ev->index >= TPOINT_MAX_EVENTS)
			continue;
		snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
		e = lk ? tp_hist_set_find_event(lk->set, label) : -1;
		/* A synthetic event's triggers run in the set as actions make its records: its
		 * slot, which only sees the records that are written, gets no entry. */
		if (e >= 0 && tp_hist_set_synth(lk->set, e))
			e = -1;
		if (e >= 0 && has_items(lk, e)) {
			entry = calloc(1, sizeof(*entry));
			if (entry) { /* without memory, the event's linked triggers see no hits */
				entry->kind = TRIGGER_LINKED;
				entry->count = -1;
				entry->linked = lk;
				entry->linked_ev = e;
				entry->linked_time = tp_hist_set_needs_time(lk->set, e);
				entry->linked_cpu = tp_hist_set_needs_cpu(lk->set, e);
			}
		}
		if (tp_trigger_slot_relink(s, entry) < 0)
			free(entry);
	}
	/* The chain of sets not yet freed: printing walks back along it (print_trigger()). */
	if (lk)
		lk->pred = old;
	if (old)
		old->succ = lk;
	current = lk;
	tp_registry_retire(old, linked_free);
}

/* Build from these lists and publish: 0, or -EINVAL with err (nothing changed). */
static int rebuild(const struct linked_item *its, unsigned n, char *const *defs, unsigned ndefs,
		   char *err, size_t errlen)
{
	struct trig_linked *lk = n || ndefs ? build(its, n, defs, ndefs, NULL, err, errlen) : NULL;

	if ((n || ndefs) && !lk)
		return -EINVAL;
	publish(lk);
	return 0;
}

static void item_free(struct linked_item *it)
{
	free(it->event);
	free(it->text);
	free(it->info);
}

/* ---- setting ---- */

static void canonical_synthetic(const char *event, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", HIST_SYNTH_SYSTEM,
		 is_synthetic(event) ? event + strlen(HIST_SYNTH_SYSTEM ":") : event);
}

/* The item and the list without it, built and published; the item freed. */
static int remove_item(unsigned k, char *err, size_t errlen)
{
	struct linked_item *rest = malloc((nitems ? nitems : 1) * sizeof(*rest));
	char why[512];
	int ret;

	if (!rest)
		return -ENOMEM;
	memcpy(rest, items, k * sizeof(*rest));
	memcpy(rest + k, items + k + 1, (nitems - k - 1) * sizeof(*rest));
	ret = rebuild(rest, nitems - 1, synths, nsynths, why, sizeof(why));
	free(rest);
	if (ret < 0) {
		snprintf(err, errlen, "the trigger is in use by another (Device or resource busy): "
			 "without it, %s", why);
		return -EBUSY;
	}
	item_free(&items[k]);
	memmove(items + k, items + k + 1, (nitems - k - 1) * sizeof(*items));
	nitems--;
	return 0;
}

static int add_item(const char *event, const char *text, char *info, bool paused, char *err,
		    size_t errlen)
{
	struct linked_item *grown = realloc(items, (nitems + 1) * sizeof(*items));
	struct linked_item *it;
	int ret;

	if (!grown) {
		free(info);
		return -ENOMEM;
	}
	items = grown;
	it = &items[nitems];
	*it = (struct linked_item){ strdup(event), strdup(text), info, paused, next_uid++ };
	if (!it->event || !it->text) {
		item_free(it);
		return -ENOMEM;
	}
	ret = rebuild(items, nitems + 1, synths, nsynths, err, errlen);
	if (ret < 0)
		item_free(it);
	else
		nitems++;
	return ret;
}

int tp_trigger_linked_set(struct event_slot *s, const char *event, const char *text, char *err,
			  size_t errlen)
{
	char label[2 * TPOINT_NAME_MAX + 2], *info;
	struct filter_field *fields = NULL;
	const struct filter_field *use;
	struct hist_spec *spec;
	struct hist_error herr;
	size_t n;
	unsigned k;
	int ret;

	if (s) {
		snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
		ret = tp_registry_slot_fields(s, &fields, &n, err, errlen);
		if (ret < 0)
			return ret;
		use = fields;
	} else {
		const struct hist_synth *syn;

		canonical_synthetic(event, label, sizeof(label));
		syn = current ? tp_hist_set_synth(current->set,
						  tp_hist_set_find_event(current->set, label))
			      : NULL;
		if (!syn) {
			snprintf(err, errlen, "no event '%s' in this process", event);
			return -ENOENT;
		}
		use = syn->filter_fields;
		n = syn->nfilter_fields;
	}
	ret = tp_hist_parse(text, label, use, n, &spec, &herr);
	free(fields);
	if (ret < 0) {
		snprintf(err, errlen, "%s", herr.msg);
		return ret;
	}
	if (spec->name) {
		snprintf(err, errlen, "name=%s: a named histogram cannot have variables, "
			 "references or onmatch(), nor be on a synthetic event, here", spec->name);
		tp_hist_spec_free(spec);
		return -EOPNOTSUPP;
	}
	info = tp_trigger_info_of(spec);
	if (!info) {
		tp_hist_spec_free(spec);
		return -ENOMEM;
	}
	for (k = 0; k < nitems; k++)
		if (!strcmp(items[k].event, label) && !strcmp(items[k].info, info))
			break;
	if (spec->remove) {
		ret = k < nitems ? remove_item(k, err, errlen) : -ENOENT;
	} else if ((spec->pause || spec->cont || spec->clear) && k < nitems) {
		if (spec->pause || spec->cont) {
			items[k].paused = spec->pause;
			tp_hist_set_pause(current->set, k, spec->pause);
		}
		/* A set's tables cannot be cleared while threads hit them: a new set instead,
		 * where this trigger goes on from nothing (a new uid), the others as they were. */
		if (spec->clear) {
			uint64_t was = items[k].uid;

			items[k].uid = next_uid++;
			ret = rebuild(items, nitems, synths, nsynths, err, errlen);
			if (ret < 0)
				items[k].uid = was;
		} else {
			ret = 0;
		}
	} else if (spec->cont || spec->clear) {
		ret = -ENOENT;
	} else if (k < nitems) {
		snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_TRIGGER_EEXIST));
		ret = -EEXIST;
	} else {
		ret = add_item(label, text, info, spec->pause, err, errlen);
		info = NULL;
	}
	if (ret == -ENOENT)
		snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_TRIGGER_ENOENT_CLEAR));
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_NOMEM));
	free(info);
	tp_hist_spec_free(spec);
	return ret;
}

/* The name a definition defines: its first word (after '!'), into buf. */
static void def_name(const char *def, char *buf, size_t len)
{
	size_t n;

	def += *def == '!';
	def += strspn(def, " \t");
	n = strcspn(def, " \t;");
	snprintf(buf, len, "%.*s", (int)n, def);
}

/*
 * The event a new definition stands for (synth_events.c): made, or found with the same
 * fields. A definition the kernel would refuse is left to the set, which says why.
 */
static int prepare_event(const char *def, char *err, size_t errlen)
{
	struct hist_synth *syn = malloc(sizeof(*syn));
	struct hist_error herr;
	int ret = 0;

	if (!syn)
		return -ENOMEM;
	if (tp_hist_synth_parse(def, syn, &herr) == 0)
		ret = tp_synth_event_prepare(syn, err, errlen);
	free(syn);
	return ret;
}

int tp_trigger_synthetic_set(const char *text, char *err, size_t errlen)
{
	char *def, name[HIST_NAME_MAX], other[HIST_NAME_MAX], **grown;
	size_t len;
	int ret;

	text += strspn(text, " \t");
	len = strlen(text);
	/* TPOINT_TRIGGER quotes a definition, whose ';' would end its item. */
	if (len >= 2 && (*text == '\'' || *text == '"') && text[len - 1] == *text) {
		text++;
		len -= 2;
	}
	def = strndup(text, len);
	if (!def)
		return -ENOMEM;
	def_name(def, name, sizeof(name));
	if (*def == '!') {
		unsigned k;

		for (k = 0; k < nsynths; k++) {
			def_name(synths[k], other, sizeof(other));
			if (!strcmp(name, other))
				break;
		}
		free(def);
		if (k == nsynths) {
			snprintf(err, errlen, "no synthetic event '%s' in this process", name);
			return -ENOENT;
		}
		char **rest = malloc(nsynths * sizeof(*rest)), why[512];

		if (!rest)
			return -ENOMEM;
		memcpy(rest, synths, k * sizeof(*rest));
		memcpy(rest + k, synths + k + 1, (nsynths - k - 1) * sizeof(*rest));
		ret = rebuild(items, nitems, rest, nsynths - 1, why, sizeof(why));
		free(rest);
		if (ret < 0) {
			snprintf(err, errlen, "synthetic event '%s' is in use by a trigger (Device or "
				 "resource busy)", name);
			return -EBUSY;
		}
		free(synths[k]);
		memmove(synths + k, synths + k + 1, (nsynths - k - 1) * sizeof(*synths));
		nsynths--;
		tp_synth_event_want(name, false); /* unregistered by the caller's sync */
		return 0;
	}
	bool defined = false; /* now: the set says "Event already exists" */

	for (unsigned k = 0; k < nsynths; k++) {
		def_name(synths[k], other, sizeof(other));
		defined |= !strcmp(name, other);
	}
	ret = defined ? 0 : prepare_event(def, err, errlen);
	if (ret < 0) {
		free(def);
		return ret;
	}
	grown = realloc(synths, (nsynths + 1) * sizeof(*synths));
	if (!grown) {
		free(def);
		return -ENOMEM;
	}
	synths = grown;
	synths[nsynths] = def;
	ret = rebuild(items, nitems, synths, nsynths + 1, err, errlen);
	if (ret < 0) {
		free(def);
	} else {
		nsynths++;
		tp_synth_event_want(name, true); /* registered by the caller's sync */
	}
	return ret;
}

bool tp_trigger_synthetic_named(const char *event)
{
	char label[2 * TPOINT_NAME_MAX + 2];

	canonical_synthetic(event, label, sizeof(label));
	return current && tp_hist_set_synth(current->set,
					    tp_hist_set_find_event(current->set, label));
}

void tp_trigger_linked_slot_drop(struct event_slot *s)
{
	char label[2 * TPOINT_NAME_MAX + 2], err[512];
	bool *skip;
	struct trig_linked *lk;
	unsigned kept = 0;

	snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
	skip = calloc(nitems + 1, sizeof(*skip));
	if (!skip)
		return;
	for (unsigned i = 0; i < nitems; i++)
		skip[i] = !strcmp(items[i].event, label);
	for (unsigned i = 0; i < nitems; i++)
		kept += !skip[i];
	if (kept == nitems) {
		free(skip);
		return;
	}
	/* The triggers left, less any that named what went. */
	struct linked_item *rest = malloc((kept ? kept : 1) * sizeof(*rest));
	bool *rest_skip = calloc(kept + 1, sizeof(*rest_skip));

	if (!rest || !rest_skip) {
		free(rest);
		free(rest_skip);
		free(skip);
		return;
	}
	kept = 0;
	for (unsigned i = 0; i < nitems; i++)
		if (!skip[i])
			rest[kept++] = items[i];
	lk = kept || nsynths ? build(rest, kept, synths, nsynths, rest_skip, err, sizeof(err))
			     : NULL;
	for (unsigned i = 0, r = 0; i < nitems; i++)
		if (!skip[i] && rest_skip[r++])
			skip[i] = true;
	if (lk || (!kept && !nsynths)) {
		publish(lk);
		for (unsigned i = 0, w = 0, n = nitems; i < n; i++) {
			if (skip[i]) {
				item_free(&items[i]);
				nitems--;
			} else {
				items[w++] = items[i];
			}
		}
	}
	free(rest);
	free(rest_skip);
	free(skip);
}

/* ---- reading ---- */

/*
 * The current set's trigger t, with what the sets it goes on from counted and have not
 * handed on yet (linked_free()): they may still be hit, by a thread that loaded them before
 * the current one was published.
 */
static int print_trigger(FILE *out, unsigned t, unsigned *nth, bool json)
{
	struct hist_table *tab = tp_hist_set_table(current->set, t);
	int ret = 0;

	if (!tab)
		return -ENOMEM;
	for (const struct trig_linked *p = current->pred; p; p = p->pred) {
		int pt = trigger_of_uid(p, current->uid[t]);

		if (pt < 0)
			break;
		tp_hist_set_merge_trigger(tab, p->set, (unsigned)pt);
	}
	if (json ? tp_hist_print_json(out, tab, NULL) : tp_hist_print(out, tab, (*nth)++, NULL))
		ret = -EIO;
	tp_hist_table_free(tab);
	return ret;
}

int tp_trigger_linked_print(FILE *out, const struct trigger *tr, unsigned *nth, bool json)
{
	const struct trig_linked *lk = tr->linked;
	int ret = 0, shown = 0;

	for (unsigned t = 0; lk == current && t < tp_hist_set_triggers(lk->set) && !ret; t++)
		if (tp_hist_set_trigger_event(lk->set, t) == tr->linked_ev) {
			ret = print_trigger(out, t, nth, json);
			shown++;
		}
	return ret < 0 ? ret : shown;
}

/* The synthetic events with triggers, one at a time: the next index after `e`, or -1. */
static int next_synth(int e, const char *globs)
{
	while (current && tp_hist_set_event_name(current->set, ++e)) {
		const struct hist_synth *syn = tp_hist_set_synth(current->set, e);

		if (syn && has_items(current, e) &&
		    (!globs || tp_globs_select(globs, HIST_SYNTH_SYSTEM, syn->name)))
			return e;
	}
	return -1;
}

unsigned tp_trigger_synth_hist_count(const char *globs)
{
	unsigned n = 0;

	for (int e = next_synth(-1, globs); e >= 0; e = next_synth(e, globs))
		n++;
	return n;
}

int tp_trigger_synth_hist_print(FILE *out, const char *globs, bool json, bool headers,
				bool first)
{
	int shown = 0, ret = 0;

	for (int e = next_synth(-1, globs); e >= 0 && !ret; e = next_synth(e, globs)) {
		unsigned nth = 0;

		if (!json && headers)
			fprintf(out, "%s==> %s <==\n", first ? "" : "\n",
				tp_hist_set_event_name(current->set, e));
		first = false;
		for (unsigned t = 0; t < tp_hist_set_triggers(current->set) && !ret; t++)
			if (tp_hist_set_trigger_event(current->set, t) == e) {
				ret = print_trigger(out, t, &nth, json);
				shown++;
			}
	}
	return ret < 0 ? ret : shown;
}

/* The set's triggers of its event `e`, a line each. */
static void describe_event(const struct trig_linked *lk, int e, FILE *out)
{
	for (unsigned t = 0; lk && t < tp_hist_set_triggers(lk->set); t++)
		if (tp_hist_set_trigger_event(lk->set, t) == e)
			tp_hist_spec_print(out, tp_hist_set_spec(lk->set, t),
					   t < nitems && items[t].paused);
}

void tp_trigger_linked_describe(const struct trigger *tr, FILE *out)
{
	if (tr->linked == current)
		describe_event(current, tr->linked_ev, out);
}

void tp_trigger_synth_describe(const struct event_slot *s, FILE *out)
{
	char label[2 * TPOINT_NAME_MAX + 2];
	int e;

	if (!current || !s->ev || strcmp(s->system, HIST_SYNTH_SYSTEM))
		return;
	snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
	e = tp_hist_set_find_event(current->set, label);
	if (e >= 0 && tp_hist_set_synth(current->set, e))
		describe_event(current, e, out);
}
