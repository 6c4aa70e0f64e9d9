/* SPDX-License-Identifier: MIT */
/* clock.c: the hot path's clock and CLOCK_MONOTONIC nanoseconds. */
#ifndef TPOINT_CLOCK_H
#define TPOINT_CLOCK_H

#include <stdint.h>
#include "hidden.h"

struct clock_sample {
	uint64_t clock; /* tpoint_arch_clock() */
	uint64_t mono;  /* CLOCK_MONOTONIC, ns */
};
HIDDEN struct clock_sample tp_clock_sample_now(void);
HIDDEN uint64_t tp_mono_now(void);

#endif
