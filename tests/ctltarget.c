/* SPDX-License-Identifier: MIT */
/*
 * A program to be traced from outside: it hits tpt_ctl:ctl_tick and tpt_ctl:ctl_odd every
 * PERIOD microseconds (default 1000) until SECONDS have passed (default 30) or a signal
 * ends it. A third argument: "fork" forks once at start, and both run; "closefds" closes
 * every descriptor but 0-2 at start and opens /dev/null a few times, as daemons do;
 * "busythread" adds a thread that hits ctl_odd (odd n from 1 up) every 50 microseconds, so
 * that its pages fill while the main thread's slow ticks sit in a page being written;
 * "hostile" names its thread and the first of its tick names with terminal controls and
 * bytes that are not UTF-8 (tests/tty_escape.sh); "raiseSIG" (raise9, raise15) ends by
 * killing itself with signal SIG, after saying its last n.
 *	ctltarget [SECONDS [PERIOD_US [fork|closefds|busythread|hostile|raiseSIG]]]
 * CTLTARGET_MIN_TICKS=N in the environment: it ticks at least N times, however long that
 * takes, so that a test that needs that many events passes on a busy machine too.
 *
 * Its call sites are jump labels: every verb of the tool that switches an event switches
 * patched code here (tests/control.sh, attach.sh, stream.sh).
 */
#define TPOINT_JUMP_LABEL
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_ctl.h"

static volatile sig_atomic_t stop;

static void *busy_thread(void *arg)
{
	struct timespec ts = { 0, 50000 };

	(void)arg;
	for (unsigned long n = 1; !stop; n += 2) {
		trace_ctl_odd(n);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	long period = argc > 2 ? atol(argv[2]) : 1000;
	const char *names[4] = { "alpha", "beta", "gamma", "delta" };
	const char *min_env = getenv("CTLTARGET_MIN_TICKS");
	unsigned long min_ticks = min_env ? strtoul(min_env, NULL, 10) : 0;
	struct timespec start, now, ts = { 0, period * 1000 };

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (argc > 3 && !strcmp(argv[3], "fork") && fork() == 0)
		names[0] = "child";
	if (argc > 3 && !strcmp(argv[3], "closefds")) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (int i = 0; i < 4; i++)
			if (open("/dev/null", O_RDONLY) < 0)
				return 1;
	}
	if (argc > 3 && !strcmp(argv[3], "hostile")) {
		/* ESC ] 0 ; x BEL, ESC [ 2 J, a raw CSI, CSI in UTF-8, not UTF-8 */
		names[0] = "\033]0;x\a\033[2J\x9b\xc2\x9b\xff\xfe";
		prctl(PR_SET_NAME, "\033]0;x\a\033[2J\x9b\xff");
	}
	if (argc > 3 && !strcmp(argv[3], "busythread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, busy_thread, NULL))
			return 1;
		pthread_detach(t);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	unsigned long last = 0;

	for (unsigned long n = 0; !stop; n++) {
		trace_ctl_tick(n, names[n & 3]);
		last = n;
		trace_ctl_odd(n);
		if (period)
			nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 > seconds &&
		    n + 1 >= min_ticks)
			break;
	}
	/* The last n ticked, for a test that checks the end of what it recorded. */
	printf("last %lu\n", last);
	fflush(stdout);
	if (argc > 3 && !strncmp(argv[3], "raise", 5)) {
		int sig = atoi(argv[3] + 5);

		signal(sig, SIG_DFL);
		raise(sig);
	}
	return 0;
}
