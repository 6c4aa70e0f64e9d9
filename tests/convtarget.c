/* SPDX-License-Identifier: MIT */
/*
 * Fires the events of tests/trace/events/tpt_conv.h for tests/convert.sh: `convtarget N`
 * fires each one N times (conv_cond's condition holds one time in three), with values that
 * follow from the iteration, a quarter of the names with bytes that are not UTF-8, and
 * tpoint_printf() every tenth time. `convtarget N ROUNDS` does it ROUNDS times with 0.2 s
 * between, so that a pool too small for a round has room again at the next one: its losses
 * are marked on the next round's first record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tpoint/tpoint.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_conv.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long rounds = argc > 2 ? atol(argv[2]) : 1;
	struct timespec pause = { 0, 200000000 };
	int vals[5] = { 1, -2, 3, -4, 5 };
	char name[32];

	for (long i = 0; i < n * rounds; i++) {
		if (i && i % n == 0)
			nanosleep(&pause, NULL);
		if (i % 4 == 3)
			snprintf(name, sizeof(name), "b\xff\"q\\%ld\t", i);
		else
			snprintf(name, sizeof(name), "name-%ld", i);
		trace_conv_ints(i);
		trace_conv_arrays(i, name, vals, (int)(i % 6));
		trace_conv_syms(i);
		trace_conv_cond(i);
		if (i % 10 == 0)
			tpoint_printf("message %ld", i);
	}
	printf("convtarget: %ld\n", n * rounds);
	return 0;
}
