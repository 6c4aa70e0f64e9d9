/* SPDX-License-Identifier: MIT */
/*
 * filter_eval.h - a compiled filter (filter.h compiles one) as it is run: the program's
 * layout, the numeric loop that call sites run inline, and lib/filter_eval.c's out-of-line
 * judge of any record (strings, short records), its text and its free. libc only.
 */
#ifndef TPOINT_FILTER_EVAL_H
#define TPOINT_FILTER_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

/*
 * The compiled program. It is laid out here, not hidden in a .c file, so that the writer's
 * tpoint_filter_commit_v2() runs the numeric loop inline: a call would cost a prologue, an
 * epilogue and the registers saved around it, as much as a whole test.
 *
 * Every numeric test, whatever its operator, width and sign, is one formula on `w`, the 8
 * bytes of the record that hold the field (the aligned word around it, when it does not
 * cross one): true when ((w - lo) & mask) <= len, in 64-bit unsigned arithmetic. The
 * compiler turns each test into a range of the field's own values, clipped to what the
 * field can hold: [lo, lo + len] modulo 2^width, which a signed range is too (an arc of the
 * circle), so the wrapping subtraction tests it; and & k into "(field & k) is 0". Then it
 * shifts lo, mask and len to where the field lies in w: the bytes around it only reach the
 * bits below it (which lo and mask leave alone) and above it (which mask clears). !=, <, >
 * and & are negations of ==, >=, <= and "is 0", which cost nothing: the compiler swaps the
 * test's two jumps, as it does for '!'. So the loop neither reads the field's width or sign
 * nor branches on the operator.
 */
enum filter_code {
	FOP_NUM,       /* a number, as above */
	FOP_STR_ARRAY, /* strings: only tp_filter_match_checked() runs them */
	FOP_STR_DYN,
	FOP_MATCH,     /* the end: the record matches */
	FOP_NOMATCH,   /* the end: it does not */
};

struct filter_op {
	uint8_t code;    /* enum filter_code */
	uint8_t shift;   /* numbers: the bit of w where the field starts */
	uint16_t offset; /* the field's, from the start of the record */
	uint16_t size;   /* the field's */
	uint16_t word;   /* numbers: the offset of w */
	/* Where to go next; always a later op, so that the walk ends (filter.c checks it). */
	const struct filter_op *on_true;
	const struct filter_op *on_false;
	union {
		struct {
			uint64_t lo, mask, len;
		} num;
		struct {
			uint32_t seg;  /* the pattern's first segment */
			uint32_t nseg; /* 1 + the number of '*' */
		} str;
	};
};

struct fseg; /* a run of a glob pattern (filter_program.h) */

/* A compiled filter. */
struct filter {
	/*
	 * Records of at least this many bytes hold every w the program reads, so the inline
	 * loop needs no bounds check. UINT64_MAX (more than any uint32_t size) when the
	 * program has strings, which always take tp_filter_match_checked().
	 */
	uint64_t fast_size;
	const struct filter_op *ops; /* ops[0] is the first test */
	const struct fseg *segs;
	const uint16_t *elems;
	const uint8_t (*classes)[32];
	const char *text;
};

/*
 * filter_match() for any filter and record, out of line: checks each field against the
 * record's end, and runs the string tests.
 */
int tp_filter_match_checked(const struct filter *f, const void *rec, uint32_t size);

/* Whether filter_match_fast() may judge a record of `size` bytes. */
static inline int filter_fits(const struct filter *f, uint32_t size)
{
	return size >= f->fast_size;
}

/* The test of a numeric op on its word w. */
static inline const struct filter_op *filter_num_next(const struct filter_op *op, uint64_t w)
{
	return ((w - op->num.lo) & op->num.mask) <= op->num.len ? op->on_true : op->on_false;
}

/*
 * filter_match() when filter_fits(): numbers only, every w inside the record. A program has
 * at least one test, and one that fits has only numeric ones: the first op is one.
 */
static inline int filter_match_fast(const struct filter *f, const void *rec)
{
	const struct filter_op *op = f->ops;

	do {
		uint64_t w;

		/* memcpy: w need not be aligned; it compiles to a single load. */
		memcpy(&w, (const unsigned char *)rec + op->word, 8);
		op = filter_num_next(op, w);
	} while (op->code == FOP_NUM);
	return op->code == FOP_MATCH;
}

/*
 * 1 if the record (`size` bytes from common_type) matches, else 0. Reads only inside
 * [rec, rec + size): a number that does not fit reads as 0, and a string (char[N] or
 * __data_loc, whatever its offset and length say) is cut at the end of the record.
 * Async-signal-safe; the time is linear in the tests and, for ~, in string length times the
 * longest '*'-free part of the pattern.
 */
static inline int filter_match(const struct filter *f, const void *rec, uint32_t size)
{
	if (__builtin_expect(filter_fits(f, size), 1))
		return filter_match_fast(f, rec);
	return tp_filter_match_checked(f, rec, size);
}

void tp_filter_free(struct filter *f);

/*
 * The canonical text of the filter: one space around each operator, strings in quotes,
 * parentheses only where needed (and around what '!' applies to). Compiling it gives a filter
 * with the same text and the same matches, provided the text, which can be longer than the
 * source, is within FILTER_MAX_LEN. Lives as long as f.
 */
const char *tp_filter_text(const struct filter *f);

#pragma GCC visibility pop

#endif /* TPOINT_FILTER_EVAL_H */
