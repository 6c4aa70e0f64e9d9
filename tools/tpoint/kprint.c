// SPDX-License-Identifier: MIT
/*
 * The kernel's text for __print_array, cpumasks, %*pb and %*pbl (kprint.h): a rewrite of the
 * print fmt before libtraceevent parses it, and the functions the rewrite calls.
 *
 * Where each text comes from (Linux 6.1):
 *	kernel/trace/trace_output.c trace_print_array_seq(): '{', "0x%x" per element ("0x%llx"
 *	for 8 bytes), ',' between, '}'.
 *	lib/vsprintf.c bitmap_string() ("%*pb", which trace_print_bitmask_seq() uses for
 *	__get_bitmask and __get_cpumask): 32-bit chunks, most significant first, ','
 *	between, each zero-padded to its width in hex digits (the first one to the bits it
 *	has); nothing for 0 bits.
 *	lib/vsprintf.c bitmap_list_string() ("%*pbl"): the runs of set bits, "a" or "a-b",
 *	',' between; nothing when no bit is set.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "growbuf.h"
#include "kprint.h"
#include "printf_conv.h"

/* More bits than any bitmap a record can hold (a page); a width beyond is clamped. */
#define KPRINT_MAX_BITS (1u << 24)

/* ---- the functions ------------------------------------------------------ */

/* libtraceevent's "1 2 3" (decimal, blank-separated) as the kernel's "{0x1,0x2,0x3}". */
static unsigned long long kernel_array(struct trace_seq *s, unsigned long long *args)
{
	const char *p = (const char *)(uintptr_t)args[0];
	bool first = true;

	trace_seq_putc(s, '{');
	while (p && *p) {
		const char *end;
		char *num_end;
		unsigned long long v;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (!first)
			trace_seq_putc(s, ',');
		first = false;
		/* "BAD SIZE:N 0xV": libtraceevent's words for a bad element size, the kernel's too */
		if (!strncmp(p, "BAD SIZE:", 9)) {
			end = strchr(p, ' ');
			end = end ? strchr(end + 1, ' ') : NULL;
			if (!end)
				end = p + strlen(p);
			trace_seq_printf(s, "%.*s", (int)(end - p), p);
			p = end;
			continue;
		}
		v = strtoull(p, &num_end, 10);
		end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		if (num_end == end && num_end != p)
			trace_seq_printf(s, "0x%llx", v);
		else
			trace_seq_printf(s, "%.*s", (int)(end - p), p);
		p = end;
	}
	trace_seq_putc(s, '}');
	return 0;
}

/*
 * The bits of libtraceevent's bitmask text ("0000000f,00000001": hex, most significant
 * first, commas every 8 digits) into a byte array, least significant bit of byte 0 first.
 * Returns the number of bits it holds, or -1 when out of memory; *out is malloc'd.
 */
static long parse_hex_words(const char *text, unsigned char **out)
{
	size_t digits = 0, n;
	unsigned char *bits;
	const char *p;

	*out = NULL;
	for (p = text; p && *p; p++)
		if (isxdigit((unsigned char)*p))
			digits++;
	n = (digits + 1) / 2;
	bits = calloc(n ? n : 1, 1);
	if (!bits)
		return -1;
	/* from the last digit: digit j holds bits 4j..4j+3 */
	for (size_t j = 0; text && p > text;) {
		int c = (unsigned char)*--p, v;

		if (!isxdigit(c))
			continue;
		v = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
		bits[j / 2] |= (unsigned char)(v << (4 * (j % 2)));
		j++;
	}
	*out = bits;
	return (long)(digits * 4);
}

static bool bit_set(const unsigned char *bits, long have, long i)
{
	return i < have && (bits[i / 8] >> (i % 8)) & 1;
}

/* The width the kernel uses: max(field_width, 0), here also at most KPRINT_MAX_BITS. */
static long clamp_bits(unsigned long long arg)
{
	long long w = (long long)arg;

	if (w < 0)
		return 0;
	return w > KPRINT_MAX_BITS ? KPRINT_MAX_BITS : (long)w;
}

