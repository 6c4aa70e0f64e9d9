/* SPDX-License-Identifier: MIT */
/*
 * hist_parse.c - a hist: trigger's text to a checked struct hist_spec (see hist.h).
 *
 * The grammar and the order of the checks follow the kernel's event_hist_trigger_parse()
 * (kernel/trace/trace_events_hist.c): the filter is cut off at the first "if" between blanks;
 * the rest splits at ':' into attributes (keys=, vals=, sort=, size=, name=, clock=, pause,
 * cont, clear, nohitcount, NAME=EXPR variables, onmatch() actions); actions are read first,
 * then values, variables and keys, the sort keys last. A refusal names the kernel's message
 * where it has one and the column of the token it blames, as the kernel's error_log points
 * at it. One field is hist_parse_field.c's; variables, expressions and actions
 * hist_parse_vars.c's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "hist_parse.h"

/* vals=: create_val_fields(): hitcount first, at most two more; a first "hitcount" is it. */
static int parse_vals(struct hp *p, char *str)
{
	struct hist_spec *s = p->s;
	unsigned i, n_hitcount = 0;

	for (i = 0; i < HIST_VALS_MAX && s->nvals < HIST_VALS_MAX; i++) {
		char *field = strsep(&str, ",");
		int ret;

		if (!field)
			break;
		if (!strcmp(field, "hitcount") && !n_hitcount++)
			continue;
		/* A value with a '$' or an operator is an expression (hist_parse_vars.c). */
		ret = *field == '$' || tp_hist_has_operator(field)
			      ? tp_hist_parse_expr(p, field, HIST_AS_VAL, &s->vals[s->nvals])
			      : tp_hist_parse_field(p, field, HIST_AS_VAL, &s->vals[s->nvals]);
		if (ret)
			return ret;
		s->nvals++;
	}
	if (str && strcmp(str, "hitcount"))
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_VALS, str, "'%s'", str);
	return 0;
}

static int parse_keys(struct hp *p, char *str)
{
	struct hist_spec *s = p->s;

	while (s->nkeys < HIST_KEYS_MAX) {
		struct hist_field *k = &s->keys[s->nkeys];
		char *field = strsep(&str, ",");
		int ret;

		if (!field)
			break;
		ret = tp_hist_parse_field(p, field, HIST_AS_KEY, k);
		if (ret)
			return ret;
		k->key_offset = (uint16_t)s->key_size;
		s->key_size += k->key_size;
		if (s->key_size > HIST_KEY_SIZE_MAX)
			return tp_hist_fail(p, HIST_ERR_KEY_TOO_LARGE, field, "'%s'", field);
		s->nkeys++;
	}
	if (str)
		return tp_hist_fail(p, HIST_ERR_TOO_MANY_KEYS, str, "'%s'", str);
	return 0;
}

/* The name the kernel's create_sort_keys() matches: hist_field_name(), no modifier. */
static const char *sort_name(const struct hist_spec *s, unsigned idx)
{
	return idx < s->nvals ? s->vals[idx].name : s->keys[idx - s->nvals].name;
}

static int parse_descending(struct hp *p, const char *mod, bool *descending)
{
	if (!mod || !strcmp(mod, "ascending"))
		*descending = false;
	else if (!strcmp(mod, "descending"))
		*descending = true;
	else
		return tp_hist_fail(p, HIST_ERR_INVALID_SORT_MODIFIER, mod, "'%s'", mod);
	return 0;
}

/* sort=: create_sort_keys(); `at` is the "sort=" the kernel's errors point to. */
static int parse_sort(struct hp *p, char *str, const char *at)
{
	struct hist_spec *s = p->s;
	unsigned i;

	s->nsort = 1; /* hitcount, ascending, unless said otherwise */
	if (!str)
		return 0;
	for (i = 0; i < HIST_SORT_KEYS_MAX; i++) {
		struct hist_sort_key *k = &s->sort[i];
		char *field = strsep(&str, ","), *name;
		unsigned j;
		int ret;

		if (!field)
			break;
		if (!*field)
			return tp_hist_fail(p, HIST_ERR_EMPTY_SORT_FIELD, at, NULL);
		if (i == HIST_SORT_KEYS_MAX - 1 && str)
			return tp_hist_fail(p, HIST_ERR_TOO_MANY_SORT_FIELDS, at, NULL);
		name = strsep(&field, ".");
		if (!*name)
			return tp_hist_fail(p, HIST_ERR_EMPTY_SORT_FIELD, at, NULL);
		if (!strcmp(name, "hitcount")) {
			k->idx = 0;
			ret = parse_descending(p, field, &k->descending);
			if (ret)
				return ret;
			continue;
		}
		for (j = 1; j < s->nvals + s->nkeys; j++)
			if (!strcmp(name, sort_name(s, j)))
				break;
		if (j == s->nvals + s->nkeys)
			return tp_hist_fail(p, HIST_ERR_INVALID_SORT_FIELD, name, "'%s'", name);
		k->idx = (uint8_t)j;
		ret = parse_descending(p, field, &k->descending);
		if (ret)
			return ret;
	}
	s->nsort = i;
	return 0;
}

