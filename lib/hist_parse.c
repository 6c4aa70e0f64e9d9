/* SPDX-License-Identifier: MIT */
/*
 * hist_parse.c - a hist: trigger's text to a checked struct hist_spec (see hist.h).
 *
 * The grammar and the order of the checks follow the kernel's event_hist_trigger_parse()
 * (kernel/trace/trace_events_hist.c): the filter is cut off at the first "if" between blanks;
 * the rest splits at ':' into attributes (keys=, vals=, sort=, size=, name=, clock=, pause,
 * cont, clear, nohitcount); values are made before keys, the sort keys last. A refusal names
 * the kernel's message where it has one and the column of the token it blames, as the
 * kernel's error_log points at it. Variables, expressions and actions (onmatch, ...) are
 * refused as not supported yet.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "hist_parse.h"

/* The kernel's messages, by our code (HIST_ERR_* of trace_events_hist.c where it has one). */
static const char *const hist_err_text[] = {
	[HIST_ERR_NONE] = "No error",
	[HIST_ERR_BAD_FIELD_MODIFIER] = "Invalid field modifier",
	[HIST_ERR_FIELD_NOT_FOUND] = "Couldn't find field",
	[HIST_ERR_EMPTY_ASSIGNMENT] = "Empty assignment",
	[HIST_ERR_INVALID_SORT_MODIFIER] = "Invalid sort modifier",
	[HIST_ERR_EMPTY_SORT_FIELD] = "Empty sort field",
	[HIST_ERR_TOO_MANY_SORT_FIELDS] = "Too many sort fields (Max = 2)",
	[HIST_ERR_INVALID_SORT_FIELD] = "Sort field must be a key or a val",
	[HIST_ERR_INVALID_REF_KEY] = "Using variable references in keys not supported",
	[HIST_ERR_NEED_NOHC_VAL] = "Non-hitcount value is required for 'nohitcount'",
	[HIST_ERR_TOO_MANY_VARS] = "Too many variables defined",
	[HIST_ERR_DUPLICATE_VAR] = "Variable already defined",
	[HIST_ERR_VAR_NOT_UNIQUE] = "Variable name not unique, need to use fully qualified name "
				    "(subsys.event.var) for variable",
	[HIST_ERR_MALFORMED_ASSIGNMENT] = "Malformed assignment",
	[HIST_ERR_TOO_MANY_SUBEXPR] = "Too many subexpressions (3 max)",
	[HIST_ERR_TIMESTAMP_MISMATCH] = "Timestamp units in expression don't match",
	[HIST_ERR_TOO_MANY_FIELD_VARS] = "Too many field variables defined",
	[HIST_ERR_SYNTH_EVENT_NOT_FOUND] = "Couldn't find synthetic event",
	[HIST_ERR_SYNTH_TYPE_MISMATCH] = "Param type doesn't match synthetic event field type",
	[HIST_ERR_SYNTH_COUNT_MISMATCH] = "Param count doesn't match synthetic event field count",
	[HIST_ERR_FIELD_VAR_PARSE_FAIL] = "Couldn't parse field variable",
	[HIST_ERR_TOO_MANY_PARAMS] = "Too many action params",
	[HIST_ERR_PARAM_NOT_FOUND] = "Couldn't find param",
	[HIST_ERR_INVALID_PARAM] = "Invalid action param",
	[HIST_ERR_ACTION_NOT_FOUND] = "No action found",
	[HIST_ERR_NO_CLOSING_PAREN] = "No closing paren found",
	[HIST_ERR_SUBSYS_NOT_FOUND] = "Missing subsystem",
	[HIST_ERR_INVALID_SUBSYS_EVENT] = "Invalid subsystem or event name",
	[HIST_ERR_VAR_NOT_FOUND] = "Couldn't find variable",
	[HIST_ERR_INVALID_STR_OPERAND] = "String type can not be an operand in expression",
	[HIST_ERR_EXPECT_NUMBER] = "Expecting numeric literal",
	[HIST_ERR_UNARY_MINUS_SUBEXPR] = "Unary minus not supported in sub-expressions",
	[HIST_ERR_DIVISION_BY_ZERO] = "Division by zero",
	[HIST_ERR_ACTION_MISMATCH] = "Handler doesn't support action",
	[HIST_ERR_TRIGGER_EEXIST] = "Hist trigger already exists",
	[HIST_ERR_TRIGGER_ENOENT_CLEAR] = "Can't clear or continue a nonexistent hist trigger",
	[HIST_ERR_NAMED_MISMATCH] = "Named hist trigger doesn't match existing named trigger "
				    "(includes variables)",
	[HIST_ERR_NOT_HIST] = "Not a hist trigger (expected 'hist:')",
	[HIST_ERR_NO_KEYS] = "No keys (a hist trigger needs keys=FIELD[,FIELD...])",
	[HIST_ERR_TOO_MANY_KEYS] = "Too many keys (Max = 3)",
	[HIST_ERR_TOO_MANY_VALS] = "Too many values (Max = 2, besides hitcount)",
	[HIST_ERR_KEY_TOO_LARGE] = "Keys too large (Max = 384 bytes together)",
	[HIST_ERR_BAD_SIZE] = ("Invalid size (a number from 128 to 131072, rounded up to a "
			       "power of two)"),
	[HIST_ERR_UNKNOWN_ATTR] = "Unknown hist attribute",
	[HIST_ERR_BAD_FILTER] = "Invalid filter",
	[HIST_ERR_STRING_VAL] = "String type can not be a value (only keys)",
	[HIST_ERR_UNSUPPORTED] = "Not supported yet",
	[HIST_ERR_BAD_EXPR] = "Invalid expression",
	[HIST_ERR_BAD_SYNTH] = "Bad synthetic event",
	[HIST_ERR_KEYS_MISMATCH] = ("Keys differ from those of the variable's trigger (a reference "
				    "looks the variable up by this trigger's key)"),
	[HIST_ERR_NOMEM] = "Out of memory",
};

