/* SPDX-License-Identifier: MIT */
/*
 * Requests begun on one thread and ended on another, for tests/trigger_latency.sh. Each
 * SIGUSR1 makes N requests: request i has id i % 7, command "get", "put" or "del" (i % 3)
 * and a latency of LAT[i % 5] µs on the program's own clock `t` (tpt_hlat:hl_begin at t,
 * hl_done at t + latency); the begins of 7 requests go on the begin thread, then their ends
 * on the end thread, turn by turn. It prints "round N done" after each, "ready" once the
 * signals wait for it, and ends on SIGTERM or SIGINT.
 *	hlattarget N
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_hlat.h"

static const unsigned long long lat_us[] = { 0, 3, 50, 300, 70000 };
static const char *const cmds[] = { "get", "put", "del" };
static long n;
static unsigned long long clock_us = 1000000;
static pthread_barrier_t turn;

static void *begins(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i += 7) {
		for (long j = i; j < i + 7 && j < n; j++)
			trace_hl_begin((unsigned)(j % 7), clock_us + (unsigned long long)j * 100000);
		pthread_barrier_wait(&turn); /* the ends' turn */
		pthread_barrier_wait(&turn); /* and back */
	}
	return NULL;
}

static void *ends(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i += 7) {
		pthread_barrier_wait(&turn);
		for (long j = i; j < i + 7 && j < n; j++)
			trace_hl_done((unsigned)(j % 7),
				      clock_us + (unsigned long long)j * 100000 + lat_us[j % 5],
				      cmds[j % 3]);
		pthread_barrier_wait(&turn);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sigset_t set;
	int sig, round = 0;

	n = argc > 1 ? atol(argv[1]) : 700;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&turn, NULL, 2);
	printf("ready\n");
	fflush(stdout);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
		pthread_t a, b;

		pthread_create(&a, NULL, begins, NULL);
		pthread_create(&b, NULL, ends, NULL);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		clock_us += (unsigned long long)n * 100000;
		printf("round %d done\n", ++round);
		fflush(stdout);
	}
	return 0;
}
