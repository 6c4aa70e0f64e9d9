// SPDX-License-Identifier: MIT
/*
 * filter.c - compile and evaluate ftrace-style event filters.
 *
 * Compiling parses the expression into a small tree (n-ary && and ||, !, and tests), then
 * lays the tests out in source order, each with two forward jump targets: where to go when
 * it is true and when it is false, another test or one of the two verdicts that end the
 * program. && and || short-circuit by choosing those targets; !, and the operators compiled
 * as negations (!=, <, >, &), swap them. So the compiled form needs neither the tree nor a
 * stack, and a numeric test needs no operator at run time (filter.h): matching runs a loop
 * over at most every test once. Strings are compiled too: a pattern becomes segments (the
 * parts between '*'), each a run of elements (a byte, '?', or a [..] class held as a 256-bit
 * set), so matching never parses anything and never backtracks more than one segment's
 * length.
 *
 * Everything a compiled filter needs lives in one allocation, written once, never changed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

enum op_kind { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BAND, OP_GLOB };

static const char *const op_text[] = {
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",    [OP_LE] = "<=",
	[OP_GT] = ">",  [OP_GE] = ">=", [OP_BAND] = "&", [OP_GLOB] = "~",
};

/* A pattern element is a byte (0..255), any byte, or class number (e - ELEM_CLASS). */
#define ELEM_ANY 256u
#define ELEM_CLASS 257u

/* A run of pattern elements that matches exactly len bytes. */
struct fseg {
	uint32_t elem;
	uint32_t len;
};

/* ---- evaluation: no allocation, no locks, no calls into libc but fixed-size memcpy ---- */

/*
 * The string of a field: *s and the length up to the first NUL, never past the field's
 * bytes or the end of the record, however the __data_loc word was damaged.
 */
static uint32_t load_str(const unsigned char *rec, uint32_t size, const struct filter_op *t,
			 const unsigned char **s)
{
	uint32_t start, max, n;

	*s = rec;
	if (t->code == FOP_STR_ARRAY) {
		start = t->offset;
		max = t->size;
	} else {
		uint32_t loc;

		if ((uint32_t)t->offset + 4 > size)
			return 0;
		memcpy(&loc, rec + t->offset, 4);
		start = loc & 0xffff;
		max = loc >> 16;
	}
	if (start >= size)
		return 0;
	if (max > size - start)
		max = size - start;
	*s = rec + start;
	for (n = 0; n < max && (*s)[n]; n++)
		;
	return n;
}

static bool seg_at(const struct filter *f, const struct fseg *g, const unsigned char *s)
{
	const uint16_t *e = f->elems + g->elem;

	for (uint32_t i = 0; i < g->len; i++) {
		unsigned c = s[i], x = e[i];

		if (x < 256) {
			if (c != x)
				return false;
		} else if (x >= ELEM_CLASS) {
			const uint8_t *set = f->classes[x - ELEM_CLASS];

			if (!((set[c >> 3] >> (c & 7)) & 1))
				return false;
		}
	}
	return true;
}

/*
 * The first segment is anchored at the start, the last at the end, and those between are
 * found leftmost, in order, in what is left: since every segment matches a fixed number of
 * bytes, the leftmost place is always the best one, so there is no backtracking and the cost
 * is at most the string's length times the longest segment.
 */
static bool str_match(const struct filter *f, const struct filter_op *t, const unsigned char *s,
		      uint32_t n)
{
	const struct fseg *g = f->segs + t->str.seg;
	uint32_t last = t->str.nseg - 1, lo, hi;

	if (last == 0)
		return n == g[0].len && seg_at(f, &g[0], s);
	if (n < g[0].len + g[last].len)
		return false;
	if (!seg_at(f, &g[0], s) || !seg_at(f, &g[last], s + n - g[last].len))
		return false;
	lo = g[0].len;
	hi = n - g[last].len;
	for (uint32_t k = 1; k < last; k++) {
		uint32_t pos;

		for (pos = lo; pos + g[k].len <= hi; pos++)
			if (seg_at(f, &g[k], s + pos))
				break;
		if (pos + g[k].len > hi)
			return false;
		lo = pos + g[k].len;
	}
	return true;
}

