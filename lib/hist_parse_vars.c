/* SPDX-License-Identifier: MIT */
/*
 * hist_parse_vars.c - a trigger's variables ("ts0=common_timestamp.usecs"), expressions
 * ("common_timestamp.usecs-$ts0"), variable references and onmatch() actions (see hist.h).
 *
 * The grammar and the checks are the kernel's (kernel/trace/trace_events_hist.c):
 * parse_var_defs() and create_var_field() for the definitions, parse_expr(), parse_unary()
 * and parse_atom() for expressions (the root operator is the rightmost of the lowest
 * precedence, so that a-b-c is (a-b)-c), onmatch_parse() and action_parse() for actions.
 * A reference is only written down here: which trigger's variable it names is known when the
 * trigger joins the others (hist_set.c), as the kernel finds it when the trigger registers.
 * An action's parameter that is a field of this event becomes a hidden variable of this
 * trigger (create_target_field_var()), read by a reference like the others.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hist_parse.h"

/* A reference to system.event.$var (system and event may be NULL): its index, or -1. */
static int add_ref(struct hp *p, const char *system, const char *event, const char *var,
		   const char *at)
{
	struct hist_spec *s = p->s;
	unsigned i;

	if (strlen(var) >= HIST_NAME_MAX || (system && strlen(system) >= HIST_NAME_MAX) ||
	    (event && strlen(event) >= HIST_NAME_MAX))
		return tp_hist_fail(p, HIST_ERR_VAR_NOT_FOUND, at, "'%s'", var);
	/* create_var_ref(): one reference a variable, however often it is named. */
	for (i = 0; i < s->nrefs; i++) {
		const struct hist_ref *r = &s->refs[i];

		if (!strcmp(r->var, var) && !strcmp(r->system, system ? system : "") &&
		    !strcmp(r->event, event ? event : ""))
			return (int)i;
	}
	if (s->nrefs == HIST_REFS_MAX)
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_VARS, at, "'%s'", var);
	strcpy(s->refs[i].var, var);
	strcpy(s->refs[i].system, system ? system : "");
	strcpy(s->refs[i].event, event ? event : "");
	s->refs[i].column = (unsigned)(at - p->buf) + 1;
	return (int)s->nrefs++;
}

static int add_node(struct hp *p, const struct hist_field *f, const char *at, int8_t *idx)
{
	if (p->s->nnodes == HIST_NODES_MAX)
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_SUBEXPR, at, NULL);
	p->s->nodes[p->s->nnodes] = *f;
	*idx = (int8_t)p->s->nnodes++;
	return 0;
}

/* Whether a field counts in µs (HIST_FIELD_FL_TIMESTAMP_USECS, as expressions carry it). */
static bool in_usecs(const struct hist_field *f)
{
	return (f->src == HIST_SRC_TIMESTAMP || f->src == HIST_SRC_EXPR) &&
	       (f->mods & HIST_MOD_USECS);
}

/*
 * contains_operator(): the root operator, the rightmost '-' or '+' (a '-' first is a unary
 * minus), else the rightmost '/' or '*'. The '-' of ".sym-offset" is no operator (the kernel
 * renames the modifier before it looks).
 */
static char contains_operator(char *str, char **sep)
{
	char *minus = NULL, *plus = strrchr(str, '+'), *div = strrchr(str, '/');
	char *mult = strrchr(str, '*');

	for (char *c = str; *c; c++)
		if (*c == '-' && !(c - str >= 4 && !strncmp(c - 4, ".sym-offset", 11)))
			minus = c;
	if (minus == str) {
		*sep = minus;
		return 'u';
	}
	if (plus || minus) {
		*sep = plus > minus ? plus : minus;
		return **sep;
	}
	if (div || mult) {
		*sep = mult > div ? mult : div;
		return **sep;
	}
	*sep = NULL;
	return 0;
}

/* parse_const(): kstrtoull(str, 0). */
static int parse_const(struct hp *p, char *str, struct hist_field *f)
{
	char *end;

	errno = 0;
	f->constant = strtoull(str, &end, 0);
	if (errno || *end || *str == '-')
		return tp_hist_fail(p, HIST_ERR_EXPECT_NUMBER, str, "'%s'", str);
	f->src = HIST_SRC_CONST;
	f->size = 8;
	snprintf(f->name, sizeof(f->name), "%llu", (unsigned long long)f->constant);
	return 0;
}

