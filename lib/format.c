// SPDX-License-Identifier: MIT
/*
 * format.c - read "tpoint_meta" records, build tracefs format text from them, and check a
 * print format against what libtraceevent 1.7.1 can evaluate.
 *
 * The records may come from an untrusted file (`tpoint list FILE`), so everything here is
 * bounds-checked before use, and nothing is trusted beyond what tpoint_meta_next() checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "growbuf.h"
#include "printf_conv.h"

/* ---- walking the section ---- */

static bool all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The bytes that n NUL-terminated strings take from p, within room; 0 when one has no NUL
 * there, or when one of the first `names` (names, in readers' TPOINT_NAME_MAX buffers) is
 * longer than TPOINT_NAME_MAX with its NUL.
 */
static size_t strings_ok(const char *p, size_t room, uint64_t n, uint64_t names)
{
	size_t used = 0;

	for (uint64_t i = 0; i < n; i++) {
		const char *z = memchr(p + used, 0, room - used);
		size_t len;

		if (!z)
			return 0;
		len = (size_t)(z - (p + used)) + 1;
		if (i < names && len > TPOINT_NAME_MAX)
			return 0;
		used += len;
	}
	return used;
}

static bool class_ok(const struct tpoint_meta_class *c)
{
	const struct tpoint_meta_field *f = tpoint_meta_class_fields(c);
	uint32_t size = c->hdr.size;
	size_t room;

	if (size < sizeof(*c))
		return false;
	room = size - sizeof(*c);
	/* At least the strings' 3 + 2 * nfields NULs must follow the fields. */
	if (c->nfields > room / (sizeof(struct tpoint_meta_field) + 2))
		return false;
	room -= (size_t)c->nfields * sizeof(struct tpoint_meta_field);
	for (uint32_t i = 0; i < c->nfields; i++)
		if (f[i].kind > TPOINT_FIELD_KIND_MAX)
			return false;
	/* system, name, the fields' types and names, the print format */
	return strings_ok((const char *)(f + c->nfields), room, 3 + 2 * (uint64_t)c->nfields,
			  2 + 2 * (uint64_t)c->nfields) != 0;
}

static bool event_ok(const struct tpoint_meta_event *e)
{
	/* system, name, class, then the condition and print override of any length */
	return e->hdr.size >= sizeof(*e) &&
	       strings_ok((const char *)(e + 1), e->hdr.size - sizeof(*e), 5, 3);
}

static bool enum_ok(const struct tpoint_meta_enum *m)
{
	return m->hdr.size >= sizeof(*m) &&
	       strings_ok((const char *)(m + 1), m->hdr.size - sizeof(*m), 2, 2);
}

/*
 * The header at *cursor, past the zero padding the linker may leave between the files'
 * records: 1 with *hdr set (its size checked against `end`), 0 at the end, -EINVAL.
 */
static int meta_header(const char **cursor, const char *end, const struct tpoint_meta_hdr **hdr)
{
	const char *p = *cursor;
	const struct tpoint_meta_hdr *h;
	size_t left;

	/* Records are read in place through their structs, so they must be aligned. */
	if (p > end || ((uintptr_t)p & 7))
		return -EINVAL;
	while ((size_t)(end - p) >= 8 && all_zero(p, 8))
		p += 8;
	*cursor = p;
	left = (size_t)(end - p);
	if (!left)
		return 0;
	if (left < 8 && all_zero(p, left)) {
		*cursor = end;
		return 0;
	}
	if (left < sizeof(*h))
		return -EINVAL;
	h = (const struct tpoint_meta_hdr *)(const void *)p;
	if (h->magic != TPOINT_META_MAGIC || h->version != TPOINT_META_VERSION ||
	    h->size < sizeof(*h) || (h->size & 7) || h->size > left)
		return -EINVAL;
	*hdr = h;
	return 1;
}

/* Whether the record's own contents hold together (its header was checked). */
static bool meta_record_ok(const struct tpoint_meta_hdr *h)
{
	switch (h->kind) {
	case TPOINT_META_CLASS:
		return class_ok((const struct tpoint_meta_class *)h);
	case TPOINT_META_EVENT:
		return event_ok((const struct tpoint_meta_event *)h);
	case TPOINT_META_ENUM:
		return enum_ok((const struct tpoint_meta_enum *)h);
	default:
		return false;
	}
}

int tpoint_meta_next(const char **cursor, const char *end, const struct tpoint_meta_hdr **rec)
{
	const struct tpoint_meta_hdr *h;
	int ret = meta_header(cursor, end, &h);

	if (ret <= 0)
		return ret;
	if (!meta_record_ok(h))
		return -EINVAL;
	*rec = h;
	*cursor += h->size;
	return 1;
}

int tpoint_meta_next_kind(const char **cursor, const char *end, uint16_t kind,
			  const struct tpoint_meta_hdr **rec)
{
	const struct tpoint_meta_hdr *h;
	int ret;

	while ((ret = meta_header(cursor, end, &h)) > 0) {
		*cursor += h->size;
		if (h->kind != kind)
			continue;
		if (!meta_record_ok(h))
			return -EINVAL;
		*rec = h;
		return 1;
	}
	return ret;
}

const char *tpoint_meta_str_next(const char *s)
{
	return s + strlen(s) + 1;
}

const struct tpoint_meta_field *tpoint_meta_class_fields(const struct tpoint_meta_class *c)
{
	return (const struct tpoint_meta_field *)(const void *)(c + 1);
}

const char *tpoint_meta_class_system(const struct tpoint_meta_class *c)
{
	return (const char *)(tpoint_meta_class_fields(c) + c->nfields);
}

const char *tpoint_meta_class_name(const struct tpoint_meta_class *c)
{
	return tpoint_meta_str_next(tpoint_meta_class_system(c));
}

const char *tpoint_meta_class_field_strings(const struct tpoint_meta_class *c)
{
	return tpoint_meta_str_next(tpoint_meta_class_name(c));
}

const char *tpoint_meta_class_print(const struct tpoint_meta_class *c)
{
	const char *s = tpoint_meta_class_field_strings(c);

	for (uint32_t i = 0; i < c->nfields; i++)
		s = tpoint_meta_str_next(tpoint_meta_str_next(s));
	return s;
}

const char *tpoint_meta_event_system(const struct tpoint_meta_event *e)
{
	return (const char *)(e + 1);
}

const char *tpoint_meta_event_name(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_system(e));
}

