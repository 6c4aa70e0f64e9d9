/* SPDX-License-Identifier: MIT */
/*
 * tests/messages.sh's program: 3 msg_tick, 1 msg_ratio (refused: %f), a 10-byte and a
 * 100 KB msg_text (too big for a record), then exits with status 0. "fork": a child does the
 * same, the parent waits for it first. "loop SECONDS": msg_tick as fast as it can, for
 * SECONDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_msg.h"

static void fire(void)
{
	static char big[100 << 10];

	memset(big, 'x', sizeof(big) - 1);
	for (int i = 0; i < 3; i++)
		trace_msg_tick(i);
	trace_msg_ratio(1);
	trace_msg_text("ten bytes");
	trace_msg_text(big);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "loop")) {
		struct timespec start, now;
		double seconds = atof(argv[2]);
		int n = 0;

		clock_gettime(CLOCK_MONOTONIC, &start);
		do {
			for (int i = 0; i < 1000; i++)
				trace_msg_tick(n++);
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while ((double)(now.tv_sec - start.tv_sec) +
			 (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t child = fork();

		if (child == 0) {
			fire();
			return 0;
		}
		waitpid(child, NULL, 0);
	}
	fire();
	return 0;
}
