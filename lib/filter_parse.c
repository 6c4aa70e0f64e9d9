// SPDX-License-Identifier: MIT
/*
 * filter_parse.c - the filter compiler's front: an expression in the kernel's grammar
 * (filter.h) to a small tree (n-ary && and ||, !, and tests, each checked against the event's
 * fields), with a message that names the column and the token of the first error; and the
 * tree back to its canonical text, which the compiled filter keeps (tp_filter_text()).
 * Strings are compiled here too: a pattern becomes segments (the parts between '*'), each a
 * run of elements (filter_program.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_parse.h"

static const char *const op_text[] = {
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",    [OP_LE] = "<=",
	[OP_GT] = ">",  [OP_GE] = ">=", [OP_BAND] = "&", [OP_GLOB] = "~",
};

enum tok_type {
	T_END, T_AND, T_OR, T_NOT, T_LP, T_RP, T_OP, T_WORD, T_STR, T_BADSTR, T_BAD,
};

struct token {
	enum tok_type type;
	uint32_t pos; /* 0-based */
	uint32_t len; /* quotes included */
	uint8_t op;   /* T_OP */
};

void tp_filter_fail(struct parser *p, const char *fmt, ...)
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

void tp_filter_fail_nomem(struct parser *p)
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
		tp_filter_fail(p, "syntax error at column %u: unexpected end of expression (expected %s)",
		     t->pos + 1, expected);
	else if (t->type == T_BADSTR)
		tp_filter_fail(p, "syntax error at column %u: unterminated string (no closing %c)",
		     t->pos + 1, p->s[t->pos]);
	else
		tp_filter_fail(p, "syntax error at column %u: unexpected '%s' (expected %s)", t->pos + 1,
		     show(p->s + t->pos, t->len, buf), expected);
}

static uint32_t new_node(struct parser *p, uint8_t type)
{
	struct node *n;

	if (p->nnodes >= p->cap) {
		tp_filter_fail(p, "filter too complex"); /* cannot happen: see parser.cap */
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
		tp_filter_fail(p, "no field '%s' in %s; fields:", show(p->s + t->pos, t->len, buf),
		     p->event);
	else
		tp_filter_fail(p, "no field '%s'; fields:", show(p->s + t->pos, t->len, buf));
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
		tp_filter_fail(p, "filter too complex");
		return false;
	}
	p->elems[p->nelems++] = (uint16_t)e;
	p->segs[p->nsegs - 1].len++;
	return true;
}

static bool new_seg(struct parser *p, struct cpred *c)
{
	if (p->nsegs >= 2 * p->cap) {
		tp_filter_fail(p, "filter too complex");
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
		tp_filter_fail(p, "filter too complex");
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
		tp_filter_fail(p, "field '%s' has a layout filters cannot read (kind %u, size %u)",
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
		tp_filter_fail(p, "field '%s' is a string: use ==, != or ~", field->name);
		return NONE;
	}
	if (field->kind == FILTER_NUM && t.op == OP_GLOB) {
		tp_filter_fail(p, "field '%s' is a number: use ==, !=, <, <=, >, >= or &", field->name);
		return NONE;
	}
	take(p, &t);

	if (p->ncp >= p->cap || (node = new_node(p, N_PRED)) == NONE) {
		tp_filter_fail(p, "filter too complex");
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
			tp_filter_fail(p, "'%s' is not a number", show(p->s + t.pos, t.len, buf));
		else if (r == NUM_RANGE)
			tp_filter_fail(p, "'%s' is out of range for %s field '%s'",
			     show(p->s + t.pos, t.len, buf),
			     field->is_signed ? "signed" : "unsigned", field->name);
		else if (r == NUM_NEG)
			tp_filter_fail(p, "'%s' is negative but field '%s' is unsigned",
			     show(p->s + t.pos, t.len, buf), field->name);
	} else {
		bool quoted = t.type == T_STR;
		uint64_t ignored;

		/*
		 * `head == 3` on a char array would compare the text "3": rarely what was meant
		 * (a byte array holds numbers), so a bare number is refused; quoted, it is text.
		 */
		if (!quoted && parse_num(p->s + t.pos, t.len, true, &ignored) != NUM_BAD) {
			tp_filter_fail(p, "field '%s' is a string (char array) and '%s' is a number: to "
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
			tp_filter_fail(p, "nesting too deep at column %u: at most %d levels of '(' and '!'",
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

size_t tp_filter_tree_text(const struct parser *p, uint32_t root, char *buf)
{
	struct out o = { buf, 0 };

	print_node(p, root, N_PRED, &o);
	return o.len;
}

int tp_filter_parse(struct parser *p, uint32_t *root)
{
	*root = NONE;
	p->cap = p->len + 2;
	p->nodes = malloc(p->cap * sizeof(*p->nodes));
	p->cp = malloc(p->cap * sizeof(*p->cp));
	p->segs = malloc(2 * p->cap * sizeof(*p->segs));
	p->elems = malloc(p->cap * sizeof(*p->elems));
	p->classes = malloc(p->cap * sizeof(*p->classes));
	if (!p->nodes || !p->cp || !p->segs || !p->elems || !p->classes) {
		tp_filter_fail_nomem(p);
		return p->rc;
	}
	*root = parse_list(p, 0);
	if (!p->rc) {
		struct token t = peek(p);

		if (t.type != T_END)
			syntax(p, &t, "'&&', '||' or the end");
	}
	return p->rc;
}

void tp_filter_parse_free(struct parser *p)
{
	free(p->nodes);
	free(p->cp);
	free(p->segs);
	free(p->elems);
	free(p->classes);
}
