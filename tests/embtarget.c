/* SPDX-License-Identifier: MIT */
/*
 * The embedded-recording tests' program (tests/embedded_*.sh build it at run time, as
 * tests/messages.sh builds msgtarget): records N msg_tick, then
 *	exit N		returns from main;
 *	_exit N		ends with _exit(0): no atexit handler, no destructor;
 *	exec N		execs /bin/true (no libtpoint there);
 *	reexec N	execs itself (libtpoint there), which records N more and ends with _exit(0);
 *	wait N FILE	waits until FILE exists (at most 60 s), then N more, then returns.
 * It prints "ready" on stdout after the first N (wait mode), and "done" before it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_msg.h"

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc < 3)
		return 2;
	for (int i = 0; i < n; i++)
		trace_msg_tick(i);
	if (!strcmp(argv[1], "wait") && argc > 3) {
		printf("ready\n");
		fflush(stdout);
		for (int t = 0; t < 6000 && access(argv[3], F_OK); t++)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		for (int i = 0; i < n; i++)
			trace_msg_tick(n + i);
	}
	printf("done\n");
	fflush(stdout);
	if (!strcmp(argv[1], "_exit"))
		_exit(0);
	if (!strcmp(argv[1], "reexec")) {
		execl("/proc/self/exe", argv[0], "_exit", argv[2], (char *)NULL);
		return 3;
	}
	if (!strcmp(argv[1], "exec")) {
		execl("/bin/true", "true", (char *)NULL);
		return 3;
	}
	return 0;
}
