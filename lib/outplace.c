/* SPDX-License-Identifier: MIT */
/*
 * An output written under a temporary name beside its target and put in place only when
 * whole: a reader never sees half a file, and a full disk, a damaged input or an
 * interrupted run never leaves a trace that looks complete.
 *
 * The side names are ".NAME.tmp-XXXXXX" (".NAME.old-XXXXXX" for a directory moved aside):
 * hidden, so that a glob such as *.dat does not take a half-written one; made of the name
 * alone, not of the path, so that they fit wherever the name does; made exclusively
 * (O_EXCL, mkdir), so that nothing that is there already (a link planted in a shared
 * directory) is opened, truncated or removed. Everything is relative to the directory's
 * descriptor that tp_output_dir() reached (ownfile.c), kept as an owned descriptor: a
 * program that closes it at exit does not make us rename in someone else's directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "outplace.h"

int tp_outplace_open(struct outplace *pl, const char *path, char *err, size_t errlen)
{
	int fd;

	pl->path = path;
	pl->dir = OWNED_FD_NONE;
	fd = tp_output_dir(path, pl->name, sizeof(pl->name), err, errlen);
	if (fd < 0)
		return fd;
	return tp_ownfd_adopt(&pl->dir, fd);
}

int tp_outplace_dir(struct outplace *pl)
{
	char name[NAME_MAX + 1];
	int fd, err;

	if (tp_ownfd_intact(&pl->dir))
		return pl->dir.fd;
	if (pl->dir.fd < 0)
		return -EBADF;
	pl->dir.fd = -1; /* not ours: forgotten, never closed */
	fd = tp_output_dir(pl->path, name, sizeof(name), NULL, 0);
	if (fd < 0)
		return fd;
	err = tp_ownfd_adopt_same(&pl->dir, fd);
	return err ? err : pl->dir.fd;
}

int tp_outplace_side(struct outplace *pl, const char *what, bool dir, mode_t mode, char *side)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;
	int dfd = tp_outplace_dir(pl);

	if (dfd < 0)
		return dfd;
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		uint64_t r;
		char x[7];
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^ (uint64_t)getpid() << 32 ^
		    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 2654435761u;
		for (int i = 0; i < 6; i++, r /= 62)
			x[i] = digits[r % 62];
		x[6] = '\0';
		if ((size_t)snprintf(side, OUTPLACE_SIDE_MAX, ".%s.%s-%s", pl->name, what, x) >=
		    OUTPLACE_SIDE_MAX)
			return -ENAMETOOLONG;
		fd = dir ? mkdirat(dfd, side, mode) :
			   openat(dfd, side, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Removes the files of a directory we made, then the directory. */
static void remove_tree(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		unlinkat(dfd, name, AT_REMOVEDIR);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void tp_outplace_discard(struct outplace *pl, const char *side, bool dir)
{
	int dfd = tp_outplace_dir(pl);

	if (dfd < 0)
		return; /* not the directory we made it in: nothing there is ours to remove */
	if (dir)
		remove_tree(dfd, side);
	else
		unlinkat(dfd, side, 0);
}

int tp_outplace_commit(struct outplace *pl, const char *side, bool dir, bool replace)
{
	char old[OUTPLACE_SIDE_MAX];
	int dfd = tp_outplace_dir(pl), err;

	if (dfd < 0)
		return dfd;
	if (!dir || !replace)
		return renameat(dfd, side, dfd, pl->name) ? -errno : 0;
	/* a directory: swapped in one step, the old one (now under side's name) then removed */
	if (!renameat2(dfd, side, dfd, pl->name, RENAME_EXCHANGE)) {
		remove_tree(dfd, side);
		return 0;
	}
	/* a file system without RENAME_EXCHANGE: the old one moved aside, over an empty one */
	err = tp_outplace_side(pl, "old", true, 0700, old);
	if (err < 0)
		return err;
	if (renameat(dfd, pl->name, dfd, old)) {
		err = -errno;
		unlinkat(dfd, old, AT_REMOVEDIR);
		return err;
	}
	if (renameat(dfd, side, dfd, pl->name)) {
		err = -errno;
		renameat(dfd, old, dfd, pl->name); /* the old one back */
		return err;
	}
	remove_tree(dfd, old);
	return 0;
}

void tp_outplace_close(struct outplace *pl)
{
	tp_ownfd_close(&pl->dir);
}
