/* SPDX-License-Identifier: MIT */
/*
 * The filters attached to events (tpoint_set_filter(), TPOINT_FILTER, `tpoint filter`):
 * compiled by filter.c against the event's fields, published in its descriptor, and kept by
 * name for an event that is not registered yet. Under the registry lock (registry.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "format.h"
#include "internal.h"
#include "registry.h"

/* Filters by event name, kept so that an event loaded later (dlopen) gets its filter. */
struct wanted_filter {
	char *event; /* "system:name" */
	char *expr;
};
static struct wanted_filter *wanted;
static size_t nwanted;

static int slot_compile_filter(struct event_slot *s, const char *expr, struct filter **out,
			       char *err, size_t errlen)
{
	const struct tpoint_meta_class *c = s->class_meta;
	const struct tpoint_meta_field *mf = tpoint_meta_class_fields(c);
	const char *names = tpoint_meta_class_field_strings(c);
	struct filter_field *f = calloc(c->nfields + 4, sizeof(*f));
	uint16_t *off = calloc(c->nfields + 1, sizeof(*off));
	char name[2 * TPOINT_NAME_MAX + 2];
	size_t n = 0;
	int ret;

	if (!f || !off) {
		free(f);
		free(off);
		return -ENOMEM;
	}
	if (tpoint_meta_layout(c, off) < 0) {
		free(f);
		free(off);
		snprintf(err, errlen, "%s:%s: record layout not understood", s->system, s->name);
		return -EINVAL;
	}
	f[n++] = (struct filter_field){ "common_type", 0, 2, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_flags", 2, 1, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_preempt_count", 3, 1, 0, FILTER_NUM };
	f[n++] = (struct filter_field){ "common_pid", 4, 4, 1, FILTER_NUM };
	for (uint32_t i = 0; i < c->nfields; i++) {
		struct filter_field *x = &f[n];
		const char *type = names, *field = tpoint_meta_str_next(type);
		bool is_char = !strcmp(type, "char") || !strcmp(type, "const char") ||
			       !strcmp(type, "unsigned char");

		names = tpoint_meta_str_next(field);
		x->name = field;
		x->offset = off[i];
		x->size = mf[i].size;
		x->is_signed = mf[i].is_signed;
		if (mf[i].kind == TPOINT_FIELD_DYNAMIC && is_char)
			x->kind = FILTER_STR_DYN;
		else if (mf[i].kind == TPOINT_FIELD_ARRAY && is_char)
			x->kind = FILTER_STR_ARRAY;
		else if (mf[i].kind == TPOINT_FIELD_PLAIN &&
			 (x->size == 1 || x->size == 2 || x->size == 4 || x->size == 8))
			x->kind = FILTER_NUM;
		else
			continue; /* structs and other arrays cannot be compared */
		n++;
	}
	snprintf(name, sizeof(name), "%s:%s", s->system, s->name);
	ret = tp_filter_compile(expr, name, f, n, out, err, errlen);
	free(f);
	free(off);
	return ret;
}

/* Publish a slot's wanted filter (or none) to its event. */
void tp_registry_slot_apply_filter(struct event_slot *s)
{
	char full[2 * TPOINT_NAME_MAX + 2], err[512];
	struct filter *f = NULL;

	if (!s->ev || (!nwanted && !__atomic_load_n(&s->ev->filter, __ATOMIC_RELAXED)))
		return; /* nothing to publish, nor to take back: the usual registration */
	snprintf(full, sizeof(full), "%s:%s", s->system, s->name);
	/* Its own name with the system first; a bare name (TPOINT_FILTER='name:EXPR') else. */
	const struct wanted_filter *w = NULL;

	for (size_t i = 0; i < nwanted && !w; i++)
		if (!strcmp(wanted[i].event, full))
			w = &wanted[i];
	for (size_t i = 0; i < nwanted && !w; i++)
		if (!strcmp(wanted[i].event, s->name))
			w = &wanted[i];
	if (w && w->expr && slot_compile_filter(s, w->expr, &f, err, sizeof(err)) < 0) {
		tp_err("filter of %s not set: %s", full, err);
		f = NULL;
	}
	/*
	 * Release: the compiled filter is complete before a hit can load it. The one it
	 * replaces is not freed: a thread may be evaluating it right now (probe sets alike).
	 */
	__atomic_store_n(&s->ev->filter, f, __ATOMIC_RELEASE);
	tp_registry_slot_apply(s); /* TPOINT_ENABLED_FILTER follows the filter */
}