/* "%*pbl": __tpoint_bitmap_list(nr_bits, bitmask text) */
static unsigned long long bitmap_list(struct trace_seq *s, unsigned long long *args)
{
	long nr_bits = clamp_bits(args[0]), have, i;
	unsigned char *bits;
	bool first = true;

	have = parse_hex_words((const char *)(uintptr_t)args[1], &bits);
	if (have < 0)
		return 0;
	if (have < nr_bits)
		nr_bits = have; /* the bits past the mask are not set: nothing to list */
	for (i = 0; i < nr_bits; i++) {
		long top;

		if (!bit_set(bits, have, i))
			continue;
		for (top = i + 1; top < nr_bits && bit_set(bits, have, top); top++)
			;
		if (!first)
			trace_seq_putc(s, ',');
		first = false;
		if (top == i + 1)
			trace_seq_printf(s, "%ld", i);
		else
			trace_seq_printf(s, "%ld-%ld", i, top - 1);
		i = top;
	}
	free(bits);
	return 0;
}

/* "%*pb": __tpoint_bitmap_hex(nr_bits, bitmask text) */
static unsigned long long bitmap_hex(struct trace_seq *s, unsigned long long *args)
{
	long nr_bits = clamp_bits(args[0]), have, chunk, i;
	unsigned char *bits;

	have = parse_hex_words((const char *)(uintptr_t)args[1], &bits);
	if (have < 0)
		return 0;
	chunk = nr_bits % 32 ? nr_bits % 32 : 32;
	for (i = ((nr_bits + 31) / 32) * 32 - 32; i >= 0; i -= 32) {
		unsigned int val = 0;

		for (long b = 0; b < chunk; b++)
			if (bit_set(bits, have, i + b))
				val |= 1u << b;
		if (i + 32 < ((nr_bits + 31) / 32) * 32)
			trace_seq_putc(s, ',');
		trace_seq_printf(s, "%0*x", (int)((chunk + 3) / 4), val);
		chunk = 32;
	}
	free(bits);
	return 0;
}

int kprint_register(struct tep_handle *tep)
{
	if (tep_register_print_function(tep, kernel_array, TEP_FUNC_ARG_VOID,
					"__tpoint_kernel_array", TEP_FUNC_ARG_STRING,
					TEP_FUNC_ARG_VOID) ||
	    tep_register_print_function(tep, bitmap_list, TEP_FUNC_ARG_VOID,
					"__tpoint_bitmap_list", TEP_FUNC_ARG_LONG,
					TEP_FUNC_ARG_STRING, TEP_FUNC_ARG_VOID) ||
	    tep_register_print_function(tep, bitmap_hex, TEP_FUNC_ARG_VOID,
					"__tpoint_bitmap_hex", TEP_FUNC_ARG_LONG,
					TEP_FUNC_ARG_STRING, TEP_FUNC_ARG_VOID))
		return -1;
	return 0;
}

/* ---- the rewrite -------------------------------------------------------- */

/* The end of the quoted string or char literal starting at s (its closing quote + 1). */
static const char *skip_quoted(const char *s, const char *end)
{
	char q = *s++;

	while (s < end && *s != q)
		s += (*s == '\\' && s + 1 < end) ? 2 : 1;
	return s < end ? s + 1 : end;
}

/* The ')' matching the '(' at s, or NULL. */
static const char *match_paren(const char *s, const char *end)
{
	int depth = 0;

	while (s < end) {
		if (*s == '"' || *s == '\'') {
			s = skip_quoted(s, end);
			continue;
		}
		if (*s == '(')
			depth++;
		else if (*s == ')' && --depth == 0)
			return s;
		s++;
	}
	return NULL;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the identifier `name` followed by '(' start at s (and not inside a longer name)? */
static bool call_at(const char *start, const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);

	return (s == start || !ident_char(s[-1])) && (size_t)(end - s) > n &&
	       !memcmp(s, name, n) && s[n] == '(';
}

