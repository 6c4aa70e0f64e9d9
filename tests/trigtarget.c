/* SPDX-License-Identifier: MIT */
/*
 * A program whose histograms tests/trigger.sh reads from outside: each SIGUSR1 makes it hit
 * tpt_trig:trig_req ROUNDS times from 3 threads, id = i % 7, bytes = id * 10 + 1, path
 * "/p/<id % 3>", and then print "round N done" on stdout; it ends on SIGTERM or SIGINT.
 * It prints "ready" once those signals wait for it.
 *	trigtarget ROUNDS
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_trig.h"

static long rounds;
static const char *const paths[] = { "/p/0", "/p/1", "/p/2" };

static void *hitter(void *arg)
{
	(void)arg;
	for (long i = 0; i < rounds; i++) {
		int id = (int)(i % 7);

		trace_trig_req(id, (unsigned long long)id * 10 + 1, paths[id % 3]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sigset_t set;
	int sig, round = 0;

	rounds = argc > 1 ? atol(argv[1]) : 1000;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	while (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
		pthread_t th[3];

		for (int i = 0; i < 3; i++)
			pthread_create(&th[i], NULL, hitter, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		printf("round %d done\n", ++round);
		fflush(stdout);
	}
	return 0;
}