void tp_hist_error_at(struct hist_error *e, enum hist_err code, unsigned column,
		      const char *fmt, ...)
{
	size_t n;

	e->code = code;
	e->column = column;
	n = (size_t)snprintf(e->msg, sizeof(e->msg), "%s", tp_hist_err_text(code));
	if (e->column && n < sizeof(e->msg))
		n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, " at column %u", e->column);
	if (fmt && n < sizeof(e->msg)) {
		va_list ap;

		va_start(ap, fmt);
		n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, ": ");
		if (n < sizeof(e->msg))
			vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
		va_end(ap);
	}
}

int tp_hist_fail(struct hp *p, enum hist_err code, const char *at, const char *fmt, ...)
{
	struct hist_error *e = p->err;
	size_t n;

	tp_hist_error_at(e, code, at ? (unsigned)(at - p->buf) + 1 : 0, NULL);
	n = strlen(e->msg);
	if (fmt && n < sizeof(e->msg)) {
		va_list ap;

		va_start(ap, fmt);
		n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, ": ");
		if (n < sizeof(e->msg))
			vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
		va_end(ap);
	}
	return code == HIST_ERR_NOMEM ? -ENOMEM : -EINVAL;
}

/* The field of the event called name, or NULL. */
const struct filter_field *tp_hist_find_field(const struct hp *p, const char *name)
{
	for (size_t i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i].name, name))
			return &p->fields[i];
	return NULL;
}