/* local_field_var_ref(): $x naming one of this trigger's own plain-field definitions. */
static char *local_alias(struct hp *p, const char *system, const char *event, const char *var)
{
	if (system && p->s->event) {
		size_t n = strlen(system);

		if (strncmp(p->s->event, system, n) || p->s->event[n] != ':' ||
		    strcmp(p->s->event + n + 1, event))
			return NULL;
	}
	if (var[0] != '$' || !var[1])
		return NULL;
	for (unsigned i = 0; i < p->ndefs; i++)
		if (!strcmp(p->def_name[i], var + 1) && !tp_hist_has_operator(p->def_expr[i]) &&
		    p->def_expr[i][0] != '$')
			return p->def_expr[i];
	return NULL;
}

/* parse_atom(): a number, system.event.$var, $var, or a field with its modifier. */
static int parse_atom(struct hp *p, char *str, enum hist_as as, struct hist_field *f)
{
	char *system = NULL, *event = NULL, *var = str, *dot, *alias;
	char copy[HIST_STR_MAX];
	/* A value's atom is read as an operand: it is no expression any more. */
	enum hist_as sub = as == HIST_AS_VAL ? HIST_AS_OPERAND : as;
	int ref, ret;

	memset(f, 0, sizeof(*f));
	if (isdigit((unsigned char)str[0]))
		return parse_const(p, str, f);
	dot = strchr(str, '.');
	if (dot && strchr(dot + 1, '.')) {
		system = str;
		*dot = 0;
		event = dot + 1;
		dot = strchr(event, '.');
		*dot = 0;
		var = dot + 1;
	}
	alias = local_alias(p, system, event, var);
	if (alias) {
		/* The definition's text is read again later: parsing cuts it, so restore it. */
		snprintf(copy, sizeof(copy), "%s", alias);
		ret = tp_hist_parse_field(p, alias, sub, f);
		strcpy(alias, copy);
		return ret;
	}
	if (var[0] == '$' && var[1]) {
		ref = add_ref(p, system, event, var + 1, var + 1);
		if (ref < 0)
			return ref;
		f->src = HIST_SRC_REF;
		f->ref = (uint8_t)ref;
		if (system)
			snprintf(f->name, sizeof(f->name), "%s.%s.%s", system, event, var + 1);
		else
			snprintf(f->name, sizeof(f->name), "%s", var + 1);
		return 0;
	}
	if (system) { /* not a reference: the dots were a modifier's, put them back */
		system[strlen(system)] = '.';
		event[strlen(event)] = '.';
	}
	return tp_hist_parse_field(p, str, sub, f);
}

static int parse_sub(struct hp *p, char *str, struct hist_field *f);

/* parse_unary(): -(EXPR), the parentheses required, nothing after them. */
static int parse_unary(struct hp *p, char *str, struct hist_field *f)
{
	struct hist_field operand;
	char *close;
	int ret;

	if (++p->nsub > HIST_SUBEXPR_MAX)
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_SUBEXPR, str, NULL);
	str++;
	if (*str != '(')
		return tp_hist_fail(p, HIST_ERR_BAD_EXPR, str, "a unary minus needs -(...)");
	str++;
	close = strrchr(str, ')');
	if (!close)
		return tp_hist_fail(p, HIST_ERR_BAD_EXPR, str, "no closing ')'");
	if (close[1])
		return tp_hist_fail(p, HIST_ERR_UNARY_MINUS_SUBEXPR, str, NULL);
	*close = 0;
	if ((ret = parse_sub(p, str, &operand)))
		return ret;
	if (tp_hist_is_string(&operand))
		return tp_hist_fail(p, HIST_ERR_INVALID_STR_OPERAND, str, "'%s'", str);
	if (operand.src == HIST_SRC_REF)
		p->s->refs[operand.ref].read_once = true;
	memset(f, 0, sizeof(*f));
	f->src = HIST_SRC_EXPR;
	f->op = 'u';
	f->mods = in_usecs(&operand) ? HIST_MOD_USECS : 0;
	f->size = operand.size;
	f->is_signed = operand.is_signed;
	f->operands[1] = -1;
	return add_node(p, &operand, str, &f->operands[0]);
}

