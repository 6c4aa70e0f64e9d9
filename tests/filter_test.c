// SPDX-License-Identifier: MIT
/*
 * filter_test - the event filter (lib/filter.c, filter_parse.c, filter_eval.c) on its own,
 * against a fake record layout: expressions with their expected verdict on four records,
 * glob patterns, canonical text, the exact message of each malformed expression, the limits,
 * and damaged or truncated records (each in a buffer of exactly its size, so that ASan sees
 * any read past it).
 *
 *   gcc -std=gnu11 -Wall -Wextra -Werror -Ilib -Iinclude tests/filter_test.c lib/filter.c \
 *	lib/filter_parse.c lib/filter_eval.c
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

static int checks, failures;

__attribute__((format(printf, 2, 3))) static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!ok)
		failures++;
	printf("%s %d - ", ok ? "ok" : "FAIL", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The fixed part of the fake event; the __data_loc string follows it. */
struct rec {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
	uint8_t u8;
	int8_t s8;
	uint16_t u16;
	int16_t s16;
	int32_t s32;
	uint32_t u32;
	uint64_t u64;
	int64_t s64;
	char comm[16];
	uint32_t path; /* __data_loc char[] */
};

#define NUM(name, type, sgn) \
	{ #name, offsetof(struct rec, name), sizeof(type), sgn, FILTER_NUM }

static const struct filter_field fields[] = {
	NUM(common_type, uint16_t, 0),
	NUM(common_flags, uint8_t, 0),
	NUM(common_preempt_count, uint8_t, 0),
	NUM(common_pid, int32_t, 1),
	NUM(u8, uint8_t, 0),
	NUM(s8, int8_t, 1),
	NUM(u16, uint16_t, 0),
	NUM(s16, int16_t, 1),
	NUM(s32, int32_t, 1),
	NUM(u32, uint32_t, 0),
	NUM(u64, uint64_t, 0),
	NUM(s64, int64_t, 1),
	{ "comm", offsetof(struct rec, comm), 16, 1, FILTER_STR_ARRAY },
	{ "path", offsetof(struct rec, path), 4, 1, FILTER_STR_DYN },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define EVENT "tpoint_test:rec"

/* The writeback event of the examples, for the message that lists fields. */
static const struct filter_field wb_fields[] = {
	{ "common_type", 0, 2, 0, FILTER_NUM },
	{ "common_flags", 2, 1, 0, FILTER_NUM },
	{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
	{ "common_pid", 4, 4, 1, FILTER_NUM },
	{ "dev", 8, 4, 0, FILTER_NUM },
	{ "ino", 16, 8, 0, FILTER_NUM },
	{ "flags", 24, 4, 0, FILTER_NUM },
};

struct recspec {
	int32_t pid;
	uint8_t flags;
	uint8_t u8;
	int8_t s8;
	uint16_t u16;
	int16_t s16;
	int32_t s32;
	uint32_t u32;
	uint64_t u64;
	int64_t s64;
	const char *comm; /* up to 16 bytes; 16 leaves no NUL */
	const char *path;
};

static const struct recspec specs[4] = {
	{ 1234, 0, 3, -1, 0x8000, -300, -5, 4000000000u, UINT64_MAX, INT64_MIN,
	  "kworker/0:1", "/usr/bin/bash" },
	{ 1, 1, 0, 127, 1, 300, 100, 0, 1ull << 40, 5, "bash", "" },
	{ 99999, 3, 255, -128, 65535, 0, INT32_MIN, 100, 100, -1, "0123456789abcdef",
	  "/home/user/file.txt" },
	{ -7, 2, 4, 0, 2, -1, 0, 7, 0, INT64_MAX, "kworker/u8:2", "kworker" },
};

/* A record in a malloc'ed buffer of exactly its size; returns the size. */
static uint32_t make_rec(const struct recspec *sp, unsigned char **out)
{
	size_t plen = strlen(sp->path) + 1, size = sizeof(struct rec) + plen;
	unsigned char *buf = calloc(1, size);
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.common_type = 0x8001;
	r.common_flags = sp->flags;
	r.common_pid = sp->pid;
	r.u8 = sp->u8;
	r.s8 = sp->s8;
	r.u16 = sp->u16;
	r.s16 = sp->s16;
	r.s32 = sp->s32;
	r.u32 = sp->u32;
	r.u64 = sp->u64;
	r.s64 = sp->s64;
	memcpy(r.comm, sp->comm, strnlen(sp->comm, sizeof(r.comm)));
	r.path = (uint32_t)plen << 16 | sizeof(struct rec);
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), sp->path, plen);
	*out = buf;
	return size;
}

static unsigned char *recs[4];
static uint32_t rec_sizes[4];

/* Expressions and their verdicts on specs[0..3], as "0101". */
static const struct {
	const char *expr;
	const char *want;
} match_cases[] = {
	{ "u8 == 3", "1000" },
	{ "u8 != 3", "0111" },
	{ "u8 < 4", "1100" },
	{ "u8 <= 4", "1101" },
	{ "u8 > 3", "0011" },
	{ "u8 >= 3", "1011" },
	{ "u8 & 1", "1010" },
	{ "u8 & 0x4", "0011" },
	{ "u8 == 03", "1000" },
	{ "u8 == 010", "0000" },
	{ "u8 == 0", "0100" },
	{ "u8 == +3", "1000" },
	{ "u8 == 0xFF", "0010" },
	/* A constant wider than the field is compared, not truncated to the field's size. */
	{ "u8 == 259", "0000" },
	{ "s8 < 0", "1010" },
	{ "s8 == -1", "1000" },
	{ "s8 == 255", "0000" },
	{ "s8 >= -128", "1111" },
	{ "s8 & 0x80", "1010" },
	{ "s16 < -299", "1000" },
	{ "s16 == -0x12c", "1000" },
	{ "s16 == -0454", "1000" },
	{ "u16 == 0x8000", "1000" },
	{ "u16 > 32767", "1010" },
	{ "s32 < 0", "1010" },
	{ "s32 == -2147483648", "0010" },
	{ "s32 > -6 && s32 < 1", "1001" },
	{ "s32 & 0x100000000", "1010" },
	{ "u32 > 2147483647", "1000" },
	{ "u32 == 4000000000", "1000" },
	{ "u32 == 0", "0100" },
	{ "u64 == 0xffffffffffffffff", "1000" },
	{ "u64 == 18446744073709551615", "1000" },
	{ "u64 > 1000", "1100" },
	{ "u64 & 0x10000000000", "1100" },
	{ "u64 >= 0", "1111" },
	{ "s64 < 0", "1010" },
	{ "s64 == -9223372036854775808", "1000" },
	{ "s64 == 9223372036854775807", "0001" },
	{ "s64 <= 9223372036854775807", "1111" },
	{ "s64 > -2 && s64 < 6", "0110" },
	{ "common_pid == 1234", "1000" },
	{ "common_pid < 0", "0001" },
	{ "common_flags & 3", "0111" },
	{ "common_flags & 3 && common_pid > 100", "0010" },
	{ "common_type == 0x8001 && common_preempt_count == 0", "1111" },
	{ "comm == \"bash\"", "0100" },
	{ "comm == bash", "0100" },
	{ "comm != 'bash'", "1011" },
	{ "comm == \"bas\"", "0000" },
	{ "comm ~ \"kworker*\"", "1001" },
	{ "comm ~ kworker*", "1001" },
	{ "comm ~ \"*:1\"", "1000" },
	{ "comm ~ \"*or*\"", "1001" },
	{ "comm ~ \"kworker/?:?\"", "1000" },
	{ "comm ~ \"kworker/[0-9]:*\"", "1000" },
	{ "comm ~ \"kworker/[!0-9]*\"", "0001" },
	{ "comm ~ \"kworker\\/*\"", "1001" },
	{ "comm == \"0123456789abcdef\"", "0010" },
	{ "comm == \"0123456789abcdefg\"", "0000" },
	{ "comm ~ \"*f\"", "0010" },
	{ "comm ~ *", "1111" },
	{ "comm ~ \"\"", "0000" },
	{ "comm == ''", "0000" },
	/* == never globs. */
	{ "comm == \"kworker*\"", "0000" },
	{ "comm == \"1234\"", "0000" },
	{ "path == \"\"", "0100" },
	{ "path != \"\"", "1011" },
	{ "path ~ \"/usr/*\"", "1000" },
	{ "path ~ \"*.txt\"", "0010" },
	{ "path ~ \"*[.]txt\"", "0010" },
	{ "path ~ \"*/*/*\"", "1010" },
	{ "path ~ kworker", "0001" },
	{ "path ~ \"k?o*r\"", "0001" },
	{ "path ~ \"[a-k]*\"", "0001" },
	{ "path ~ \"*bash\" || comm ~ \"bash\"", "1100" },
	{ "!(u8 == 3)", "0111" },
	{ "!u8 == 3", "0111" },
	{ "!!(u8 == 3)", "1000" },
	{ "!!!u8 == 3", "0111" },
	{ "u8 == 3 || u8 == 0 && s8 == 0", "1000" },
	{ "(u8 == 3 || u8 == 0) && s8 > 0", "0100" },
	{ "u8 == 3 || u8 == 0 || u8 == 4", "1101" },
	{ "u8 == 3 && s8 == -1 && u16 == 0x8000 && comm ~ \"kw*\"", "1000" },
	{ "!(comm ~ \"kworker*\" || path == \"\")", "0010" },
	{ "!(u8 == 3 && s8 == -1) && !(u8 == 0)", "0011" },
	{ "(((u8 == 255)))", "0010" },
	{ "u8==3&&s8==-1", "1000" },
	{ "u8>=3&&!(u16&1)", "1001" },
	{ "(u8 == 0 || u8 == 4) && (comm ~ b* || path ~ k*)", "0101" },
	{ "u8 == 0 || (s8 < 0 && (u16 == 65535 || s16 == -300)) || s64 > 0", "1111" },
	{ "u8 == 1 || (s8 < 0 && (u16 == 2 || s16 == -300)) || s64 == 0", "1000" },
	{ "\tu8\n==\r3\f", "1000" },
};

/* Glob patterns against a __data_loc string. */
static const struct {
	const char *pattern;
	const char *str;
	int want;
} glob_cases[] = {
	{ "abc", "abc", 1 },        { "abc", "abcd", 0 },      { "abc", "ab", 0 },
	{ "abc*", "abcd", 1 },      { "abc*", "abc", 1 },      { "*bcd", "abcd", 1 },
	{ "*bc*", "abcd", 1 },      { "*x*", "abcd", 0 },      { "a*d", "abcd", 1 },
	{ "a*c", "abcd", 0 },       { "a?c?", "abcd", 1 },     { "????", "abcd", 1 },
	{ "???", "abcd", 0 },       { "*", "", 1 },            { "", "", 1 },
	{ "?", "", 0 },             { "a**d", "abcd", 1 },     { "*a*b*c*d*", "abcd", 1 },
	{ "*d*c*", "abcd", 0 },     { "[abc]bcd", "abcd", 1 }, { "[!abc]bcd", "abcd", 0 },
	{ "[!x]bcd", "abcd", 1 },   { "[^a]*", "abcd", 0 },    { "[a-c][a-c]*", "abcd", 1 },
	{ "[]]x", "]x", 1 },        { "[z-a]", "a", 0 },       { "\\*", "*", 1 },
	{ "\\*", "a", 0 },          { "a\\?c", "a?c", 1 },     { "a\\?c", "abc", 0 },
	{ "[a-", "[a-", 1 },        { "[[]", "[", 1 },         { "*aab", "aaab", 1 },
	{ "*aa*ab", "aaab", 1 },    { "*ab*ab", "abab", 1 },   { "*ab*ab", "abb", 0 },
	{ "a*a", "a", 0 },          { "a*a", "aa", 1 },        { "x[0-9]*", "x5yz", 1 },
	{ "x[0-9]*", "xyz", 0 },    { "*.[ch]", "file.c", 1 }, { "*.[ch]", "file.o", 0 },
	{ "k\\", "k\\", 1 },        { "[\\]]", "]", 1 },       { "[a\\-z]", "-", 1 },
	{ "[a\\-z]", "b", 0 },      { "*-*", "a-b", 1 },       { "[-a]", "-", 1 },
	{ "\xc3\xa9*", "\xc3\xa9t\xc3\xa9", 1 },             { "[\x80-\xff]?", "\xc3\xa9", 1 },
	{ "*?", "", 0 },            { "*?", "x", 1 },          { "?*?", "x", 0 },
	{ "a*b*c", "aXbYbZc", 1 },  { "a*b*c", "aXcYb", 0 },
	{ "*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa", 0 },
};

/* The canonical text each source gives. */
static const struct {
	const char *expr;
	const char *text;
} text_cases[] = {
	{ "u8==3&&s8==-1", "u8 == 3 && s8 == -1" },
	{ "!u8 == 3", "!(u8 == 3)" },
	{ "((u8 == 3))", "u8 == 3" },
	{ "(u8==1||u8==2)&&u8==3", "(u8 == 1 || u8 == 2) && u8 == 3" },
	{ "u8 == 1 || (u8 == 2 && u8 == 3)", "u8 == 1 || u8 == 2 && u8 == 3" },
	{ "(u8 == 1 || u8 == 2) || u8 == 3", "u8 == 1 || u8 == 2 || u8 == 3" },
	{ "u8 == 1 && (u8 == 2 && u8 == 3)", "u8 == 1 && u8 == 2 && u8 == 3" },
	{ "comm ~ kworker*", "comm ~ \"kworker*\"" },
	{ "comm == 'say \"hi\"'", "comm == 'say \"hi\"'" },
	{ "comm == \"it's\"", "comm == \"it's\"" },
	{ "!!!(u8 == 3)", "!!!(u8 == 3)" },
	{ "!(u8 == 1 && u8 == 2)", "!(u8 == 1 && u8 == 2)" },
	{ "!(u8 == 1 || u8 == 2) && !u8 == 3", "!(u8 == 1 || u8 == 2) && !(u8 == 3)" },
	{ "u8 & 0x3", "u8 & 0x3" },
	{ "s8>=-0x10", "s8 >= -0x10" },
	{ "path~\"*\"", "path ~ \"*\"" },
};

/* Malformed expressions and the exact message of each. */
static const struct {
	const char *expr;
	const char *msg;
} error_cases[] = {
	{ "", "syntax error at column 1: unexpected end of expression (expected a field name, "
	      "'!' or '(')" },
	{ "   ", "syntax error at column 4: unexpected end of expression (expected a field "
		 "name, '!' or '(')" },
	{ "u8==1||&&", "syntax error at column 8: unexpected '&&' (expected a field name, '!' "
		       "or '(')" },
	{ "u8 == 3 && && s8 == 1", "syntax error at column 12: unexpected '&&' (expected a "
				   "field name, '!' or '(')" },
	{ "u8 == 3 &&", "syntax error at column 11: unexpected end of expression (expected a "
			"field name, '!' or '(')" },
	{ "u8 == 3 )", "syntax error at column 9: unexpected ')' (expected '&&', '||' or the "
		       "end)" },
	{ "(u8 == 3", "syntax error at column 9: unexpected end of expression (expected '&&', "
		      "'||' or ')')" },
	{ "(u8 == 3 s8", "syntax error at column 10: unexpected 's8' (expected '&&', '||' or "
			 "')')" },
	{ "u8 == 3 s8 == 1", "syntax error at column 9: unexpected 's8' (expected '&&', '||' "
			     "or the end)" },
	{ "u8 == 1 == 2", "syntax error at column 9: unexpected '==' (expected '&&', '||' or "
			  "the end)" },
	{ "()", "syntax error at column 2: unexpected ')' (expected a field name, '!' or '(')" },
	{ "3 == u8", "syntax error at column 1: unexpected '3' (expected a field name, '!' or "
		     "'(')" },
	{ "u8 == 3 && $x == 1", "syntax error at column 12: unexpected '$x' (expected a field "
				"name, '!' or '(')" },
	{ "u8 == 3 && x\x01 == 1", "syntax error at column 12: unexpected 'x?' (expected a "
				   "field name, '!' or '(')" },
	{ "\"u8\" == 3", "syntax error at column 1: unexpected '\"u8\"' (expected a field "
			 "name, '!' or '(')" },
	{ "u8 3", "syntax error at column 4: unexpected '3' (expected an operator: ==, !=, <, "
		  "<=, >, >=, & or ~)" },
	{ "u8 = 3", "syntax error at column 4: unexpected '=' (expected an operator: ==, !=, "
		    "<, <=, >, >=, & or ~)" },
	{ "u8 | 1", "syntax error at column 4: unexpected '|' (expected an operator: ==, !=, "
		    "<, <=, >, >=, & or ~)" },
	{ "u8 && 1", "syntax error at column 4: unexpected '&&' (expected an operator: ==, "
		     "!=, <, <=, >, >=, & or ~)" },
	{ "u8", "syntax error at column 3: unexpected end of expression (expected an "
		"operator: ==, !=, <, <=, >, >=, & or ~)" },
	{ "u8 ==", "syntax error at column 6: unexpected end of expression (expected a "
		   "value)" },
	{ "u8 == )", "syntax error at column 7: unexpected ')' (expected a value)" },
	{ "u8 == && s8 == 1", "syntax error at column 7: unexpected '&&' (expected a value)" },
	{ "comm == \"abc", "syntax error at column 9: unterminated string (no closing \")" },
	{ "comm == 'abc", "syntax error at column 9: unterminated string (no closing ')" },
	{ "\"abc", "syntax error at column 1: unterminated string (no closing \")" },
	{ "u8 == 12x", "'12x' is not a number" },
	{ "u8 == 08", "'08' is not a number" },
	{ "u8 == 0x", "'0x' is not a number" },
	{ "u8 == -", "'-' is not a number" },
	{ "u8 == 1.5", "'1.5' is not a number" },
	{ "u8 == --1", "'--1' is not a number" },
	{ "u8 == abc", "'abc' is not a number" },
	{ "u8 == \"3\"", "'\"3\"' is not a number" },
	{ "u8 == 99999999999999999999x", "'99999999999999999999x' is not a number" },
	{ "u8 == -1", "'-1' is negative but field 'u8' is unsigned" },
	{ "u64 == 18446744073709551616",
	  "'18446744073709551616' is out of range for unsigned field 'u64'" },
	{ "s64 == 9223372036854775808",
	  "'9223372036854775808' is out of range for signed field 's64'" },
	{ "s64 == -9223372036854775809",
	  "'-9223372036854775809' is out of range for signed field 's64'" },
	{ "u8 ~ 3", "field 'u8' is a number: use ==, !=, <, <=, >, >= or &" },
	{ "path < 3", "field 'path' is a string: use ==, != or ~" },
	{ "comm & 1", "field 'comm' is a string: use ==, != or ~" },
	{ "comm >= \"a\"", "field 'comm' is a string: use ==, != or ~" },
	{ "comm == 3", "field 'comm' is a string (char array) and '3' is a number: to compare "
		       "text, quote it (comm == \"3\")" },
	{ "path != -0x10", "field 'path' is a string (char array) and '-0x10' is a number: to "
			   "compare text, quote it (path != \"-0x10\")" },
	{ "u8 == 1 && nope == 2",
	  "no field 'nope' in tpoint_test:rec; fields: common_pid, u8, s8, u16, s16, s32, u32, "
	  "u64, s64, comm, path" },
	{ "u8 == 1 && aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa == 2",
	  "no field 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' in tpoint_test:rec; fields: "
	  "common_pid, u8, s8, u16, s16, s32, u32, u64, s64, comm, path" },
};

/* An expression for a one-line message: control bytes as '?'. */
static const char *vis(const char *s)
{
	static char buf[8][128];
	static int next;
	char *b = buf[next++ % 8];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf[0]) - 1; i++)
		b[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	b[i] = 0;
	return b;
}

