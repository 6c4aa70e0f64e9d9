// SPDX-License-Identifier: MIT
/*
 * What `tpoint hist -k` (hist_kernel.c) and `-p` (hist_process.c) share (hist_cmd.h): how a
 * run is stopped, and the clock its --watch and --duration are paced by.
 */
#include <signal.h>
#include <time.h>
#include "hist_cmd.h"

volatile sig_atomic_t hist_stop;

static void on_stop(int sig)
{
	(void)sig;
	hist_stop = 1;
}

void hist_catch_stop(void)
{
	struct sigaction sa = { .sa_handler = on_stop }; /* no SA_RESTART: the sleep ends */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

double hist_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
