/* SPDX-License-Identifier: MIT */
/*
 * What the library writes: only descriptors it opened itself, and only regular files.
 *
 * The program owns its descriptor table. A daemon starting up closes every descriptor
 * (close_range(0, ~0U)) and opens its own files, which take the lowest free numbers: those
 * of the pool, the spool, the room file. A library that goes on using the numbers it
 * remembers writes its spool into the daemon's files and punches holes in its log. So each
 * descriptor the library keeps is moved to a high number at open (a plain open() of the
 * program's then does not land on it), its identity (st_dev, st_ino) is noted, and it is
 * checked with fstat() before anything is written through it, before anything destructive
 * (ftruncate, close), and before it is handed to anyone. A descriptor that is not ours any
 * more is forgotten, never closed: the number is the program's now.
 *
 * An output is a regular file, or a name that does not exist yet: never a device, a FIFO,
 * a directory or a symbolic link. The trace.dat is written beside it and renamed over it,
 * which would replace a device node (as root, /dev/null for the whole system) or a link
 * with a regular file; opening a FIFO for writing blocks until a reader comes, and a
 * constructor must never block the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

/*
 * The lowest number a kept descriptor moves to: half the soft limit, at most 1024. A
 * program's open() takes the lowest free number, so it gets there only with hundreds of
 * files open; and a number above the limit cannot be had at all.
 */
static int high_fd_floor(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	if (rl.rlim_cur < 64)
		return 0; /* too few to spare: stay where we are */
	return rl.rlim_cur / 2 < 1024 ? (int)(rl.rlim_cur / 2) : 1024;
}

int tp_ownfd_adopt(struct owned_fd *o, int fd)
{
	int floor = high_fd_floor();
	struct stat st;

	o->fd = -1;
	if (fd < 0)
		return -EBADF;
	if (floor > fd) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);

		/* No free number up there: keep the one we have, the identity check still holds. */
		if (high >= 0) {
			close(fd);
			fd = high;
		}
	}
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	o->fd = fd;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	return 0;
}

bool tp_ownfd_intact(const struct owned_fd *o)
{
	struct stat st;

	return o->fd >= 0 && fstat(o->fd, &st) == 0 && st.st_dev == o->dev &&
	       st.st_ino == o->ino;
}

void tp_ownfd_close(struct owned_fd *o)
{
	if (tp_ownfd_intact(o))
		close(o->fd);
	o->fd = -1;
}

int tp_ownfd_reopen(struct owned_fd *o, const char *path, off_t pos)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct owned_fd again;
	int err;

	if (fd < 0)
		return -errno;
	err = tp_ownfd_adopt(&again, fd);
	if (err)
		return err;
	if (again.dev != o->dev || again.ino != o->ino) {
		close(again.fd);
		return -ESTALE; /* another file by that name now */
	}
	if (lseek(again.fd, pos, SEEK_SET) != pos) {
		err = errno ? -errno : -EIO;
		close(again.fd);
		return err;
	}
	*o = again;
	return 0;
}

static const char *file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

int tp_output_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 0; /* a new file, or one of ours; the open says if it cannot be written */
	if (S_ISLNK(st.st_mode))
		snprintf(err, errlen, "%s is a symbolic link: tpoint writes its output only as a "
			 "regular file, not through a link (give the path of the file itself)",
			 path);
	else
		snprintf(err, errlen, "%s is %s, not a regular file: tpoint writes its output "
			 "only as a regular file", path, file_type(st.st_mode));
	return S_ISDIR(st.st_mode) ? -EISDIR : S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
}

/*
 * OUTPUT_FIFO: a spool may be a FIFO that a reader holds open already (tests/block_test.c
 * stalls the drain that way). Opening it does not wait then, and its writes block the
 * drain thread, never the program's; without a reader it is refused, as it would block.
 */
int tp_output_open(const char *path, unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	int fd, ret = 0;

	if (!(flags & OUTPUT_FIFO) || lstat(path, &st) < 0 || !S_ISFIFO(st.st_mode))
		ret = tp_output_check(path, err, errlen);
	if (ret)
		return ret;
	/*
	 * What was checked may have changed since: no link followed, no wait for a reader, and
	 * nothing truncated until the file is known to be a regular one.
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0) {
		ret = -errno;
		if (errno == ELOOP || errno == ENXIO)
			return tp_output_check(path, err, errlen) ?: ret;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	if ((flags & OUTPUT_FIFO) && S_ISFIFO(st.st_mode)) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is %s, not a regular file: tpoint writes its output "
			 "only as a regular file", path, file_type(st.st_mode));
		close(fd);
		return -EINVAL;
	}
	if ((flags & OUTPUT_TRUNCATE) && ftruncate(fd, 0) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	return fd;
}

int tp_output_create_tmp(const char *path, char *tmp, size_t tmplen)
{
	static unsigned counter;

	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		unsigned r;
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u ^
		    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 40503u;
		if ((size_t)snprintf(tmp, tmplen, "%s.tmp.%d.%06x", path, (int)getpid(),
				     r & 0xffffffu) >= tmplen)
			return -ENAMETOOLONG;
		/* O_EXCL: a name that exists (a planted link among them) is never opened. */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}
