/* SPDX-License-Identifier: MIT */
/*
 * The kernel's event triggers on a program's events (see trigger.h): setting them (the C
 * API, TPOINT_TRIGGER, the control socket) and reading their histograms; trigger_run.c runs
 * them on the thread that hits the event.
 *
 * Triggers are set and read under the registry lock; an event's set of triggers is
 * published as a whole (tp_trigger_sets[]), and what a hit may hold is freed after the
 * filters' grace period (tp_registry_retire()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "event_filter.h"
#include "filter.h"
#include "fmt/selection.h"
#include "globs.h"
#include "hist.h"
#include "hist_names_self.h"
#include "log.h"
#include "snapshot_trigger.h"
#include "synth_events.h"
#include "trigger.h"
#include "trigger_linked.h"
#include "trigger_named.h"
#include "trigger_run.h"
#include "trigger_slots.h"
#include "writer.h"

/* ---- setting ---- */

/*
 * Per event index, under the lock: how many enable_event/disable_event triggers switch it.
 * While any does, the event has a set (empty if it has no triggers of its own) that says
 * so: its hits go through its gate, its jump-label sites patched (the kernel's soft mode).
 */
static uint32_t targeted[TPOINT_MAX_EVENTS];

/* Under the lock: the target's set follows targeted[] (switched, or back to its own). */
static void target_publish(uint32_t index)
{
	struct event_slot *t = index < tp_nslots ? &tp_slots[index] : NULL;
	struct trigger_set *cur, *ts;
	bool want = targeted[index] > 0;

	if (!t || !t->ev) /* unloaded: as it registers again (tp_trigger_slot_added()) */
		return;
	cur = tp_trigger_set_of(index);
	if ((cur && cur->switched) == want)
		return;
	if (!want && !cur->n) {
		tp_trigger_publish(t, NULL);
		return;
	}
	ts = tp_trigger_set_copy(cur, 0);
	if (!ts) {
		tp_err("%s:%s: out of memory: enable_event/disable_event do not switch it",
		       t->system, t->name);
		return;
	}
	ts->switched = want;
	tp_trigger_publish(t, ts);
}

/* Under the lock: a switching trigger on `index` added (+1) or gone (-1). */
static void target_count(uint32_t index, int by)
{
	if (by > 0 && !targeted[index]++)
		/* Soft mode: off unless it records for itself (SOFT_DISABLED) */
		__atomic_store_n(&tp_trigger_soft_off[index], !tp_trigger_recorded(index),
				 __ATOMIC_RELAXED);
	else if (by < 0 && targeted[index])
		targeted[index]--;
	target_publish(index);
}

static bool is_switch(const struct trigger *tr)
{
	return tr->kind == TRIGGER_ENABLE_EVENT || tr->kind == TRIGGER_DISABLE_EVENT;
}

static int hist_error(char *err, size_t errlen, enum hist_err code, int ret)
{
	snprintf(err, errlen, "%s", tp_hist_err_text(code));
	return ret;
}

/* The slot's set without its trigger `at`, published; the trigger freed after grace. */
static int remove_at(struct event_slot *s, const struct trigger_set *cur, unsigned at, char *err,
		     size_t errlen)
{
	bool keep = cur->n > 1 || cur->switched; /* switched: an empty set stays */
	struct trigger_set *ts = keep ? tp_trigger_set_copy(NULL, cur->n - 1) : NULL;
	struct trigger *gone = cur->t[at];

	if (keep && !ts)
		return hist_error(err, errlen, HIST_ERR_NOMEM, -ENOMEM);
	for (unsigned i = 0; ts && i < cur->n; i++)
		if (i != at)
			ts->t[ts->n++] = cur->t[i];
	if (ts) {
		ts->soft = cur->soft;
		ts->switched = cur->switched;
	}
	tp_trigger_publish(s, ts); /* retires cur */
	if (is_switch(gone))
		target_count(gone->target, -1);
	if (gone->kind == TRIGGER_NAMED)
		tp_trigger_named_release(gone);
	tp_registry_retire(gone, tp_trigger_free);
	return 0;
}

