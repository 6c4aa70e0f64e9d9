// SPDX-License-Identifier: MIT
/*
 * format.c - build the tracefs format text of an event from its "tpoint_meta" records (read
 * and checked by meta_read.c): the fields with their offsets, and the print fmt with its
 * enums substituted and its bitmap conversions rewritten for libtraceevent (whether
 * libtraceevent can evaluate the result is print_fmt_check.c's).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "meta_read.h"
#include "growbuf.h"
#include "print_fmt_lex.h"
#include "printf_conv.h"

/* ---- a growing string (growbuf.h), with printf ---- */

__attribute__((format(printf, 2, 3))) static void sb_printf(struct tp_growbuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
	} else if ((size_t)n < sizeof(small)) {
		tp_growbuf_add(b, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->oom = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		tp_growbuf_add(b, big, (size_t)n);
		free(big);
	}
}

/* The string, or NULL with errno ENOMEM; the builder is spent either way. */
static char *sb_finish(struct tp_growbuf *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	return b->p;
}

/* ---- enum substitution ---- */

/* The enum whose name starts at s as a whole word, or NULL. */
static const struct tpoint_enum *enum_at(const char *s, size_t word, const char *system,
					 const struct tpoint_enum *enums, size_t nenums)
{
	for (size_t i = 0; i < nenums; i++) {
		const struct tpoint_enum *m = &enums[i];
		size_t n = strlen(m->name);

		if (!n || strcmp(m->system, system) || strncmp(s, m->name, n))
			continue;
		/* "sizeof(X)" ends in ')'; a plain name must be the whole identifier. */
		if (is_ident(m->name[n - 1]) ? n == word : !is_ident(s[n]))
			return m;
	}
	return NULL;
}

char *tpoint_print_fmt_subst(const char *print_fmt, const char *system,
			     const struct tpoint_enum *enums, size_t nenums)
{
	struct tp_growbuf b = { 0 };
	const char *s = print_fmt;
	bool member = false; /* the next identifier follows "->" or "." */

	tp_growbuf_add(&b, "", 0);
	while (*s) {
		size_t n = 1;

		if (*s == '"' || *s == '\'') {
			n = literal_len(s);
			if (!n)
				n = strlen(s); /* unterminated: copy as is, the checker says why */
			member = false;
		} else if (is_digit(*s)) {
			while (is_ident(s[n]) || s[n] == '.')
				n++;
			member = false;
		} else if (is_ident_start(*s)) {
			const struct tpoint_enum *m;

			while (is_ident(s[n]))
				n++;
			m = member ? NULL : enum_at(s, n, system, enums, nenums);
			member = false;
			if (m) {
				sb_printf(&b, "%lld", (long long)m->value);
				s += strlen(m->name);
				continue;
			}
		} else if (s[0] == '-' && s[1] == '>') {
			n = 2;
			member = true;
		} else if (*s == '.') {
			member = true;
		} else if (!is_space(*s)) {
			member = false;
		}
		tp_growbuf_add(&b, s, n);
		s += n;
	}
	return sb_finish(&b);
}

/* ---- %*pb and %*pbl, for libtraceevent ---- */

/*
 * libtraceevent has no %*pb or %*pbl: trace-cmd and KernelShark print the bitmap's address
 * followed by "b" or "bl". What they do print: "%s" of __get_bitmask(field) as the kernel's
 * %*pb does (32-bit words in hex), "%s" of __get_cpumask(field) as a list of the set bits,
 * the kernel's %*pbl; both over the whole field, where the kernel stops at the width. So a
 * field's bitmap is written that way, and the width is kept for tpoint's own reader
 * (tools/tpoint/kprint.c, which prints the kernel's text exactly) as a string literal that
 * "%.0s" prints as nothing:
 *	"... %*pbl ...", W, __get_dynamic_array(f)   ->   "... %.0s%s ...", "W", __get_cpumask(f)
 */
#define BITMAP_MAX_ARGS 128

struct bitmap_conv {
	size_t at, len; /* the conversion in the fmt literal, quotes included */
	size_t arg;     /* its width's argument; the bitmap is the next one */
	bool list;      /* %*pbl */
};

/* s[0..n) without the blanks around it. */
static void trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

/* The getter of the field's bitmap that libtraceevent prints, for a %*pb(l) argument, or
 * false if the argument is not a field's bitmap (then the conversion stays as it is). */