/* kstrtoul(s, 0, &v): decimal, 0x hex or 0 octal, the whole string, no sign. */
static int parse_ulong(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* The operators the kernel's contains_operator() looks for ('-' of ".sym-offset" aside). */
bool tp_hist_has_operator(const char *s)
{
	for (const char *c = s; *c; c++) {
		if (*c == '+' || *c == '*' || *c == '/')
			return true;
		if (*c == '-' && !(c - s >= 4 && !strncmp(c - 4, ".sym-offset", 11)))
			return true;
	}
	return false;
}

bool tp_hist_is_string(const struct hist_field *f)
{
	return f->src == HIST_SRC_STR_ARRAY || f->src == HIST_SRC_STR_DYN;
}

/*
 * One key, value or variable: FIELD[.MODIFIER], as the kernel's parse_field() reads it
 * (everything after the first '.' is one modifier), then the checks of create_key_field() and
 * __create_val_field(). A value with a '$' or an operator is an expression
 * (hist_parse_vars.c); a key may not be one.
 */
int tp_hist_parse_field(struct hp *p, char *str, enum hist_as as, struct hist_field *f)
{
	char *mod = strchr(str, '.');
	const struct filter_field *ff;
	bool key = as == HIST_AS_KEY;

	memset(f, 0, sizeof(*f));
	if (*str == '$' && key)
		return tp_hist_fail(p, HIST_ERR_INVALID_REF_KEY, str, "'%s'", str);
	if (tp_hist_has_operator(str) && key)
		return tp_hist_fail(p, HIST_ERR_UNSUPPORTED, str, "expression '%s' as a key", str);
	if (as == HIST_AS_VAL && (*str == '$' || tp_hist_has_operator(str)))
		return tp_hist_parse_expr(p, str, HIST_AS_VAL, f);
	if (mod) {
		*mod++ = 0;
		if (!strcmp(mod, "hex"))
			f->mods = HIST_MOD_HEX;
		else if (!strcmp(mod, "sym"))
			f->mods = HIST_MOD_SYM;
		else if (!strcmp(mod, "sym-offset"))
			f->mods = HIST_MOD_SYM_OFFSET;
		else if (!strcmp(mod, "execname") && !strcmp(str, "common_pid"))
			f->mods = HIST_MOD_EXECNAME;
		else if (!strcmp(mod, "syscall"))
			f->mods = HIST_MOD_SYSCALL;
		else if (!strcmp(mod, "log2"))
			f->mods = HIST_MOD_LOG2;
		else if (!strcmp(mod, "usecs"))
			f->mods = HIST_MOD_USECS;
		else if (!strncmp(mod, "bucket", 6)) {
			const char *n = mod + 6 + (mod[6] == 's');

			if (*n != '=' || parse_ulong(n + 1, &f->buckets) || !f->buckets)
				return tp_hist_fail(p, HIST_ERR_BAD_FIELD_MODIFIER, mod, "'%s'", mod);
			f->mods = HIST_MOD_BUCKETS;
		} else if (!strncmp(mod, "percent", 7) && !key)
			f->mods = HIST_MOD_PERCENT;
		else if (!strncmp(mod, "graph", 5) && !key)
			f->mods = HIST_MOD_GRAPH;
		else if (!strcmp(mod, "stacktrace"))
			return tp_hist_fail(p, HIST_ERR_UNSUPPORTED, mod, "'%s' (no kernel stacks here)", mod);
		else
			return tp_hist_fail(p, HIST_ERR_BAD_FIELD_MODIFIER, mod, "'%s'", mod);
	}
	if (!strcmp(str, "common_timestamp")) {
		f->src = HIST_SRC_TIMESTAMP;
		p->s->timestamps = true;
		if (f->mods & HIST_MOD_USECS)
			p->s->ts_usecs = true;
	} else if (!strcmp(str, "common_stacktrace") || !strcmp(str, "stacktrace")) {
		return tp_hist_fail(p, HIST_ERR_UNSUPPORTED, str, "'%s' (no kernel stacks here)", str);
	} else if (!strcmp(str, "common_cpu")) {
		f->src = HIST_SRC_CPU;
	} else if (!strcmp(str, "hitcount") && !key) {
		f->src = HIST_SRC_HITCOUNT;
	} else if ((ff = tp_hist_find_field(p, str))) {
		f->offset = ff->offset;
		f->size = ff->size;
		f->is_signed = ff->is_signed;
		f->src = ff->kind == FILTER_STR_ARRAY ? HIST_SRC_STR_ARRAY
		       : ff->kind == FILTER_STR_DYN   ? HIST_SRC_STR_DYN
						      : HIST_SRC_NUM;
	} else if (!strcmp(str, "cpu") || !strcmp(str, "CPU")) {
		/* The kernel's old spelling of common_cpu, when the event has no such field. */
		f->src = HIST_SRC_CPU;
	} else {
		return tp_hist_fail(p, HIST_ERR_FIELD_NOT_FOUND, str, "'%s'", str);
	}
	if (f->src == HIST_SRC_CPU) {
		p->s->cpu = true;
		strcpy(f->name, "common_cpu");
	}
	else if (strlen(str) < sizeof(f->name))
		strcpy(f->name, str);
	else
		return tp_hist_fail(p, HIST_ERR_FIELD_NOT_FOUND, str, "'%s'", str);

	/*
	 * The kernel takes these on a string and then hashes or sums the string's address; a
	 * string is refused here instead. .usecs is harmless anywhere, as in the kernel.
	 */
	if (tp_hist_is_string(f) && (f->mods & ~(uint32_t)HIST_MOD_USECS))
		return tp_hist_fail(p, HIST_ERR_BAD_FIELD_MODIFIER, mod, "'%s' on string field '%s'", mod,
			    str);
	if (as == HIST_AS_VAR || as == HIST_AS_OPERAND) {
		/* __create_val_field() for a variable; strings are kept (string variables). */
		if (f->mods & (HIST_MOD_GRAPH | HIST_MOD_PERCENT | HIST_MOD_BUCKETS | HIST_MOD_LOG2 |
			       HIST_MOD_EXECNAME))
			return tp_hist_fail(p, HIST_ERR_BAD_FIELD_MODIFIER, str, "'%s.%s' as a variable",
					    str, mod);
		return 0;
	}
	if (!key) {
		const uint32_t not_for_vals = HIST_MOD_BUCKETS | HIST_MOD_LOG2 | HIST_MOD_SYM |
					      HIST_MOD_SYM_OFFSET | HIST_MOD_SYSCALL;

		if (f->mods & not_for_vals)
			return tp_hist_fail(p, HIST_ERR_BAD_FIELD_MODIFIER, str, "'%s.%s' as a value", str,
				    mod);
		if (tp_hist_is_string(f))
			return tp_hist_fail(p, HIST_ERR_STRING_VAL, str, "'%s'", str);
		return 0;
	}
	if (f->src == HIST_SRC_STR_ARRAY)
		f->key_size = (uint16_t)((f->size + 7u) & ~7u);
	else if (f->src == HIST_SRC_STR_DYN)
		f->key_size = HIST_STR_MAX;
	else
		f->key_size = 8;
	return 0;
}

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
		ret = tp_hist_parse_field(p, field, HIST_AS_VAL, &s->vals[s->nvals]);
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

	if (parse_ulong(str, &size) || size == 0 || size > (1u << HIST_BITS_MAX))
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
		snprintf(err->msg, sizeof(err->msg), "%s", hist_err_text[HIST_ERR_NOMEM]);
		err->code = HIST_ERR_NOMEM;
		return -ENOMEM;
	}
	s->map_bits = HIST_BITS_DEFAULT;
	s->text = strdup(trigger);
	if (!s->text) {
		free(p.buf);
		tp_hist_spec_free(s);
		snprintf(err->msg, sizeof(err->msg), "%s", hist_err_text[HIST_ERR_NOMEM]);
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

const char *tp_hist_err_text(enum hist_err code)
{
	return (unsigned)code < sizeof(hist_err_text) / sizeof(hist_err_text[0]) &&
			       hist_err_text[code]
		       ? hist_err_text[code]
		       : "Unknown error";
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