/*
 * Remember (or, for "", forget) the filter of "system:name" or of a bare "name". A cleared
 * "system:name" stays, without an expression: it says "none" over a bare name's filter.
 * Under the lock.
 */
static int wanted_put(const char *full, const char *expr)
{
	bool keep_cleared = strchr(full, ':') != NULL;

	size_t i;

	for (i = 0; i < nwanted; i++)
		if (!strcmp(wanted[i].event, full))
			break;
	if (i == nwanted) {
		struct wanted_filter *n;

		if (!*expr && !keep_cleared)
			return 0;
		n = realloc(wanted, (nwanted + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		wanted = n;
		wanted[nwanted].event = strdup(full);
		wanted[nwanted].expr = NULL;
		if (!wanted[nwanted].event)
			return -ENOMEM;
		nwanted++;
	}
	free(wanted[i].expr);
	wanted[i].expr = *expr ? strdup(expr) : NULL;
	if (!wanted[i].expr && (*expr || !keep_cleared)) {
		free(wanted[i].event);
		wanted[i] = wanted[--nwanted];
		if (*expr)
			return -ENOMEM;
	}
	return 0;
}

int tp_registry_set_filter(const char *event, const char *expr, char *err, size_t errlen)
{
	char full[2 * TPOINT_NAME_MAX + 2];
	struct event_slot *s = NULL;
	struct filter *f = NULL;
	int ret;

	tp_registry_lock();
	for (uint32_t k = 0; k < tp_nslots && !s; k++) {
		snprintf(full, sizeof(full), "%s:%s", tp_slots[k].system, tp_slots[k].name);
		if (!strcmp(full, event) || !strcmp(tp_slots[k].name, event))
			s = &tp_slots[k];
	}
	if (!s) {
		tp_registry_unlock();
		snprintf(err, errlen, "no event '%s' in this process", event);
		return -ENOENT;
	}
	snprintf(full, sizeof(full), "%s:%s", s->system, s->name);
	if (*expr && s->ev) {
		/* Compile now, to answer with the error; the slot keeps only valid filters. */
		ret = slot_compile_filter(s, expr, &f, err, errlen);
		if (ret < 0) {
			tp_registry_unlock();
			return ret;
		}
		tp_filter_free(f);
	}
	ret = wanted_put(full, expr);
	if (ret == 0)
		tp_registry_slot_apply_filter(s);
	tp_registry_unlock();
	return ret;
}

int tp_registry_want_filter(const char *event, const char *expr, char *err, size_t errlen)
{
	char full[2 * TPOINT_NAME_MAX + 2];
	int ret;

	(void)err;
	(void)errlen;
	tp_registry_lock();
	ret = wanted_put(event, expr);
	for (uint32_t k = 0; ret == 0 && k < tp_nslots; k++) {
		snprintf(full, sizeof(full), "%s:%s", tp_slots[k].system, tp_slots[k].name);
		if (!strcmp(full, event) || !strcmp(tp_slots[k].name, event))
			tp_registry_slot_apply_filter(&tp_slots[k]);
	}
	tp_registry_unlock();
	return ret;
}

TPOINT_EXPORT int tpoint_set_filter(const char *event, const char *expr)
{
	char err[512];
	int ret;

	if (!event || !expr)
		return -EINVAL;
	ret = tp_registry_set_filter(event, expr, err, sizeof(err));
	if (ret < 0)
		tp_err("%s", err);
	return ret;
}

const char *tp_registry_slot_filter_text(const struct event_slot *s)
{
	const struct filter *f = s->ev ? __atomic_load_n((struct filter **)&s->ev->filter,
							 __ATOMIC_ACQUIRE)
				       : NULL;

	return f ? tp_filter_text(f) : "";
}