/* Under the lock: a hist trigger for the slot's event. */
static int slot_set_hist(struct event_slot *s, const char *text, char *err, size_t errlen)
{
	char label[2 * TPOINT_NAME_MAX + 2];
	struct filter_field *fields;
	struct hist_spec *spec;
	struct hist_error herr;
	size_t nfields;
	int ret = tp_registry_slot_fields(s, &fields, &nfields, err, errlen);

	if (ret < 0)
		return ret;
	snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
	ret = tp_hist_parse(text, label, fields, nfields, &spec, &herr);
	free(fields);
	if (ret < 0) {
		snprintf(err, errlen, "%s", herr.msg);
		return ret;
	}
	/* Variables, references and onmatch(): the process's hist set (trigger_linked.c). */
	if (tp_trigger_spec_links(spec)) {
		tp_hist_spec_free(spec);
		return tp_trigger_linked_set(s, label, text, err, errlen);
	}
	char *info = tp_trigger_info_of(spec);
	struct trigger_set *cur = tp_trigger_set_of(s->ev->index), *ts;
	struct trigger *found = NULL;
	unsigned at = 0;

	if (!info) {
		tp_hist_spec_free(spec);
		return hist_error(err, errlen, HIST_ERR_NOMEM, -ENOMEM);
	}
	for (; cur && at < cur->n; at++)
		if ((cur->t[at]->kind == TRIGGER_HIST || cur->t[at]->kind == TRIGGER_NAMED) &&
		    !strcmp(cur->t[at]->info, info)) {
			found = cur->t[at];
			break;
		}
	if (spec->remove) {
		ret = found ? 0 : hist_error(err, errlen, HIST_ERR_TRIGGER_ENOENT_CLEAR, -ENOENT);
		if (found)
			ret = remove_at(s, cur, at, err, errlen);
	} else if (spec->pause || spec->cont || spec->clear) {
		/* The kernel applies them to the trigger they name, or makes a paused one. */
		if (found) {
			/* A name='s histogram is paused or cleared for all its events, as the kernel's. */
			struct trigger *h = found->kind == TRIGGER_NAMED ? found->shared : found;

			if (spec->pause || spec->cont)
				__atomic_store_n(&h->paused, spec->pause, __ATOMIC_RELAXED);
			if (spec->clear)
				__atomic_fetch_add(&h->gen, 1, __ATOMIC_RELEASE);
			ret = 0;
		} else if (!spec->pause) {
			ret = hist_error(err, errlen, HIST_ERR_TRIGGER_ENOENT_CLEAR, -ENOENT);
		} else {
			found = NULL; /* a new trigger, paused from the start: below */
			ret = 1;
		}
	} else if (found) {
		ret = hist_error(err, errlen, HIST_ERR_TRIGGER_EEXIST, -EEXIST);
	} else {
		ret = 1;
	}
	if (ret != 1) {
		free(info);
		tp_hist_spec_free(spec);
		return ret;
	}
	/* A new trigger. */
	struct trigger *tr = spec->name ? NULL : calloc(1, sizeof(*tr));

	if (spec->name) {
		tr = tp_trigger_named_new(s, text, spec, info, err, errlen); /* takes spec, info */
		if (!tr) {
			free(info);
			tp_hist_spec_free(spec);
			return -errno;
		}
	}
	ts = tp_trigger_set_copy(cur, 1);
	if (!tr || !ts) {
		if (tr && tr->kind == TRIGGER_NAMED)
			tp_trigger_named_release(tr);
		free(tr);
		free(ts);
		free(info);
		tp_hist_spec_free(spec);
		return hist_error(err, errlen, HIST_ERR_NOMEM, -ENOMEM);
	}
	if (tr->kind != TRIGGER_NAMED) {
		tr->id = tp_trigger_new_id();
		tr->spec = spec;
		tr->info = info;
		tr->paused = spec->pause;
	}
	ts->t[ts->n++] = tr;
	tp_trigger_publish(s, ts);
	return 0;
}

/*
 * The commands, as the kernel's event_command list names them; `target` takes
 * ":system:event" after the word.
 */
