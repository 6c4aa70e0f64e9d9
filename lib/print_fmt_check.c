// SPDX-License-Identifier: MIT
/*
 * print_fmt_check.c - whether libtraceevent 1.7.1 can evaluate a print fmt
 * (tpoint_print_fmt_check(), format.h): an event it cannot render stays off rather than
 * print garbage in every reader.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "print_fmt_check.h"
#include "print_fmt_lex.h"
#include "printf_conv.h"

/* ---- what libtraceevent 1.7.1 can evaluate (docs/TRACEDAT-FORMAT.md says why) ---- */

__attribute__((format(printf, 3, 4))) static int reject(char *why, size_t whylen,
							 const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The functions libtraceevent's parser knows by name (event-parse.c, process_function). */
static const char *const known_functions[] = {
	"__print_flags",
	"__print_symbolic",
	"__print_hex",
	"__print_hex_str",
	"__print_array",
	"__get_str",
	"__get_rel_str",
	"__get_dynamic_array",
	"__get_dynamic_array_len",
	"__get_rel_dynamic_array",
	"__get_bitmask",
	"__get_cpumask",
	"__get_rel_bitmask",
	"__get_rel_cpumask",
	"__get_sockaddr",
	"sizeof",
	"__builtin_expect",
};

static bool word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !strncmp(s, word, n);
}

/* Check the conversion at s ('%'); *len gets its length. */
static int check_conversion(const char *s, size_t *len, char *why, size_t whylen)
{
	struct tp_printf_conv pc = tp_printf_conv_parse(s, s + strlen(s));
	size_t i = pc.spec;
	int n;

	if (pc.c == '%') {
		*len = 2;
		return 0;
	}
	*len = i + 1;
	n = (int)(i + 1);
	switch (s[i]) {
	case 'c':
		return reject(why, whylen,
			      "\"%.*s\": libtraceevent prints >c< and does not consume the argument, "
			      "so every later argument shifts",
			      n, s);
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		return reject(why, whylen,
			      "\"%.*s\": libtraceevent has no floating-point conversions", n, s);
	case 'p':
		if (s[i + 1] == 'x' || s[i + 1] == 'K')
			return reject(why, whylen,
				      "\"%.*s%c\": libtraceevent prints the pointer followed by a "
				      "literal '%c'",
				      n, s, s[i + 1], s[i + 1]);
		return 0;
	case 0:
	case '"':
	case '\\':
		*len = i;
		return reject(why, whylen, "\"%.*s\": incomplete conversion", (int)i, s);
	default:
		return 0;
	}
}

/* Check the string literal at s ('"'); *len gets its length with the quotes. */
static int check_format_literal(const char *s, size_t *len, char *why, size_t whylen)
{
	size_t n = literal_len(s), i = 1, clen;
	int err;

	if (!n)
		return reject(why, whylen, "unterminated string literal");
	while (i < n - 1) {
		if (s[i] == '\\') {
			i += 2;
		} else if (s[i] == '%') {
			err = check_conversion(s + i, &clen, why, whylen);
			if (err)
				return err;
			i += clen;
		} else {
			i++;
		}
	}
	*len = n;
	return 0;
}

/* The operand of sizeof, whose '(' is at open; *after gets the text past its ')'.
 * libtraceevent evaluates only these operands. */
static int check_sizeof(const char *open, const char **after, char *why, size_t whylen)
{
	const char *s = open + 1, *e, *t;
	int depth = 1;

	for (e = s; *e && depth; e++) {
		if (*e == '(')
			depth++;
		else if (*e == ')')
			depth--;
	}
	if (depth)
		return reject(why, whylen, "unbalanced parentheses");
	*after = e;
	e--; /* at the ')' */
	while (s < e && is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	if (word_is(s, (size_t)(e - s), "int") || word_is(s, (size_t)(e - s), "long"))
		return 0;
	if (e - s > 5 && !strncmp(s, "REC->", 5) && is_ident_start(s[5])) {
		for (t = s + 5; t < e && is_ident(*t); t++)
			;
		if (t == e)
			return 0;
	}
	return reject(why, whylen,
		      "sizeof(%.*s): libtraceevent knows only sizeof(int), sizeof(long) and "
		      "sizeof(REC->field)",
		      (int)(e - s), s);
}

enum tok { TOK_OTHER, TOK_IDENT, TOK_REC, TOK_ARROW, TOK_DOT };

int tpoint_print_fmt_check(const char *print_fmt, char *why, size_t whylen)
{
	const char *s = print_fmt;
	enum tok prev = TOK_OTHER;
	size_t n = 0;
	int depth = 0, err;

	while (is_space(*s))
		s++;
	if (*s != '"')
		return reject(why, whylen, "print fmt does not start with a string literal");
	/* libtraceevent joins adjacent literals into the format, as C does. */
	while (*s == '"') {
		err = check_format_literal(s, &n, why, whylen);
		if (err)
			return err;
		s += n;
		while (is_space(*s))
			s++;
	}
	if (*s && *s != ',')
		return reject(why, whylen,
			      "unexpected text after the format string (a '\"' inside TP_printk's "
			      "format?): %.20s",
			      s);

	while (*s) {
		char c = *s;

		if (is_space(c)) {
			s++;
			continue;
		}
		if (c == '"' || c == '\'') {
			n = literal_len(s);
			if (!n)
				return reject(why, whylen, "unterminated %s literal",
					      c == '"' ? "string" : "character");
			s += n;
			prev = TOK_OTHER;
		} else if (is_digit(c)) {
			while (is_ident(*s) || *s == '.')
				s++;
			prev = TOK_OTHER;
		} else if (is_ident_start(c)) {
			const char *w = s, *p;
			bool member = prev == TOK_ARROW || prev == TOK_DOT;

			while (is_ident(*s))
				s++;
			n = (size_t)(s - w);
			for (p = s; is_space(*p); p++)
				;
			if (!member && *p == '(') {
				size_t i;

				if (word_is(w, n, "sizeof")) {
					err = check_sizeof(p, &s, why, whylen);
					if (err)
						return err;
					prev = TOK_OTHER;
					continue;
				}
				if (word_is(w, n, "__get_rel_dynamic_array_len"))
					return reject(why, whylen,
						      "__get_rel_dynamic_array_len(): libtraceevent "
						      "1.7.1 crashes evaluating it");
				for (i = 0; i < sizeof(known_functions) / sizeof(known_functions[0]); i++)
					if (word_is(w, n, known_functions[i]))
						break;
				if (i == sizeof(known_functions) / sizeof(known_functions[0]))
					return reject(why, whylen,
						      "%.*s(): a function or macro libtraceevent does "
						      "not know (expand it, or register a print function)",
						      (int)n, w);
			}
			prev = !member && word_is(w, n, "REC") ? TOK_REC : TOK_IDENT;
		} else if (c == '-' && s[1] == '>') {
			if (prev != TOK_REC)
				return reject(why, whylen,
					      "'->' other than REC->field: libtraceevent cannot "
					      "dereference");
			s += 2;
			prev = TOK_ARROW;
		} else if (c == '^') {
			return reject(why, whylen,
				      "'^' (xor): libtraceevent evaluates it to 0");
		} else {
			if (c == '(') {
				depth++;
			} else if (c == ')' && --depth < 0) {
				return reject(why, whylen, "unbalanced parentheses");
			}
			prev = c == '.' ? TOK_DOT : TOK_OTHER;
			s++;
		}
	}
	if (depth)
		return reject(why, whylen, "unbalanced parentheses");
	return 0;
}
