/* SPDX-License-Identifier: MIT */
/*
 * hist_parse_field.c - the bottom of a trigger's parser (see hist.h, hist_parse.h): the
 * kernel's messages, a refusal's text and column, and one field with its modifier as the
 * kernel's parse_field() reads it. hist_parse_vars.c (variables, expressions, actions) and
 * hist_parse.c (the attributes, keys, values, sort keys) stand on it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

/* "MESSAGE[ at column N][: DETAIL]". */
static void verror(struct hist_error *e, enum hist_err code, unsigned column, const char *fmt,
		   va_list ap)
{
	size_t n;

	e->code = code;
	e->column = column;
	n = (size_t)snprintf(e->msg, sizeof(e->msg), "%s", tp_hist_err_text(code));
	if (e->column && n < sizeof(e->msg))
		n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, " at column %u", e->column);
	if (fmt && n < sizeof(e->msg)) {
		n += (size_t)snprintf(e->msg + n, sizeof(e->msg) - n, ": ");
		if (n < sizeof(e->msg))
			vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	}
}

void tp_hist_error_at(struct hist_error *e, enum hist_err code, unsigned column,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(e, code, column, fmt, ap);
	va_end(ap);
}

int tp_hist_fail(struct hp *p, enum hist_err code, const char *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(p->err, code, at ? (unsigned)(at - p->buf) + 1 : 0, fmt, ap);
	va_end(ap);
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
int tp_hist_parse_ulong(const char *s, uint64_t *v)
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
 * __create_val_field(). A key may not be an expression (a value may: hist_parse_vars.c).
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

			if (*n != '=' || tp_hist_parse_ulong(n + 1, &f->buckets) || !f->buckets)
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

const char *tp_hist_err_text(enum hist_err code)
{
	return (unsigned)code < sizeof(hist_err_text) / sizeof(hist_err_text[0]) &&
			       hist_err_text[code]
		       ? hist_err_text[code]
		       : "Unknown error";
}
