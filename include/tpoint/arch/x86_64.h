/* SPDX-License-Identifier: MIT */
/* x86-64: the invariant TSC, read without serialisation (ordering against other loads and
 * stores does not matter to a trace timestamp, and rdtscp/lfence would double the cost). */
#ifndef TPOINT_ARCH_X86_64_H
#define TPOINT_ARCH_X86_64_H

#define TPOINT_ARCH_CLOCK_NAME "x86-tsc"

static inline uint64_t tpoint_arch_clock(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