/* A numeric field, zero-extended: the test's mask and range do what its sign asks. */
static uint64_t load_field(const unsigned char *p, uint32_t size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

int tp_filter_match_checked(const struct filter *f, const void *rec, uint32_t size)
{
	const struct filter_op *op = f->ops;

	for (;;) {
		const unsigned char *str;
		uint32_t n;
		uint64_t v = 0;

		switch (op->code) {
		case FOP_MATCH:
			return 1;
		case FOP_NOMATCH:
			return 0;
		case FOP_STR_ARRAY:
		case FOP_STR_DYN:
			n = load_str(rec, size, op, &str);
			op = str_match(f, op, str, n) ? op->on_true : op->on_false;
			break;
		default:
			/*
			 * The field alone, where it would lie in its word: the test needs no
			 * more. A truncated record: a number that is not all there reads as 0.
			 */
			if ((uint32_t)op->offset + op->size <= size)
				v = load_field((const unsigned char *)rec + op->offset, op->size)
				    << op->shift;
			op = filter_num_next(op, v);
		}
	}
}

void tp_filter_free(struct filter *f)
{
	free(f);
}

const char *tp_filter_text(const struct filter *f)
{
	return f->text;
}

/* ---- compiling ---- */

enum tok_type {
	T_END, T_AND, T_OR, T_NOT, T_LP, T_RP, T_OP, T_WORD, T_STR, T_BADSTR, T_BAD,
};

struct token {
	enum tok_type type;
	uint32_t pos; /* 0-based */
	uint32_t len; /* quotes included */
	uint8_t op;   /* T_OP */
};

enum node_type { N_PRED, N_AND, N_OR, N_NOT };

#define NONE UINT32_MAX

struct node {
	uint8_t type;
	uint32_t child;  /* N_AND, N_OR: first operand; N_NOT: the operand */
	uint32_t next;   /* the next operand of the parent N_AND or N_OR */
	uint32_t pred;   /* N_PRED: index in parser.cp */
	uint32_t npreds; /* tests in the subtree */
};

/* A test as parsed. */
struct cpred {
	const struct filter_field *field;
	uint8_t op;
	uint32_t vpos, vlen; /* the value as written, quotes included */
	uint32_t spos, slen; /* strings: the bytes between the quotes */
	uint64_t val;
	uint32_t seg, nseg;
};

struct parser {
	const char *s;
	uint32_t len;
	uint32_t pos;
	const char *event;
	const struct filter_field *fields;
	size_t nfields;
	char *err;
	size_t errlen;
	int rc;
	unsigned depth;
	/*
	 * Sized from the expression's length, which bounds each count: a test takes at least
	 * three bytes, && and || two, ! one, and a pattern element or '*' at least one.
	 */
	uint32_t cap;
	struct node *nodes;
	uint32_t nnodes;
	struct cpred *cp;
	uint32_t ncp;
	struct fseg *segs;
	uint32_t nsegs;
	uint16_t *elems;
	uint32_t nelems;
	uint8_t (*classes)[32];
	uint32_t nclasses;
};

__attribute__((format(printf, 2, 3))) static void fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->rc)
		return; /* the first error is the one to tell */
	p->rc = -EINVAL;
	if (!p->err || !p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

static void fail_nomem(struct parser *p)
{
	if (p->rc)
		return;
	p->rc = -ENOMEM;
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "out of memory compiling the filter");
}

/* A token for a message: at most 40 bytes, control bytes as '?', so it stays one line. */
static const char *show(const char *s, uint32_t n, char buf[48])
{
	uint32_t i, max = n > 40 ? 37 : n;

	for (i = 0; i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (max < n) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = 0;
	return buf;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Words (field names, numbers, unquoted strings) end at blanks and operator characters. */
static bool ends_word(char c)
{
	switch (c) {
	case '(': case ')': case '&': case '|': case '!': case '=': case '<': case '>':
	case '~': case '"': case '\'':
		return true;
	default:
		return is_space(c);
	}
}

static bool is_ident(const char *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i > 0 && c >= '0' && c <= '9')))
			return false;
	}
	return n > 0;
}

