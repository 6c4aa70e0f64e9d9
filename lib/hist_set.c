/* SPDX-License-Identifier: MIT */
/*
 * hist_set.c - hist triggers working together: variables, references, onmatch() and
 * synthetic events (see hist_set.h).
 *
 * Finding a reference's variable follows the kernel (trace_events_hist.c): a reference in an
 * expression looks at the onmatch() events' triggers first (find_match_var()), then at every
 * trigger with variables, whose events must agree (find_var_file(): "Variable name not
 * unique"); system.event.$var names the event. An action's parameter looks at this trigger's
 * own variables first (find_target_event_var()), then at its onmatch() event's. A hit goes as
 * event_hist_trigger() goes: key, the references to other triggers resolved (a start must have
 * set them; an operand's reference is read once), the entry, this trigger's variables, its
 * own references, the actions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "hist_set.h"
#include "hist_vars.h"

#define SET_DEPTH 4 /* synthetic events made by synthetic events' triggers, at most */

struct set_event {
	char name[2 * HIST_NAME_MAX + 2];
	const struct filter_field *fields;
	size_t nfields;
	struct hist_synth *synth;          /* a synthetic event's definition */
	unsigned ntrig;
	uint8_t trig[HIST_SET_TRIGGERS_MAX];
};

/* A reference, found: the trigger and variable it reads. */
struct set_ref {
	unsigned trigger, var;
	bool self, once;
};

struct set_trigger {
	struct hist_spec *spec;
	int event;
	struct hist_vars *vars;            /* NULL when the trigger defines none */
	struct set_ref refs[HIST_REFS_MAX];
	int synth_event[HIST_ACTIONS_MAX]; /* each action's event */
	bool paused;
	uint64_t var_drops;
	/* What the sets it was rebuilt from counted (tp_hist_set_absorb()), or NULL. */
	struct hist_table *base;
	uint64_t base_var_drops;
};

/* What one level of a hit needs, kept in the context rather than on the thread's stack. */
struct frame {
	uint64_t refs[HIST_REFS_MAX];
	char strs[HIST_REFS_MAX][HIST_STR_VAR_MAX];
	unsigned char key[HIST_KEY_SIZE_MAX];
	unsigned char rec[HIST_SYNTH_REC_MAX];
};

struct hist_ctx {
	int in_use;                        /* a thread holds it (tp_hist_set_context()) */
	bool ready;                        /* its tables made: it was claimed once */
	/* Made when the context is first claimed (atomic: readers merge what is there). */
	struct hist_table *tables[HIST_SET_TRIGGERS_MAX];
	struct frame frames[SET_DEPTH];
};

struct hist_set {
	unsigned ncontexts;
	/*
	 * Atomic: contexts [0, nclaimed) were ever claimed (a claim takes the first free one),
	 * the only ones with tables: the others' pages are never touched.
	 */
	unsigned nclaimed;
	struct hist_ctx *ctx;
	unsigned nevents, ntriggers;
	struct set_event events[HIST_SET_EVENTS_MAX];
	struct set_trigger trig[HIST_SET_TRIGGERS_MAX];
	void (*on_synth)(void *arg, void *user, int event, const void *rec, uint32_t size);
	void *on_synth_arg;
};

