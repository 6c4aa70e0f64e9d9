/* SPDX-License-Identifier: MIT */
/*
 * A program for tests/top_names.sh: the writer `tpoint top` could not name before, one that
 * opens FILE, appends a line and closes it again, every MS milliseconds, until a signal.
 *	owcwriter FILE MS
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: owcwriter FILE MS\n");
		return 2;
	}
	long ms = atol(argv[2]);
	struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop) {
		int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0 || write(fd, "line\n", 5) != 5 || close(fd) < 0) {
			perror(argv[1]);
			return 1;
		}
		nanosleep(&pause, NULL);
	}
	return 0;
}