static const char *verdicts(const struct filter *f, char out[5])
{
	for (int i = 0; i < 4; i++) {
		int m = filter_match(f, recs[i], rec_sizes[i]);

		/* The inline loop and the checked one must agree: 'X' when they do not. */
		out[i] = m == tp_filter_match_checked(f, recs[i], rec_sizes[i]) ? '0' + m : 'X';
	}
	out[4] = 0;
	return out;
}

static void test_matches(void)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		struct filter *f = NULL, *g = NULL;
		char err[256], got[5], again[5];
		int rc = tp_filter_compile(match_cases[i].expr, EVENT, fields, NFIELDS, &f, err,
					   sizeof(err));

		if (rc) {
			check(0, "compile '%s': %s", vis(match_cases[i].expr), err);
			continue;
		}
		verdicts(f, got);
		check(!strcmp(got, match_cases[i].want), "'%s' on r0..r3: %s (want %s)",
		      vis(match_cases[i].expr), got, match_cases[i].want);
		/* The canonical text must compile to the same filter. */
		rc = tp_filter_compile(tp_filter_text(f), EVENT, fields, NFIELDS, &g, err,
				       sizeof(err));
		check(!rc && !strcmp(tp_filter_text(g), tp_filter_text(f)) &&
			      !strcmp(verdicts(g, again), got),
		      "'%s' round-trips through its text '%s'", vis(match_cases[i].expr),
		      tp_filter_text(f));
		tp_filter_free(f);
		tp_filter_free(g);
	}
}

