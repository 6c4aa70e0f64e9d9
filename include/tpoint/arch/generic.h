/* SPDX-License-Identifier: MIT */
/* Any other architecture: CLOCK_MONOTONIC through the vDSO. */
#ifndef TPOINT_ARCH_GENERIC_H
#define TPOINT_ARCH_GENERIC_H

#include <time.h>

#define TPOINT_ARCH_CLOCK_NAME "mono"

static inline uint64_t tpoint_arch_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