struct hist_set *tp_hist_set_new(unsigned contexts)
{
	struct hist_set *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->ncontexts = contexts ? contexts : 1;
	/*
	 * Mapped, not calloc'ed: zero pages touched only by the contexts claimed (calloc may take
	 * a large block from the heap, once glibc raised its mmap threshold, and zero it all).
	 */
	set->ctx = mmap(NULL, set->ncontexts * sizeof(*set->ctx), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (set->ctx == MAP_FAILED) {
		free(set);
		errno = ENOMEM;
		return NULL;
	}
	return set;
}

void tp_hist_set_free(struct hist_set *set)
{
	if (!set)
		return;
	for (unsigned t = 0; t < set->ntriggers; t++) {
		for (unsigned c = 0; c < set->nclaimed; c++)
			tp_hist_table_free(set->ctx[c].tables[t]);
		tp_hist_vars_free(set->trig[t].vars);
		tp_hist_table_free(set->trig[t].base);
		tp_hist_spec_free(set->trig[t].spec);
	}
	for (unsigned e = 0; e < set->nevents; e++)
		free(set->events[e].synth);
	munmap(set->ctx, set->ncontexts * sizeof(*set->ctx));
	free(set);
}

int tp_hist_set_find_event(const struct hist_set *set, const char *name)
{
	for (unsigned e = 0; e < set->nevents; e++)
		if (!strcmp(set->events[e].name, name))
			return (int)e;
	return -1;
}

int tp_hist_set_event(struct hist_set *set, const char *name, const struct filter_field *fields,
		      size_t nfields)
{
	int e = tp_hist_set_find_event(set, name);
	struct set_event *ev;

	if (e >= 0)
		return e;
	if (set->nevents == HIST_SET_EVENTS_MAX || strlen(name) >= sizeof(ev->name)) {
		errno = ENOSPC;
		return -1;
	}
	ev = &set->events[set->nevents];
	strcpy(ev->name, name);
	ev->fields = fields;
	ev->nfields = nfields;
	return (int)set->nevents++;
}

const char *tp_hist_set_event_name(const struct hist_set *set, int event)
{
	return event >= 0 && (unsigned)event < set->nevents ? set->events[event].name : NULL;
}

int tp_hist_set_synthetic(struct hist_set *set, const char *def, struct hist_error *err)
{
	struct hist_synth *s = malloc(sizeof(*s));
	char name[2 * HIST_NAME_MAX + 2];
	int e;

	if (!s) {
		tp_hist_error_at(err, HIST_ERR_NOMEM, 0, NULL);
		return -1;
	}
	if (tp_hist_synth_parse(def, s, err)) {
		free(s);
		return -1;
	}
	snprintf(name, sizeof(name), "%s:%s", HIST_SYNTH_SYSTEM, s->name);
	if (tp_hist_set_find_event(set, name) >= 0 || s->rec_size > HIST_SYNTH_REC_MAX) {
		const char *at = strstr(def, s->name);

		err->code = HIST_ERR_BAD_SYNTH;
		err->column = (unsigned)(at - def) + 1;
		if (s->rec_size > HIST_SYNTH_REC_MAX)
			snprintf(err->msg, sizeof(err->msg), "Too many fields at column %u: '%s' "
				 "(%u bytes a record; at most %u here: four char[N] strings)",
				 err->column, s->name, s->rec_size, HIST_SYNTH_REC_MAX);
		else
			snprintf(err->msg, sizeof(err->msg), "Event already exists at column %u: "
				 "'%s'", err->column, s->name);
		free(s);
		return -1;
	}
	e = tp_hist_set_event(set, name, s->filter_fields, s->nfilter_fields);
	if (e < 0) {
		free(s);
		tp_hist_error_at(err, HIST_ERR_NOMEM, 0, "too many events");
		return -1;
	}
	set->events[e].synth = s;
	return e;
}

const struct hist_synth *tp_hist_set_synth(const struct hist_set *set, int event)
{
	return event >= 0 && (unsigned)event < set->nevents ? set->events[event].synth : NULL;
}

/* ---- finding variables (at trigger time) ---- */

/* The column of a token as the kernel's err_pos() finds it: its first occurrence. */
static unsigned col_of(const struct hist_spec *s, const char *token)
{
	const char *at = *token ? strstr(s->text, token) : NULL;

	return at ? (unsigned)(at - s->text) + 1 : 0;
}

static int var_index(const struct hist_spec *s, const char *name, bool hidden_too)
{
	for (unsigned i = 0; i < s->nvars; i++)
		if (!strcmp(s->vars[i].name, name) && (hidden_too || !s->vars[i].hidden))
			return (int)i;
	return -1;
}

/* find_file_var(): the first trigger of an event with the variable. */
static bool event_var(const struct hist_set *set, int event, const char *name, struct set_ref *r)
{
	const struct set_event *ev = &set->events[event];

	for (unsigned i = 0; i < ev->ntrig; i++) {
		int v = var_index(set->trig[ev->trig[i]].spec, name, false);

		if (v >= 0) {
			r->trigger = ev->trig[i];
			r->var = (unsigned)v;
			return true;
		}
	}
	return false;
}

static int event_of(const struct hist_set *set, const char *system, const char *event)
{
	char name[2 * HIST_NAME_MAX + 2];

	snprintf(name, sizeof(name), "%s:%s", system, event);
	return tp_hist_set_find_event(set, name);
}

/* find_var_file() without a system: the one event whose triggers have the variable. */
static int var_file(const struct hist_set *set, const char *name, bool *not_unique)
{
	int found = -1;

	for (unsigned t = 0; t < set->ntriggers; t++) {
		if (set->trig[t].event == found)
			continue;
		if (var_index(set->trig[t].spec, name, false) >= 0) {
			if (found >= 0) {
				*not_unique = true;
				return -1;
			}
			found = set->trig[t].event;
		}
	}
	return found;
}

/* find_event_var(): 1 found, 0 not, -1 not unique. */
static int find_event_var(const struct hist_set *set, const struct hist_spec *s,
			  const char *system, const char *event, const char *name,
			  struct set_ref *r)
{
	bool not_unique = false;
	int e;

