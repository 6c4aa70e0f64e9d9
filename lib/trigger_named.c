/* SPDX-License-Identifier: MIT */
/*
 * name= shared histograms (see trigger.h): triggers on several events with one name= share
 * one histogram, as the kernel's named triggers share their hist_data. The histogram is an
 * owner trigger that no event lists (its tables, :pause and :clear state, a spec without a
 * filter); each event lists a TRIGGER_NAMED member with its own spec (its own `if FILTER`,
 * judged before the owner's tables count the hit). The kernel's hist_trigger_match() decides
 * whether a new member fits; the owner goes, after grace, with its last member. Under the
 * registry lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "event_filter.h"
#include "hist.h"
#include "trigger_named.h"
#include "trigger_run.h"
#include "trigger_slots.h"

struct named {
	struct trigger *owner;
	unsigned members;
};
static struct named *named;
static unsigned nnamed;

static struct named *find(const char *name)
{
	for (unsigned i = 0; i < nnamed; i++)
		if (!strcmp(named[i].owner->spec->name, name))
			return &named[i];
	return NULL;
}

static bool fields_match(const struct hist_field *a, const struct hist_field *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i].mods != b[i].mods || a[i].src != b[i].src || strcmp(a[i].name, b[i].name) ||
		    a[i].offset != b[i].offset || a[i].size != b[i].size ||
		    a[i].is_signed != b[i].is_signed || a[i].buckets != b[i].buckets)
			return false;
	return true;
}

/*
 * hist_trigger_match(..., ignore_filter): the same keys and values (name, modifiers, offset,
 * size, sign) and sort keys; and here the same size=, as one table holds them.
 */
static bool specs_match(const struct hist_spec *a, const struct hist_spec *b)
{
	if (a->nkeys != b->nkeys || a->nvals != b->nvals || a->nsort != b->nsort ||
	    a->map_bits != b->map_bits || a->nohitcount != b->nohitcount)
		return false;
	for (unsigned i = 0; i < a->nsort; i++)
		if (a->sort[i].idx != b->sort[i].idx || a->sort[i].descending != b->sort[i].descending)
			return false;
	return fields_match(a->keys, b->keys, a->nkeys) && fields_match(a->vals, b->vals, a->nvals);
}

/* The owner of a new name: the trigger parsed again, without its filter. */
static struct trigger *owner_new(struct event_slot *s, const char *text, char *err,
				 size_t errlen)
{
	char label[2 * TPOINT_NAME_MAX + 2];
	struct filter_field *fields;
	struct hist_error herr;
	struct trigger *o;
	size_t n;
	int ret;

	if (tp_registry_slot_fields(s, &fields, &n, err, errlen) < 0)
		return NULL;
	o = calloc(1, sizeof(*o));
	snprintf(label, sizeof(label), "%s:%s", s->system, s->name);
	ret = o ? tp_hist_parse(text, label, fields, n, &o->spec, &herr) : -ENOMEM;
	free(fields);
	if (ret < 0) {
		snprintf(err, errlen, "%s", o ? herr.msg : tp_hist_err_text(HIST_ERR_NOMEM));
		free(o);
		return NULL;
	}
	tp_filter_free(o->spec->filter); /* each member judges its own */
	o->spec->filter = NULL;
	o->kind = TRIGGER_HIST;
	o->count = -1;
	o->id = tp_trigger_new_id();
	o->paused = o->spec->pause;
	return o;
}

struct trigger *tp_trigger_named_new(struct event_slot *s, const char *text,
				     struct hist_spec *spec, char *info, char *err, size_t errlen)
{
	struct named *nd = find(spec->name), *grown;
	struct trigger *m;

	if (nd && !specs_match(nd->owner->spec, spec)) {
		struct hist_error herr;
		const char *at = strstr(text, "name=");

		tp_hist_error_at(&herr, HIST_ERR_NAMED_MISMATCH, at ? (unsigned)(at - text) + 6 : 0,
				 "'%s'", spec->name);
		snprintf(err, errlen, "%s", herr.msg);
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_NOMEM));
		errno = ENOMEM;
		return NULL;
	}
	if (!nd) {
		grown = realloc(named, (nnamed + 1) * sizeof(*named));
		if (grown)
			named = grown;
		if (!grown || !(named[nnamed].owner = owner_new(s, text, err, errlen))) {
			if (!grown)
				snprintf(err, errlen, "%s", tp_hist_err_text(HIST_ERR_NOMEM));
			free(m);
			errno = ENOMEM;
			return NULL;
		}
		nd = &named[nnamed++];
		nd->members = 0;
	}
	nd->members++;
	m->kind = TRIGGER_NAMED;
	m->count = -1;
	m->id = tp_trigger_new_id();
	m->spec = spec;
	m->info = info;
	m->shared = nd->owner;
	return m;
}

void tp_trigger_named_release(struct trigger *member)
{
	for (unsigned i = 0; i < nnamed; i++)
		if (named[i].owner == member->shared && !--named[i].members) {
			tp_registry_retire(named[i].owner, tp_trigger_free);
			named[i] = named[--nnamed];
			return;
		}
}
