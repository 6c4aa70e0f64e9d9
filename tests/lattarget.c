/* SPDX-License-Identifier: MIT */
/*
 * Requests with known delays, for tests/report_latency.sh: `lattarget N` makes N requests,
 * each a tpt_lat:lat_start, a sleep, and a tpt_lat:lat_end; request i has id i % 7 (ids come
 * back, as pids do), command "get", "put" or "del" (i % 3), and sleeps 0, 50 us, 300 us or
 * 2 ms (i % 4). The test reads the delays back from the recording's timestamps: a busy
 * machine stretches a sleep, and the histogram must show what was recorded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tpoint/tpoint.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_lat.h"

int main(int argc, char **argv)
{
	static const char *const cmds[] = { "get", "put", "del" };
	static const long sleep_ns[] = { 0, 50000, 300000, 2000000 };
	long n = argc > 1 ? atol(argv[1]) : 20;

	for (long i = 0; i < n; i++) {
		struct timespec d = { 0, sleep_ns[i % 4] };

		trace_lat_start((unsigned)(i % 7));
		if (d.tv_nsec)
			nanosleep(&d, NULL);
		trace_lat_end((unsigned)(i % 7), cmds[i % 3]);
	}
	printf("lattarget: %ld\n", n);
	return 0;
}
