/* SPDX-License-Identifier: MIT */
/*
 * A program with an event whose print format libtraceevent cannot print safely
 * (trace/events/tpt_unsafe.h): it hits tpt_unsafe:hexoff and tpt_unsafe:fine, n = 0, 1, ...,
 * every 10 ms until SECONDS have passed (default 30) or SIGINT/SIGTERM ends it, and says
 * "ready PID" on stdout first. For tests/render.sh.
 *	fmttarget [SECONDS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_unsafe.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	struct timespec start, now, ts = { 0, 10000000 };
	unsigned long n = 0;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		trace_hexoff(n);
		trace_fine(n);
		n++;
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!stop && (double)(now.tv_sec - start.tv_sec) +
				  (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	printf("last %lu\n", n - 1);
	return 0;
}
