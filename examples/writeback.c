/* SPDX-License-Identifier: MIT */
/*
 * The seed, made real. Several threads write real files; each write dirties an "inode" the
 * way the kernel's __mark_inode_dirty() does, and the tracepoint fires only for the
 * non-trivial dirtyings (the condition), exactly what PowerTOP wanted in 2010. Creating and
 * freeing inodes also calls it, with flags the condition rejects: `tpoint report --stats`
 * shows how many hits the condition skipped.
 *
 *	TPOINT_EVENTS='writeback:*' TPOINT_RECORD=writeback.dat ./writeback [DIR] [WRITES]
 *	tpoint report writeback.dat
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/writeback.h"

static const char *dir = "/tmp";
static int writes = 200;

/* The kernel's __mark_inode_dirty(), reduced to what the tracepoint needs. */
static void mark_inode_dirty(struct inode *inode, int flags)
{
	if ((inode->i_state & flags) == flags)
		return;
	trace_writeback_inode_dirty(inode, flags);
	inode->i_state |= flags;
}

static void *writer(void *arg)
{
	long id = (long)arg;
	char path[4096], buf[512];
	struct stat st;
	struct inode inode;
	int fd;

	snprintf(path, sizeof(path), "%s/tpoint-writeback-%d-%ld", dir, (int)getpid(), id);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return NULL;
	}
	inode.i_dev = MKDEV(major(st.st_dev), minor(st.st_dev));
	inode.i_ino = st.st_ino;
	inode.i_state = 0;
	mark_inode_dirty(&inode, I_NEW); /* creation: noise, skipped by the condition */
	memset(buf, 'a' + (int)id, sizeof(buf));
	for (int i = 0; i < writes; i++) {
		ssize_t n = write(fd, buf, sizeof(buf));

		trace_writeback_write(&inode, path, (long)n);
		mark_inode_dirty(&inode, I_DIRTY_PAGES);
		if (i % 16 == 15) {
			fdatasync(fd);
			inode.i_state = 0; /* written back: clean again */
			mark_inode_dirty(&inode, I_DIRTY_SYNC | I_DIRTY_DATASYNC);
		}
		mark_inode_dirty(&inode, I_REFERENCED); /* a no-op dirtying: skipped */
	}
	close(fd);
	mark_inode_dirty(&inode, I_FREEING | I_WILL_FREE); /* freeing: skipped */
	unlink(path);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];

	if (argc > 1)
		dir = argv[1];
	if (argc > 2)
		writes = atoi(argv[2]);
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, writer, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("writeback: 4 threads wrote %d blocks each under %s\n", writes, dir);
	return 0;
}
