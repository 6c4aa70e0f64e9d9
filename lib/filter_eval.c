// SPDX-License-Identifier: MIT
/*
 * filter_eval.c - run a compiled event filter (filter_eval.h) on a record: the out-of-line check
 * of any record (the inline loop of filter_eval.h judges the numeric ones), in the hot path of any
 * thread, so with no allocation, no lock and no call into libc but fixed-size memcpy.
 *
 * A string test runs its pattern's segments (the parts between '*'), each a run of elements
 * (a byte, '?', or a [..] class held as a 256-bit set), so matching never parses anything and
 * never backtracks more than one segment's length.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "filter_eval.h"
#include "filter_program.h"

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