static struct token peek(const struct parser *p)
{
	static const struct {
		char text[3];
		uint8_t type, op;
	} fixed[] = {
		{ "&&", T_AND, 0 },     { "||", T_OR, 0 },      { "==", T_OP, OP_EQ },
		{ "!=", T_OP, OP_NE },  { "<=", T_OP, OP_LE },  { ">=", T_OP, OP_GE },
		{ "<", T_OP, OP_LT },   { ">", T_OP, OP_GT },   { "&", T_OP, OP_BAND },
		{ "~", T_OP, OP_GLOB }, { "!", T_NOT, 0 },      { "(", T_LP, 0 },
		{ ")", T_RP, 0 },       { "|", T_BAD, 0 },      { "=", T_BAD, 0 },
	};
	const char *s = p->s;
	uint32_t i = p->pos, n = p->len;
	struct token t = { .type = T_END, .pos = i, .len = 0, .op = 0 };

	while (i < n && is_space(s[i]))
		i++;
	t.pos = i;
	if (i == n)
		return t;
	for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++) {
		size_t l = strlen(fixed[k].text);

		if (l <= n - i && !memcmp(s + i, fixed[k].text, l)) {
			t.type = fixed[k].type;
			t.op = fixed[k].op;
			t.len = (uint32_t)l;
			return t;
		}
	}
	if (s[i] == '"' || s[i] == '\'') {
		const char *q = memchr(s + i + 1, s[i], n - i - 1);

		if (!q) {
			t.type = T_BADSTR;
			t.len = n - i;
		} else {
			t.type = T_STR;
			t.len = (uint32_t)(q - (s + i)) + 1;
		}
		return t;
	}
	t.type = T_WORD;
	while (i + t.len < n && !ends_word(s[i + t.len]))
		t.len++;
	return t;
}

static void take(struct parser *p, const struct token *t)
{
	p->pos = t->pos + t->len;
}

static void syntax(struct parser *p, const struct token *t, const char *expected)
{
	char buf[48];

	if (t->type == T_END)
		fail(p, "syntax error at column %u: unexpected end of expression (expected %s)",
		     t->pos + 1, expected);
	else if (t->type == T_BADSTR)
		fail(p, "syntax error at column %u: unterminated string (no closing %c)",
		     t->pos + 1, p->s[t->pos]);
	else
		fail(p, "syntax error at column %u: unexpected '%s' (expected %s)", t->pos + 1,
		     show(p->s + t->pos, t->len, buf), expected);
}

static uint32_t new_node(struct parser *p, uint8_t type)
{
	struct node *n;

	if (p->nnodes >= p->cap) {
		fail(p, "filter too complex"); /* cannot happen: see parser.cap */
		return NONE;
	}
	n = &p->nodes[p->nnodes];
	n->type = type;
	n->child = NONE;
	n->next = NONE;
	n->pred = NONE;
	n->npreds = 0;
	return p->nnodes++;
}

/*
 * "no field 'inode' in sys:event; fields: common_pid, dev, ino, flags". The header fields
 * but common_pid are left out of the list: one hardly filters on them, and they would push
 * the event's own fields off a short line.
 */
static void unknown_field(struct parser *p, const struct token *t)
{
	char buf[48];
	size_t used;

	if (p->event)
		fail(p, "no field '%s' in %s; fields:", show(p->s + t->pos, t->len, buf),
		     p->event);
	else
		fail(p, "no field '%s'; fields:", show(p->s + t->pos, t->len, buf));
	if (!p->err || !p->errlen)
		return;
	used = strlen(p->err);
	for (size_t i = 0, listed = 0; i < p->nfields; i++) {
		const char *name = p->fields[i].name;

		if (!name || (!strncmp(name, "common_", 7) && strcmp(name, "common_pid")))
			continue;
		if (used + 1 >= p->errlen)
			break;
		snprintf(p->err + used, p->errlen - used, "%s %s", listed++ ? "," : "", name);
		used += strlen(p->err + used);
	}
}

/* Kernel number syntax (kstrtoll/kstrtoull, base 0): decimal, 0x hex, 0 octal, a sign. */
enum { NUM_OK = 0, NUM_BAD, NUM_RANGE, NUM_NEG };

