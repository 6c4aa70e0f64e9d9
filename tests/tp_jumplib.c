// SPDX-License-Identifier: MIT
/*
 * The shared library of tests/jump_test.c: one jump-label site of its own event, in an
 * object that the test closes and opens again while the event is switched on and off.
 */
#define TPOINT_JUMP_LABEL
#define CREATE_TRACE_POINTS
#include <trace/events/tpt_jumplib.h>

/* One pass through the site; returns whether the hit function ran. */
__attribute__((visibility("default"))) int jumplib_hit(int v)
{
	int seen = 0;

	trace_jump_lib(&seen, v);
	return seen;
}