	if (!*system || !*event) {
		/* find_match_var(): the onmatch() events' triggers. */
		struct set_ref found = { 0 };
		bool any = false;

		for (unsigned i = 0; i < s->nactions; i++) {
			e = event_of(set, s->actions[i].system, s->actions[i].event);
			if (e >= 0 && event_var(set, e, name, &found)) {
				if (any && (found.trigger != r->trigger || found.var != r->var))
					return -1;
				*r = found;
				any = true;
			}
		}
		if (any)
			return 1;
		e = var_file(set, name, &not_unique);
	} else {
		e = event_of(set, system, event);
	}
	if (not_unique)
		return -1;
	return e >= 0 && event_var(set, e, name, r);
}

static int refuse(struct hist_error *err, enum hist_err code, unsigned column, const char *token)
{
	if (token)
		tp_hist_error_at(err, code, column, "'%s'", token);
	else
		tp_hist_error_at(err, code, column, NULL);
	errno = EINVAL;
	return -1;
}

/* The variable a reference names, as the kernel finds it (see the top). */
static int resolve_ref(const struct hist_set *set, unsigned self, const struct hist_spec *s,
		       unsigned i, struct set_ref *r, struct hist_error *err)
{
	const struct hist_ref *ref = &s->refs[i];
	int v, found;

	memset(r, 0, sizeof(*r));
	if (ref->param) {
		/* trace_action_find_var(): find_target_event_var() first. */
		bool other = *ref->system && event_of(set, ref->system, ref->event) != set->trig[self].event;

		if (!other && (v = var_index(s, ref->var, true)) >= 0) {
			r->trigger = self;
			r->var = (unsigned)v;
			r->self = true;
			return 0;
		}
		found = find_event_var(set, s, *ref->system ? ref->system
							    : s->actions[ref->action].system,
				       *ref->system ? ref->event : s->actions[ref->action].event,
				       ref->var, r);
		if (found <= 0)
			return refuse(err, found < 0 ? HIST_ERR_VAR_NOT_UNIQUE
						     : HIST_ERR_PARAM_NOT_FOUND,
				      col_of(s, ref->var), ref->var);
	} else {
		found = find_event_var(set, s, ref->system, ref->event, ref->var, r);
		if (found <= 0)
			return refuse(err, found < 0 ? HIST_ERR_VAR_NOT_UNIQUE
						     : HIST_ERR_VAR_NOT_FOUND,
				      col_of(s, ref->var), ref->var);
	}
	r->once = ref->read_once;
	r->self = r->trigger == self;
	/* A reference looks the variable up by this trigger's key: the layouts must agree. */
	if (set->trig[r->trigger].spec->key_size != s->key_size) {
		tp_hist_error_at(err, HIST_ERR_KEYS_MISMATCH, col_of(s, ref->var), "'%s' of %s",
				 ref->var, set->events[set->trig[r->trigger].event].name);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* A value's type, as check_synth_field() compares them: size, sign, string. */
struct vtype {
	unsigned size;
	bool is_signed, is_string;
};

static struct vtype type_of(const struct hist_set *set, const struct hist_spec *s,
			    const struct set_ref *refs, const struct hist_field *f)
{
	const struct set_trigger *t;

	switch (f->src) {
	case HIST_SRC_NUM:
		return (struct vtype){ f->size, f->is_signed, false };
	case HIST_SRC_STR_ARRAY:
		return (struct vtype){ f->size, false, true };
	case HIST_SRC_STR_DYN:
		return (struct vtype){ HIST_STR_MAX, false, true };
	case HIST_SRC_CPU:
		return (struct vtype){ 4, false, false };
	case HIST_SRC_EXPR:
		return type_of(set, s, refs, &s->nodes[f->operands[0]]);
	case HIST_SRC_REF:
		t = &set->trig[refs[f->ref].trigger];
		return type_of(set, t->spec, t->refs, &t->spec->vars[refs[f->ref].var].f);
	default: /* timestamps, hitcount, constants: u64 */
		return (struct vtype){ 8, false, false };
	}
}

/* Whether a field counts in µs, references followed (check_expr_operands()). */
static bool usecs(const struct hist_set *set, const struct hist_spec *s,
		  const struct set_ref *refs, const struct hist_field *f)
{
	const struct set_trigger *t;

	if (f->src == HIST_SRC_REF) {
		t = &set->trig[refs[f->ref].trigger];
		return usecs(set, t->spec, t->refs, &t->spec->vars[refs[f->ref].var].f);
	}
	if (f->src == HIST_SRC_EXPR) /* an expression carries its first operand's units */
		return usecs(set, s, refs, &s->nodes[f->operands[0]]);
	return f->src == HIST_SRC_TIMESTAMP && (f->mods & HIST_MOD_USECS);
}

/* trace_action_create(): the synthetic event, each parameter's type, their count. */
static int check_action(const struct hist_set *set, struct set_trigger *t, unsigned i,
			struct hist_error *err)
{
	const struct hist_spec *s = t->spec;
	const struct hist_action *a = &s->actions[i];
	const struct hist_synth *syn;
	unsigned pos;
	int e;

	if (event_of(set, a->system, a->event) < 0)
		return refuse(err, HIST_ERR_INVALID_SUBSYS_EVENT, col_of(s, a->event), a->event);
	e = event_of(set, HIST_SYNTH_SYSTEM, a->synth);
	if (e < 0 || !set->events[e].synth)
		return refuse(err, HIST_ERR_SYNTH_EVENT_NOT_FOUND, col_of(s, a->synth), a->synth);
	syn = set->events[e].synth;
	for (pos = 0; pos < a->nparams; pos++) {
		const struct set_ref *r = &t->refs[a->param_ref[pos]];
		const struct set_trigger *vt = &set->trig[r->trigger];
		struct vtype ty = type_of(set, vt->spec, vt->refs, &vt->spec->vars[r->var].f);
		const struct hist_synth_field *sf = &syn->fields[pos];

		if (pos >= syn->nfields || ty.is_string != sf->is_string || ty.size != sf->size ||
		    (!sf->is_string && ty.is_signed != sf->is_signed))
			return refuse(err, HIST_ERR_SYNTH_TYPE_MISMATCH, col_of(s, a->params[pos]),
				      a->params[pos]);
	}
	if (pos != syn->nfields)
		return refuse(err, HIST_ERR_SYNTH_COUNT_MISMATCH, col_of(s, a->synth), a->synth);
	t->synth_event[i] = e;
	return 0;
}

/*
 * Does field f of the trigger being joined (its spec s, its resolved refs) read, through
 * its own variables, the variable `var`? Only its own can lead back to it: the triggers
 * joined before it cannot see it. The kernel finds no variable of a trigger still being
 * made, so a definition that reads itself ("x=$x", $x also an action's parameter, which
 * names the trigger's own variable) never joins; here it would be followed for ever.
 */
static bool reads_own_var(const struct hist_spec *s, const struct set_ref *refs,
			  const struct hist_field *f, unsigned var, unsigned depth)
{
	if (depth > s->nvars) /* a longer chain of its own variables goes round */
		return true;
	if (f->src == HIST_SRC_EXPR)
		return reads_own_var(s, refs, &s->nodes[f->operands[0]], var, depth) ||
		       (f->op != 'u' && reads_own_var(s, refs, &s->nodes[f->operands[1]], var, depth));
	if (f->src != HIST_SRC_REF || !refs[f->ref].self)
		return false;
	return refs[f->ref].var == var ||
	       reads_own_var(s, refs, &s->vars[refs[f->ref].var].f, var, depth + 1);
}

/* The checks that need the other triggers; 0 or -1 with err filled. */
static int join(struct hist_set *set, struct set_trigger *t, unsigned self,
		struct hist_error *err)
{
	const struct hist_spec *s = t->spec;
	const struct set_event *ev = &set->events[t->event];

	if (s->remove)
		return refuse(err, HIST_ERR_UNSUPPORTED, 1, "!hist (remove the trigger instead)");
	if (s->cont || s->clear)
		return refuse(err, HIST_ERR_TRIGGER_ENOENT_CLEAR, 0, NULL);
	/* create_var_field()'s find_var(): no two triggers of an event define one name. */
	for (unsigned i = 0; i < s->nvars; i++)
		for (unsigned j = 0; !s->vars[i].hidden && j < ev->ntrig; j++)
			if (var_index(set->trig[ev->trig[j]].spec, s->vars[i].name, false) >= 0)
				return refuse(err, HIST_ERR_DUPLICATE_VAR,
					      col_of(s, s->vars[i].name), s->vars[i].name);
	for (unsigned i = 0; i < s->nactions; i++)
		if (event_of(set, s->actions[i].system, s->actions[i].event) < 0)
			return refuse(err, HIST_ERR_INVALID_SUBSYS_EVENT,
				      col_of(s, s->actions[i].event), s->actions[i].event);
	for (unsigned i = 0; i < s->nrefs; i++)
		if (resolve_ref(set, self, s, i, &t->refs[i], err))
			return -1;
	for (unsigned i = 0; i < s->nvars; i++)
		if (reads_own_var(s, t->refs, &s->vars[i].f, i, 0))
			return refuse(err, HIST_ERR_VAR_NOT_FOUND, col_of(s, s->vars[i].name),
				      s->vars[i].name);
	for (unsigned i = 0; i < s->nnodes + s->nvars + s->nvals; i++) {
		const struct hist_field *f = i < s->nnodes		? &s->nodes[i]
					     : i < s->nnodes + s->nvars ? &s->vars[i - s->nnodes].f
									: &s->vals[i - s->nnodes - s->nvars];

		if (f->src == HIST_SRC_EXPR && f->op != 'u' &&
		    usecs(set, s, t->refs, &s->nodes[f->operands[0]]) !=
			    usecs(set, s, t->refs, &s->nodes[f->operands[1]]))
			return refuse(err, HIST_ERR_TIMESTAMP_MISMATCH, 0, NULL);
	}
	for (unsigned i = 0; i < s->nactions; i++)
		if (check_action(set, t, i, err))
			return -1;
	return 0;
}

int tp_hist_set_trigger(struct hist_set *set, int event, const char *trigger,
			struct hist_error *err)
{
	unsigned self = set->ntriggers;
	struct set_trigger *t = &set->trig[self];
	struct set_event *ev;

	memset(err, 0, sizeof(*err));
	if (event < 0 || (unsigned)event >= set->nevents || self == HIST_SET_TRIGGERS_MAX) {
		tp_hist_error_at(err, HIST_ERR_NOMEM, 0, "too many triggers or no such event");
		errno = ENOSPC;
		return -1;
	}
	ev = &set->events[event];
	memset(t, 0, sizeof(*t));
	t->event = event;
	if (tp_hist_parse(trigger, ev->name, ev->fields, ev->nfields, &t->spec, err)) {
		errno = err->code == HIST_ERR_NOMEM ? ENOMEM : EINVAL;
		return -1;
	}
	if (join(set, t, self, err))
		goto fail;
	t->paused = t->spec->pause;
	/* A variable that names a string variable ("c=$comm") holds a string too. */
	for (unsigned i = 0; i < t->spec->nvars; i++)
		if (t->spec->vars[i].f.src == HIST_SRC_REF &&
		    type_of(set, t->spec, t->refs, &t->spec->vars[i].f).is_string)
			t->spec->vars[i].str_size = HIST_STR_VAR_MAX;
	if (t->spec->nvars) {
		uint16_t room[HIST_VARS_MAX];

		for (unsigned i = 0; i < t->spec->nvars; i++)
			room[i] = t->spec->vars[i].str_size;
		t->vars = tp_hist_vars_new(t->spec->key_size, t->spec->map_bits, room,
					   t->spec->nvars);
		if (!t->vars)
			goto nomem;
	}
	/* Contexts claimed already get the trigger's table now; the others when claimed. */
	for (unsigned c = 0; c < set->nclaimed; c++)
		if (set->ctx[c].ready && !(set->ctx[c].tables[self] = tp_hist_table_new(t->spec)))
			goto nomem;
	ev->trig[ev->ntrig++] = (uint8_t)self;
	set->ntriggers++;
	return (int)self;
nomem:
	tp_hist_error_at(err, HIST_ERR_NOMEM, 0, NULL);
	errno = ENOMEM;
fail:
	for (unsigned c = 0; c < set->nclaimed; c++) {
		tp_hist_table_free(set->ctx[c].tables[self]);
		set->ctx[c].tables[self] = NULL;
	}
	tp_hist_vars_free(t->vars);
	tp_hist_spec_free(t->spec);
	memset(t, 0, sizeof(*t));
	return -1;
}

unsigned tp_hist_set_triggers(const struct hist_set *set)
{
	return set->ntriggers;
}

const struct hist_spec *tp_hist_set_spec(const struct hist_set *set, unsigned trigger)
{
	return trigger < set->ntriggers ? set->trig[trigger].spec : NULL;
}

int tp_hist_set_trigger_event(const struct hist_set *set, unsigned trigger)
{
	return trigger < set->ntriggers ? set->trig[trigger].event : -1;
}

void tp_hist_set_pause(struct hist_set *set, unsigned trigger, bool paused)
{
	if (trigger < set->ntriggers)
		__atomic_store_n(&set->trig[trigger].paused, paused, __ATOMIC_RELAXED);
}

uint64_t tp_hist_set_var_drops(const struct hist_set *set, unsigned trigger)
{
	return trigger < set->ntriggers
		       ? __atomic_load_n(&set->trig[trigger].var_drops, __ATOMIC_RELAXED) +
				 set->trig[trigger].base_var_drops
		       : 0;
}

/* The same keys, values and variables: one's tables and store may serve the other. */
static bool same_layout(const struct hist_spec *a, const struct hist_spec *b)
{
	return a->key_size == b->key_size && a->nkeys == b->nkeys && a->nvals == b->nvals &&
	       a->nvars == b->nvars && a->map_bits == b->map_bits;
}

int tp_hist_set_share_vars(struct hist_set *to, unsigned tt, struct hist_set *from,
			   unsigned ft)
{
	struct set_trigger *t, *f;

	if (tt >= to->ntriggers || ft >= from->ntriggers)
		return -1;
	t = &to->trig[tt];
	f = &from->trig[ft];
	if (!t->vars || !f->vars || !same_layout(t->spec, f->spec))
		return -1;
	tp_hist_vars_free(t->vars);
	t->vars = tp_hist_vars_hold(f->vars);
	return 0;
}

void tp_hist_set_merge_trigger(struct hist_table *dst, const struct hist_set *set,
			       unsigned trigger)
{
	for (unsigned c = 0, n = __atomic_load_n(&set->nclaimed, __ATOMIC_ACQUIRE); c < n; c++) {
		const struct hist_table *ct = __atomic_load_n(&set->ctx[c].tables[trigger],
							      __ATOMIC_ACQUIRE);

		if (ct) /* a context never claimed has none */
			tp_hist_table_merge(dst, ct);
	}
	if (set->trig[trigger].base)
		tp_hist_table_merge(dst, set->trig[trigger].base);
}

int tp_hist_set_absorb(struct hist_set *to, unsigned tt, const struct hist_set *from,
		       unsigned ft)
{
	struct set_trigger *t;

	if (tt >= to->ntriggers || ft >= from->ntriggers)
		return -1;
	t = &to->trig[tt];
	if (!same_layout(t->spec, from->trig[ft].spec))
		return -1;
	if (!t->base && !(t->base = tp_hist_table_new(t->spec)))
		return -1;
	tp_hist_set_merge_trigger(t->base, from, ft);
	t->base_var_drops += tp_hist_set_var_drops(from, ft);
	return 0;
}

/* Whether a trigger of the event, or of a synthetic event it makes, needs the time or CPU. */
static bool event_needs(const struct hist_set *set, int event, bool time, unsigned depth)
{
	const struct set_event *ev = &set->events[event];

	for (unsigned i = 0; depth < SET_DEPTH && i < ev->ntrig; i++) {
		const struct set_trigger *t = &set->trig[ev->trig[i]];

		if (time ? t->spec->timestamps : t->spec->cpu)
			return true;
		for (unsigned a = 0; a < t->spec->nactions; a++)
			if (event_needs(set, t->synth_event[a], time, depth + 1))
				return true;
	}
	return false;
}

bool tp_hist_set_needs_time(const struct hist_set *set, int event)
{
	return event >= 0 && (unsigned)event < set->nevents && event_needs(set, event, true, 0);
}

bool tp_hist_set_needs_cpu(const struct hist_set *set, int event)
{
	return event >= 0 && (unsigned)event < set->nevents && event_needs(set, event, false, 0);
}

/*
 * A context's tables, made at its first claim (one anonymous mapping each, as a handler may
 * hit first): a set for many threads costs what the threads that come use. NULL (the
 * context given back) without memory.
 */
static struct hist_ctx *context_ready(struct hist_set *set, struct hist_ctx *ctx)
{
	for (unsigned t = 0; !ctx->ready && t < set->ntriggers; t++) {
		struct hist_table *tab;

		if (ctx->tables[t])
			continue;
		tab = tp_hist_table_new(set->trig[t].spec);
		if (!tab) {
			tp_hist_set_context_release(ctx);
			return NULL;
		}
		/* Release: whole before tp_hist_set_table() merges it. */
		__atomic_store_n(&ctx->tables[t], tab, __ATOMIC_RELEASE);
	}
	ctx->ready = true;
	return ctx;
}

struct hist_ctx *tp_hist_set_context(struct hist_set *set)
{
	for (unsigned c = 0; c < set->ncontexts; c++) {
		int free_ctx = 0;

		/* Acquire: what the context's last thread wrote is this one's to go on from. */
		if (__atomic_compare_exchange_n(&set->ctx[c].in_use, &free_ctx, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			unsigned n = __atomic_load_n(&set->nclaimed, __ATOMIC_RELAXED);

			while (n < c + 1 && !__atomic_compare_exchange_n(&set->nclaimed, &n, c + 1,
									 true, __ATOMIC_RELEASE,
									 __ATOMIC_RELAXED))
				;
			return context_ready(set, &set->ctx[c]);
		}
	}
	return NULL;
}

void tp_hist_set_context_release(struct hist_ctx *ctx)
{
	if (ctx)
		__atomic_store_n(&ctx->in_use, 0, __ATOMIC_RELEASE);
}

struct hist_table *tp_hist_set_table(const struct hist_set *set, unsigned trigger)
{
	struct hist_table *t;

	if (trigger >= set->ntriggers)
		return NULL;
	t = tp_hist_table_new(set->trig[trigger].spec);
	if (!t)
		return NULL;
	tp_hist_table_pause(t, __atomic_load_n(&set->trig[trigger].paused, __ATOMIC_RELAXED));
	tp_hist_set_merge_trigger(t, set, trigger);
	return t;
}

/* ---- hits ---- */

/*
 * resolve_var_refs(): the references to other triggers (self false) or to this one's
 * (self true), by this hit's key. False as soon as one is not set.
 */
static bool resolve(struct hist_set *set, const struct set_trigger *t, struct frame *f,
		    bool self, void *own)
{
	for (unsigned i = 0; i < t->spec->nrefs; i++) {
		const struct set_ref *r = &t->refs[i];
		struct set_trigger *vt = &set->trig[r->trigger];
		void *entry;

		if (r->self != self)
			continue;
		/* This trigger's entry of the key is known: set_vars() just found it. */
		entry = self ? own : tp_hist_vars_entry(vt->vars, f->key, false);
		if (!entry || !tp_hist_vars_get(vt->vars, entry, r->var, r->once && !self,
						&f->refs[i], f->strs[i]))
			return false;
	}
	return true;
}

/* hist_trigger_elt_update()'s variables, into the shared store: the key's entry, or NULL. */
static void *set_vars(struct set_trigger *t, const struct hist_hit *h, const unsigned char *key)
{
	const struct hist_spec *s = t->spec;
	void *entry = tp_hist_vars_entry(t->vars, key, true);

	if (!entry) {
		__atomic_fetch_add(&t->var_drops, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	for (unsigned i = 0; i < s->nvars; i++) {
		const struct hist_field *f = &s->vars[i].f;
		const unsigned char *rec = h->rec;

		if (f->src == HIST_SRC_STR_ARRAY) {
			if ((uint32_t)f->offset + f->size <= h->size)
				tp_hist_vars_set_str(t->vars, entry, i, (const char *)rec + f->offset,
						     f->size);
		} else if (f->src == HIST_SRC_STR_DYN) {
			uint32_t item;

			if ((uint32_t)f->offset + 4 > h->size)
				continue;
			memcpy(&item, rec + f->offset, 4);
			if ((item & 0xffff) + (item >> 16) <= h->size)
				tp_hist_vars_set_str(t->vars, entry, i,
						     (const char *)rec + (item & 0xffff), item >> 16);
		} else if (f->src == HIST_SRC_REF && s->vars[i].str_size) {
			tp_hist_vars_set_str(t->vars, entry, i,
					     (const char *)(uintptr_t)h->refs[f->ref], HIST_STR_VAR_MAX);
		} else {
			tp_hist_vars_set(t->vars, entry, i, tp_hist_field_value(s, f, h));
		}
	}
	return entry;
}

static void hit_event(struct hist_set *set, struct hist_ctx *ctx, int event,
		      const struct hist_set_hit *hit, unsigned depth);

/* action_trace(): the synthetic event's record from the parameters, and its hit. */
static void trace_synth(struct hist_set *set, struct hist_ctx *ctx, const struct set_trigger *t,
			unsigned i, struct frame *f, const struct hist_set_hit *hit, unsigned depth)
{
	const struct hist_action *a = &t->spec->actions[i];
	const struct hist_synth *syn = set->events[t->synth_event[i]].synth;
	uint16_t type = (uint16_t)t->synth_event[i];

	memset(f->rec, 0, syn->rec_size);
	memcpy(f->rec, &type, 2);
	if (hit->size >= 8)
		memcpy(f->rec + 2, (const unsigned char *)hit->rec + 2, 6); /* flags, pid */
	for (unsigned p = 0; p < syn->nfields; p++) {
		const struct hist_synth_field *sf = &syn->fields[p];
		uint64_t v = f->refs[a->param_ref[p]];

		if (sf->is_string) {
			const char *str = (const char *)(uintptr_t)v;
			size_t n = strnlen(str, HIST_STR_VAR_MAX - 1);

			memcpy(f->rec + sf->offset, str, n);
		} else {
			memcpy(f->rec + sf->offset, &v, sf->size); /* the low bytes: little-endian */
		}
	}
	if (set->on_synth)
		set->on_synth(set->on_synth_arg, hit->user, t->synth_event[i], f->rec,
			      syn->rec_size);
	hit_event(set, ctx, t->synth_event[i],
		  &(struct hist_set_hit){ f->rec, syn->rec_size, hit->cpu, hit->ts_ns, hit->comm,
					  hit->user },
		  depth + 1);
}

/* event_hist_trigger(). */
static void hit_trigger(struct hist_set *set, struct hist_ctx *ctx, unsigned ti,
			const struct hist_set_hit *hit, unsigned depth)
{
	struct set_trigger *t = &set->trig[ti];
	struct hist_table *table = ctx->tables[ti];
	struct frame *f = &ctx->frames[depth];
	struct hist_hit h = { hit->rec, hit->size, hit->cpu, hit->ts_ns, hit->comm, f->refs };
	void *own = NULL;

	if (__atomic_load_n(&t->paused, __ATOMIC_RELAXED) || !tp_hist_passes(table, &h))
		return;
	tp_hist_build_key(t->spec, &h, f->key);
	if (t->spec->nrefs && !resolve(set, t, f, false, NULL))
		return;
	if (tp_hist_add(table, &h, f->key) < 0)
		return;
	if (t->vars)
		own = set_vars(t, &h, f->key);
	if (!t->spec->nactions || !resolve(set, t, f, true, own) || depth + 1 >= SET_DEPTH)
		return;
	for (unsigned i = 0; i < t->spec->nactions; i++)
		trace_synth(set, ctx, t, i, f, hit, depth);
}

static void hit_event(struct hist_set *set, struct hist_ctx *ctx, int event,
		      const struct hist_set_hit *hit, unsigned depth)
{
	const struct set_event *ev = &set->events[event];

	for (unsigned i = 0; i < ev->ntrig; i++)
		hit_trigger(set, ctx, ev->trig[i], hit, depth);
}

void tp_hist_set_on_synth(struct hist_set *set,
			  void (*fn)(void *arg, void *user, int event, const void *rec,
				     uint32_t size),
			  void *arg)
{
	set->on_synth = fn;
	set->on_synth_arg = arg;
}

void tp_hist_set_hit(struct hist_set *set, struct hist_ctx *ctx, int event,
		     const struct hist_set_hit *hit)
{
	if (ctx && event >= 0 && (unsigned)event < set->nevents)
		hit_event(set, ctx, event, hit, 0);
}
