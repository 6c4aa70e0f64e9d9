// SPDX-License-Identifier: MIT
/*
 * merge_test - the time-ordered merge (lib/fmt/merge.c) on its own: the tie rule, and that
 * merging sources gives what the readers' old linear scan gave (the earliest record next,
 * on equal times the first source), with many equal times, sources that start empty or run
 * dry, and more sources than the merge first made room for.
 *
 * Exit 0 when every check passes; each failed check prints one line (tests/testutil.h).
 */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>

#include "fmt/merge.h"

#define MAXREC 64

/* A source: its records' times, non-decreasing, read in order. */
struct src {
	struct tp_merge_src key; /* first: the merge hands back its address */
	uint64_t ns[MAXREC];
	size_t n, at;
};

static bool load(struct src *s)
{
	if (s->at >= s->n)
		return false;
	s->key.ns = s->ns[s->at];
	return true;
}

static void tie_rule(void)
{
	struct tp_merge_src a = { 5, 1 }, b = { 5, 2 }, c = { 4, 9 };

	CHECK(tp_merge_before(&a, &b) && !tp_merge_before(&b, &a), "equal times: lower tie first");
	CHECK(tp_merge_before(&c, &a) && !tp_merge_before(&a, &c), "the earlier time first");
	CHECK(!tp_merge_before(&a, &a), "a record is not before itself");
}

/* The order of the old readers (report, convert): scan for the strictly earliest. */
static struct src *scan_next(struct src *v, size_t n)
{
	struct src *next = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].at < v[i].n && (!next || v[i].ns[v[i].at] < next->ns[next->at]))
			next = &v[i];
	return next;
}

/* Random sources, merged: the same (source, record) sequence as the scan. */
static void same_as_scan(unsigned int seed, size_t nsrc, uint64_t spread)
{
	struct src *a = calloc(nsrc, sizeof(*a)), *b = calloc(nsrc, sizeof(*b));
	struct tp_merge m;
	size_t total = 0, got = 0;
	bool same = true;

	srand(seed);
	for (size_t i = 0; i < nsrc; i++) {
		uint64_t t = (uint64_t)(rand() % 4);

		a[i].n = (size_t)rand() % MAXREC; /* some start empty */
		for (size_t k = 0; k < a[i].n; k++)
			a[i].ns[k] = t += (uint64_t)rand() % spread; /* spread 1: all equal */
		a[i].key.tie = i;
		total += a[i].n;
		b[i] = a[i];
	}
	CHECK(!tp_merge_init(&m, 2), "init"); /* fewer than the sources: it grows */
	for (size_t i = 0; i < nsrc; i++)
		if (load(&a[i]))
			CHECK(!tp_merge_add(&m, &a[i].key), "add");
	for (struct tp_merge_src *top; (top = tp_merge_top(&m)); got++) {
		struct src *s = (struct src *)(void *)top, *want = scan_next(b, nsrc);

		if (!want || want - b != s - a || want->at != s->at)
			same = false;
		if (want)
			want->at++;
		s->at++;
		tp_merge_advanced(&m, load(s));
	}
	CHECK(same && got == total && !scan_next(b, nsrc),
	      "seed %u, %zu sources, spread %llu: %zu of %zu records, %s order", seed, nsrc,
	      (unsigned long long)spread, got, total, same ? "same" : "another");
	tp_merge_free(&m);
	free(a);
	free(b);
}

int main(void)
{
	tie_rule();
	for (unsigned int seed = 1; seed <= 20; seed++) {
		same_as_scan(seed, 1 + seed % 7, 1);
		same_as_scan(seed, 1 + seed * 3, 3);
		same_as_scan(seed, 40, 1000);
	}
	return tu_finish();
}
