/* SPDX-License-Identifier: MIT */
/*
 * The registry: every event of every loaded object, by dense index. An event keeps its slot
 * (and so its id and counters) when its object is unloaded, and gets it back when the object
 * is loaded again. Slots hold copies of the names and the format text, so nothing here points
 * into an object after dlclose.
 *
 * The enable word each call site tests is derived from three wishes: the event matches an
 * enabled pattern, a recording runs, and in-process probes are registered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "format.h"
#include "internal.h"

/* Pulls session.o, and its constructor, into programs linked with libtpoint.a (internal.h). */
__attribute__((used)) static const char *const pull_in_session = &tp_session_linked;

static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct event_slot *slots;
static uint32_t nslots, slots_cap;
static struct tpoint_enum *enums;
static size_t nenums, enums_cap;
static bool recording;

struct pattern {
	char *glob;
	bool on;
	bool from_env;
	bool matched;
};
static struct pattern *patterns;
static size_t npatterns, patterns_cap;
static char *client_globs; /* tp_registry_set_client(): comma-separated, or NULL */
/* A TRACE_EVENT_FN event waits for its reg() or unreg() (run_fn_calls()). */
static bool fn_calls_pending;

static void run_fn_calls(void);

void tp_registry_lock(void)
{
	pthread_mutex_lock(&reg_mutex);
}

void tp_registry_unlock(void)
{
	pthread_mutex_unlock(&reg_mutex);
}

/* Whoever switched a TRACE_EVENT_FN event on or off calls its reg() or unreg() here. */
void tp_registry_run_fn_calls(void)
{
	if (__atomic_load_n(&fn_calls_pending, __ATOMIC_RELAXED))
		run_fn_calls();
}

uint32_t tp_registry_count(void)
{
	return __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
}

struct event_slot *tp_registry_slot(uint32_t index)
{
	return index < nslots ? &slots[index] : NULL;
}

struct event_slot *tp_registry_slot_by_id(uint16_t id)
{
	return id >= TPOINT_FIRST_ID ? tp_registry_slot(id - TPOINT_FIRST_ID) : NULL;
}

/*
 * Under the lock: is the slot's event selected (by a pattern, a client or a probe)? Its
 * reg()/unreg() follow this, not the enable word, which a recording's start and stop also
 * switch: the kernel calls them as an event gains its first user and loses its last.
 */
static bool slot_wants_on(const struct event_slot *s)
{
	return s->ev && (((s->record || s->client) && !s->broken) ||
			 __atomic_load_n(&s->ev->probes, __ATOMIC_RELAXED));
}

/*
 * The one writer of an event's enable word, under the registry lock. The event's jump-label
 * sites follow it, after it: a site that is late either way only sends a hit to the test of
 * the word. Relaxed is enough: a call site that sees the word late misses a hit or two.
 */