static const struct command {
	const char *word;
	enum trigger_kind kind;
	bool target;
} commands[] = {
	{ "stacktrace", TRIGGER_STACKTRACE, false },
	{ "snapshot", TRIGGER_SNAPSHOT, false },
	{ "traceon", TRIGGER_TRACEON, false },
	{ "traceoff", TRIGGER_TRACEOFF, false },
	{ "enable_event", TRIGGER_ENABLE_EVENT, true },
	{ "disable_event", TRIGGER_DISABLE_EVENT, true },
};

static const struct command *command_of(enum trigger_kind kind)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].kind == kind)
			return &commands[i];
	return NULL;
}

/*
 * The set's trigger that a new command `kind` (on `target`, for enable/disable) would
 * duplicate, and its place, or NULL. As the kernel's register functions: one of each command
 * an event, and one enable_event or disable_event per event switched.
 */
static struct trigger *find_command(const struct trigger_set *ts, enum trigger_kind kind,
				    const char *target, unsigned *at)
{
	bool switches = kind == TRIGGER_ENABLE_EVENT || kind == TRIGGER_DISABLE_EVENT;

	for (unsigned i = 0; ts && i < ts->n; i++) {
		const struct trigger *tr = ts->t[i];
		bool same = switches ? tr->target_name && !strcmp(tr->target_name, target)
				     : tr->kind == kind;

		if (same) {
			*at = i;
			return ts->t[i];
		}
	}
	return NULL;
}

/* The last parse_target() failed for want of its event: -ENOENT, not -EINVAL. */
static bool target_missing;

/* The token at p, up to the next ':' or ' ', for a message. */
static int token_len(const char *p)
{
	return (int)strcspn(p, ": ");
}

/*
 * ":system:event" after enable_event/disable_event: the event, which must be in the
 * process unless the trigger is being removed (its object may have gone since). Returns the
 * text after it, or NULL with err said.
 */
