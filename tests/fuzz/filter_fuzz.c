// SPDX-License-Identifier: MIT
/*
 * filter_fuzz - libFuzzer harness for the event filter (lib/filter.c, filter_parse.c,
 * filter_eval.c).
 *
 *   clang -std=gnu11 -g -fsanitize=fuzzer,address,undefined -Ilib -Iinclude \
 *	tests/fuzz/filter_fuzz.c lib/filter.c lib/filter_parse.c lib/filter_eval.c -o filter_fuzz
 *
 * An input is an expression, optionally followed by a NUL and the bytes of a record. The
 * record is copied into a buffer of exactly its size, so ASan catches any read past it (a
 * damaged __data_loc word, a record shorter than the fields). Besides not crashing, leaking
 * or hanging, the harness checks what must always hold:
 *	- an error is -EINVAL or -ENOMEM with a non-empty one-line message and no filter;
 *	- a verdict is 0 or 1, and the same from the inline loop and the checked one;
 *	- the canonical text compiles (when within FILTER_MAX_LEN) to the same text and gives
 *	  the same verdicts, on the input's record and on a fixed one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* The layout of tests/filter_test.c: every width and signedness, char[16], __data_loc. */
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
	uint32_t path;
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

static unsigned char fixed_rec[sizeof(struct rec) + 32];

static void make_fixed(void)
{
	static const char path[] = "/usr/bin/kworker";
	struct rec r = {
		.common_type = 0x8001, .common_flags = 3, .common_pid = 1234, .u8 = 3, .s8 = -1,
		.u16 = 0x8000, .s16 = -300, .s32 = -5, .u32 = 4000000000u, .u64 = 1ull << 40,
		.s64 = -1, .comm = "kworker/0:1",
		.path = (uint32_t)sizeof(path) << 16 | (uint32_t)sizeof(struct rec),
	};

	memcpy(fixed_rec, &r, sizeof(r));
	memcpy(fixed_rec + sizeof(r), path, sizeof(path));
}

static void fail(const char *what, const char *expr)
{
	fprintf(stderr, "filter_fuzz: %s\n  expression: %s\n", what, expr);
	abort();
}

/* filter_match(), checked against tp_filter_match_checked(): the two loops must agree. */
static int match(const struct filter *f, const void *rec, uint32_t size, const char *expr)
{
	int m = filter_match(f, rec, size);

	if (m != tp_filter_match_checked(f, rec, size))
		fail("the inline and the checked loops disagree", expr);
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t elen = nul ? (size_t)(nul - data) : size;
	unsigned char *rec = NULL;
	uint32_t rsize = 0;
	struct filter *f = NULL, *g = NULL;
	char err[256], *expr;
	int rc;

	if (!fixed_rec[0])
		make_fixed();
	/* A little past the limit is enough to exercise it. */
	if (elen > FILTER_MAX_LEN + 8)
		elen = FILTER_MAX_LEN + 8;
	expr = malloc(elen + 1);
	if (!expr)
		return 0;
	memcpy(expr, data, elen);
	expr[elen] = 0;
	if (nul) {
		rsize = (uint32_t)(size - elen - 1);
		rec = malloc(rsize ? rsize : 1);
		if (!rec) {
			free(expr);
			return 0;
		}
		memcpy(rec, nul + 1, rsize);
	}

	memset(err, 'X', sizeof(err));
	rc = tp_filter_compile(expr, "fuzz:rec", fields, NFIELDS, &f, err, sizeof(err));
	if (rc) {
		if ((rc != -EINVAL && rc != -ENOMEM) || f)
			fail("bad error return", expr);
		if (!memchr(err, 0, sizeof(err)) || !err[0] || strchr(err, '\n'))
			fail("error message empty, unterminated or not one line", expr);
	} else {
		const char *text = tp_filter_text(f);
		int m_rec = rec ? match(f, rec, rsize, expr) : 0;
		int m_fix = match(f, fixed_rec, sizeof(fixed_rec), expr);
		uint32_t cut = (uint32_t)(elen % sizeof(fixed_rec)); /* a truncated record */
		int m_cut = match(f, fixed_rec, cut, expr);

		if ((m_rec | m_fix | m_cut) & ~1)
			fail("verdict not 0 or 1", expr);
		if (strlen(text) <= FILTER_MAX_LEN) {
			rc = tp_filter_compile(text, "fuzz:rec", fields, NFIELDS, &g, err,
					       sizeof(err));
			if (rc)
				fail(err, expr);
			if (strcmp(tp_filter_text(g), text))
				fail("canonical text changed when compiled again", expr);
			if ((rec && match(g, rec, rsize, expr) != m_rec) ||
			    match(g, fixed_rec, sizeof(fixed_rec), expr) != m_fix ||
			    match(g, fixed_rec, cut, expr) != m_cut)
				fail("canonical text matches differently", expr);
		}
	}
	tp_filter_free(f);
	tp_filter_free(g);
	free(rec);
	free(expr);
	return 0;
}
