/* SPDX-License-Identifier: MIT */
/*
 * What bench/jump.c shares with its loop files: each loop runs n calls of one kind of
 * disabled call site, evicting the enable word's cache line before each call if `evict`.
 * The three loops are alike but for the site, so that their difference is the site's cost.
 */
#ifndef BENCH_JUMP_SITES_H
#define BENCH_JUMP_SITES_H

#include <stdint.h>

/* What every loop body ends with (see bench/hotpath.c): no iteration can be dropped, no
 * load hoisted out of the loop. */
#define sink(x) __asm__ __volatile__("" : : "r"(x) : "memory")

/*
 * Evict the line of `p` from every cache level and wait until it is gone, so that the next
 * load of it goes to memory: what a call site meets when the program's working set has
 * pushed the enable word out since the last call.
 */
static inline void evict_line(const void *p)
{
#if defined(__x86_64__)
	__asm__ __volatile__("clflush (%0)\n\tmfence" : : "r"(p) : "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dc civac, %0\n\tdsb ish" : : "r"(p) : "memory");
#else
	(void)p;
#endif
}

#define BENCH_JUMP_LOOP(fn, site)                                                             \
	__attribute__((noinline)) void fn(uint64_t n, const void *evict)                       \
	{                                                                                      \
		for (uint64_t i = 0; i < n; i++) {                                             \
			if (evict)                                                             \
				evict_line(evict);                                             \
			site;                                                                  \
			sink(i);                                                               \
		}                                                                              \
	}

void loop_jump_label(uint64_t n, const void *evict);
void loop_load_branch(uint64_t n, const void *evict);

#endif