/* parse_expr(). */
static int parse_sub(struct hp *p, char *str, struct hist_field *f)
{
	struct hist_field a, b;
	char *sep, *rhs, op;
	int ret;

	if (p->nsub > HIST_SUBEXPR_MAX)
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_SUBEXPR, str, "'%s'", str);
	op = contains_operator(str, &sep);
	if (!op)
		return parse_atom(p, str, HIST_AS_OPERAND, f);
	if (op == 'u')
		return parse_unary(p, str, f);
	++p->nsub;
	*sep = 0;
	rhs = sep + 1;
	if (!*str || !*rhs)
		return tp_hist_fail(p, HIST_ERR_BAD_EXPR, *str ? str : sep,
				    "'%c' needs an operand on each side", op);
	if ((ret = parse_sub(p, str, &a)))
		return ret;
	if (tp_hist_is_string(&a))
		return tp_hist_fail(p, HIST_ERR_INVALID_STR_OPERAND, str, "'%s'", str);
	if ((ret = parse_sub(p, rhs, &b)))
		return ret;
	if (tp_hist_is_string(&b))
		return tp_hist_fail(p, HIST_ERR_INVALID_STR_OPERAND, rhs, "'%s'", rhs);
	/* check_expr_operands(); a reference's units are checked once it is found. */
	if (a.src != HIST_SRC_REF && b.src != HIST_SRC_REF && in_usecs(&a) != in_usecs(&b))
		return tp_hist_fail(p, HIST_ERR_TIMESTAMP_MISMATCH, NULL, NULL);
	if (op == '/' && b.src == HIST_SRC_CONST && !b.constant)
		return tp_hist_fail(p, HIST_ERR_DIVISION_BY_ZERO, rhs, NULL);
	memset(f, 0, sizeof(*f));
	if (a.src == HIST_SRC_CONST && b.src == HIST_SRC_CONST) {
		f->src = HIST_SRC_CONST;
		f->size = 8;
		/* The kernel computes the expression once, with its division's rules. */
		f->constant = tp_hist_operate(op, &b, a.constant, b.constant);
		snprintf(f->name, sizeof(f->name), "%llu", (unsigned long long)f->constant);
		return 0;
	}
	if (a.src == HIST_SRC_REF) /* operands are read once: a start pairs with one end */
		p->s->refs[a.ref].read_once = true;
	if (b.src == HIST_SRC_REF)
		p->s->refs[b.ref].read_once = true;
	f->src = HIST_SRC_EXPR;
	f->op = (uint8_t)op;
	f->mods = in_usecs(&a) ? HIST_MOD_USECS : 0;
	f->size = a.size;
	f->is_signed = a.is_signed;
	if ((ret = add_node(p, &a, str, &f->operands[0])))
		return ret;
	return add_node(p, &b, rhs, &f->operands[1]);
}

int tp_hist_parse_expr(struct hp *p, char *str, enum hist_as as, struct hist_field *f)
{
	int ret;

	p->nsub = 0;
	if (!tp_hist_has_operator(str))
		return parse_atom(p, str, as, f);
	ret = parse_sub(p, str, f);
	if (!ret && f->src == HIST_SRC_EXPR)
		tp_hist_field_text(p->s, f, f->name, sizeof(f->name));
	return ret;
}

/* parse_var_defs(): each "name=expr[,name=expr]" of the assignments, in order. */
int tp_hist_parse_var_defs(struct hp *p, char **assign, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char *str = assign[i], *def;

		while ((def = strsep(&str, ","))) {
			char *name = strsep(&def, "=");

			if (!def || !*name || !*def)
				return tp_hist_fail(p, HIST_ERR_MALFORMED_ASSIGNMENT, name, "'%s'",
						    name);
			if (p->ndefs == HIST_VARS_MAX)
				return tp_hist_fail(p, HIST_ERR_TOO_MANY_VARS, name, "'%s'", name);
			p->def_name[p->ndefs] = name;
			p->def_expr[p->ndefs++] = def;
		}
	}
	return 0;
}