/*
 * Every numeric operator on every width and sign, against C's own comparison of the values
 * widened to 64 bits, at the edges where a wrong range or sign extension would show: the
 * limits of each width, one beside them, and constants that do not fit the field.
 */
static const char *const num_ops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };

static int num_expect(int op, int is_signed, uint64_t v, uint64_t k)
{
	int64_t a = (int64_t)v, b = (int64_t)k;

	switch (op) {
	case 0:
		return v == k;
	case 1:
		return v != k;
	case 2:
		return is_signed ? a < b : v < k;
	case 3:
		return is_signed ? a <= b : v <= k;
	case 4:
		return is_signed ? a > b : v > k;
	case 5:
		return is_signed ? a >= b : v >= k;
	default:
		return (v & k) != 0;
	}
}

/* v cut to the field's width and widened again by its sign, as a record would hold it. */
static uint64_t as_field(const struct filter_field *fl, uint64_t v)
{
	unsigned shift = 64 - 8 * fl->size;

	if (fl->is_signed)
		return (uint64_t)((int64_t)(v << shift) >> shift);
	return (v << shift) >> shift;
}

/*
 * Fields at odd offsets, some across an aligned 8-byte word: the fast loop reads the word
 * around a field, or the 8 bytes from it, and must see only the field.
 */
