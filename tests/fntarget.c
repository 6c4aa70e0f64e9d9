/* SPDX-License-Identifier: MIT */
/*
 * tests/fn_control.sh's program: hits tpt_fn:fn_tick every millisecond for SECONDS (default
 * 30), and writes "reg N" / "unreg N" on stdout each time the event's reg() / unreg() runs.
 * reg() returns $FN_REG_RESULT (default 0): non-zero keeps the event off.
 *	fntarget [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_fn.h"

static int regs, unregs;

/* write(2): reg() runs on whichever thread switches the event, stdio's lock not needed */
static void say(const char *what, int n)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "%s %d\n", what, n);

	if (write(STDOUT_FILENO, line, (size_t)len) != len)
		_exit(3);
}

int fn_reg(void)
{
	const char *result = getenv("FN_REG_RESULT");

	say("reg", ++regs);
	return result ? atoi(result) : 0;
}

void fn_unreg(void)
{
	say("unreg", ++unregs);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	struct timespec ms = { 0, 1000000 };

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; i < (long)(seconds * 1000); i++) {
		trace_fn_tick((int)i);
		nanosleep(&ms, NULL);
	}
	return 0;
}