/* size=: parse_map_size(): rounded up to a power of two, 2^7 to 2^17. */
static int parse_size(struct hp *p, char *str)
{
	uint64_t size;
	unsigned bits = 0;

	if (tp_hist_parse_ulong(str, &size) || size == 0 || size > (1u << HIST_BITS_MAX))
		return tp_hist_fail(p, HIST_ERR_BAD_SIZE, str, "'%s'", str);
	while ((1ull << bits) < size)
		bits++;
	if (bits < HIST_BITS_MIN)
		return tp_hist_fail(p, HIST_ERR_BAD_SIZE, str, "'%s'", str);
	p->s->map_bits = bits;
	return 0;
}

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/*
 * Where the filter starts: the first "if" with a blank before and after, as the kernel
 * looks for it. NULL when there is none; `bad` set when the text cannot be split.
 */
static char *find_if(char *param, bool *bad)
{
	char *p = param, *end = param + strlen(param);

	*bad = false;
	while ((p = strstr(p, "if"))) {
		if (p == param) {
			*bad = true;
			return NULL;
		}
		if (p[-1] != ' ' && p[-1] != '\t') {
			p++;
			continue;
		}
		/* The kernel's test: at least two more bytes after "if". */
		if (p + 3 >= end) {
			*bad = true;
			return NULL;
		}
		if (p[2] != ' ' && p[2] != '\t') {
			p++;
			continue;
		}
		return p;
	}
	return NULL;
}

static char *dup_or_fail(struct hp *p, const char *s, char **out)
{
	*out = strdup(s);
	if (!*out)
		tp_hist_fail(p, HIST_ERR_NOMEM, NULL, NULL);
	return *out;
}

/* The attributes, split at ':' (parse_hist_trigger_attrs()); keys, vals and sort kept. */
struct attrs {
	char *keys, *vals, *sort, *sort_at;
	char *assign[HIST_VARS_MAX]; /* "name=expr[,name=expr...]", for parse_var_defs() */
	unsigned nassign;
	char *action[HIST_ACTIONS_MAX];
	unsigned naction;
};

static int parse_attr(struct hp *p, char *str, struct attrs *a)
{
	struct hist_spec *s = p->s;
	char *rhs = strchr(str, '=');

	if (rhs) {
		size_t len = (size_t)(rhs - str);

		if (!*++rhs)
			return tp_hist_fail(p, HIST_ERR_EMPTY_ASSIGNMENT, str, "'%s'", str);
#define IS(word) (len == sizeof(word) - 1 && !strncmp(str, word, len))
		if (IS("key") || IS("keys"))
			a->keys = rhs;
		else if (IS("val") || IS("vals") || IS("values"))
			a->vals = rhs;
		else if (IS("sort")) {
			a->sort = rhs;
			a->sort_at = str;
		} else if (IS("name")) {
			free(s->name);
			if (!dup_or_fail(p, rhs, &s->name))
				return -ENOMEM;
		} else if (IS("clock")) {
			free(s->clock);
			if (!dup_or_fail(p, strip(rhs), &s->clock))
				return -ENOMEM;
		} else if (IS("size")) {
			return parse_size(p, rhs);
		} else {
			/* parse_assignment(): anything else with a '=' defines variables. */
			if (a->nassign == HIST_VARS_MAX)
				return tp_hist_fail(p, HIST_ERR_TOO_MANY_VARS, str, "'%s'", str);
			rhs[-1] = '=';
			a->assign[a->nassign++] = str;
		}
#undef IS
		return 0;
	}
	if (!strcmp(str, "nohitcount") || !strcmp(str, "NOHC"))
		s->nohitcount = true;
	else if (!strcmp(str, "pause"))
		s->pause = true;
	else if (!strcmp(str, "cont") || !strcmp(str, "continue"))
		s->cont = true;
	else if (!strcmp(str, "clear"))
		s->clear = true;
	else if (!strncmp(str, "onmatch(", 8) && a->naction < HIST_ACTIONS_MAX)
		a->action[a->naction++] = str;
	else if (!strncmp(str, "onmax(", 6) || !strncmp(str, "onchange(", 9))
		return tp_hist_fail(p, HIST_ERR_UNSUPPORTED, str, "handler '%.*s'",
				    (int)(strchr(str, '(') - str), str);
	else
		return tp_hist_fail(p, HIST_ERR_UNKNOWN_ATTR, str, "'%s'", str);
	return 0;
}