/*
 * The value of sizeof(TYPE) for the types libtraceevent 1.7.1 reads past a token it freed
 * (event-parse.c process_sizeof(): after "int", or "long long", it tests the ')' it read into
 * *tok with the freed token; fixed in 1.7.2), or NULL. Its own result for these is the same
 * atom. ASan stops the tool there on the kernel's own sample header.
 */
static const char *sizeof_value(const char *s, const char *end)
{
	static const struct {
		const char *type, *value;
	} sizes[] = {
		{ "int", "4" }, { "unsigned int", "4" }, { "signed int", "4" },
		{ "long long", "8" }, { "unsigned long long", "8" }, { "signed long long", "8" },
	};
	char type[32];
	size_t n = 0;

	/* the type's words, blanks collapsed */
	for (; s < end && n < sizeof(type) - 1; s++) {
		if (isspace((unsigned char)*s)) {
			if (n && type[n - 1] != ' ')
				type[n++] = ' ';
		} else {
			type[n++] = *s;
		}
	}
	if (s < end)
		return NULL;
	while (n && type[n - 1] == ' ')
		n--;
	type[n] = '\0';
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(type, sizes[i].type))
			return sizes[i].value;
	return NULL;
}

/*
 * One argument's text, with cpumask getters as bitmask getters, __print_array wrapped, and
 * the sizeof()s libtraceevent 1.7.1 mis-parses as their value.
 */
static void rewrite_expr(struct tp_growbuf *b, const char *s, const char *end)
{
	const char *start = s;

	while (s < end) {
		const char *close, *value;

		if (*s == '"' || *s == '\'') {
			const char *q = skip_quoted(s, end);

			tp_growbuf_add(b, s, (size_t)(q - s));
			s = q;
		} else if (call_at(start, s, end, "sizeof") &&
			   (close = match_paren(s + 6, end)) &&
			   (value = sizeof_value(s + 7, close))) {
			tp_growbuf_str(b, value);
			s = close + 1;
		} else if (call_at(start, s, end, "__get_cpumask")) {
			tp_growbuf_str(b, "__get_bitmask");
			s += strlen("__get_cpumask");
		} else if (call_at(start, s, end, "__get_rel_cpumask")) {
			tp_growbuf_str(b, "__get_rel_bitmask");
			s += strlen("__get_rel_cpumask");
		} else if (call_at(start, s, end, "__print_array")) {
			const char *open = s + strlen("__print_array");
			const char *close = match_paren(open, end);

			if (!close) {
				tp_growbuf_add(b, s, (size_t)(end - s));
				return;
			}
			tp_growbuf_str(b, "__tpoint_kernel_array(__print_array(");
			rewrite_expr(b, open + 1, close);
			tp_growbuf_str(b, "))");
			s = close + 1;
		} else {
			tp_growbuf_add(b, s, 1);
			s++;
		}
	}
}

/*
 * The bitmask getter for the pointer argument of %*pb/%*pbl, or false: the field's
 * __get_bitmask, so that libtraceevent prints its words in the file's byte order.
 */
static bool bitmask_of(struct tp_growbuf *b, const char *s, const char *end)
{
	static const struct {
		const char *from, *to;
	} getters[] = {
		{ "__get_dynamic_array(", "__get_bitmask(" },
		{ "__get_rel_dynamic_array(", "__get_rel_bitmask(" },
		{ "__get_bitmask(", "__get_bitmask(" },
		{ "__get_rel_bitmask(", "__get_rel_bitmask(" },
		{ "__get_cpumask(", "__get_bitmask(" },
		{ "__get_rel_cpumask(", "__get_rel_bitmask(" },
	};
	const char *close;

	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	for (size_t i = 0; i < sizeof(getters) / sizeof(getters[0]); i++) {
		size_t n = strlen(getters[i].from);

		if ((size_t)(end - s) <= n || memcmp(s, getters[i].from, n))
			continue;
		close = match_paren(s + n - 1, end);
		if (close != end - 1)
			return false; /* more than the getter: not a field's bitmap */
		tp_growbuf_str(b, getters[i].to);
		tp_growbuf_add(b, s + n, (size_t)(end - (s + n)));
		return true;
	}
	return false;
}