static void set_enable_word(struct tpoint_event *ev, uint32_t word)
{
	/*
	 * A TRACE_EVENT_FN event goes on only once its reg() succeeded, and its unreg() runs
	 * once it is off; both later, outside the lock (run_fn_calls()), which then applies
	 * the slot again.
	 */
	if ((ev->reg || ev->unreg) && ev->registered && ev->index < nslots &&
	    slots[ev->index].ev == ev) {
		struct event_slot *s = &slots[ev->index];

		if (word && !s->fn_on) {
			if (!s->fn_failed)
				fn_calls_pending = true;
			word = 0;
		}
		if (!slot_wants_on(s)) {
			s->fn_failed = false;
			if (s->fn_on)
				fn_calls_pending = true;
		}
	}
	uint32_t old = __atomic_load_n(&ev->enabled, __ATOMIC_RELAXED);

	word &= TPOINT_ENABLED_MASK;
	do {
		if ((old & TPOINT_ENABLED_MASK) == word)
			return;
		/* The high half is the USDT semaphore, the kernel's: kept as it is now. */
	} while (!__atomic_compare_exchange_n(&ev->enabled, &old, (old & ~TPOINT_ENABLED_MASK) | word,
					      false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	tp_jump_event_changed(ev);
}

static void slot_apply(struct event_slot *s)
{
	uint32_t want = 0;

	if (!s->ev)
		return;
	/* Selected but refused: said once, even without TPOINT_DEBUG, never silently off. */
	if ((s->record || s->client) && s->broken && !s->refusal_said) {
		s->refusal_said = true;
		tp_notice("event %s:%s is selected but stays off: %s", s->system, s->name,
			  s->refused ? s->refused : "refused");
	}
	if ((s->record || s->client) && recording && !s->broken) {
		want |= TPOINT_ENABLED_RECORD;
		/* Only a recording event asks its filter: the bit alone would send hits of an
		 * event that is off to its condition. */
		if (__atomic_load_n(&s->ev->filter, __ATOMIC_RELAXED))
			want |= TPOINT_ENABLED_FILTER;
	}
	if (__atomic_load_n(&s->ev->probes, __ATOMIC_RELAXED))
		want |= TPOINT_ENABLED_PROBES;
	set_enable_word(s->ev, want);
}

/*
 * The reg() or unreg() calls that set_enable_word() left for later, made without the lock by
 * the thread that switched the event. One thread calls one event's function at a time
 * (fn_busy); a switch meanwhile is caught up when the call returns, as the slot is applied
 * again. Not on any hot path: only enabling and disabling come here.
 */
static void run_fn_calls(void)
{
	for (;;) {
		struct event_slot *s = NULL;
		int (*reg)(void) = NULL;
		void (*unreg)(void) = NULL;
		bool want = false;
		uint32_t i;
		int ret = 0;

		pthread_mutex_lock(&reg_mutex);
		fn_calls_pending = false;
		for (i = 0; i < nslots; i++) {
			struct event_slot *c = &slots[i];

			if ((!c->reg && !c->unreg) || c->fn_busy)
				continue;
			want = slot_wants_on(c);
			if ((want && !c->fn_on && !c->fn_failed) || (!want && c->fn_on)) {
				s = c;
				break;
			}
		}
		if (!s) {
			pthread_mutex_unlock(&reg_mutex);
			return;
		}
		s->fn_busy = true;
		reg = s->reg;
		unreg = s->unreg;
		pthread_mutex_unlock(&reg_mutex);

		if (want && reg)
			ret = reg();
		else if (!want && unreg)
			unreg();

		pthread_mutex_lock(&reg_mutex);
		s = &slots[i]; /* the table may have grown meanwhile */
		s->fn_busy = false;
		if (want && ret) {
			s->fn_failed = true;
			s->fn_error = ret;
			tp_notice("event %s:%s stays off: its reg function returned %d", s->system,
				  s->name, ret);
		} else {
			s->fn_on = want;
			if (want)
				s->fn_error = 0;
		}
		slot_apply(s);
		pthread_mutex_unlock(&reg_mutex);
	}
}

static bool glob_matches(const char *glob, const char *system, const char *name)
{
	const char *colon = strchr(glob, ':');

	if (colon) {
		char sys[TPOINT_NAME_MAX * 2];
		size_t n = (size_t)(colon - glob);

		if (n >= sizeof(sys))
			return false;
		memcpy(sys, glob, n);
		sys[n] = 0;
		return fnmatch(sys, system, 0) == 0 && fnmatch(colon + 1, name, 0) == 0;
	}
	return fnmatch(glob, system, 0) == 0 || fnmatch(glob, name, 0) == 0;
}

/* The last pattern that matches decides, as when the user typed them in order. */
static void slot_apply_patterns(struct event_slot *s)
{
	for (size_t i = 0; i < npatterns; i++)
		if (glob_matches(patterns[i].glob, s->system, s->name)) {
			s->record = patterns[i].on;
			patterns[i].matched = true;
		}
}

/* Does a glob of the attached client's list select the slot's event? */
static bool slot_client_matches(const struct event_slot *s)
{
	const char *p = client_globs;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		char glob[2 * TPOINT_NAME_MAX + 2];

		if (n < sizeof(glob)) {
			memcpy(glob, p, n);
			glob[n] = 0;
			if (glob_matches(glob, s->system, s->name))
				return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

static void add_enums(const char *begin, const char *end)
{
	const char *cur = begin;
	const struct tpoint_meta_hdr *h;

	while (tpoint_meta_next(&cur, end, &h) > 0) {
		const struct tpoint_meta_enum *e = (const struct tpoint_meta_enum *)h;
		bool dup = false;

		if (h->kind != TPOINT_META_ENUM)
			continue;
		for (size_t i = 0; i < nenums && !dup; i++)
			dup = !strcmp(enums[i].system, e->system) && !strcmp(enums[i].name, e->name);
		if (dup)
			continue;
		if (nenums == enums_cap) {
			size_t cap = enums_cap ? enums_cap * 2 : 16;
			struct tpoint_enum *n = realloc(enums, cap * sizeof(*n));

			if (!n)
				return;
			enums = n;
			enums_cap = cap;
		}
		enums[nenums].system = strdup(e->system);
		enums[nenums].name = strdup(e->name);
		enums[nenums].value = e->value;
		if (enums[nenums].system && enums[nenums].name)
			nenums++;
	}
}

/* ---- filters ---- */

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
	const struct tpoint_meta_class *c = s->ev->class_meta;
	const struct tpoint_meta_field *mf = tpoint_meta_class_fields(c);
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
		bool is_char = !strcmp(mf[i].type, "char") || !strcmp(mf[i].type, "const char") ||
			       !strcmp(mf[i].type, "unsigned char");

		x->name = mf[i].name;
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
static void slot_apply_filter(struct event_slot *s)
{
	char full[2 * TPOINT_NAME_MAX + 2], err[512];
	struct filter *f = NULL;

	if (!s->ev)
		return;
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
	slot_apply(s); /* TPOINT_ENABLED_FILTER follows the filter */
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
	for (uint32_t k = 0; k < nslots && !s; k++) {
		snprintf(full, sizeof(full), "%s:%s", slots[k].system, slots[k].name);
		if (!strcmp(full, event) || !strcmp(slots[k].name, event))
			s = &slots[k];
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
		slot_apply_filter(s);
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
	for (uint32_t k = 0; ret == 0 && k < nslots; k++) {
		snprintf(full, sizeof(full), "%s:%s", slots[k].system, slots[k].name);
		if (!strcmp(full, event) || !strcmp(slots[k].name, event))
			slot_apply_filter(&slots[k]);
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

static const char *slot_filter_text(const struct event_slot *s)
{
	const struct filter *f = s->ev ? __atomic_load_n((struct filter **)&s->ev->filter,
							 __ATOMIC_ACQUIRE)
				       : NULL;

	return f ? tp_filter_text(f) : "";
}

/* ---- text for the control channel ---- */

static void text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !*cap)
		return;
	if (*len + (size_t)n + 1 > *cap) {
		size_t c = *cap * 2 + (size_t)n;
		char *b = realloc(*buf, c);

		if (!b) {
			*cap = 0; /* give up: the caller sends what it has */
			return;
		}
		*buf = b;
		*cap = c;
	}
	va_start(ap, fmt);
	vsnprintf(*buf + *len, *cap - *len, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

int tp_registry_enabled_count(void)
{
	int n = 0;

	tp_registry_lock();
	for (uint32_t i = 0; i < nslots; i++)
		n += slots[i].record;
	tp_registry_unlock();
	return n;
}

void tp_registry_describe(char **buf, size_t *len)
{
	size_t cap = 4096;

	*buf = malloc(cap);
	*len = 0;
	if (!*buf)
		return;
	tp_registry_lock();
	for (uint32_t i = 0; i < nslots; i++) {
		char fn_why[64] = "";

		if (slots[i].fn_failed)
			snprintf(fn_why, sizeof(fn_why), "reg function returned %d",
				 slots[i].fn_error);
		text_add(buf, len, &cap, "%u\t%s:%s\t%d\t%s\t%s\t%s\n", slots[i].id,
			 slots[i].system, slots[i].name, slots[i].record, slots[i].condition,
			 slot_filter_text(&slots[i]),
			 slots[i].broken ? (slots[i].refused ? slots[i].refused : "refused")
					 : fn_why);
	}
	tp_registry_unlock();
}

void tp_registry_formats(char **buf, size_t *len)
{
	size_t cap = 16384;

	*buf = malloc(cap);
	*len = 0;
	if (!*buf)
		return;
	tp_registry_lock();
	for (uint32_t i = 0; i < nslots; i++)
		text_add(buf, len, &cap, "%s\n", slots[i].format);
	tp_registry_unlock();
}

void tp_registry_stats_text(char **buf, size_t *len)
{
	int n = tpoint_stats(NULL, 0);
	struct tpoint_event_stats *st = n > 0 ? calloc((size_t)n, sizeof(*st)) : NULL;
	size_t cap = 4096;

	*len = 0;
	*buf = malloc(cap);
	if (!*buf || !st) {
		free(st);
		return;
	}
	n = tpoint_stats(st, n);
	for (int i = 0; i < n; i++)
		text_add(buf, len, &cap, "%s:%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%u\n",
			 st[i].system, st[i].name, (unsigned long long)st[i].hits,
			 (unsigned long long)st[i].cond_skipped, (unsigned long long)st[i].filtered,
			 (unsigned long long)st[i].recorded, (unsigned long long)st[i].lost,
			 st[i].condition, st[i].usdt);
	free(st);
}

static struct event_slot *slot_find(const char *system, const char *name)
{
	for (uint32_t i = 0; i < nslots; i++)
		if (!strcmp(slots[i].system, system) && !strcmp(slots[i].name, name))
			return &slots[i];
	return NULL;
}

static struct event_slot *slot_new(void)
{
	if (nslots == TPOINT_MAX_EVENTS)
		return NULL;
	if (nslots == slots_cap) {
		/*
		 * Grown under the lock; slots are only read under the lock or, for the count,
		 * after an acquire load of nslots, and never through a saved pointer.
		 */
		uint32_t cap = slots_cap ? slots_cap * 2 : 64;
		struct event_slot *n = realloc(slots, cap * sizeof(*n));

		if (!n)
			return NULL;
		slots = n;
		slots_cap = cap;
	}
	memset(&slots[nslots], 0, sizeof(slots[0]));
	return &slots[nslots];
}

static void refuse_event(const struct tpoint_meta_event *m, unsigned abi)
{
	tp_err("event %s:%s was built for tpoint ABI %u, this library has %u; not registered",
	       m->system, m->name, abi, TPOINT_ABI);
}

static void register_event(struct tpoint_event *ev)
{
	const struct tpoint_meta_event *m = ev->meta;
	const struct tpoint_meta_class *c = ev->class_meta;
	struct event_slot *s;
	char why[256];
	const char *print;
	char *subst;
	uint32_t index;

	if (ev->abi != TPOINT_ABI) {
		refuse_event(m, ev->abi);
		return;
	}
	s = slot_find(m->system, m->name);
	if (s && s->ev) {
		tp_err("event %s:%s is defined twice (two objects define it); the second is ignored",
		       m->system, m->name);
		return;
	}
	if (!s) {
		s = slot_new();
		if (!s) {
			tp_err("event %s:%s not registered: more than %u events", m->system, m->name,
			       TPOINT_MAX_EVENTS);
			return;
		}
		index = nslots;
		s->id = (uint16_t)(TPOINT_FIRST_ID + index);
		snprintf(s->system, sizeof(s->system), "%s", m->system);
		snprintf(s->name, sizeof(s->name), "%s", m->name);
		s->condition = strdup(tpoint_meta_event_condition(m));
		s->format = tpoint_format_build(c, m, s->id, enums, nenums);
		if (!s->condition || !s->format) {
			tp_err("event %s:%s not registered: its format could not be built (%s)",
			       m->system, m->name, strerror(errno ? errno : EINVAL));
			free(s->condition);
			free(s->format);
			return;
		}
		print = tpoint_meta_event_print(m);
		if (!*print)
			print = tpoint_meta_class_print(c);
		/* Checked as the reader gets it: TRACE_DEFINE_ENUM/SIZEOF names replaced. */
		subst = tpoint_print_fmt_subst(print, m->system, enums, nenums);
		if (!subst || tpoint_print_fmt_check(subst, why, sizeof(why)) < 0) {
			if (!subst)
				snprintf(why, sizeof(why), "out of memory");
			s->broken = true;
			s->refused = strdup(why);
			tp_err("event %s:%s stays disabled: libtraceevent cannot render its TP_printk: %s",
			       m->system, m->name, why);
		}
		free(subst);
		/* Publish the slot (release) only once it is complete. */
		__atomic_store_n(&nslots, nslots + 1, __ATOMIC_RELEASE);
	} else {
		index = (uint32_t)(s - slots);
	}
	s->ev = ev;
	s->reg = ev->reg;
	s->unreg = ev->unreg;
	ev->id = s->id;
	ev->index = index;
	ev->registered = 1;
	slot_apply_filter(s);
	slot_apply_patterns(s);
	s->client = slot_client_matches(s);
	slot_apply(s);
}

/*
 * An object built for another ABI: its events stay off, said by name where its struct
 * tpoint_event is known to have this layout (ABI 1 on: only the meaning of fields changed),
 * by count otherwise.
 */
static void refuse_module(const struct tpoint_module *mod)
{
	size_t n = (size_t)(mod->events_end - mod->events_begin);

	if (mod->abi >= 1 && mod->abi < TPOINT_ABI) {
		for (struct tpoint_event *const *e = mod->events_begin; e < mod->events_end; e++)
			if (*e)
				refuse_event((*e)->meta, mod->abi);
		return;
	}
	tp_err("an object built for tpoint ABI %u (this library has %u) was not registered: "
	       "its %zu event%s off", mod->abi, TPOINT_ABI, n, n == 1 ? " stays" : "s stay");
}

TPOINT_EXPORT void tpoint_module_register(const struct tpoint_module *mod)
{
	if (!mod || !mod->events_begin)
		return;
	if (mod->abi != TPOINT_ABI) {
		tp_registry_lock();
		refuse_module(mod);
		tp_registry_unlock();
		return;
	}
	tp_registry_lock();
	add_enums(mod->meta_begin, mod->meta_end);
	for (struct tpoint_event *const *e = mod->events_begin; e < mod->events_end; e++)
		if (*e && !(*e)->registered)
			register_event(*e);
	tp_registry_unlock();
	/* TPOINT_EVENTS names events before they register: they record from here on. */
	tp_session_keep_enabled();
	tp_registry_run_fn_calls();
}

TPOINT_EXPORT void tpoint_module_unregister(const struct tpoint_module *mod)
{
	if (!mod || mod->abi != TPOINT_ABI || !mod->events_begin)
		return;
	tp_registry_lock();
	for (struct tpoint_event *const *e = mod->events_begin; e < mod->events_end; e++) {
		struct tpoint_event *ev = *e;

		if (!ev || !ev->registered)
			continue;
		set_enable_word(ev, 0);
		if (ev->index < nslots && slots[ev->index].ev == ev) {
			slots[ev->index].ev = NULL;
			/* Its unreg() runs as the lock is released, before the object goes. */
			if (slots[ev->index].fn_on)
				fn_calls_pending = true;
		}
		ev->registered = 0;
	}
	tp_registry_unlock();
	tp_registry_run_fn_calls();
}

static int check_pattern(const char *p, size_t n)
{
	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n')
			return -EINVAL;
	return 0;
}

/* Every item of a comma-separated list, before any is used: 0 or -EINVAL. */
static int check_pattern_list(const char *list)
{
	const char *p = list;

	for (const char *q = list;; q++)
		if (*q == ',' || !*q) {
			if (check_pattern(p, (size_t)(q - p)) < 0)
				return -EINVAL;
			if (!*q)
				return 0;
			p = q + 1;
		}
}

static int add_patterns(const char *list, bool on, bool from_env)
{
	int matched = 0;
	const char *p = list;

	if (!list)
		return -EINVAL;
	/* Validate the whole list first: a bad item changes nothing. */
	if (check_pattern_list(list) < 0)
		return -EINVAL;
	size_t first = npatterns;

	p = list;
	for (const char *q = list;; q++) {
		if (*q != ',' && *q)
			continue;
		if (npatterns == patterns_cap) {
			size_t cap = patterns_cap ? patterns_cap * 2 : 8;
			struct pattern *n = realloc(patterns, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			patterns = n;
			patterns_cap = cap;
		}
		char *glob = strndup(p, (size_t)(q - p));

		if (!glob)
			return -ENOMEM;
		/*
		 * The last matching pattern decides, so an earlier one with the same glob can
		 * never decide again: drop it, so that a program switched on and off for
		 * weeks keeps a list as long as its distinct globs.
		 */
		for (size_t k = 0; k < npatterns; k++)
			if (!strcmp(patterns[k].glob, glob)) {
				free(patterns[k].glob);
				memmove(&patterns[k], &patterns[k + 1],
					(npatterns - k - 1) * sizeof(*patterns));
				npatterns--;
				first -= k < first;
				break;
			}
		struct pattern *pat = &patterns[npatterns];

		pat->glob = glob;
		pat->on = on;
		pat->from_env = from_env;
		pat->matched = false;
		npatterns++;
		if (!*q)
			break;
		p = q + 1;
	}
	/* Count the events these patterns name; all the patterns decide each one's state. */
	for (uint32_t i = 0; i < nslots; i++) {
		bool hit = false;

		for (size_t k = first; k < npatterns && !hit; k++)
			hit = glob_matches(patterns[k].glob, slots[i].system, slots[i].name);
		if (hit) {
			matched++;
			slot_apply_patterns(&slots[i]);
			slot_apply(&slots[i]);
		}
	}
	return matched;
}

int tp_registry_enable_patterns(const char *list, bool on, bool from_env)
{
	int ret;

	tp_registry_lock();
	ret = add_patterns(list, on, from_env);
	tp_registry_unlock();
	return ret;
}

TPOINT_EXPORT int tpoint_enable(const char *list)
{
	int ret;

	tp_registry_lock();
	ret = add_patterns(list, true, false);
	tp_registry_unlock();
	if (ret > 0)
		tp_session_keep_enabled(); /* enabled means recording, in memory at least */
	tp_registry_run_fn_calls();
	return ret;
}

TPOINT_EXPORT int tpoint_disable(const char *list)
{
	int ret;

	tp_registry_lock();
	ret = add_patterns(list, false, false);
	tp_registry_unlock();
	tp_registry_run_fn_calls();
	return ret;
}

int tp_registry_set_client(const char *globs)
{
	char *copy = NULL;
	int matched = 0;

	if (globs) {
		if (check_pattern_list(globs) < 0)
			return -EINVAL;
		copy = strdup(globs);
		if (!copy)
			return -ENOMEM;
	}
	tp_registry_lock();
	free(client_globs);
	client_globs = copy;
	for (uint32_t i = 0; i < nslots; i++) {
		slots[i].client = slot_client_matches(&slots[i]);
		matched += slots[i].client;
		slot_apply(&slots[i]);
	}
	tp_registry_unlock();
	return matched;
}

void tp_registry_apply_recording(bool on)
{
	tp_registry_lock();
	recording = on;
	for (uint32_t i = 0; i < nslots; i++)
		slot_apply(&slots[i]);
	tp_registry_unlock();
}

bool tp_registry_wants_recording(void)
{
	bool want = false;

	tp_registry_lock();
	for (uint32_t i = 0; i < nslots && !want; i++)
		want = slots[i].ev && slots[i].record && !slots[i].broken;
	tp_registry_unlock();
	return want;
}

void tp_registry_report_unmatched(void)
{
	tp_registry_lock();
	for (size_t i = 0; i < npatterns; i++)
		if (patterns[i].from_env && !patterns[i].matched)
			tp_warn("TPOINT_EVENTS: '%s' matches no event of this program",
				patterns[i].glob);
	tp_registry_unlock();
}

/*
 * `TPOINT_RECORD=trace.dat ./app` without TPOINT_EVENTS, or with a glob that names nothing of
 * the program, wrote a file with no events in it and said nothing: the user finds out in the
 * report, much later. It is the one case where the library speaks unasked: a recording was
 * asked for, it cannot hold anything, and there is no tool around to say so.
 */
void tp_registry_say_nothing_enabled(const char *file)
{
	const char *env = getenv("TPOINT_EVENTS");
	bool any = false, refused = false;

	tp_registry_lock();
	for (uint32_t i = 0; i < nslots && !any; i++) {
		any = slots[i].record && !slots[i].broken;
		refused |= slots[i].record && slots[i].broken;
	}
	tp_registry_unlock();
	if (any)
		return;
	if (!env || !*env)
		tp_notice("TPOINT_RECORD=%s: no event was enabled (TPOINT_EVENTS is not set), so the "
		       "file holds none", file);
	else if (refused)
		tp_notice("TPOINT_RECORD=%s: TPOINT_EVENTS='%s' matches only events that stay off (their "
		       "TP_printk cannot be rendered; see `tpoint list --check`), so the file holds "
		       "none", file, env);
	else
		tp_notice("TPOINT_RECORD=%s: TPOINT_EVENTS='%s' matches no event of this program, so the "
		       "file holds none", file, env);
}

void tp_registry_after_fork(void)
{
	/* The child's mutex may have been held by a thread that no longer exists. */
	pthread_mutex_init(&reg_mutex, NULL);
	/* A client attached to the parent is the parent's: none records the child. */
	free(client_globs);
	client_globs = NULL;
	for (uint32_t i = 0; i < nslots; i++) {
		slots[i].client = false;
		slot_apply(&slots[i]);
	}
}

/*
 * The size of the struct as the first version declared it (x86-64, arm64): the least a
 * caller may ask for, and what callers of the first version's tpoint_stats() have.
 */
#define EVENT_STATS_V1_SIZE 184
_Static_assert(sizeof(struct tpoint_event_stats) >= EVENT_STATS_V1_SIZE,
	       "the struct only grows at its end");

TPOINT_EXPORT int tpoint_stats_sized(struct tpoint_event_stats *out, int max, size_t size)
{
	int n;

	if (max < 0 || (max > 0 && !out) || size < EVENT_STATS_V1_SIZE)
		return -EINVAL;
	tp_registry_lock();
	n = (int)nslots;
	for (int i = 0; i < n && i < max; i++) {
		struct tpoint_counters c;
		struct tpoint_event_stats st = { .enabled = slots[i].record };

		/* The object of an event is loaded while its slot has it (under the lock). */
		if (slots[i].ev)
			st.usdt = __atomic_load_n(&slots[i].ev->enabled, __ATOMIC_RELAXED) >>
				  TPOINT_ENABLED_USDT_SHIFT;

		tp_counters_sum((uint32_t)i, &c);
		memcpy(st.system, slots[i].system, sizeof(st.system));
		memcpy(st.name, slots[i].name, sizeof(st.name));
		st.condition = slots[i].condition;
		st.cond_skipped = c.cond_skipped;
		st.filtered = c.filtered;
		st.lost = c.lost;
		st.recorded = c.recorded;
		st.hits = st.cond_skipped + st.filtered + st.recorded + st.lost;
		tp_copy_sized((char *)out + (size_t)i * size, size, &st, sizeof(st));
	}
	tp_registry_unlock();
	return n;
}

/* Programs built against the first version: its struct is this one. */
TPOINT_EXPORT int(tpoint_stats)(struct tpoint_event_stats *out, int max)
{
	return tpoint_stats_sized(out, max, EVENT_STATS_V1_SIZE);
}

TPOINT_EXPORT int tpoint_probe_register(struct tpoint_event *ev, void (*func)(void), void *data)
{
	struct tpoint_probe_set *old, *set;
	uint32_t n;

	if (!ev || !func)
		return -EINVAL;
	tp_registry_lock();
	old = ev->probes;
	n = old ? old->count : 0;
	for (uint32_t i = 0; i < n; i++)
		if (old->probe[i].func == func && old->probe[i].data == data) {
			tp_registry_unlock();
			return -EEXIST;
		}
	set = malloc(sizeof(*set) + (n + 1) * sizeof(set->probe[0]));
	if (!set) {
		tp_registry_unlock();
		return -ENOMEM;
	}
	set->count = n + 1;
	if (n)
		memcpy(set->probe, old->probe, n * sizeof(set->probe[0]));
	set->probe[n].func = func;
	set->probe[n].data = data;
	/* Release: the set is complete before a hit can load it. */
	__atomic_store_n(&ev->probes, set, __ATOMIC_RELEASE);
	set_enable_word(ev, (ev->enabled & TPOINT_ENABLED_MASK) | TPOINT_ENABLED_PROBES);
	/*
	 * The old set is not freed: a thread may still be walking it, and nothing tells when it
	 * is done. Registration is rare; this costs a few bytes per change.
	 */
	tp_registry_unlock();
	tp_registry_run_fn_calls();
	return 0;
}

TPOINT_EXPORT int tpoint_probe_unregister(struct tpoint_event *ev, void (*func)(void), void *data)
{
	struct tpoint_probe_set *old, *set = NULL;
	uint32_t n, j = 0;
	int found = -ENOENT;

	if (!ev || !func)
		return -EINVAL;
	tp_registry_lock();
	old = ev->probes;
	n = old ? old->count : 0;
	if (n > 1) {
		set = malloc(sizeof(*set) + (n - 1) * sizeof(set->probe[0]));
		if (!set) {
			tp_registry_unlock();
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (found == -ENOENT && old->probe[i].func == func && old->probe[i].data == data) {
			found = 0;
			continue;
		}
		if (set && j < n - 1)
			set->probe[j++] = old->probe[i];
	}
	if (found < 0) {
		free(set);
		tp_registry_unlock();
		return found;
	}
	if (set)
		set->count = j;
	if (!set)
		set_enable_word(ev, ev->enabled & TPOINT_ENABLED_MASK & ~TPOINT_ENABLED_PROBES);
	__atomic_store_n(&ev->probes, set, __ATOMIC_RELEASE);
	/* The last probe of a TRACE_EVENT_FN event may have been its last user. */
	if (ev->unreg)
		fn_calls_pending = true;
	tp_registry_unlock();
	tp_registry_run_fn_calls();
	return 0;
}
