/* SPDX-License-Identifier: MIT */
/*
 * A program that logs requests, some of them errors (status 503, the others 200), for
 * tests/trigger_snapshot.sh's `snapshot if status >= 500` triggers:
 *	snaptarget run N FIRST STEP   requests 0..N-1; errors at FIRST, FIRST+STEP, ... (STEP 0:
 *	                              FIRST alone); then it exits
 *	snaptarget signals N          errors from a SIGUSR1 handler, N of them (ids 10000 + k),
 *	                              sent by another thread while the main one logs requests
 *	snaptarget threads T          T threads at once, each 100 requests, an error (id
 *	                              20000 + t), 100 more
 *	snaptarget fork               an error, then a child that logs a `run 100 50 0`; the parent
 *	                              waits for it
 *	snaptarget wait               "ready", then each SIGUSR1 a `run 100 50 0` and "round N
 *	                              done"; it ends on SIGTERM
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_snap.h"

static void run(int n, int first, int step)
{
	for (int i = 0; i < n; i++) {
		int error = i == first || (step > 0 && i > first && (i - first) % step == 0);

		trace_request(i, error ? 503 : 200);
	}
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	trace_request(10000 + handled, 503);
	handled++;
}

static pthread_t main_thread;
static int nsignals;

static void *sender(void *arg)
{
	(void)arg;
	for (int k = 0; k < nsignals; k++) {
		pthread_kill(main_thread, SIGUSR1);
		while (handled <= k) /* the handler ran before the next one is sent */
			sched_yield();
	}
	return NULL;
}

static void signals(int n)
{
	struct sigaction sa;
	pthread_t th;
	int i = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	nsignals = n;
	main_thread = pthread_self();
	pthread_create(&th, NULL, sender, NULL);
	while (handled < n)
		trace_request(i++, 200);
	pthread_join(th, NULL);
}

static pthread_barrier_t start;

static void *worker(void *arg)
{
	int t = (int)(long)arg;

	pthread_barrier_wait(&start);
	for (int i = 0; i < 100; i++)
		trace_request(t * 1000 + i, 200);
	trace_request(20000 + t, 503);
	for (int i = 100; i < 200; i++)
		trace_request(t * 1000 + i, 200);
	return NULL;
}

static void threads(int n)
{
	pthread_t th[64];

	if (n > 64)
		n = 64;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int t = 0; t < n; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	for (int t = 0; t < n; t++)
		pthread_join(th[t], NULL);
}

static void forked(void)
{
	pid_t child;
	int status;

	run(10, 5, 0);
	child = fork();
	if (child == 0) {
		run(100, 50, 0);
		exit(0);
	}
	waitpid(child, &status, 0);
}

static void wait_rounds(void)
{
	sigset_t set;
	int sig, round = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
		run(100, 50, 0);
		printf("round %d done\n", ++round);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";

	if (!strcmp(mode, "run"))
		run(argc > 2 ? atoi(argv[2]) : 100, argc > 3 ? atoi(argv[3]) : 50,
		    argc > 4 ? atoi(argv[4]) : 0);
	else if (!strcmp(mode, "signals"))
		signals(argc > 2 ? atoi(argv[2]) : 20);
	else if (!strcmp(mode, "threads"))
		threads(argc > 2 ? atoi(argv[2]) : 16);
	else if (!strcmp(mode, "fork"))
		forked();
	else if (!strcmp(mode, "wait"))
		wait_rounds();
	else
		return 2;
	return 0;
}
