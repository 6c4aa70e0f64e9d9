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
 *
 * Nor is it reached through someone else's link. Root's `-o /sticky/userlink/a`, where
 * userlink is another user's link to one of root's directories, would replace root's file
 * there: the directories on the way are opened one by one (tp_output_dir()) and the output
 * is created, checked and renamed relative to the last one's descriptor (outplace.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "ownfile.h"

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
	return tp_ownfd_reopen_at(o, AT_FDCWD, path, pos);
}

int tp_ownfd_adopt_same(struct owned_fd *o, int fd)
{
	struct owned_fd again;
	int err = tp_ownfd_adopt(&again, fd);

	if (err)
		return err;
	if (again.dev != o->dev || again.ino != o->ino) {
		close(again.fd);
		return -ESTALE; /* another file by that name now */
	}
	*o = again;
	return 0;
}

int tp_ownfd_reopen_at(struct owned_fd *o, int dfd, const char *name, off_t pos)
{
	int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct owned_fd was = *o;
	int err;

	if (fd < 0)
		return -errno;
	err = tp_ownfd_adopt_same(o, fd);
	if (err)
		return err;
	if (lseek(o->fd, pos, SEEK_SET) != pos) {
		err = errno ? -errno : -EIO;
		close(o->fd);
		*o = was; /* as before: the descriptor it names is not ours */
		return err;
	}
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

/* As the kernel's path walk: at most this many links in one path. */
#define MAX_LINKS 40

/*
 * May a link of st's owner, in the directory dfd, be followed? The caller's and root's
 * links, yes; another user's only where neither they nor anyone else but the caller and
 * root can have made it: a directory of the caller's or root's, writable by nobody else.
 */
static bool link_trusted(int dfd, const struct stat *st, struct stat *dir)
{
	uid_t me = geteuid();

	if (st->st_uid == me || st->st_uid == 0)
		return true;
	if (fstat(dfd, dir) < 0)
		return false;
	return (dir->st_uid == me || dir->st_uid == 0) && !(dir->st_mode & (S_IWGRP | S_IWOTH));
}

__attribute__((format(printf, 5, 6))) static int dir_fail(int dfd, int ret, char *err,
							  size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (dfd >= 0)
		close(dfd);
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int tp_output_dir(const char *path, char *name, size_t namelen, char *err, size_t errlen)
{
	/* what is left to walk (a link's target put in front), and what was walked */
	char rest[2 * PATH_MAX], walked[PATH_MAX], target[PATH_MAX];
	size_t len = strlen(path), blen, dlen, wlen;
	const char *base;
	int dfd, links = 0;
	char *p;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (base = path + len; base > path && base[-1] != '/'; base--)
		;
	blen = (size_t)(path + len - base);
	if (!blen || *base == '/' || (blen == 1 && *base == '.') ||
	    (blen == 2 && !memcmp(base, "..", 2)))
		return dir_fail(-1, -EISDIR, err, errlen, "%s names a directory by '/', '.' or "
				"'..': give the output a name of its own", path);
	if (blen >= namelen || blen > NAME_MAX)
		return dir_fail(-1, -ENAMETOOLONG, err, errlen, "%s: %s", path,
				strerror(ENAMETOOLONG));
	memcpy(name, base, blen);
	name[blen] = '\0';
	dlen = (size_t)(base - path);
	if (dlen >= PATH_MAX)
		return dir_fail(-1, -ENAMETOOLONG, err, errlen, "%s: %s", path,
				strerror(ENAMETOOLONG));
	memcpy(rest, path, dlen);
	rest[dlen] = '\0';
	wlen = 0;
	walked[0] = '\0';
	dfd = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return dir_fail(-1, -errno, err, errlen, "%s: %s", path, strerror(errno));
	if (rest[0] == '/')
		walked[wlen++] = '/';
	p = rest;
	for (;;) {
		struct stat st, dir;
		char *c, *slash;
		ssize_t n;
		int next;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		slash = strchr(p, '/');
		if (slash) {
			*slash = '\0';
			p = slash + 1;
		} else {
			p += strlen(p);
		}
		if (!strcmp(c, "."))
			continue;
		/* for the messages: the way as walked, links replaced by their targets */
		if (wlen + strlen(c) + 2 < sizeof(walked))
			wlen += (size_t)snprintf(walked + wlen, sizeof(walked) - wlen, "%s%s",
						 wlen && walked[wlen - 1] != '/' ? "/" : "", c);
		if (fstatat(dfd, c, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return dir_fail(dfd, -errno, err, errlen, "%s: %s: %s", path, walked,
					strerror(errno));
		if (!S_ISLNK(st.st_mode)) {
			next = openat(dfd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (next < 0)
				return dir_fail(dfd, -errno, err, errlen, "%s: %s: %s", path, walked,
						strerror(errno));
			close(dfd);
			dfd = next;
			continue;
		}
		if (!link_trusted(dfd, &st, &dir))
			return dir_fail(dfd, -EPERM, err, errlen, "%s: %s is a symbolic link owned by "
					"uid %u in a directory %s: not followed, only the caller's "
					"and root's links are (as fs.protected_symlinks does); give "
					"the path without it", path, walked, (unsigned)st.st_uid,
					dir.st_mode & (S_IWGRP | S_IWOTH) ? "others can write" :
					"of another user");
		if (++links > MAX_LINKS)
			return dir_fail(dfd, -ELOOP, err, errlen, "%s: %s", path, strerror(ELOOP));
		n = readlinkat(dfd, c, target, sizeof(target));
		if (n < 0 || (size_t)n >= sizeof(target) || strlen(p) + (size_t)n + 2 > sizeof(rest))
			return dir_fail(dfd, n < 0 ? -errno : -ENAMETOOLONG, err, errlen, "%s: %s: %s",
					path, walked, strerror(n < 0 ? errno : ENAMETOOLONG));
		/* the target, then what was left after the link */
		memmove(rest + n + 1, p, strlen(p) + 1);
		memcpy(rest, target, (size_t)n);
		rest[n] = '/';
		p = rest;
		/* the link's directory is where a relative target starts: drop its name */
		while (wlen && walked[wlen - 1] != '/')
			wlen--;
		walked[wlen] = '\0';
		if (target[0] == '/') {
			next = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (next < 0)
				return dir_fail(dfd, -errno, err, errlen, "%s: %s", path,
						strerror(errno));
			close(dfd);
			dfd = next;
			wlen = 0;
			walked[0] = '\0';
		}
	}
	return dfd;
}

int tp_output_check(const char *path, char *err, size_t errlen)
{
	char name[NAME_MAX + 1];
	int dfd = tp_output_dir(path, name, sizeof(name), err, errlen), ret;

	if (dfd == -ENOENT || dfd == -ENOTDIR) {
		/* a directory that is not there: the open says so */
		if (errlen)
			err[0] = '\0';
		return 0;
	}
	if (dfd < 0)
		return dfd;
	ret = tp_output_check_at(dfd, name, path, err, errlen);
	close(dfd);
	return ret;
}

int tp_output_check_at(int dfd, const char *name, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISREG(st.st_mode))
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
	char name[NAME_MAX + 1];
	struct stat st;
	int dfd, fd, ret = 0;

	dfd = tp_output_dir(path, name, sizeof(name), err, errlen);
	if (dfd < 0)
		return dfd;
	if (!(flags & OUTPUT_FIFO) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISFIFO(st.st_mode))
		ret = tp_output_check(path, err, errlen);
	if (ret) {
		close(dfd);
		return ret;
	}
	/*
	 * What was checked may have changed since: no link followed, no wait for a reader, and
	 * nothing truncated until the file is known to be a regular one.
	 */
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	close(dfd);
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