static const char *parse_target(const char *p, const struct command *c, bool removing,
				char **name, uint32_t *index, char *err, size_t errlen)
{
	int sys_len, ev_len;
	struct event_slot *t;

	if (*p != ':' || !token_len(p + 1) || p[1 + token_len(p + 1)] != ':' ||
	    !token_len(p + 2 + token_len(p + 1))) {
		snprintf(err, errlen, "'%.*s': expected %s:system:event", token_len(p + 1) + 1, p,
			 c->word);
		return NULL;
	}
	sys_len = token_len(p + 1);
	ev_len = token_len(p + 2 + sys_len);
	if (asprintf(name, "%.*s:%.*s", sys_len, p + 1, ev_len, p + 2 + sys_len) < 0) {
		*name = NULL;
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (removing)
		return p + 2 + sys_len + ev_len;
	t = tp_trigger_slot_named(*name);
	target_missing = !t || !t->ev;
	if (!t || !t->ev || t->ev->index >= TPOINT_MAX_EVENTS) {
		snprintf(err, errlen, "%s:%s: no event '%s' in this process (Invalid argument)",
			 c->word, *name, *name);
		free(*name);
		*name = NULL;
		return NULL;
	}
	*index = t->ev->index;
	return p + 2 + sys_len + ev_len;
}

/*
 * A command trigger, "[!]WORD[:system:event][:N] [if FILTER]", as the kernel's
 * event_trigger_parse(): one of each command an event (set twice: -EEXIST), `!` removes it
 * whatever its count and filter, N counts the firings left.
 */
static int slot_set_command(struct event_slot *s, const struct command *c, const char *text,
			    char *err, size_t errlen)
{
	bool remove = *text == '!';
	const char *p = text + remove + strlen(c->word), *filter = NULL;
	struct trigger_set *cur = tp_trigger_set_of(s->ev->index), *ts;
	struct trigger *found, *tr;
	char *target = NULL;
	uint32_t index = 0;
	long long count = -1;
	unsigned at = 0;
	int ret;

	target_missing = false;
	if (c->target && !(p = parse_target(p, c, remove, &target, &index, err, errlen)))
		return target_missing ? -ENOENT : -EINVAL;
	if (*p == ':') {
		char *end;

		errno = 0;
		count = strtoll(p + 1, &end, 10);
		if (end == p + 1 || errno || count <= 0 || (*end && *end != ' ')) {
			snprintf(err, errlen, "'%.*s': expected a count above 0 after '%.*s:'",
				 (int)strcspn(p + 1, " "), p + 1, (int)(p - text), text);
			free(target);
			return -EINVAL;
		}
		p = end;
	}
	while (*p == ' ')
		p++;
	if (!strncmp(p, "if ", 3) || !strcmp(p, "if")) {
		filter = p + 2;
		while (*filter == ' ')
			filter++;
	} else if (*p) {
		snprintf(err, errlen, "'%s': expected ':N' or 'if FILTER' after %s", p, c->word);
		free(target);
		return -EINVAL;
	}
	found = find_command(cur, c->kind, target, &at);
	if (remove) {
		ret = found && found->kind == c->kind ? remove_at(s, cur, at, err, errlen) : -ENOENT;
		if (ret == -ENOENT)
			snprintf(err, errlen, "no %s%s%s trigger on %s:%s", c->word,
				 target ? ":" : "", target ? target : "", s->system, s->name);
		free(target);
		return ret;
	}
	if (found) {
		snprintf(err, errlen, "%s:%s has a %s%s%s trigger already (File exists)", s->system,
			 s->name, command_of(found->kind)->word, target ? ":" : "",
			 target ? target : "");
		free(target);
		return -EEXIST;
	}
	/* Its directory, checked now rather than when it fires; its writer, ready. */
	if (c->kind == TRIGGER_SNAPSHOT && (ret = tp_snapshot_trigger_arm(err, errlen)) < 0)
		return ret;
	tr = calloc(1, sizeof(*tr));
	if (!tr) {
		free(target);
		return hist_error(err, errlen, HIST_ERR_NOMEM, -ENOMEM);
	}
	tr->kind = c->kind;
	tr->count = count;
	tr->target = index;
	tr->target_name = target;
	tr->info = strdup(text);
	if (filter) {
		char label[2 * TPOINT_NAME_MAX + 2];
		struct filter_field *fields;
		size_t nfields;

		snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
		ret = tp_registry_slot_fields(s, &fields, &nfields, err, errlen);
		if (!ret) {
			ret = tp_filter_compile(filter, label, fields, nfields, &tr->filter, err,
						errlen);
			free(fields);
		}
		if (ret < 0) {
			tp_trigger_free(tr);
			return ret;
		}
	}
	ts = tp_trigger_set_copy(cur, 1);
	if (!ts || !tr->info) {
		free(ts);
		tp_trigger_free(tr);
		return hist_error(err, errlen, HIST_ERR_NOMEM, -ENOMEM);
	}
	tr->id = tp_trigger_new_id();
	ts->t[ts->n++] = tr;
	tp_trigger_publish(s, ts);
	if (is_switch(tr))
		target_count(tr->target, +1);
	return 0;
}

static bool is_command(const char *text, const char *word)
{
	size_t n = strlen(word);

	if (*text == '!')
		text++;
	return !strncmp(text, word, n) && (!text[n] || text[n] == ':' || text[n] == ' ');
}

static int unknown_command(const char *text, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%.*s': unknown trigger command (expected hist, stacktrace, "
		 "snapshot, traceon, traceoff, enable_event or disable_event)",
		 token_len(text), text);
	return -EINVAL;
}

/* Under the lock. */
static int set_locked(struct event_slot *s, const char *text, char *err, size_t errlen)
{
	if (s->ev->index >= TPOINT_MAX_EVENTS) {
		snprintf(err, errlen, "%s:%s has no counters' slot", s->system, s->name);
		return -ENOSPC;
	}
	if (is_command(text, "hist"))
		return slot_set_hist(s, text, err, errlen);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (is_command(text, commands[i].word))
			return slot_set_command(s, &commands[i], text, err, errlen);
	return unknown_command(text, err, errlen);
}