static bool bitmap_getter(struct tp_growbuf *b, const char *s, size_t n, bool list)
{
	static const struct {
		const char *from;
		bool rel;
	} getters[] = {
		{ "__get_dynamic_array(", false }, { "__get_bitmask(", false },
		{ "__get_cpumask(", false },	   { "__get_rel_dynamic_array(", true },
		{ "__get_rel_bitmask(", true },	   { "__get_rel_cpumask(", true },
	};

	trim(&s, &n);
	for (size_t i = 0; i < sizeof(getters) / sizeof(getters[0]); i++) {
		size_t k = strlen(getters[i].from), f = k;

		if (n <= k + 1 || strncmp(s, getters[i].from, k) || s[n - 1] != ')')
			continue;
		while (f < n - 1 && (is_ident(s[f]) || is_space(s[f])))
			f++;
		if (f != n - 1)
			return false; /* more than a field's name */
		sb_printf(b, "__get_%s%s(%.*s)", getters[i].rel ? "rel_" : "",
			  list ? "cpumask" : "bitmask", (int)(n - 1 - k), s + k);
		return true;
	}
	return false;
}

/* The %*pb and %*pbl of the fmt literal lit[0..n) (quotes included), at most max. */
static size_t find_bitmap_convs(const char *lit, size_t n, struct bitmap_conv *c, size_t max)
{
	size_t arg = 0, found = 0;

	for (size_t i = 1; i + 1 < n; i++) {
		struct tp_printf_conv pc;
		const char *spec;

		if (lit[i] == '\\') {
			i++;
			continue;
		}
		if (lit[i] != '%')
			continue;
		pc = tp_printf_conv_parse(lit + i, lit + n - 1);
		spec = lit + i + pc.spec;
		if (pc.c == '%') {
			i++;
			continue;
		}
		arg += pc.stars;
		if (pc.star_width && pc.c == 'p' && spec[1] == 'b' && found < max) {
			bool list = spec[2] == 'l';

			c[found++] = (struct bitmap_conv){ i, pc.spec + (list ? 3 : 2), arg - 1, list };
		}
		arg++;
		i += pc.spec;
	}
	return found;
}

/* print ("FMT", ARGS...) with each field's %*pb(l) rewritten; NULL with errno ENOMEM. */
static char *bitmap_convs_rewrite(const char *print)
{
	struct bitmap_conv conv[16];
	const char *args[BITMAP_MAX_ARGS + 1];
	size_t lit = literal_len(print), nconv, nargs = 0, at = 0;
	struct tp_growbuf b = { 0 };
	const char *p;

	if (print[0] != '"' || !lit || !strstr(print, "pb"))
		return strdup(print);
	/* The arguments: split at the commas outside brackets and literals. */
	p = print + lit;
	while (is_space(*p))
		p++;
	if (*p && *p != ',')
		return strdup(print); /* literals one after another: left as they are */
	for (int depth = 0; *p; p++) {
		if (*p == '"' || *p == '\'') {
			size_t l = literal_len(p);

			if (!l)
				return strdup(print);
			p += l - 1;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ')' || *p == ']' || *p == '}') {
			depth--;
		} else if (*p == ',' && !depth) {
			if (nargs == BITMAP_MAX_ARGS)
				return strdup(print);
			args[nargs++] = p + 1;
		}
	}
	args[nargs] = p + 1; /* one past the last argument's end */
	nconv = find_bitmap_convs(print, lit, conv, sizeof(conv) / sizeof(conv[0]));

	/* Each conversion whose bitmap is a field's, and whose width has no quote. */
	struct tp_growbuf getter[16];
	size_t kept = 0;

	for (size_t i = 0; i < nconv; i++) {
		size_t w = conv[i].arg;
		const char *ws = args[w < nargs ? w : 0];
		size_t wn = w + 1 < nargs ? (size_t)(args[w + 1] - 1 - ws) : 0;

		getter[i] = (struct tp_growbuf){ 0 };
		if (w + 1 >= nargs || memchr(ws, '"', wn) || memchr(ws, '\\', wn) ||
		    !bitmap_getter(&getter[i], args[w + 1], (size_t)(args[w + 2] - 1 - args[w + 1]),
				   conv[i].list)) {
			free(getter[i].p);
			continue;
		}
		getter[kept] = getter[i];
		conv[kept++] = conv[i];
	}
	if (!kept)
		return strdup(print);

	/* The fmt literal, then the arguments, with the kept conversions rewritten. */
	for (size_t i = 0; i < kept; i++) {
		tp_growbuf_add(&b, print + at, conv[i].at - at);
		tp_growbuf_str(&b, "%.0s%s");
		at = conv[i].at + conv[i].len;
	}
	tp_growbuf_add(&b, print + at, lit - at);
	tp_growbuf_add(&b, print + lit, (size_t)(args[0] - (print + lit)));
	for (size_t a = 0, i = 0; a < nargs; a++) {
		const char *s = args[a];
		size_t n = (size_t)(args[a + 1] - 1 - s);

		if (i < kept && conv[i].arg == a) {
			trim(&s, &n);
			sb_printf(&b, " \"%.*s\", %s", (int)n, s, getter[i].p ? getter[i].p : "");
			free(getter[i].p);
			i++;
			a++; /* the bitmap's argument: the getter */
		} else {
			tp_growbuf_add(&b, s, n);
		}
		if (a + 1 < nargs)
			tp_growbuf_str(&b, ",");
	}
	return sb_finish(&b);
}