/* s..e without the blanks around it. */
static void trim_blanks(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* A string literal's contents (lib/format.c writes a %*pb(l)'s width so). */
static void unquote(const char **s, const char **e)
{
	trim_blanks(s, e);
	if (*e - *s >= 2 && **s == '"' && (*e)[-1] == '"') {
		(*s)++;
		(*e)--;
	}
}

/*
 * For tpoint's "%.0s%s" of a bitmap (lib/format.c): the function that prints it, by the
 * getter (__get_cpumask: the list of %*pbl, __get_bitmask: the words of %*pb), or NULL if
 * the two arguments are not a string literal and a field's getter: then "%.0s%s" is what
 * it says.
 */
static const char *tpoint_bitmap_func(const char *ws, const char *we, const char *ps,
				      const char *pe)
{
	trim_blanks(&ws, &we);
	trim_blanks(&ps, &pe);
	if (we - ws < 2 || *ws != '"' || we[-1] != '"' || memchr(ws + 1, '"', (size_t)(we - ws - 2)))
		return NULL;
	if (!strncmp(ps, "__get_cpumask(", 14) || !strncmp(ps, "__get_rel_cpumask(", 18))
		return "__tpoint_bitmap_list";
	if (!strncmp(ps, "__get_bitmask(", 14) || !strncmp(ps, "__get_rel_bitmask(", 18))
		return "__tpoint_bitmap_hex";
	return NULL;
}

#define MAX_ARGS 128

struct conv {
	size_t at, len;	  /* the conversion's place in the fmt text */
	int arg;	  /* its first argument (the width) */
	const char *func; /* the function that prints it */
	struct tp_growbuf ptr;	  /* its bitmap argument as a bitmask getter; empty: left as is */
	bool quoted_width; /* tpoint's "%.0s%s" of a %*pb(l): the width is a string literal */
};

/*
 * The conversions of the fmt text (between the quotes) that take a "*" width and a bitmap:
 * %*pb and %*pbl. Each conversion before them uses one argument, and one more per '*'.
 */
static int find_bitmap_convs(const char *f, const char *end, struct conv *convs, int max)
{
	int arg = 0, n = 0;

	for (const char *p = f; p < end; p++) {
		const char *start = p;
		struct tp_printf_conv pc;

		if (*p == '\\') {
			p++;
			continue;
		}
		if (*p != '%')
			continue;
		pc = tp_printf_conv_parse(p, end);
		if (pc.c == '%') {
			p++;
			continue;
		}
		if (!pc.c)
			break;
		arg += (int)pc.stars;
		p += pc.spec;
		if (pc.c == 'p' && pc.star_width && p + 1 < end && p[1] == 'b' && n < max) {
			bool list = p + 2 < end && p[2] == 'l';

			convs[n].at = (size_t)(start - f);
			convs[n].len = (size_t)(p + (list ? 3 : 2) - start);
			convs[n].arg = arg - 1;
			convs[n].func = list ? "__tpoint_bitmap_list" : "__tpoint_bitmap_hex";
			convs[n].quoted_width = false;
			n++;
		} else if (p - start == 3 && !memcmp(start, "%.0s%s", 6) && end - start >= 6 &&
			   n < max) {
			/* How tpoint writes a field's %*pb(l) (lib/format.c): the width a literal,
			 * the bitmap's getter saying which (its cpumask, a list). */
			convs[n].at = (size_t)(start - f);
			convs[n].len = 6;
			convs[n].arg = arg;
			convs[n].func = NULL; /* by the getter, once the arguments are known */
			convs[n].quoted_width = true;
			n++;
		}
		arg++;
	}
	return n;
}

