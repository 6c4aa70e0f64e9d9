/* SPDX-License-Identifier: MIT */
/*
 * print_fmt_lex.h - reading a print fmt as the C source text it is, for the format builder
 * (format.c: enum substitution, bitmap conversions) and the print fmt check
 * (print_fmt_check.c), so that both see the same words and literals.
 */
#ifndef TPOINT_PRINT_FMT_LEX_H
#define TPOINT_PRINT_FMT_LEX_H

#include <stdbool.h>
#include <stddef.h>

/* ASCII only: print formats are C source text, and the locale must not change the result. */
static inline bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the string or character literal starting at s (quote included), or 0 when it
 * does not end or s does not start one (an empty print fmt: nothing past its NUL is read). */
static inline size_t literal_len(const char *s)
{
	char q = s[0];
	size_t i = 1;

	if (q != '"' && q != '\'')
		return 0;
	while (s[i] && s[i] != q) {
		if (s[i] == '\\' && s[i + 1])
			i++;
		i++;
	}
	return s[i] ? i + 1 : 0;
}

#endif