static const struct hist_var *find_var(const struct hist_spec *s, const char *name)
{
	for (unsigned i = 0; i < s->nvars; i++)
		if (!strcmp(s->vars[i].name, name))
			return &s->vars[i];
	return NULL;
}

/* A string variable's room: the field's, at most STR_VAR_LEN_MAX (__update_field_vars()). */
static uint16_t str_room(const struct hist_field *f)
{
	if (f->src == HIST_SRC_STR_ARRAY)
		return f->size < HIST_STR_VAR_MAX ? f->size : HIST_STR_VAR_MAX;
	return f->src == HIST_SRC_STR_DYN ? HIST_STR_VAR_MAX : 0;
}

/* create_var_fields(): each definition, after the values (its column is its name's). */
int tp_hist_parse_vars(struct hp *p)
{
	struct hist_spec *s = p->s;

	for (unsigned i = 0; i < p->ndefs; i++) {
		struct hist_var *v = &s->vars[s->nvars];
		char *text = p->def_expr[i];
		int ret;

		if (find_var(s, p->def_name[i]))
			return tp_hist_fail(p, HIST_ERR_DUPLICATE_VAR, p->def_name[i], "'%s'",
					    p->def_name[i]);
		if (strlen(p->def_name[i]) >= sizeof(v->name))
			return tp_hist_fail(p, HIST_ERR_MALFORMED_ASSIGNMENT, p->def_name[i], "'%s'",
					    p->def_name[i]);
		ret = tp_hist_has_operator(text) ? tp_hist_parse_expr(p, text, HIST_AS_VAR, &v->f)
						 : parse_atom(p, text, HIST_AS_VAR, &v->f);
		if (ret)
			return ret;
		/* parse_atom() with HIST_AS_VAR: a plain field keeps the variable's checks. */
		strcpy(v->name, p->def_name[i]);
		v->str_size = str_room(&v->f);
		tp_hist_field_text(s, &v->f, v->text, sizeof(v->text));
		s->nvars++;
	}
	return 0;
}