char *kprint_rewrite(const char *text, size_t len, size_t *out_len)
{
	const char *end = text + len, *pf, *q0, *q1, *a, *line_end;
	const char *args[MAX_ARGS + 1];
	struct conv convs[16];
	struct tp_growbuf b = { 0 };
	int nargs = 0, nconv;

	pf = memmem(text, len, "print fmt: \"", 12);
	if (!pf)
		goto unchanged;
	q0 = pf + 11;
	q1 = skip_quoted(q0, end);
	if (q1 >= end || q1[-1] != '"')
		goto unchanged;
	line_end = memchr(q1, '\n', (size_t)(end - q1));
	if (!line_end)
		line_end = end;
	/* the arguments: top-level commas after the fmt string */
	for (a = q1; a < line_end; a++) {
		if (*a == '"' || *a == '\'') {
			a = skip_quoted(a, line_end) - 1;
		} else if (*a == '(') {
			const char *close = match_paren(a, line_end);

			if (!close)
				goto unchanged;
			a = close;
		} else if (*a == ',') {
			if (nargs == MAX_ARGS)
				goto unchanged;
			args[nargs++] = a + 1;
		}
	}
	args[nargs] = line_end + 1; /* the end of the last one, past its (absent) comma */
	nconv = find_bitmap_convs(q0 + 1, q1 - 1, convs, 16);
	/* only a bitmap that is a field's can be printed: the others stay as they are */
	for (int c = 0; c < nconv; c++) {
		int i = convs[c].arg;

		memset(&convs[c].ptr, 0, sizeof(convs[c].ptr));
		if (convs[c].quoted_width && i + 1 < nargs &&
		    !(convs[c].func = tpoint_bitmap_func(args[i], args[i + 1] - 1, args[i + 1],
							 args[i + 2] - 1)))
			continue;
		if (i + 1 < nargs && !bitmask_of(&convs[c].ptr, args[i + 1], args[i + 2] - 1)) {
			free(convs[c].ptr.p);
			memset(&convs[c].ptr, 0, sizeof(convs[c].ptr));
		}
		if (convs[c].ptr.oom)
			b.oom = true;
	}

	tp_growbuf_add(&b, text, (size_t)(q0 + 1 - text));
	{
		size_t at = 0;
		const char *f = q0 + 1;

		for (int c = 0; c < nconv; c++) {
			if (!convs[c].ptr.len)
				continue;
			tp_growbuf_add(&b, f + at, convs[c].at - at);
			tp_growbuf_str(&b, "%s");
			at = convs[c].at + convs[c].len;
		}
		tp_growbuf_add(&b, f + at, (size_t)(q1 - f) - at);
	}
	tp_growbuf_add(&b, q1, (size_t)((nargs ? args[0] : line_end) - q1));
	for (int i = 0, c = 0; i < nargs; i++) {
		const char *s = args[i], *e = args[i + 1] - 1; /* e: its comma or the line's end */

		while (c < nconv && convs[c].arg < i)
			c++;
		if (c < nconv && convs[c].arg == i && convs[c].ptr.len) {
			tp_growbuf_str(&b, " ");
			tp_growbuf_str(&b, convs[c].func);
			tp_growbuf_str(&b, "(");
			if (convs[c].quoted_width)
				unquote(&s, &e);
			rewrite_expr(&b, s, e);
			tp_growbuf_str(&b, ", ");
			rewrite_expr(&b, convs[c].ptr.p, convs[c].ptr.p + convs[c].ptr.len);
			tp_growbuf_str(&b, ")");
			i++; /* the bitmap argument went in the call */
		} else {
			rewrite_expr(&b, s, e);
		}
		if (i + 1 < nargs)
			tp_growbuf_str(&b, ",");
	}
	for (int c = 0; c < nconv; c++)
		free(convs[c].ptr.p);
	tp_growbuf_add(&b, line_end, (size_t)(end - line_end));
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*out_len = b.len;
	return b.p;

unchanged:
	b.p = malloc(len + 1);
	if (!b.p)
		return NULL;
	memcpy(b.p, text, len);
	b.p[len] = '\0';
	*out_len = len;
	return b.p;
}
