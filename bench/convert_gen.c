/* SPDX-License-Identifier: MIT */
/*
 * Writes the conversion benchmark's trace.dat (bench/convert.sh): `convert_gen N` fires
 * redis_cmd N times, with commands of Redis's usual lengths. Run in block mode, so that the
 * file holds all N.
 */
#include <stdio.h>
#include <stdlib.h>

#define CREATE_TRACE_POINTS
#include "trace/events/bench_conv.h"

int main(int argc, char **argv)
{
	static const char *const cmds[] = { "GET", "SET", "INCR", "HGETALL", "LPUSH", "EXPIRE" };
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		trace_redis_cmd(cmds[i % 6], (u64)(i * 2654435761u), (u64)(i % 977));
	return 0;
}
