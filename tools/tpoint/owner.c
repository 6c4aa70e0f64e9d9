/* SPDX-License-Identifier: MIT */
/* Ownership proved by a lock (owner.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "owner.h"
#include "tool_error.h"

int owner_lock_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A directory of ours, opened without following a link; -1 for anything else. */
static int open_own_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid())) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool owner_dir_gone(int dirfd, const char *name)
{
	int fd = open_own_dir(dirfd, name);
	bool gone;

	if (fd < 0)
		return false;
	gone = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd); /* and the lock with it */
	return gone;
}

int owner_remove_dir(int dirfd, const char *name)
{
	int fd = open_own_dir(dirfd, name);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Does the directory hold a spool (a file whose name ends in .spool)? */
static bool has_spools(int dirfd, const char *name)
{
	int fd = open_own_dir(dirfd, name);
	struct dirent *e;
	bool any = false;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!any && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		any = len > 6 && !strcmp(e->d_name + len - 6, ".spool");
	}
	closedir(d);
	return any;
}

void owner_say_unfinished(const char *verb, const char *near)
{
	const char *slash = strrchr(near, '/');
	char *dir = slash ? strndup(near, (size_t)(slash - near) + 1) : strdup(".");
	struct dirent *e;
	DIR *d = dir ? opendir(dir) : NULL;

	while (d && (e = readdir(d))) {
		/*
		 * A recorder's spools, but no recorder: it was killed (SIGKILL, a crash). A
		 * directory just made holds no spool yet, and its lock is taken first.
		 */
		if (strncmp(e->d_name, ".tpoint-spool.", 14) ||
		    !owner_dir_gone(dirfd(d), e->d_name) || !has_spools(dirfd(d), e->d_name))
			continue;
		tool_warn(verb, "%s%s holds the spools of a recording whose recorder "
			"ended before it wrote the file; write it with: tpoint record --assemble "
			"%s%s -o FILE", slash ? dir : "", e->d_name, slash ? dir : "",
			e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
}