static const struct filter_field packed_fields[] = {
	{ "p_s32", 1, 4, 1, FILTER_NUM },  { "p_u16", 7, 2, 0, FILTER_NUM },
	{ "p_s64", 9, 8, 1, FILTER_NUM },  { "p_u8", 17, 1, 0, FILTER_NUM },
	{ "p_s16", 21, 2, 1, FILTER_NUM }, { "p_u32", 22, 4, 0, FILTER_NUM },
	{ "p_u64", 26, 8, 0, FILTER_NUM }, { "p_s8", 39, 1, 1, FILTER_NUM },
};

static void sweep_fields(const struct filter_field *fl, size_t nfl, uint32_t recsize)
{
	static const uint64_t edges[] = {
		0, 1, 2, 0x7e, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
		0x8000000000000000, 0xfffffffffffffffe, 0xffffffffffffffff,
		(uint64_t)-0x7f, (uint64_t)-0x81, (uint64_t)-0x8001, (uint64_t)-0x80000001,
		(uint64_t)-2,
	};
	const size_t nedges = sizeof(edges) / sizeof(edges[0]);
	unsigned char rec[64];

	for (size_t fi = 0; fi < nfl; fi++) {
		const struct filter_field *x = &fl[fi];
		unsigned long cases = 0, bad = 0;
		char first[160] = "";

		if (x->kind != FILTER_NUM || !strncmp(x->name, "common_", 7))
			continue;
		for (int op = 0; op < 7; op++) {
			for (size_t ki = 0; ki < nedges; ki++) {
				uint64_t k = edges[ki];
				char expr[96], err[256];
				struct filter *f;

				/* Printed by the field's sign: the same bits as the constant. */
				if (x->is_signed)
					snprintf(expr, sizeof(expr), "%s %s %" PRId64, x->name,
						 num_ops[op], (int64_t)k);
				else
					snprintf(expr, sizeof(expr), "%s %s %" PRIu64, x->name,
						 num_ops[op], k);
				if (tp_filter_compile(expr, EVENT, fl, nfl, &f, err, sizeof(err))) {
					check(0, "sweep: compile '%s': %s", expr, err);
					continue;
				}
				/* The record holds every word: the inline loop is the one tried. */
				if (!filter_fits(f, recsize) && !bad++)
					snprintf(first, sizeof(first), "'%s' takes the checked loop",
						 expr);
				for (size_t vi = 0; vi < nedges; vi++) {
					uint64_t v = as_field(x, edges[vi]);
					int want, got, slow;

					/* Noise around the field: only the field may count. */
					memset(rec, vi & 1 ? 0xff : 0x5a, sizeof(rec));
					memcpy(rec + x->offset, &v, x->size);
					want = num_expect(op, x->is_signed, v, k);
					got = filter_match(f, rec, recsize);
					slow = tp_filter_match_checked(f, rec, recsize);
					cases++;
					if (got == want && slow == want)
						continue;
					if (!bad++)
						snprintf(first, sizeof(first),
							 "'%s' with %s = 0x%" PRIx64 ": %d/%d, want %d",
							 expr, x->name, v, got, slow, want);
				}
				tp_filter_free(f);
			}
		}
		check(!bad, "%s: %lu operator, constant and value cases agree with C%s%s", x->name,
		      cases - bad, bad ? "; first wrong: " : "", first);
	}
}