/* Under the lock: tp_trigger_set_text(). */
static int set_text_locked(const char *event, const char *text, char *err, size_t errlen)
{
	struct event_slot *s = tp_trigger_slot_named(event);

	if (!strcmp(event, LINKED_SYNTH_FILE))
		return tp_trigger_synthetic_set(text, err, errlen);
	/* A synthetic event's slot (synth_events.c) sees only its written records: its hist
	 * triggers are the set's, which sees every record an action makes. */
	if (s && is_command(text, "hist") && !strcmp(s->system, HIST_SYNTH_SYSTEM) &&
	    tp_trigger_synthetic_named(s->name))
		return tp_trigger_linked_set(NULL, event, text, err, errlen);
	if (!s && tp_trigger_synthetic_named(event))
		return is_command(text, "hist") ? tp_trigger_linked_set(NULL, event, text, err, errlen)
						: unknown_command(text, err, errlen);
	if (!s) {
		snprintf(err, errlen, "no event '%s' in this process", event);
		return -ENOENT;
	}
	return set_locked(s, text, err, errlen);
}

int tp_trigger_set_text(const char *event, const char *text, char *err, size_t errlen)
{
	int ret;

	tp_registry_lock();
	ret = set_text_locked(event, text, err, errlen);
	tp_registry_unlock();
	tp_synth_events_sync(); /* a synthetic event defined or removed: its module */
	tp_registry_run_fn_calls();
	return ret;
}

TPOINT_EXPORT int tpoint_set_trigger(const char *event, const char *trigger)
{
	char err[512];
	int ret;

	if (!event || !trigger)
		return -EINVAL;
	ret = tp_trigger_set_text(event, trigger, err, sizeof(err));
	if (ret < 0)
		tp_err("trigger '%s' of %s: %s", trigger, event, err);
	return ret;
}

void tp_trigger_slot_drop(struct event_slot *s)
{
	struct trigger_set *ts;

	if (!s->ev || s->ev->index >= TPOINT_MAX_EVENTS)
		return;
	/* The gate went with the filter (tp_registry_slot_drop_filter()), before this. */
	ts = __atomic_exchange_n(&tp_trigger_sets[s->ev->index], NULL, __ATOMIC_ACQ_REL);
	for (unsigned i = 0; ts && i < ts->n; i++) {
		/* What it switched goes back to its own state (not this event: it goes). */
		if (is_switch(ts->t[i]) && ts->t[i]->target != s->ev->index)
			target_count(ts->t[i]->target, -1);
		else if (is_switch(ts->t[i]) && targeted[s->ev->index])
			targeted[s->ev->index]--;
		if (ts->t[i]->kind == TRIGGER_NAMED)
			tp_trigger_named_release(ts->t[i]);
		tp_registry_retire(ts->t[i], tp_trigger_free);
	}
	tp_registry_retire(ts, free);
	tp_trigger_linked_slot_drop(s); /* its linked triggers, and what named them */
}

/* ---- TPOINT_TRIGGER ---- */

/*
 * Its items, until each has met its event: one that never applies is said. An item that
 * fails as its event registers is tried again once its object's events have all registered
 * (the end of a latency pair may register before its start), and said only then.
 */
struct env_trigger {
	char *event, *text;
	bool met, pending;
};
static struct env_trigger *env_triggers;
static size_t nenv_triggers;

static bool env_synthetic(const char *event)
{
	return !strcmp(event, LINKED_SYNTH_FILE) || !strncmp(event, "synthetic:", 10);
}

/* Under the lock: the items that failed, tried again in order; those that still fail said. */
static void env_retry(void)
{
	char err[512];

	for (size_t i = 0; i < nenv_triggers; i++) {
		struct env_trigger *e = &env_triggers[i];
		struct event_slot *s;

		if (!e->pending)
			continue;
		e->pending = false;
		s = tp_trigger_slot_named(e->event);
		if (!s)
			snprintf(err, sizeof(err), "no event '%s' in this process", e->event);
		if (!s || set_locked(s, e->text, err, sizeof(err)) < 0)
			tp_notice("TPOINT_TRIGGER: '%s:%s': %s; ignored", e->event, e->text, err);
	}
}

