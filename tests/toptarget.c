/* SPDX-License-Identifier: MIT */
/*
 * A program for tests/top.sh: hits tpt_ctl:ctl_tick RATE times a second on absolute deadlines
 * (so its rate is known, whatever the scheduler's delays), and on every tick appends a line
 * to FILE and to DELETED, a file it unlinked at start but keeps open. Until SECONDS have
 * passed or a signal ends it.
 *	toptarget FILE DELETED RATE SECONDS
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_ctl.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct timespec next;
	int fd, del;

	if (argc != 5) {
		fprintf(stderr, "usage: toptarget FILE DELETED RATE SECONDS\n");
		return 2;
	}
	long rate = atol(argv[3]), ticks = (long)(atof(argv[4]) * (double)rate);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	del = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || del < 0 || unlink(argv[2]) < 0 || rate <= 0 || rate > 1000000) {
		perror("toptarget");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long n = 0; !stop && n < ticks; n++) {
		trace_ctl_tick((unsigned long)n, "top");
		if (write(fd, "tick\n", 5) != 5 || write(del, "tick\n", 5) != 5)
			return 1;
		next.tv_nsec += 1000000000L / rate;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) && !stop)
			;
	}
	return 0;
}