static void test_numeric_sweep(void)
{
	_Static_assert(sizeof(struct rec) <= 64, "the sweep's record buffer");
	sweep_fields(fields, NFIELDS, sizeof(struct rec));
	sweep_fields(packed_fields, sizeof(packed_fields) / sizeof(packed_fields[0]), 40);
}

static void test_globs(void)
{
	for (size_t i = 0; i < sizeof(glob_cases) / sizeof(glob_cases[0]); i++) {
		struct recspec sp = specs[0];
		struct filter *f = NULL;
		unsigned char *rec;
		uint32_t size;
		char expr[128], err[256];
		int rc;

		sp.path = glob_cases[i].str;
		size = make_rec(&sp, &rec);
		snprintf(expr, sizeof(expr), "path ~ \"%s\"", glob_cases[i].pattern);
		rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		if (rc) {
			check(0, "compile '%s': %s", expr, err);
		} else {
			int got = filter_match(f, rec, size);

			check(got == glob_cases[i].want, "'%s' ~ '%s': %d", glob_cases[i].str,
			      glob_cases[i].pattern, got);
		}
		tp_filter_free(f);
		free(rec);
	}
}

static void test_texts(void)
{
	for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
		struct filter *f = NULL;
		char err[256];
		int rc = tp_filter_compile(text_cases[i].expr, EVENT, fields, NFIELDS, &f, err,
					   sizeof(err));

		check(!rc && !strcmp(tp_filter_text(f), text_cases[i].text), "text of '%s': '%s'",
		      text_cases[i].expr, rc ? err : tp_filter_text(f));
		if (!rc)
			tp_filter_free(f);
	}
}