static int parse_num(const char *s, uint32_t n, bool is_signed, uint64_t *out)
{
	uint32_t i = 0;
	unsigned base = 10;
	uint64_t mag = 0;
	bool neg = false, range = false;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return NUM_BAD;
	if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
		if (i == n)
			return NUM_BAD;
	} else if (s[i] == '0' && i + 1 < n) {
		base = 8;
		i++;
	}
	for (; i < n; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a') + 10;
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A') + 10;
		else
			return NUM_BAD;
		if (d >= base)
			return NUM_BAD;
		/* Keep scanning after an overflow: "99999999999999999999x" is not a number. */
		if (mag > (UINT64_MAX - d) / base)
			range = true;
		else
			mag = mag * base + d;
	}
	if (range)
		return NUM_RANGE;
	if (neg && !is_signed)
		return NUM_NEG;
	if (is_signed && mag > (uint64_t)INT64_MAX + neg)
		return NUM_RANGE;
	*out = neg ? 0 - mag : mag;
	return NUM_OK;
}

static bool push_elem(struct parser *p, unsigned e)
{
	if (p->nelems >= p->cap) {
		fail(p, "filter too complex");
		return false;
	}
	p->elems[p->nelems++] = (uint16_t)e;
	p->segs[p->nsegs - 1].len++;
	return true;
}

static bool new_seg(struct parser *p, struct cpred *c)
{
	if (p->nsegs >= 2 * p->cap) {
		fail(p, "filter too complex");
		return false;
	}
	p->segs[p->nsegs].elem = p->nelems;
	p->segs[p->nsegs].len = 0;
	p->nsegs++;
	c->nseg++;
	return true;
}

/*
 * A [..] class starting at s[i] == '['. Like the kernel's glob_match(): '!' (or '^') first
 * negates, a ']' first is an ordinary member, a-z is a range, '\' takes the next byte as it
 * is, and a '[' without its ']' is an ordinary byte. A range written backwards, z-a, is
 * empty. Returns the index of the closing ']' with the class added, or 0.
 */
static uint32_t parse_class(struct parser *p, const char *s, uint32_t n, uint32_t i)
{
	uint8_t set[32] = { 0 };
	uint32_t j = i + 1;
	bool neg = false, first = true;

	if (j < n && (s[j] == '!' || s[j] == '^')) {
		neg = true;
		j++;
	}
	for (; j < n; j++) {
		unsigned lo, hi;

		if (s[j] == ']' && !first)
			break;
		first = false;
		if (s[j] == '\\' && j + 1 < n)
			j++;
		lo = hi = (unsigned char)s[j];
		if (j + 2 < n && s[j + 1] == '-' && s[j + 2] != ']') {
			j += 2;
			if (s[j] == '\\' && j + 1 < n)
				j++;
			hi = (unsigned char)s[j];
		}
		for (unsigned c = lo; c <= hi; c++)
			set[c >> 3] |= 1u << (c & 7);
	}
	if (j >= n)
		return 0;
	if (neg)
		for (unsigned k = 0; k < 32; k++)
			set[k] = (uint8_t)~set[k];
	set[0] &= (uint8_t)~1u; /* strings end at NUL: it is never a member */
	if (p->nclasses >= p->cap) {
		fail(p, "filter too complex");
		return 0;
	}
	memcpy(p->classes[p->nclasses++], set, 32);
	return j;
}

/* Compile the string of c: literally for == and !=, as a glob for ~. */
static void add_pattern(struct parser *p, struct cpred *c)
{
	const char *s = p->s + c->spos;
	uint32_t n = c->slen;
	bool glob = c->op == OP_GLOB;

	c->seg = p->nsegs;
	c->nseg = 0;
	if (!new_seg(p, c))
		return;
	for (uint32_t i = 0; i < n && !p->rc; i++) {
		unsigned char ch = (unsigned char)s[i];
		uint32_t end;

		if (!glob) {
			push_elem(p, ch);
			continue;
		}
		switch (ch) {
		case '*':
			new_seg(p, c);
			break;
		case '?':
			push_elem(p, ELEM_ANY);
			break;
		case '\\':
			push_elem(p, i + 1 < n ? (unsigned char)s[++i] : ch);
			break;
		case '[':
			end = parse_class(p, s, n, i);
			if (p->rc)
				return;
			if (end) {
				push_elem(p, ELEM_CLASS + p->nclasses - 1);
				i = end;
			} else {
				push_elem(p, ch);
			}
			break;
		default:
			push_elem(p, ch);
		}
	}
}

