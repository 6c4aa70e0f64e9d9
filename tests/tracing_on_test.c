// SPDX-License-Identifier: MIT
/*
 * tracing_on_test - the process's tracing_on (lib/tracing_on.c) on its own: switches that
 * change the state and those that do not, the log's order (off at even indexes), a switch
 * claimed now and stamped later (traceoff), the log read from an index, racing threads
 * (every change logged once, the state alternating), a fork child's pending claim,
 * TPOINT_TRACING_ON.
 *
 * Exit 0 when every check passes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tracing_on.h"

#define THREADS 8
#define ROUNDS 20000
static unsigned changed[THREADS];

static void *racer(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < ROUNDS; i++)
		changed[t] += tp_tracing_switch(i % 2, 1000 + i);
	return NULL;
}

int main(void)
{
	uint64_t log[8], total;
	uint32_t slot;

	unsetenv("TPOINT_TRACING_ON");
	tp_tracing_from_env();
	CHECK(tp_tracing_is_on(), "on at start");
	CHECK(!tp_tracing_switch(true, 10), "traceon while on: no change");
	CHECK(tp_tracing_switch(false, 20) && !tp_tracing_is_on(), "traceoff: off");
	CHECK(!tp_tracing_switch(false, 30), "traceoff while off: no change");
	CHECK(tp_tracing_switch(true, 40) && tp_tracing_is_on(), "traceon: on");
	CHECK(tp_tracing_log(0, log, 8, &total) == 2 && total == 2 && log[0] == 20 &&
		      log[1] == 40, "the log: off at 20, on at 40");

	slot = tp_tracing_claim(false);
	CHECK(slot == 3 && !tp_tracing_is_on(), "a claimed traceoff is off at once");
	CHECK(tp_tracing_claim(false) == 0, "a second claim while off: none");
	CHECK(tp_tracing_log(0, log, 8, &total) == 2 && total == 3,
	      "the log stops at a switch not stamped yet");
	tp_tracing_stamp(slot, 50);
	CHECK(tp_tracing_log(2, log, 8, &total) == 1 && log[0] == 50, "stamped: read from index 2");
	tp_tracing_switch(true, 0);
	CHECK(tp_tracing_log(3, log, 8, &total) == 1 && log[0] == 1, "clock 0 is logged as 1");
	CHECK(tp_tracing_log(4, log, 8, &total) == 0 && total == 4, "nothing past the end");

	/* A fork child: a claim whose thread is not there is stamped, the log goes on. */
	if (!tp_tracing_is_on())
		tp_tracing_switch(true, 3);
	slot = tp_tracing_claim(false);
	tp_tracing_after_fork();
	tp_tracing_log(0, log, 0, &total);
	CHECK(slot && slot == total && total <= TP_TRACING_LOG_MAX &&
		      tp_tracing_log((uint32_t)total - 1, log, 8, &total) == 1 && log[0] > 1,
	      "after fork: a pending claim is stamped");

	pthread_t th[THREADS];
	uint64_t before = total;
	unsigned sum = 0;

	for (unsigned t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, racer, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		sum += changed[t];
	}
	tp_tracing_log(0, log, 0, &total);
	CHECK(total == before + sum, "racing threads: each change counted once");
	CHECK(tp_tracing_is_on() == !(total % 2), "racing threads: the state follows the count");
	uint64_t *all = calloc(total, sizeof(*all));
	uint32_t n = tp_tracing_log(0, all, (uint32_t)total, &total);

	CHECK(n == (total < TP_TRACING_LOG_MAX ? total : TP_TRACING_LOG_MAX),
	      "racing threads: every change stamped (up to the log's size)");
	free(all);

	/* The environment: read where it is used, so set before the call. */
	if (!tp_tracing_is_on())
		tp_tracing_switch(true, 2);
	setenv("TPOINT_TRACING_ON", "0", 1);
	tp_tracing_from_env();
	CHECK(!tp_tracing_is_on(), "TPOINT_TRACING_ON=0: off");
	tu_note("tracing_on: switches, the log, a stamp after the claim, %d racing threads",
		THREADS);
	return tu_finish();
}
