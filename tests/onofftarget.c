/* SPDX-License-Identifier: MIT */
/*
 * The program of tests/trigger_onoff.sh, built with jump-label call sites: a loop of N
 * steps that hits tpt_onoff:start at every even hundred from 200 (200, 400, ...), stop at
 * every odd hundred (100, 300, ...), then tick and detail with seq = the step. So with
 * traceoff on stop and traceon on start, the ticks kept are the steps whose hundred is even;
 * with enable_event:tpt_onoff:detail on start and disable_event on stop, the details too,
 * from 200 on.
 *	onofftarget seq N          the loop, then "done" and exit
 *	onofftarget signal N       the same, start and stop hit in a SIGUSR2 handler (raise())
 *	onofftarget threads N      16 threads at once, each: start, tick, detail, stop, N times
 *	onofftarget storm N        a thread hits tick in a loop; N signals interrupt it anywhere,
 *	                           each handler hits stop (even k) or start (odd k), seq = k
 *	onofftarget wait MODE N    "ready PID", MODE on SIGUSR1 ("done"), exit on SIGTERM
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_onoff.h"

static long steps;
static volatile sig_atomic_t hundred; /* the step the handler marks */

static void mark(long i)
{
	if (i && i % 100 == 0) {
		if ((i / 100) % 2)
			trace_stop((int)i, 0);
		else
			trace_start((int)i, 0);
	}
}

static void on_usr2(int sig)
{
	(void)sig;
	mark(hundred);
}

static void loop(int by_signal)
{
	for (long i = 0; i < steps; i++) {
		if (by_signal) {
			hundred = (sig_atomic_t)i;
			if (i && i % 100 == 0)
				raise(SIGUSR2);
		} else {
			mark(i);
		}
		trace_tick((int)i, 0);
		trace_detail((int)i, 0);
	}
}

static volatile sig_atomic_t storm_k, storm_done;
static int storm_stop;

static void on_storm(int sig)
{
	(void)sig;
	if (storm_k % 2)
		trace_start((int)storm_k, 1);
	else
		trace_stop((int)storm_k, 1);
	__atomic_store_n(&storm_done, storm_k + 1, __ATOMIC_RELEASE);
}

static void *ticker(void *arg)
{
	(void)arg;
	for (int i = 0; !__atomic_load_n(&storm_stop, __ATOMIC_ACQUIRE); i++) {
		trace_tick(i, 0);
		/* The signaller's turn now and then: on a loaded machine (or under ASan) a
		 * ticker that never yields made a file of gigabytes before 400 signals were
		 * through. Most of its time is still in the hit, where the signals land. */
		if (i % 128 == 127)
			sched_yield();
	}
	return NULL;
}

/* Each signal waits for its handler: none is merged with another, each fires once. */
static void storm(void)
{
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_storm;
	sigaction(SIGUSR2, &sa, NULL);
	pthread_create(&th, NULL, ticker, NULL);
	for (long k = 0; k < steps; k++) {
		storm_k = (sig_atomic_t)k;
		pthread_kill(th, SIGUSR2);
		while (__atomic_load_n(&storm_done, __ATOMIC_ACQUIRE) != k + 1)
			sched_yield();
	}
	__atomic_store_n(&storm_stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
}

static void *worker(void *arg)
{
	int t = (int)(long)arg;

	for (long i = 0; i < steps; i++) {
		trace_start((int)i, t);
		trace_tick((int)i, t);
		trace_detail((int)i, t);
		trace_stop((int)i, t);
	}
	return NULL;
}

static int run(const char *mode)
{
	if (!strcmp(mode, "seq") || !strcmp(mode, "signal")) {
		loop(!strcmp(mode, "signal"));
	} else if (!strcmp(mode, "storm")) {
		storm();
	} else if (!strcmp(mode, "threads")) {
		pthread_t th[16];

		for (long t = 0; t < 16; t++)
			pthread_create(&th[t], NULL, worker, (void *)(t + 1));
		for (int t = 0; t < 16; t++)
			pthread_join(th[t], NULL);
	} else {
		fprintf(stderr, "onofftarget: unknown mode '%s'\n", mode);
		return 2;
	}
	printf("done\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	bool wait = argc > 1 && !strcmp(argv[1], "wait");
	struct sigaction sa;
	sigset_t set;
	int sig, ret;

	if (argc < 3 + wait) {
		fprintf(stderr, "usage: onofftarget [wait] seq|signal|threads|storm N\n");
		return 2;
	}
	steps = atol(argv[2 + wait]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	if (!wait)
		return run(argv[1]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 0;
	ret = run(argv[2]);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1)
		;
	return ret;
}