void tp_trigger_env_parse(const char *value)
{
	char *copy = strdup(value), *cursor = copy, *event, *text, err[512];
	int item;

	tp_registry_lock();
	while (copy && (item = tp_trigger_env_next(&cursor, &event, &text)) != 0) {
		struct env_trigger *n;

		if (item < 0) {
			tp_notice("TPOINT_TRIGGER: '%s': expected system:event:TRIGGER (hist:...); "
				  "ignored", event);
			continue;
		}
		/* Synthetic events and their triggers need no program event: set at once. */
		if (env_synthetic(event)) {
			if (set_text_locked(event, text, err, sizeof(err)) < 0)
				tp_notice("TPOINT_TRIGGER: '%s:%s': %s; ignored", event, text, err);
			continue;
		}
		n = realloc(env_triggers, (nenv_triggers + 1) * sizeof(*n));
		if (!n)
			break;
		env_triggers = n;
		n[nenv_triggers] = (struct env_trigger){ strdup(event), strdup(text), false, false };
		if (n[nenv_triggers].event && n[nenv_triggers].text)
			nenv_triggers++;
	}
	/* Events registered already (a library loaded before ours was initialised) */
	for (uint32_t i = 0; i < tp_nslots; i++)
		if (tp_slots[i].ev)
			tp_trigger_slot_added(&tp_slots[i]);
	env_retry();
	tp_registry_unlock();
	/* Its synthetic events register once the recording it asks for started (init.c). */
	tp_registry_run_fn_calls();
	free(copy);
}

void tp_trigger_slot_added(struct event_slot *s)
{
	char err[512];

	/* Back after a dlclose, and still switched by another event's trigger. */
	if (s->ev->index < TPOINT_MAX_EVENTS && targeted[s->ev->index])
		target_publish(s->ev->index);

	for (size_t i = 0; i < nenv_triggers; i++) {
		struct env_trigger *e = &env_triggers[i];

		if (e->met || !tp_event_named(e->event, s->system, s->name) ||
		    tp_trigger_slot_named(e->event) != s)
			continue;
		e->met = true;
		if (set_locked(s, e->text, err, sizeof(err)) < 0)
			e->pending = true; /* said by env_retry() if it fails again */
	}
}

void tp_trigger_module_added(void)
{
	tp_registry_lock();
	env_retry();
	tp_registry_unlock();
}

void tp_trigger_env_report(void)
{
	tp_registry_lock();
	for (size_t i = 0; i < nenv_triggers; i++)
		if (!env_triggers[i].met)
			tp_notice("TPOINT_TRIGGER: '%s:%s': no event '%s' in this program; the "
				  "trigger was ignored", env_triggers[i].event, env_triggers[i].text,
				  env_triggers[i].event);
	tp_registry_unlock();
}

/* ---- reading ---- */

static bool has_hist(const struct trigger_set *ts)
{
	for (unsigned k = 0; k < ts->n; k++)
		if (ts->t[k]->kind == TRIGGER_HIST || ts->t[k]->kind == TRIGGER_NAMED ||
		    ts->t[k]->kind == TRIGGER_LINKED)
			return true;
	return false;
}

/*
 * The trigger's histogram now: its threads' tables merged into a new one (a name= member's:
 * the shared histogram's, with the member's own trigger info).
 */
static struct hist_table *merged(struct trigger *member)
{
	struct hist_table *t = tp_hist_table_new(member->spec);
	struct trigger *tr = member->kind == TRIGGER_NAMED ? member->shared : member;
	uint64_t gen = __atomic_load_n(&tr->gen, __ATOMIC_ACQUIRE);

	if (!t)
		return NULL;
	for (struct hist_node *n = __atomic_load_n(&tr->nodes, __ATOMIC_ACQUIRE); n; n = n->next)
		if (__atomic_load_n(&n->gen, __ATOMIC_ACQUIRE) == gen) /* not cleared: empty */
			tp_hist_table_merge(t, n->table);
	tp_hist_table_pause(t, __atomic_load_n(&tr->paused, __ATOMIC_RELAXED));
	return t;
}