const char *tpoint_meta_event_class(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_name(e));
}

const char *tpoint_meta_event_condition(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_class(e));
}

const char *tpoint_meta_event_print(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_condition(e));
}

const char *tpoint_meta_enum_system(const struct tpoint_meta_enum *m)
{
	return (const char *)(m + 1);
}

const char *tpoint_meta_enum_name(const struct tpoint_meta_enum *m)
{
	return tpoint_meta_str_next(tpoint_meta_enum_system(m));
}

void tpoint_meta_event_names(const struct tpoint_meta_event *e, const char **system,
			     const char **name)
{
	const struct tpoint_meta_event_v1 *v1 = (const struct tpoint_meta_event_v1 *)(const void *)e;

	if (e->hdr.version == 1) {
		*system = v1->system;
		*name = v1->name;
	} else if (e->hdr.version == TPOINT_META_VERSION) {
		*system = tpoint_meta_event_system(e);
		*name = tpoint_meta_event_name(e);
	} else {
		*system = "?";
		*name = "?";
	}
}

const struct tpoint_meta_class *tpoint_meta_find_class(const char *begin, const char *end,
						       const char *system,
						       const char *class_name)
{
	const struct tpoint_meta_hdr *h;
	const char *cur = begin;

	while (tpoint_meta_next(&cur, end, &h) > 0) {
		const struct tpoint_meta_class *c = (const struct tpoint_meta_class *)h;

		if (h->kind == TPOINT_META_CLASS && !strcmp(tpoint_meta_class_system(c), system) &&
		    !strcmp(tpoint_meta_class_name(c), class_name))
			return c;
	}
	return NULL;
}

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

/* ASCII only: print formats are C source text, and the locale must not change the result. */
static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the string or character literal starting at s (quote included), or 0 when it
 * does not end or s does not start one (an empty print fmt: nothing past its NUL is read). */
static size_t literal_len(const char *s)
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
