// SPDX-License-Identifier: MIT
/*
 * filter.c - compile ftrace-style event filters: the parse tree (filter_parse.c) to a
 * program, which filter_eval.c and filter.h's inline loop run.
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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "filter_parse.h"

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
	size_t text_len = tp_filter_tree_text(p, root, NULL);
	size_t off_ops, off_segs, off_elems, off_classes, off_text, total;
	struct filter_op *ops;
	struct filter *f;
	char *base;
	uint32_t idx = 0;

	off_ops = align8(sizeof(*f));
	off_segs = off_ops + ((size_t)p->ncp + 2) * sizeof(struct filter_op);
	off_elems = off_segs + (size_t)p->nsegs * sizeof(struct fseg);
	off_classes = off_elems + (size_t)p->nelems * sizeof(uint16_t);
	off_text = off_classes + (size_t)p->nclasses * 32;
	total = off_text + text_len + 1;
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
		tp_filter_fail(p, "filter compiler error: a jump that does not go forward");
		free(base);
		return NULL;
	}
	base[off_text + tp_filter_tree_text(p, root, base + off_text)] = 0;
	return f;
}

int tp_filter_compile(const char *expr, const char *event_name, const struct filter_field *fields,
		      size_t nfields, struct filter **out, char *err, size_t errlen)
{
	struct parser p = {
		.s = expr, .event = event_name, .fields = fields, .nfields = nfields,
		.err = err, .errlen = errlen,
	};
	uint32_t root;
	size_t len;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (!expr) {
		tp_filter_fail(&p, "no filter expression");
		return p.rc;
	}
	len = strnlen(expr, FILTER_MAX_LEN + 1);
	if (len > FILTER_MAX_LEN) {
		tp_filter_fail(&p, "filter expression longer than %d bytes", FILTER_MAX_LEN);
		return p.rc;
	}
	p.len = (uint32_t)len;
	if (tp_filter_parse(&p, &root) == 0) {
		*out = build(&p, root);
		if (!*out)
			tp_filter_fail_nomem(&p);
	}
	tp_filter_parse_free(&p);
	return p.rc;
}
