/* SPDX-License-Identifier: MIT */
/*
 * For the `tpoint top` row of make bench-peers: appends to FILES small files in DIR (open,
 * write 16 bytes at the end, close), REWRITES times a second on absolute deadlines, for
 * SECONDS. Each append dirties the inode (a new size; now and then a new page, new times):
 * a writeback_mark_inode_dirty event or more an append. Not O_TRUNC: ext4 writes a file
 * truncated and rewritten out at its close (auto_da_alloc), about 1 ms each here, which
 * held the rate to about 1,000 a second on a loaded machine. PROCS processes (default: one a CPU) share
 * the files and the rate: one process reached about 51,000 events a second, short of the
 * 100,000 the bench asks. Prints the rewrites done, a line a process.
 *	dirtier DIR FILES REWRITES SECONDS [PROCS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Process `me` of `procs`: files me, me + procs, ... at rate / procs. */
static int dirty(const char *dir, int files, long rate, double seconds, int me, int procs)
{
	char path[4096], buf[16];
	struct timespec next, now;
	long done = 0, mine = (files - me + procs - 1) / procs;

	rate = rate / procs ? rate / procs : 1;
	memset(buf, 'x', sizeof(buf));
	clock_gettime(CLOCK_MONOTONIC, &next);
	double end = (double)next.tv_sec + (double)next.tv_nsec / 1e9 + seconds;

	/* Batches of 1 ms: a deadline per rewrite would cost more than the rewrite. */
	for (;;) {
		long batch = rate / 1000 ? rate / 1000 : 1;

		for (long i = 0; i < batch; i++, done++) {
			snprintf(path, sizeof(path), "%s/dirty-%ld", dir, me + done % mine * procs);
			int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

			if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
				perror(path);
				return 1;
			}
			close(fd);
		}
		next.tv_nsec += 1000000L * (batch * 1000 / rate ? batch * 1000 / rate : 1);
		while (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)now.tv_sec + (double)now.tv_nsec / 1e9 >= end)
			break;
	}
	printf("%ld rewrites\n", done);
	fflush(stdout); /* the caller leaves with _exit() */
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: dirtier DIR FILES REWRITES SECONDS [PROCS]\n");
		return 2;
	}
	int files = atoi(argv[2]);
	long rate = atol(argv[3]);
	double seconds = atof(argv[4]);
	long procs = argc == 6 ? atol(argv[5]) : sysconf(_SC_NPROCESSORS_ONLN);
	int failed = 0;

	if (files <= 0 || rate <= 0 || procs <= 0 || procs > files) {
		fprintf(stderr, "dirtier: FILES, REWRITES and PROCS must be positive, PROCS at most "
			"FILES\n");
		return 2;
	}
	fflush(stdout);
	for (int me = 0; me < procs; me++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("dirtier: fork");
			failed = 1;
			break;
		}
		if (pid == 0)
			_exit(dirty(argv[1], files, rate, seconds, me, (int)procs));
	}
	for (int status; wait(&status) > 0;)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	return failed;
}