/* ---- the tracefs format text ---- */

/* The kernel's struct trace_entry, exactly as tracefs prints it. */
static const char common_fields[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n";

#define COMMON_SIZE 8u
/* No C type in a record is aligned more than a page; anything larger is corruption. */
#define MAX_FIELD_ALIGN 4096u

int tpoint_meta_layout(const struct tpoint_meta_class *c, uint16_t *offsets)
{
	const struct tpoint_meta_field *f = tpoint_meta_class_fields(c);
	uint64_t off = COMMON_SIZE, max_align = COMMON_SIZE;

	for (uint32_t i = 0; i < c->nfields; i++) {
		uint64_t a = f[i].align;

		if (!a || (a & (a - 1)) || a > MAX_FIELD_ALIGN)
			return -EINVAL;
		if (a > max_align)
			max_align = a;
		off = (off + a - 1) & ~(a - 1);
		if (off > UINT16_MAX)
			return -EINVAL;
		offsets[i] = (uint16_t)off;
		off += f[i].size;
	}
	/*
	 * The compiler's record (payload_size) ends where the last field does, give or take the
	 * struct's tail padding; anything else means our C-rule layout is not the compiler's, and
	 * every offset would decode the records wrongly.
	 */
	if (off > c->payload_size || c->payload_size > ((off + max_align - 1) & ~(max_align - 1)))
		return -EINVAL;
	return 0;
}

char *tpoint_format_build(const struct tpoint_meta_class *c, const struct tpoint_meta_event *e,
			  unsigned id, const struct tpoint_enum *enums, size_t nenums)
{
	const struct tpoint_meta_field *f = tpoint_meta_class_fields(c);
	const char *print = tpoint_meta_event_print(e);
	const char *system = tpoint_meta_class_system(c);
	const char *names = tpoint_meta_class_field_strings(c);
	uint16_t *offsets;
	struct tp_growbuf b = { 0 };
	char *subst, *bitmaps;

	if (strcmp(tpoint_meta_event_system(e), system) ||
	    strcmp(tpoint_meta_event_class(e), tpoint_meta_class_name(c))) {
		errno = EINVAL;
		return NULL;
	}
	if (!*print)
		print = tpoint_meta_class_print(c);
	offsets = malloc((c->nfields ? c->nfields : 1) * sizeof(*offsets));
	if (!offsets)
		return NULL;
	if (tpoint_meta_layout(c, offsets) < 0) {
		free(offsets);
		errno = EINVAL;
		return NULL;
	}

	sb_printf(&b, "name: %s\nID: %u\nformat:\n%s\n", tpoint_meta_event_name(e), id,
		  common_fields);
	for (uint32_t i = 0; i < c->nfields; i++) {
		const char *type = names, *name = tpoint_meta_str_next(type);

		names = tpoint_meta_str_next(name);
		tp_growbuf_str(&b, "\tfield:");
		switch (f[i].kind) {
		case TPOINT_FIELD_ARRAY:
			sb_printf(&b, "%s %s[%u]", type, name, (unsigned)f[i].array_len);
			break;
		case TPOINT_FIELD_DYNAMIC:
			sb_printf(&b, "__data_loc %s[] %s", type, name);
			break;
		case TPOINT_FIELD_REL_DYNAMIC:
			sb_printf(&b, "__rel_loc %s[] %s", type, name);
			break;
		/* The kernel's spelling of a cpumask, which libtraceevent knows as one. */
		case TPOINT_FIELD_CPUMASK:
			sb_printf(&b, "__data_loc %s %s", type, name);
			break;
		case TPOINT_FIELD_REL_CPUMASK:
			sb_printf(&b, "__rel_loc %s %s", type, name);
			break;
		default:
			sb_printf(&b, "%s %s", type, name);
			break;
		}
		sb_printf(&b, ";\toffset:%u;\tsize:%u;\tsigned:%d;\n", (unsigned)offsets[i],
			  (unsigned)f[i].size, f[i].is_signed ? 1 : 0);
	}
	free(offsets);

	subst = tpoint_print_fmt_subst(print, system, enums, nenums);
	bitmaps = subst ? bitmap_convs_rewrite(subst) : NULL;
	free(subst);
	if (!bitmaps) {
		free(b.p);
		return NULL;
	}
	sb_printf(&b, "\nprint fmt: %s\n", bitmaps);
	free(bitmaps);
	return sb_finish(&b);
}