static void expect_error(const char *expr, const char *event, const struct filter_field *fl,
			 size_t n, const char *msg)
{
	struct filter *f = (struct filter *)1;
	char err[512];
	int rc;

	memset(err, 'X', sizeof(err));
	rc = tp_filter_compile(expr, event, fl, n, &f, err, sizeof(err));
	check(rc == -EINVAL && !f && !strcmp(err, msg), "'%.60s%s' fails: %s", vis(expr),
	      strlen(expr) > 60 ? "..." : "", rc ? err : "(compiled)");
	if (rc != -EINVAL || strcmp(err, msg))
		printf("    want: %s\n", msg);
	if (!rc)
		tp_filter_free(f);
}

static void test_errors(void)
{
	static const struct filter_field bad_fields[] = {
		{ "odd", 8, 3, 0, FILTER_NUM },
		{ "dyn", 8, 8, 0, FILTER_STR_DYN },
		{ "arr", 8, 0, 0, FILTER_STR_ARRAY },
	};
	char err[16];
	struct filter *f;
	int rc;

	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++)
		expect_error(error_cases[i].expr, EVENT, fields, NFIELDS, error_cases[i].msg);
	/* The message lib/filter.c promises (a bad field name lists the fields there are). */
	expect_error("inode == 1", "writeback:writeback_inode_dirty", wb_fields, 7,
		     "no field 'inode' in writeback:writeback_inode_dirty; fields: common_pid, "
		     "dev, ino, flags");
	expect_error("dev==1||&&", "writeback:writeback_inode_dirty", wb_fields, 7,
		     "syntax error at column 9: unexpected '&&' (expected a field name, '!' or "
		     "'(')");
	expect_error("inode == 1", NULL, wb_fields, 7,
		     "no field 'inode'; fields: common_pid, dev, ino, flags");
	expect_error("x == 1", "e:e", NULL, 0, "no field 'x' in e:e; fields:");
	expect_error("odd == 1", "e:e", bad_fields, 3,
		     "field 'odd' has a layout filters cannot read (kind 0, size 3)");
	expect_error("dyn == 1", "e:e", bad_fields, 3,
		     "field 'dyn' has a layout filters cannot read (kind 2, size 8)");
	expect_error("arr == 1", "e:e", bad_fields, 3,
		     "field 'arr' has a layout filters cannot read (kind 1, size 0)");

	/* A short buffer gets a cut message, still terminated; none at all is fine too. */
	rc = tp_filter_compile("u8 == 12x", EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(rc == -EINVAL && !strcmp(err, "'12x' is not a "), "short err buffer: '%s'", err);
	rc = tp_filter_compile("nope == 1", EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(rc == -EINVAL && strlen(err) == sizeof(err) - 1, "short buffer, field list: '%s'",
	      err);
	rc = tp_filter_compile("u8 == 12x", EVENT, fields, NFIELDS, &f, NULL, 0);
	check(rc == -EINVAL && !f, "no err buffer: %d", rc);
	rc = tp_filter_compile(NULL, EVENT, fields, NFIELDS, &f, NULL, 0);
	check(rc == -EINVAL && !f, "NULL expression: %d", rc);
}

static void test_limits(void)
{
	char expr[FILTER_MAX_LEN + 64], err[256], got[5];
	struct filter *f;
	size_t n;
	int rc;

	/* 64 levels of parentheses are fine, 65 are not. */
	for (int depth = 64; depth <= 65; depth++) {
		n = 0;
		for (int i = 0; i < depth; i++)
			expr[n++] = '(';
		n += sprintf(expr + n, "u8 == 3");
		for (int i = 0; i < depth; i++)
			expr[n++] = ')';
		expr[n] = 0;
		rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		if (depth == 64) {
			check(!rc && !strcmp(verdicts(f, got), "1000") &&
				      !strcmp(tp_filter_text(f), "u8 == 3"),
			      "64 parentheses deep: %s", rc ? err : got);
			if (!rc)
				tp_filter_free(f);
		} else {
			check(rc == -EINVAL &&
				      !strcmp(err, "nesting too deep at column 65: at most 64 "
						   "levels of '(' and '!'"),
			      "65 parentheses deep: %s", err);
		}
	}
	/*
	 * So are 64 '!' (an even number: the verdict is that of u8 == 3), and their text, which
	 * adds "(": "!(" is one level, so that the text never nests deeper than the source.
	 */
	memset(expr, '!', 64);
	strcpy(expr + 64, "u8 == 3");
	rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(!rc && !strcmp(verdicts(f, got), "1000"), "64 '!': %s", rc ? err : got);
	if (!rc) {
		struct filter *g;

		rc = tp_filter_compile(tp_filter_text(f), EVENT, fields, NFIELDS, &g, err,
				       sizeof(err));
		check(!rc && !strcmp(tp_filter_text(g), tp_filter_text(f)), "64 '!' round-trip: %s",
		      rc ? err : tp_filter_text(g));
		if (!rc)
			tp_filter_free(g);
		tp_filter_free(f);
	}
	for (int depth = 64; depth <= 65; depth++) {
		n = 0;
		for (int i = 0; i < depth; i++)
			n += sprintf(expr + n, "!(");
		n += sprintf(expr + n, "u8 == 3");
		for (int i = 0; i < depth; i++)
			expr[n++] = ')';
		expr[n] = 0;
		rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		if (depth == 64) {
			check(!rc && !strcmp(verdicts(f, got), "1000"), "64 '!(' deep: %s",
			      rc ? err : got);
			if (!rc)
				tp_filter_free(f);
		} else {
			check(rc == -EINVAL &&
				      !strcmp(err, "nesting too deep at column 129: at most 64 "
						   "levels of '(' and '!'"),
			      "65 '!(' deep: %s", err);
		}
	}
	memset(expr, '!', 65);
	strcpy(expr + 65, "u8 == 3");
	rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(rc == -EINVAL && !strcmp(err, "nesting too deep at column 65: at most 64 levels "
					    "of '(' and '!'"),
	      "65 '!': %s", err);

	/* Exactly FILTER_MAX_LEN bytes compile; one more is refused. */
	memset(expr, ' ', FILTER_MAX_LEN + 1);
	memcpy(expr, "u8 == 3", 7);
	expr[FILTER_MAX_LEN] = 0;
	rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(!rc, "%d bytes compile: %s", FILTER_MAX_LEN, rc ? err : "ok");
	if (!rc)
		tp_filter_free(f);
	expr[FILTER_MAX_LEN] = ' ';
	expr[FILTER_MAX_LEN + 1] = 0;
	rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
	check(rc == -EINVAL && !strcmp(err, "filter expression longer than 4096 bytes"),
	      "%d bytes: %s", FILTER_MAX_LEN + 1, err);

	/* The longest chains: ~580 tests joined by ||, then by &&, near the length limit. */
	for (int and = 0; and <= 1; and++) {
		n = 0;
		while (n + 16 < FILTER_MAX_LEN)
			n += sprintf(expr + n, "%su8 == %d", n ? (and ? "&&" : "||") : "",
				     and ? 3 : (int)(n % 200) + 5);
		n += sprintf(expr + n, and ? "&&s8<0" : "||u8==3");
		rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		check(!rc && !strcmp(verdicts(f, got), "1000"), "%zu-byte %s chain: %s", n,
		      and ? "&&" : "||", rc ? err : got);
		if (!rc)
			tp_filter_free(f);
	}

	/* A long pattern of many '*' against a long string stays correct. */
	n = sprintf(expr, "path ~ \"");
	for (int i = 0; i < 300; i++)
		n += sprintf(expr + n, "*a");
	n += sprintf(expr + n, "*b\"");
	rc = tp_filter_compile(expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
	if (!rc) {
		struct recspec sp = specs[0];
		char *s = malloc(4001);
		unsigned char *rec;
		uint32_t size;
		int m1, m2;

		memset(s, 'a', 4000);
		s[4000] = 0;
		sp.path = s;
		size = make_rec(&sp, &rec);
		m1 = filter_match(f, rec, size);
		free(rec);
		s[3999] = 'b';
		size = make_rec(&sp, &rec);
		m2 = filter_match(f, rec, size);
		free(rec);
		free(s);
		check(m1 == 0 && m2 == 1, "300 stars over 4000 bytes: %d %d", m1, m2);
		tp_filter_free(f);
	} else {
		check(0, "300 stars: %s", err);
	}
}

/* Records whose __data_loc word or length lies: never a read outside the buffer. */
static void test_damaged(void)
{
	static const struct {
		uint32_t loc;
		const char *expr;
		int want;
	} locs[] = {
		{ 0xffffffffu, "path == \"\"", 1 },
		{ 0x0000ffffu, "path == \"\"", 1 },
		{ 0xffff0000u | (uint32_t)sizeof(struct rec), "path == abc", 1 },
		{ 0x00000000u | (uint32_t)sizeof(struct rec), "path == \"\"", 1 },
		{ 0x00020000u | (uint32_t)sizeof(struct rec), "path == ab", 1 },
		{ 0x00040000u | ((uint32_t)sizeof(struct rec) + 3), "path == \"\"", 1 },
		{ 0x00040000u | ((uint32_t)sizeof(struct rec) + 4), "path == \"\"", 1 },
		{ 0x00100000u | ((uint32_t)sizeof(struct rec) + 1), "path ~ \"bc*\"", 1 },
		{ 0x00100000u | ((uint32_t)sizeof(struct rec) + 1), "path ~ \"*c\"", 1 },
		{ 0x00100000u | (uint32_t)offsetof(struct rec, comm), "path == kworker/0:1", 1 },
		{ 0x00000000u, "path ~ \"*\"", 1 },
	};
	struct filter *f;
	char err[256];

	for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
		/* The record's string is "abc" without its NUL, right at the end. */
		uint32_t size = sizeof(struct rec) + 3;
		unsigned char *rec = malloc(size);
		struct rec r;
		int rc;

		memcpy(&r, recs[0], sizeof(r));
		r.path = locs[i].loc;
		memcpy(rec, &r, sizeof(r));
		memcpy(rec + sizeof(r), "abc", 3);
		rc = tp_filter_compile(locs[i].expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		check(!rc && filter_match(f, rec, size) == locs[i].want,
		      "data_loc 0x%08x, '%s': %d", locs[i].loc, locs[i].expr, locs[i].want);
		if (!rc)
			tp_filter_free(f);
		free(rec);
	}

	/* Truncated records: what is not there reads as 0 or "", or is cut. */
	static const struct {
		uint32_t size;
		const char *expr;
		int want;
	} cuts[] = {
		{ 0, "common_type == 0 && u8 == 0 && comm == \"\" && path == \"\"", 1 },
		{ 1, "common_type == 0", 1 },
		{ 2, "common_type == 0x8001", 1 },
		{ 8, "common_pid == 1234 && u8 == 0", 1 },
		{ 9, "u8 == 3 && u16 == 0", 1 },
		{ 31, "u64 == 0", 1 },
		{ 32, "u64 == 0xffffffffffffffff && s64 == 0", 1 },
		{ 40, "comm == \"\"", 1 },
		{ 44, "comm == \"kwor\"", 1 },
		{ 44, "comm ~ \"kw*\" && path == \"\"", 1 },
		{ 59, "path == \"\"", 1 },
		{ 60, "path == \"\"", 1 },
		{ 61, "path == \"\"", 1 },
		{ 65, "path == \"/\"", 1 },
		{ 68, "path ~ \"/usr*\" && path != \"/usr/\"", 1 },
	};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		unsigned char *rec = malloc(cuts[i].size ? cuts[i].size : 1);
		int rc;

		memcpy(rec, recs[0], cuts[i].size);
		rc = tp_filter_compile(cuts[i].expr, EVENT, fields, NFIELDS, &f, err, sizeof(err));
		check(!rc && filter_match(f, rec, cuts[i].size) == cuts[i].want,
		      "record cut to %u bytes, '%s': %d", cuts[i].size, cuts[i].expr, cuts[i].want);
		if (!rc)
			tp_filter_free(f);
		free(rec);
	}
}

/* Matching is async-signal-safe: run it from a handler. */
static const struct filter *sig_filter;
static volatile sig_atomic_t sig_result = -1;

static void on_signal(int sig)
{
	(void)sig;
	sig_result = filter_match(sig_filter, recs[0], rec_sizes[0]);
}

static void test_signal(void)
{
	struct sigaction sa;
	struct filter *f;
	char err[256];
	int rc = tp_filter_compile("comm ~ \"kworker/*\" && u8 & 1", EVENT, fields, NFIELDS, &f,
				   err, sizeof(err));

	if (rc) {
		check(0, "compile for the signal test: %s", err);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sig_filter = f;
	raise(SIGUSR1);
	check(sig_result == 1, "match inside a signal handler: %d", (int)sig_result);
	signal(SIGUSR1, SIG_DFL);
	tp_filter_free(f);
}

int main(void)
{
	for (int i = 0; i < 4; i++)
		rec_sizes[i] = make_rec(&specs[i], &recs[i]);

	test_matches();
	test_numeric_sweep();
	test_globs();
	test_texts();
	test_errors();
	test_limits();
	test_damaged();
	test_signal();

	for (int i = 0; i < 4; i++)
		free(recs[i]);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