static uint32_t parse_pred(struct parser *p, const struct token *name)
{
	const struct filter_field *field = NULL;
	struct token t;
	struct cpred *c;
	uint32_t node;
	char buf[48];

	if (!is_ident(p->s + name->pos, name->len)) {
		syntax(p, name, "a field name, '!' or '('");
		return NONE;
	}
	for (size_t i = 0; i < p->nfields; i++) {
		const char *fn = p->fields[i].name;

		if (fn && !strncmp(fn, p->s + name->pos, name->len) && !fn[name->len]) {
			field = &p->fields[i];
			break;
		}
	}
	if (!field) {
		unknown_field(p, name);
		return NONE;
	}
	if (!(field->kind == FILTER_NUM && (field->size == 1 || field->size == 2 ||
					    field->size == 4 || field->size == 8)) &&
	    !(field->kind == FILTER_STR_ARRAY && field->size > 0) &&
	    !(field->kind == FILTER_STR_DYN && field->size == 4)) {
		fail(p, "field '%s' has a layout filters cannot read (kind %u, size %u)",
		     field->name, field->kind, field->size);
		return NONE;
	}
	take(p, name);

	t = peek(p);
	if (t.type != T_OP) {
		syntax(p, &t, "an operator: ==, !=, <, <=, >, >=, & or ~");
		return NONE;
	}
	if (field->kind != FILTER_NUM && t.op != OP_EQ && t.op != OP_NE && t.op != OP_GLOB) {
		fail(p, "field '%s' is a string: use ==, != or ~", field->name);
		return NONE;
	}
	if (field->kind == FILTER_NUM && t.op == OP_GLOB) {
		fail(p, "field '%s' is a number: use ==, !=, <, <=, >, >= or &", field->name);
		return NONE;
	}
	take(p, &t);

	if (p->ncp >= p->cap || (node = new_node(p, N_PRED)) == NONE) {
		fail(p, "filter too complex");
		return NONE;
	}
	c = &p->cp[p->ncp];
	memset(c, 0, sizeof(*c));
	c->field = field;
	c->op = t.op;

	t = peek(p);
	if (t.type != T_WORD && t.type != T_STR) {
		syntax(p, &t, "a value");
		return NONE;
	}
	take(p, &t);
	c->vpos = t.pos;
	c->vlen = t.len;
	if (field->kind == FILTER_NUM) {
		int r = t.type == T_WORD ? parse_num(p->s + t.pos, t.len, field->is_signed, &c->val)
					 : NUM_BAD;

		if (r == NUM_BAD)
			fail(p, "'%s' is not a number", show(p->s + t.pos, t.len, buf));
		else if (r == NUM_RANGE)
			fail(p, "'%s' is out of range for %s field '%s'",
			     show(p->s + t.pos, t.len, buf),
			     field->is_signed ? "signed" : "unsigned", field->name);
		else if (r == NUM_NEG)
			fail(p, "'%s' is negative but field '%s' is unsigned",
			     show(p->s + t.pos, t.len, buf), field->name);
	} else {
		bool quoted = t.type == T_STR;
		uint64_t ignored;

		/*
		 * `head == 3` on a char array would compare the text "3": rarely what was meant
		 * (a byte array holds numbers), so a bare number is refused; quoted, it is text.
		 */
		if (!quoted && parse_num(p->s + t.pos, t.len, true, &ignored) != NUM_BAD) {
			fail(p, "field '%s' is a string (char array) and '%s' is a number: to "
			     "compare text, quote it (%s %s \"%s\")", field->name,
			     show(p->s + t.pos, t.len, buf), field->name, op_text[c->op],
			     show(p->s + t.pos, t.len, buf));
			return NONE;
		}
		c->spos = t.pos + quoted;
		c->slen = t.len - 2 * quoted;
		add_pattern(p, c);
	}
	if (p->rc)
		return NONE;
	p->nodes[node].pred = p->ncp++;
	p->nodes[node].npreds = 1;
	return node;
}

static uint32_t parse_list(struct parser *p, int level);

/*
 * after_not: the operand of a '!'. "!(" counts as one level, as the canonical text writes
 * "!(x)" for "!x": so the text of a filter never nests deeper than its source did.
 */