/* action_parse()'s parameters: "a,b" (the first is the event's name after "trace"). */
static int parse_params(struct hp *p, char *params, struct hist_action *a)
{
	bool first = true;

	while (params) {
		char *param = strsep(&params, ","), *e;

		while (isspace((unsigned char)*param))
			param++;
		e = param + strlen(param);
		while (e > param && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (a->nparams >= HIST_SYNTH_FIELDS_MAX)
			return tp_hist_fail(p, HIST_ERR_TOO_MANY_PARAMS, NULL, NULL);
		if (strlen(param) < 2)
			return tp_hist_fail(p, HIST_ERR_INVALID_PARAM, param, "'%s'", param);
		if (first && a->trace_keyword) {
			if (strlen(param) >= sizeof(a->synth))
				return tp_hist_fail(p, HIST_ERR_SYNTH_EVENT_NOT_FOUND, param, "'%s'",
						    param);
			strcpy(a->synth, param);
			a->column = (unsigned)(param - p->buf) + 1;
			first = false;
			continue;
		}
		first = false;
		a->params[a->nparams] = strdup(param);
		if (!a->params[a->nparams])
			return tp_hist_fail(p, HIST_ERR_NOMEM, NULL, NULL);
		a->param_col[a->nparams++] = (uint16_t)(param - p->buf + 1);
	}
	return 0;
}

/* onmatch_parse() and action_parse(): "onmatch(system.event).ACTION(params)". */
int tp_hist_parse_action(struct hp *p, char *str)
{
	struct hist_spec *s = p->s;
	struct hist_action *a = &s->actions[s->nactions];
	char *match = str + strlen("onmatch("), *system, *name, *params;

	system = strsep(&match, ")");
	if (!match)
		return tp_hist_fail(p, HIST_ERR_NO_CLOSING_PAREN, system, "'%s'", system);
	str = match; /* what follows "onmatch(...)" */
	match = system;
	system = strsep(&match, ".");
	if (!match)
		return tp_hist_fail(p, HIST_ERR_SUBSYS_NOT_FOUND, system, "'%s'", system);
	if (strlen(system) >= sizeof(a->system) || strlen(match) >= sizeof(a->event) ||
	    !*system || !*match)
		return tp_hist_fail(p, HIST_ERR_INVALID_SUBSYS_EVENT, match, "'%s'", match);
	strcpy(a->system, system);
	strcpy(a->event, match);
	strsep(&str, ".");
	if (!str)
		return tp_hist_fail(p, HIST_ERR_ACTION_NOT_FOUND, NULL, NULL);
	name = strsep(&str, "(");
	if (!name || !str)
		return tp_hist_fail(p, HIST_ERR_ACTION_NOT_FOUND, NULL, NULL);
	if (!strncmp(name, "save", 4) || !strncmp(name, "snapshot", 8))
		return tp_hist_fail(p, HIST_ERR_ACTION_MISMATCH, name, "'%s'", name);
	params = strsep(&str, ")");
	/* str_has_prefix(action_name, "trace"), as the kernel tests it. */
	a->trace_keyword = !strncmp(name, "trace", 5);
	if (!a->trace_keyword) {
		if (strlen(name) >= sizeof(a->synth))
			return tp_hist_fail(p, HIST_ERR_SYNTH_EVENT_NOT_FOUND, name, "'%s'", name);
		strcpy(a->synth, name);
		a->column = (unsigned)(name - p->buf) + 1;
	}
	s->nactions++;
	return params ? parse_params(p, params, a) : 0;
}

/*
 * trace_action_create()'s parameters: $var (this trigger's first, then the onmatch()
 * event's: hist_set.c), or a field of this event, made a hidden variable here
 * (create_target_field_var()). system.event.x names another event explicitly.
 */
int tp_hist_parse_params(struct hp *p)
{
	struct hist_spec *s = p->s;

	for (unsigned i = 0; i < s->nactions; i++) {
		struct hist_action *a = &s->actions[i];

		for (unsigned j = 0; j < a->nparams; j++) {
			char buf[3 * HIST_NAME_MAX], *system = NULL, *event = NULL, *var = buf;
			char *at = p->buf + a->param_col[j] - 1;
			int ref;

			snprintf(buf, sizeof(buf), "%s", a->params[j]);
			if (strchr(var, '.')) {
				system = strsep(&var, ".");
				event = strsep(&var, ".");
				if (!var)
					return tp_hist_fail(p, HIST_ERR_INVALID_PARAM, at, "'%s'",
							    a->params[j]);
			}
			if (var[0] == '$') {
				ref = add_ref(p, system, event, var + 1, at + (var + 1 - buf));
			} else {
				struct hist_var *v;
				const char *own = s->event;

				if (system && (!own || strncmp(own, system, strlen(system)) ||
					       strcmp(own + strlen(system) + 1, event)))
					return tp_hist_fail(p, HIST_ERR_UNSUPPORTED, at,
							    "'%s': a field of another event (save it in "
							    "a variable there)", a->params[j]);
				if (!tp_hist_find_field(p, var))
					return tp_hist_fail(p, HIST_ERR_FIELD_VAR_PARSE_FAIL, at,
							    "'%s' is no field of %s", var,
							    own ? own : "the event");
				if (!find_var(s, var)) {
					if (s->nvars == HIST_VARS_MAX)
						return tp_hist_fail(p, HIST_ERR_TOO_MANY_FIELD_VARS,
								    at, "'%s'", var);
					v = &s->vars[s->nvars];
					if (tp_hist_parse_field(p, var, HIST_AS_VAR, &v->f))
						return -EINVAL;
					snprintf(v->name, sizeof(v->name), "%s", var);
					snprintf(v->text, sizeof(v->text), "%s", var);
					v->hidden = true;
					v->str_size = str_room(&v->f);
					s->nvars++;
				}
				ref = add_ref(p, NULL, NULL, var, at);
			}
			if (ref < 0)
				return ref;
			s->refs[ref].param = true;
			s->refs[ref].action = (uint8_t)i;
			a->param_ref[j] = (uint8_t)ref;
		}
	}
	return 0;
}