static int compile_filter(struct hp *p, char *text, const char *event)
{
	struct hist_spec *s = p->s;
	char why[400];
	int ret;

	if (!dup_or_fail(p, text, &s->filter_text))
		return -ENOMEM;
	ret = tp_filter_compile(text, event, p->fields, p->nfields, &s->filter, why, sizeof(why));
	if (ret == -ENOMEM)
		return tp_hist_fail(p, HIST_ERR_NOMEM, NULL, NULL);
	if (ret)
		return tp_hist_fail(p, HIST_ERR_BAD_FILTER, text, "%s", why);
	return 0;
}

static int parse(struct hp *p, const char *event)
{
	struct hist_spec *s = p->s;
	struct attrs a = { 0 };
	char *param = p->buf, *filter, *attr;
	bool bad;
	int ret;

	if (*param == '!') {
		s->remove = true;
		param++;
	}
	if (strncmp(param, "hist:", 5))
		return tp_hist_fail(p, HIST_ERR_NOT_HIST, param, NULL);
	param += 5;
	filter = find_if(param, &bad);
	if (bad)
		return tp_hist_fail(p, HIST_ERR_BAD_FILTER, param, "'if' with no filter after it");
	if (filter) {
		filter[-1] = 0;
		filter = strip(filter + 2);
		if (!*filter)
			return tp_hist_fail(p, HIST_ERR_BAD_FILTER, filter, "'if' with no filter after it");
	}
	param = strip(param);
	while ((attr = strsep(&param, ":"))) {
		ret = parse_attr(p, attr, &a);
		if (ret)
			return ret;
	}
	if (!a.keys)
		return tp_hist_fail(p, HIST_ERR_NO_KEYS, NULL, NULL);
	if (!s->clock && !dup_or_fail(p, "global", &s->clock))
		return -ENOMEM;
	/* create_hist_data()'s order: actions, values, variables, keys, sort keys. */
	for (unsigned i = 0; i < a.naction; i++)
		if ((ret = tp_hist_parse_action(p, a.action[i])))
			return ret;
	/* vals[0] is hitcount, always: the kernel's create_hitcount_val(). */
	strcpy(s->vals[0].name, "hitcount");
	s->vals[0].src = HIST_SRC_HITCOUNT;
	s->nvals = 1;
	if ((ret = tp_hist_parse_var_defs(p, a.assign, a.nassign)))
		return ret;
	if (a.vals && (ret = parse_vals(p, a.vals)))
		return ret;
	if (s->nohitcount && s->nvals == 1)
		return tp_hist_fail(p, HIST_ERR_NEED_NOHC_VAL, NULL, NULL);
	if ((ret = tp_hist_parse_vars(p)))
		return ret;
	ret = parse_keys(p, a.keys);
	if (ret)
		return ret;
	ret = parse_sort(p, a.sort, a.sort_at);
	if (ret)
		return ret;
	if ((ret = tp_hist_parse_params(p)))
		return ret;
	if (filter)
		return compile_filter(p, filter, event);
	return 0;
}

int tp_hist_parse(const char *trigger, const char *event, const struct filter_field *fields,
		  size_t nfields, struct hist_spec **out, struct hist_error *err)
{
	struct hist_spec *s = calloc(1, sizeof(*s));
	struct hp p = { .fields = fields, .nfields = nfields, .s = s, .err = err };
	int ret;

	memset(err, 0, sizeof(*err));
	*out = NULL;
	p.buf = strdup(trigger);
	if (!s || !p.buf || (event && !(s->event = strdup(event)))) {
		free(p.buf);
		tp_hist_spec_free(s);
		snprintf(err->msg, sizeof(err->msg), "%s", tp_hist_err_text(HIST_ERR_NOMEM));
		err->code = HIST_ERR_NOMEM;
		return -ENOMEM;
	}
	s->map_bits = HIST_BITS_DEFAULT;
	s->text = strdup(trigger);
	if (!s->text) {
		free(p.buf);
		tp_hist_spec_free(s);
		snprintf(err->msg, sizeof(err->msg), "%s", tp_hist_err_text(HIST_ERR_NOMEM));
		err->code = HIST_ERR_NOMEM;
		return -ENOMEM;
	}
	ret = parse(&p, event);
	free(p.buf);
	if (ret) {
		tp_hist_spec_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void tp_hist_spec_free(struct hist_spec *s)
{
	if (!s)
		return;
	free(s->event);
	free(s->name);
	free(s->clock);
	free(s->filter_text);
	free(s->text);
	for (unsigned i = 0; i < s->nactions; i++)
		for (unsigned j = 0; j < s->actions[i].nparams; j++)
			free(s->actions[i].params[j]);
	if (s->filter)
		tp_filter_free(s->filter);
	free(s);
}