static uint32_t parse_unary(struct parser *p, bool after_not)
{
	struct token t = peek(p);
	bool counted = !(after_not && t.type == T_LP);
	uint32_t c, n;

	switch (t.type) {
	case T_NOT:
	case T_LP:
		/* Only these two nest, so counting them bounds the recursion. */
		if (counted && ++p->depth > FILTER_MAX_DEPTH) {
			fail(p, "nesting too deep at column %u: at most %d levels of '(' and '!'",
			     t.pos + 1, FILTER_MAX_DEPTH);
			return NONE;
		}
		take(p, &t);
		if (t.type == T_NOT) {
			c = parse_unary(p, true);
			if (p->rc || (n = new_node(p, N_NOT)) == NONE)
				return NONE;
			p->nodes[n].child = c;
			p->nodes[n].npreds = p->nodes[c].npreds;
		} else {
			n = parse_list(p, 0);
			if (p->rc)
				return NONE;
			t = peek(p);
			if (t.type != T_RP) {
				syntax(p, &t, "'&&', '||' or ')'");
				return NONE;
			}
			take(p, &t);
		}
		if (counted)
			p->depth--;
		return n;
	case T_WORD:
		return parse_pred(p, &t);
	default:
		syntax(p, &t, "a field name, '!' or '('");
		return NONE;
	}
}

/* Level 0: operands joined by ||; level 1: by && (which binds tighter). */
static uint32_t parse_list(struct parser *p, int level)
{
	enum tok_type join = level ? T_AND : T_OR;
	uint32_t first, last, n;
	struct token t;

	first = level ? parse_unary(p, false) : parse_list(p, 1);
	if (p->rc)
		return NONE;
	t = peek(p);
	if (t.type != join)
		return first;
	if ((n = new_node(p, level ? N_AND : N_OR)) == NONE)
		return NONE;
	p->nodes[n].child = first;
	p->nodes[n].npreds = p->nodes[first].npreds;
	last = first;
	while (t.type == join) {
		uint32_t c;

		take(p, &t);
		c = level ? parse_unary(p, false) : parse_list(p, 1);
		if (p->rc)
			return NONE;
		p->nodes[last].next = c;
		p->nodes[n].npreds += p->nodes[c].npreds;
		last = c;
		t = peek(p);
	}
	return n;
}

/*
 * The range [lo, lo + len] of the field's values (modulo 2^width) that c accepts, in t->num,
 * not yet placed in the word. Returns true when the test is the negation of c, for the
 * caller to swap the jumps.
 */
static bool num_range(const struct cpred *c, uint64_t wmask, struct filter_op *t)
{
	/*
	 * Worked out on 64-bit values in unsigned order; for a signed field, with the sign bit
	 * flipped, which turns signed order into unsigned order.
	 */
	uint64_t bias = c->field->is_signed ? 1ull << 63 : 0;
	uint64_t fmin = (c->field->is_signed ? ~(wmask >> 1) : 0) ^ bias;
	uint64_t fmax = (c->field->is_signed ? wmask >> 1 : wmask) ^ bias;
	uint64_t k = c->val ^ bias, a = k, b = k;
	bool negate = c->op == OP_NE || c->op == OP_GT || c->op == OP_LT;

	if (c->op == OP_LE || c->op == OP_GT) /* v <= k, or its negation */
		a = 0;
	else if (c->op == OP_GE || c->op == OP_LT)
		b = UINT64_MAX;
	/* Keep what the field can hold; with nothing left, the test is never true. */
	if (a < fmin)
		a = fmin;
	if (b > fmax)
		b = fmax;
	if (a > b) {
		t->num.lo = t->num.len = t->num.mask = 0; /* always true, and negated */
		return !negate;
	}
	t->num.lo = (a ^ bias) & wmask;
	t->num.len = b - a;
	t->num.mask = wmask;
	return negate;
}

/* The numeric test of c (see filter.h). Returns true when it is the negation of c. */
static bool num_test(const struct cpred *c, struct filter_op *t)
{
	const struct filter_field *fl = c->field;
	unsigned bits = 8u * fl->size, start = fl->offset & 7u;
	uint64_t wmask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	bool negate = true;

	if (c->op == OP_BAND) {
		/*
		 * The negation of "(v & k) is 0". A signed field's bits above its width are
		 * copies of its sign bit, so a k reaching there tests the sign bit.
		 */
		t->num.lo = t->num.len = 0;
		t->num.mask = c->val & wmask;
		if (fl->is_signed && (c->val & ~wmask))
			t->num.mask |= 1ull << (bits - 1);
	} else {
		negate = num_range(c, wmask, t);
	}

	/*
	 * The word the fast loop reads: the aligned one around the field, which is inside any
	 * record that holds the field, else the 8 bytes from the field on.
	 */
	if (start + fl->size > 8)
		start = 0;
	t->word = (uint16_t)(fl->offset - start);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	t->shift = (uint8_t)(8 * start);
#else
	t->shift = (uint8_t)(64 - 8 * (start + fl->size));
#endif
	t->num.lo <<= t->shift;
	t->num.mask <<= t->shift;
	t->num.len <<= t->shift;
	return negate;
}

