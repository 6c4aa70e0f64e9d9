/* SPDX-License-Identifier: MIT */
/*
 * Records carry the raw hot-path clock (the TSC on x86-64); trace.dat wants CLOCK_MONOTONIC
 * nanoseconds, so that user and kernel events line up. The spool stores pairs of both clocks
 * taken together, and the file writer interpolates between them.
 */
#include <time.h>
#include <tpoint/tpoint.h>
#include "clock.h"

uint64_t tp_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct clock_sample tp_clock_sample_now(void)
{
	struct clock_sample best = { 0, 0 };
	uint64_t best_width = UINT64_MAX;

	/* Keep the tightest of a few brackets: a preemption inside one would skew the pair. */
	for (int i = 0; i < 5; i++) {
		uint64_t before = tpoint_arch_clock();
		uint64_t mono = tp_mono_now();
		uint64_t after = tpoint_arch_clock();

		if (after - before < best_width) {
			best_width = after - before;
			best.clock = before + (after - before) / 2;
			best.mono = mono;
		}
	}
	return best;
}
