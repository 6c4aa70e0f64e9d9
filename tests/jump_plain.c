// SPDX-License-Identifier: MIT
/*
 * Part of tests/jump_test.c, compiled without TPOINT_JUMP_LABEL: a load-and-branch site of
 * the same event as the test's jump-label sites, in the same program.
 */
#include <trace/events/tpt_jump.h>

int jump_plain_hit(int v);

int jump_plain_hit(int v)
{
	int seen = 0;

	trace_jump_a(&seen, v);
	return seen;
}