/*
 * Give each test of the subtree its targets: tests get consecutive indexes in source order,
 * so the operand after the current one starts at *idx + its npreds, always forward; the two
 * verdicts come after the last test.
 */
static void lay_out(const struct parser *p, uint32_t n, const struct filter_op *on_true,
		    const struct filter_op *on_false, struct filter_op *ops, uint32_t *idx)
{
	const struct node *nd = &p->nodes[n];

	switch (nd->type) {
	case N_PRED: {
		const struct cpred *c = &p->cp[nd->pred];
		struct filter_op *t = &ops[*idx];
		bool negate = false;

		t->offset = c->field->offset;
		t->size = c->field->size;
		if (c->field->kind == FILTER_NUM) {
			t->code = FOP_NUM;
			negate = num_test(c, t);
		} else {
			t->code = c->field->kind == FILTER_STR_ARRAY ? FOP_STR_ARRAY : FOP_STR_DYN;
			t->str.seg = c->seg;
			t->str.nseg = c->nseg;
			negate = c->op == OP_NE;
		}
		t->on_true = negate ? on_false : on_true;
		t->on_false = negate ? on_true : on_false;
		(*idx)++;
		break;
	}
	case N_NOT:
		lay_out(p, nd->child, on_false, on_true, ops, idx);
		break;
	default:
		for (uint32_t c = nd->child; c != NONE; c = p->nodes[c].next) {
			const struct filter_op *after = &ops[*idx + p->nodes[c].npreds];

			if (p->nodes[c].next == NONE)
				lay_out(p, c, on_true, on_false, ops, idx);
			else if (nd->type == N_AND)
				lay_out(p, c, after, on_false, ops, idx);
			else
				lay_out(p, c, on_true, after, ops, idx);
		}
	}
}

