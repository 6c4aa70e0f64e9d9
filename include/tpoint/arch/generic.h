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

/*
 * The asm constraint of an operand that is a symbol's address, printed bare by %c: the
 * assembler makes an offset of it (the object's event table, stage 6). The usual spelling;
 * an architecture whose compiler refuses it needs a header of its own.
 */
#define TPOINT_ARCH_SYMBOL "i"

#endif