int tp_trigger_hist_print(FILE *out, const char *globs, bool json)
{
	int shown = 0, events = 0, ret = 0;
	struct hist_names *names = tp_hist_names_self_new(); /* .sym keys: read when asked */

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++) {
		struct event_slot *s = &tp_slots[i];
		struct trigger_set *ts = s->ev ? tp_trigger_set_of(s->ev->index) : NULL;

		if (ts && has_hist(ts) && (!globs || tp_globs_select(globs, s->system, s->name)))
			events++;
	}
	events += tp_trigger_synth_hist_count(globs);
	for (uint32_t i = 0; i < tp_nslots && ret == 0; i++) {
		struct event_slot *s = &tp_slots[i];
		struct trigger_set *ts = s->ev ? tp_trigger_set_of(s->ev->index) : NULL;

		if (!ts || !has_hist(ts) || (globs && !tp_globs_select(globs, s->system, s->name)))
			continue;
		if (!json && events > 1)
			fprintf(out, "%s==> %s:%s <==\n", shown ? "\n" : "", s->system, s->name);
		for (unsigned k = 0, nth = 0; k < ts->n; k++) {
			if (ts->t[k]->kind == TRIGGER_LINKED) {
				int n = tp_trigger_linked_print(out, ts->t[k], &nth, json);

				if (n < 0) {
					ret = n;
					break;
				}
				shown += n;
			}
			if (ts->t[k]->kind != TRIGGER_HIST && ts->t[k]->kind != TRIGGER_NAMED)
				continue;
			struct hist_table *t = merged(ts->t[k]);

			if (!t) {
				ret = -ENOMEM;
				break;
			}
			if (json ? tp_hist_print_json(out, t, names)
				 : tp_hist_print(out, t, nth++, names))
				ret = -EIO;
			tp_hist_table_free(t);
			shown++;
		}
	}
	if (ret == 0) {
		int n = tp_trigger_synth_hist_print(out, globs, json, events > 1, !shown);

		if (n < 0)
			ret = n;
		else
			shown += n;
	}
	tp_registry_unlock();
	tp_hist_names_self_free(names);
	return ret < 0 ? ret : shown;
}

TPOINT_EXPORT int tpoint_print_hist(FILE *out, const char *globs, int json)
{
	if (!out || (globs && !tp_globs_valid(globs)))
		return -EINVAL;
	return tp_trigger_hist_print(out, globs, json != 0);
}

void tp_trigger_slot_describe(const struct event_slot *s, FILE *out)
{
	struct trigger_set *ts = s->ev ? tp_trigger_set_of(s->ev->index) : NULL;

	tp_trigger_synth_describe(s, out); /* a synthetic event's hist triggers: the set's */
	for (unsigned k = 0; ts && k < ts->n; k++) { /* a line each, as the kernel's file */
		const struct trigger *tr = ts->t[k];
		int64_t left = __atomic_load_n(&tr->count, __ATOMIC_RELAXED);

		if (tr->kind == TRIGGER_HIST || tr->kind == TRIGGER_NAMED) {
			const struct trigger *h = tr->kind == TRIGGER_NAMED ? tr->shared : tr;

			tp_hist_spec_print(out, tr->spec, __atomic_load_n(&h->paused,
									 __ATOMIC_RELAXED));
			continue;
		}
		if (tr->kind == TRIGGER_LINKED) {
			tp_trigger_linked_describe(tr, out);
			continue;
		}
		/* event_trigger_print(): the command, its target, its count, its filter */
		fputs(command_of(tr->kind)->word, out);
		if (tr->target_name)
			fprintf(out, ":%s", tr->target_name);
		if (left < 0)
			fputs(":unlimited", out);
		else
			fprintf(out, ":count=%lld", (long long)left);
		if (tr->filter)
			fprintf(out, " if %s", tp_filter_text(tr->filter));
		fprintf(out, " (fired %llu)\n",
			(unsigned long long)__atomic_load_n(&tr->fired, __ATOMIC_RELAXED));
	}
}