/* The canonical text; with buf NULL only counts. */
struct out {
	char *buf;
	size_t len;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->buf)
		memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void print_node(const struct parser *p, uint32_t n, uint8_t parent, struct out *o)
{
	const struct node *nd = &p->nodes[n];

	switch (nd->type) {
	case N_PRED: {
		const struct cpred *c = &p->cp[nd->pred];
		const char *op = op_text[c->op];

		put(o, c->field->name, strlen(c->field->name));
		put(o, " ", 1);
		put(o, op, strlen(op));
		put(o, " ", 1);
		if (c->field->kind == FILTER_NUM) {
			put(o, p->s + c->vpos, c->vlen);
		} else {
			/* No escapes exist: pick the quote the string does not contain. */
			const char *q = memchr(p->s + c->spos, '"', c->slen) ? "'" : "\"";

			put(o, q, 1);
			put(o, p->s + c->spos, c->slen);
			put(o, q, 1);
		}
		break;
	}
	case N_NOT:
		put(o, "!", 1);
		if (p->nodes[nd->child].type == N_NOT) {
			print_node(p, nd->child, N_NOT, o);
		} else {
			put(o, "(", 1);
			print_node(p, nd->child, N_PRED, o);
			put(o, ")", 1);
		}
		break;
	default: {
		/* Only || inside && needs parentheses; '!' adds its own. */
		bool paren = nd->type == N_OR && parent == N_AND;

		if (paren)
			put(o, "(", 1);
		for (uint32_t c = nd->child; c != NONE; c = p->nodes[c].next) {
			print_node(p, c, nd->type, o);
			if (p->nodes[c].next != NONE)
				put(o, nd->type == N_AND ? " && " : " || ", 4);
		}
		if (paren)
			put(o, ")", 1);
	}
	}
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Every jump goes forward and lands in the program, so a walk ends after at most every test:
 * lay_out() guarantees it, and this says so before the program is ever run.
 */
static bool jumps_forward(const struct filter_op *ops, uint32_t ntests)
{
	for (uint32_t i = 0; i < ntests; i++)
		if (ops[i].on_true <= &ops[i] || ops[i].on_true > &ops[ntests + 1] ||
		    ops[i].on_false <= &ops[i] || ops[i].on_false > &ops[ntests + 1])
			return false;
	return true;
}

static struct filter *build(struct parser *p, uint32_t root)
{
	struct out o = { NULL, 0 };
	size_t off_ops, off_segs, off_elems, off_classes, off_text, total;
	struct filter_op *ops;
	struct filter *f;
	char *base;
	uint32_t idx = 0;

	print_node(p, root, N_PRED, &o);
	off_ops = align8(sizeof(*f));
	off_segs = off_ops + ((size_t)p->ncp + 2) * sizeof(struct filter_op);
	off_elems = off_segs + (size_t)p->nsegs * sizeof(struct fseg);
	off_classes = off_elems + (size_t)p->nelems * sizeof(uint16_t);
	off_text = off_classes + (size_t)p->nclasses * 32;
	total = off_text + o.len + 1;
	base = calloc(1, total);
	if (!base)
		return NULL;
	f = (struct filter *)base;
	ops = (struct filter_op *)(base + off_ops);
	f->ops = ops;
	f->segs = (struct fseg *)(base + off_segs);
	f->elems = (uint16_t *)(base + off_elems);
	f->classes = (const uint8_t(*)[32])(base + off_classes);
	f->text = base + off_text;
	memcpy(base + off_segs, p->segs, (size_t)p->nsegs * sizeof(struct fseg));
	memcpy(base + off_elems, p->elems, (size_t)p->nelems * sizeof(uint16_t));
	memcpy(base + off_classes, p->classes, (size_t)p->nclasses * 32);
	ops[p->ncp].code = FOP_MATCH;
	ops[p->ncp + 1].code = FOP_NOMATCH;
	lay_out(p, root, &ops[p->ncp], &ops[p->ncp + 1], ops, &idx);
	for (uint32_t i = 0; i < p->ncp; i++) {
		uint64_t end = (uint64_t)ops[i].word + 8;

		if (ops[i].code != FOP_NUM)
			f->fast_size = UINT64_MAX;
		else if (end > f->fast_size)
			f->fast_size = end;
	}
	if (!jumps_forward(ops, p->ncp)) {
		fail(p, "filter compiler error: a jump that does not go forward");
		free(base);
		return NULL;
	}
	o.buf = base + off_text;
	o.len = 0;
	print_node(p, root, N_PRED, &o);
	o.buf[o.len] = 0;
	return f;
}

int tp_filter_compile(const char *expr, const char *event_name, const struct filter_field *fields,
		      size_t nfields, struct filter **out, char *err, size_t errlen)
{
	struct parser p = {
		.s = expr, .event = event_name, .fields = fields, .nfields = nfields,
		.err = err, .errlen = errlen,
	};
	uint32_t root = NONE;
	size_t len;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (!expr) {
		fail(&p, "no filter expression");
		return p.rc;
	}
	len = strnlen(expr, FILTER_MAX_LEN + 1);
	if (len > FILTER_MAX_LEN) {
		fail(&p, "filter expression longer than %d bytes", FILTER_MAX_LEN);
		return p.rc;
	}
	p.len = (uint32_t)len;
	p.cap = p.len + 2;
	p.nodes = malloc(p.cap * sizeof(*p.nodes));
	p.cp = malloc(p.cap * sizeof(*p.cp));
	p.segs = malloc(2 * p.cap * sizeof(*p.segs));
	p.elems = malloc(p.cap * sizeof(*p.elems));
	p.classes = malloc(p.cap * sizeof(*p.classes));
	if (!p.nodes || !p.cp || !p.segs || !p.elems || !p.classes) {
		fail_nomem(&p);
	} else {
		root = parse_list(&p, 0);
		if (!p.rc) {
			struct token t = peek(&p);

			if (t.type != T_END)
				syntax(&p, &t, "'&&', '||' or the end");
		}
		if (!p.rc) {
			*out = build(&p, root);
			if (!*out)
				fail_nomem(&p);
		}
	}
	free(p.nodes);
	free(p.cp);
	free(p.segs);
	free(p.elems);
	free(p.classes);
	return p.rc;
}
