/* SPDX-License-Identifier: MIT */
/*
 * The off path of a jump-label call site, against the default site and an empty loop, in
 * one run.
 *
 *	jump [CALLS [REPS]]
 *
 * Three loops of CALLS calls each, alike but for their body: nothing, a jump-label site of a
 * disabled event (bench/jump_label_loop.c, built with -DTPOINT_JUMP_LABEL), and a default
 * site of the same event (bench/load_branch_loop.c: load the enable word, branch). Each runs
 * twice:
 *	hot cache       the enable word stays in L1, as in a tight loop;
 *	cache pressure  the enable word's line is flushed from every cache level before each
 *	                call (clflush + mfence; arm64: dc civac + dsb), as when the program's
 *	                working set evicts it between calls. All three loops flush the same
 *	                line, so the flush costs the same in each and their difference is what
 *	                the site itself pays.
 * Rounds visit the six cases in turn, REPS rounds after an untimed one; the figures are
 * medians, with the min-max range over the rounds. Nothing here asserts a timing.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tpoint/tpoint.h>
#include "median.h"
#include "trace/events/bench_jump.h"
#include "jump_sites.h"

#define MAX_REPS BENCH_MAX_REPS
/* A flushed line costs a trip to memory: fewer calls keep the batch as short as a hot one. */
#define EVICT_DIVISOR 50

BENCH_JUMP_LOOP(loop_empty, (void)0)

struct jump_case {
	const char *label;
	void (*loop)(uint64_t, const void *);
	bool evict;
	double ns[MAX_REPS];
	double med, min, max;
};

enum { J_EMPTY, J_JUMP, J_LOAD, J_EMPTY_EV, J_JUMP_EV, J_LOAD_EV, NJCASES };

static struct jump_case cases[NJCASES] = {
	[J_EMPTY] = { "empty loop", loop_empty, false },
	[J_JUMP] = { "jump-label site, off", loop_jump_label, false },
	[J_LOAD] = { "load-and-branch site, off", loop_load_branch, false },
	[J_EMPTY_EV] = { "empty loop", loop_empty, true },
	[J_JUMP_EV] = { "jump-label site, off", loop_jump_label, true },
	[J_LOAD_EV] = { "load-and-branch site, off", loop_load_branch, true },
};

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void summarise(struct jump_case *c, int reps)
{
	bench_summarise(c->ns, reps, &c->med, &c->min, &c->max);
}

static void print_row(const struct jump_case *c, const struct jump_case *base)
{
	printf("%-28s %9.2f %9.2f-%-9.2f %+9.2f\n", c->label, c->med, c->min, c->max,
	       c->med - base->med);
}

int main(int argc, char **argv)
{
	uint64_t calls = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000ull;
	int reps = argc > 2 ? atoi(argv[2]) : 9;
	const void *word = &TPOINT_EVENT_SYM(jump_off).enabled;
	struct tpoint_jump_stats js;

	if (calls < 1000 || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: jump [CALLS >= 1000 [REPS 1..%d]]\n", MAX_REPS);
		return 2;
	}
	tpoint_jump_stats(&js);
	printf("jump labels: %zu sites, %zu on their checked path%s%s\n", js.sites, js.checked,
	       js.reason[0] ? ": " : "", js.reason);
	if (js.checked)
		printf("jump labels: patching is refused here, so the jump-label figures below "
		       "are those of its checked path (a jump and a load)\n");
	for (int rep = -1; rep < reps; rep++)
		for (int k = 0; k < NJCASES; k++) {
			struct jump_case *c = &cases[k];
			uint64_t n = c->evict ? calls / EVICT_DIVISOR : calls;
			double t0 = mono_ns();

			c->loop(n, c->evict ? word : NULL);
			if (rep >= 0)
				c->ns[rep] = (mono_ns() - t0) / (double)n;
		}
	for (int k = 0; k < NJCASES; k++)
		summarise(&cases[k], reps);

	printf("\n%-28s %9s %-19s %9s   (%d rounds of %llu calls, hot; %llu with eviction)\n",
	       "case, ns per call", "median", "min-max", "vs empty", reps,
	       (unsigned long long)calls, (unsigned long long)(calls / EVICT_DIVISOR));
	printf("hot cache\n");
	for (int k = J_EMPTY; k <= J_LOAD; k++)
		print_row(&cases[k], &cases[J_EMPTY]);
#if defined(__x86_64__) || defined(__aarch64__)
	printf("cache pressure (enable word's line flushed before each call)\n");
	for (int k = J_EMPTY_EV; k <= J_LOAD_EV; k++)
		print_row(&cases[k], &cases[J_EMPTY_EV]);
#endif

	const struct jump_case *e = &cases[J_EMPTY], *j = &cases[J_JUMP], *l = &cases[J_LOAD];
	double noise = e->max - e->min;

	printf("\ntarget: hot cache, jump-label and load-and-branch within noise of the empty "
	       "loop (noise %.2f ns): %+.2f and %+.2f ns (%s)\n", noise, j->med - e->med,
	       l->med - e->med,
	       j->med - e->med <= noise && l->med - e->med <= noise ? "met" : "NOT met");
#if defined(__x86_64__) || defined(__aarch64__)
	e = &cases[J_EMPTY_EV];
	j = &cases[J_JUMP_EV];
	l = &cases[J_LOAD_EV];
	printf("target: cache pressure, jump-label <= empty loop + 1 ns: %+.2f ns (%s); the "
	       "load-and-branch site pays %+.2f ns\n", j->med - e->med,
	       j->med - e->med <= 1.0 ? "met" : "NOT met", l->med - e->med);
#endif
	return 0;
}
