// SPDX-License-Identifier: MIT
/*
 * ksyscall SECONDS - a cheap system call (getppid) in a loop for SECONDS, for the `-k` row of
 * `make bench-peers`: recorded with `tpoint record -k syscalls:sys_enter_getppid`, each call
 * is one kernel event. Prints "calls N cpu_s S": its calls and its own CPU time, so that the
 * recorder's CPU is what the recording took beyond it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	unsigned long long calls = 0;
	struct timespec t0, t;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		calls += 1000;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	getrusage(RUSAGE_SELF, &ru);
	printf("calls %llu cpu_s %.3f\n", calls,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
