/* SPDX-License-Identifier: MIT */
/*
 * hist_parse.h - what hist_parse_field.c (one field, the refusals), hist_parse_vars.c
 * (variables, expressions, actions) and hist_parse.c (attributes, keys, values, sort) share
 * while they read one trigger. Not an API.
 */
#ifndef TPOINT_HIST_PARSE_H
#define TPOINT_HIST_PARSE_H

#include "hist.h"

#pragma GCC visibility push(hidden)

/* The parser's state: a copy of the text, cut in place, so that a token's column is known. */
struct hp {
	char *buf;
	const struct filter_field *fields;
	size_t nfields;
	struct hist_spec *s;
	struct hist_error *err;
	unsigned nsub;                   /* subexpressions of the field being read */
	unsigned ndefs;                  /* parse_var_defs()'s list */
	char *def_name[HIST_VARS_MAX], *def_expr[HIST_VARS_MAX];
};

/* What a field is read as: the modifiers and kinds each allows differ. */
enum hist_as { HIST_AS_KEY, HIST_AS_VAL, HIST_AS_VAR, HIST_AS_OPERAND };

int tp_hist_fail(struct hp *p, enum hist_err code, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const struct filter_field *tp_hist_find_field(const struct hp *p, const char *name);
bool tp_hist_is_string(const struct hist_field *f);
bool tp_hist_has_operator(const char *s);
/* kstrtoul(s, 0, &v): decimal, 0x hex or 0 octal, the whole string, no sign. 0 or -1. */
int tp_hist_parse_ulong(const char *s, uint64_t *v);
/* FIELD[.MODIFIER] into *f (hist_parse_field.c). */
int tp_hist_parse_field(struct hp *p, char *str, enum hist_as as, struct hist_field *f);

/* hist_parse_vars.c, in the order parse() calls them. */
int tp_hist_parse_action(struct hp *p, char *str);          /* "onmatch(...)..." */
int tp_hist_parse_var_defs(struct hp *p, char **assign, unsigned n);
int tp_hist_parse_expr(struct hp *p, char *str, enum hist_as as, struct hist_field *f);
int tp_hist_parse_vars(struct hp *p);                       /* the definitions, made */
int tp_hist_parse_params(struct hp *p);                     /* the actions' parameters */

#pragma GCC visibility pop

#endif
