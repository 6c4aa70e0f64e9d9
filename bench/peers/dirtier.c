/* SPDX-License-Identifier: MIT */
/*
 * For the `tpoint top` row of make bench-peers: rewrites FILES small files in DIR (open with
 * O_TRUNC, write 128 bytes, close), REWRITES times a second on absolute deadlines, for
 * SECONDS. Each rewrite dirties the inode (a new page, new times): several
 * writeback_mark_inode_dirty events a rewrite. Prints the rewrites done.
 *	dirtier DIR FILES REWRITES SECONDS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[128];
	struct timespec next, now;
	long done = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: dirtier DIR FILES REWRITES SECONDS\n");
		return 2;
	}
	int files = atoi(argv[2]);
	long rate = atol(argv[3]);
	double seconds = atof(argv[4]);

	if (files <= 0 || rate <= 0) {
		fprintf(stderr, "dirtier: FILES and REWRITES must be positive\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	clock_gettime(CLOCK_MONOTONIC, &next);
	double end = (double)next.tv_sec + (double)next.tv_nsec / 1e9 + seconds;

	/* Batches of 1 ms: a deadline per rewrite would cost more than the rewrite. */
	for (;;) {
		long batch = rate / 1000 ? rate / 1000 : 1;

		for (long i = 0; i < batch; i++, done++) {
			snprintf(path, sizeof(path), "%s/dirty-%ld", argv[1], done % files);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

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
	return 0;
}
