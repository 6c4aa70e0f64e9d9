/* SPDX-License-Identifier: MIT */
/*
 * The outputs of `tpoint convert`: written under a temporary name beside them
 * (".NAME.tmp-XXXXXX") and renamed into place only when all of it was written and synced,
 * all of it relative to the output's directory as tp_output_dir() reached it (no other
 * user's link followed), so that a full disk, a damaged input or an interrupted run never
 * leaves a trace that looks complete. An output that exists and is not empty is replaced
 * only with --force, and then only if it holds nothing but files (a CTF directory, or the
 * file of an earlier run).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "conv_output.h"
#include "convert_backend.h"
#include "ownfile.h"
#include "tool.h"

#define VERB "convert"

int place_open(struct place *pl, const char *out)
{
	char err[1024];

	pl->out = out;
	pl->dir = tp_output_dir(out, pl->name, sizeof(pl->name), err, sizeof(err));
	if (pl->dir < 0) {
		tool_error(VERB, "%s", err);
		return -1;
	}
	return 0;
}

/* Removes the files of a directory we made, then the directory. */
static void remove_tree(const struct place *pl, const char *name)
{
	int fd = openat(pl->dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		unlinkat(pl->dir, name, AT_REMOVEDIR);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(pl->dir, name, AT_REMOVEDIR);
}

/*
 * Whether the output may be written: 0 (*exists says whether something is to be replaced),
 * or -1 with the reason said.
 */
static int check_output(const struct place *pl, bool dir, bool force, bool *exists)
{
	const char *out = pl->out;
	struct stat st;
	bool empty = true;

	*exists = false;
	if (fstatat(pl->dir, pl->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		tool_error(VERB, "%s: %s", out, strerror(errno));
		return -1;
	}
	*exists = true;
	if (dir && !S_ISDIR(st.st_mode)) {
		tool_error(VERB, "%s: exists and is not a directory; CTF is a directory", out);
		return -1;
	}
	if (!dir && !S_ISREG(st.st_mode)) {
		tool_error(VERB, "%s: exists and is not a regular file", out);
		return -1;
	}
	if (dir) {
		int fd = openat(pl->dir, pl->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd < 0 ? NULL : fdopendir(fd);
		struct dirent *de;
		bool subdir = false;

		if (!d) {
			tool_error(VERB, "%s: %s", out, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		while ((de = readdir(d))) {
			struct stat s;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			empty = false;
			if (fstatat(fd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) || !S_ISREG(s.st_mode))
				subdir = true;
		}
		closedir(d);
		if (!empty && !force) {
			tool_error(VERB, "%s: exists and is not empty; --force replaces it", out);
			return -1;
		}
		if (!empty && subdir) {
			tool_error(VERB, "%s: holds more than files (a directory, a link); it is "
				   "not replaced, even with --force", out);
			return -1;
		}
	} else if (st.st_size && !force) {
		tool_error(VERB, "%s: exists and is not empty; --force replaces it", out);
		return -1;
	}
	return 0;
}

/*
 * A new ".NAME.WHAT-XXXXXX" beside the output, its name in buf: a directory (0), or a file
 * (its descriptor); made exclusively, so that nothing already there is used. -1 with errno.
 */
static int make_side(const struct place *pl, const char *what, bool dir, char *buf, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned counter;

	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		uint64_t r;
		char x[7];
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^ (uint64_t)getpid() << 32 ^
		    ++counter * 2654435761u;
		for (int i = 0; i < 6; i++, r /= 62)
			x[i] = digits[r % 62];
		x[6] = '\0';
		if ((size_t)snprintf(buf, len, ".%s.%s-%s", pl->name, what, x) >= len ||
		    strlen(buf) > NAME_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = dir ? mkdirat(pl->dir, buf, 0700) :
			   openat(pl->dir, buf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				  0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static mode_t file_mode(mode_t mode)
{
	mode_t mask = umask(0);

	umask(mask);
	return mode & ~mask;
}

/* Puts tmp in the output's place; the old output, if any, is removed after. */
static int commit(const struct place *pl, const char *tmp, bool dir, bool exists)
{
	char old[NAME_MAX + 1];
	int e;

	if (!exists || !dir) {
		if (renameat(pl->dir, tmp, pl->dir, pl->name)) {
			tool_error(VERB, "%s: %s", pl->out, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* a directory: swapped in one step, the old one then removed */
	if (!renameat2(pl->dir, tmp, pl->dir, pl->name, RENAME_EXCHANGE)) {
		remove_tree(pl, tmp);
		return 0;
	}
	/* a file system without RENAME_EXCHANGE: the old one moved aside, over an empty one */
	if (make_side(pl, "old", true, old, sizeof(old)) < 0) {
		tool_error(VERB, "%s: %s", pl->out, strerror(errno));
		return -1;
	}
	if (renameat(pl->dir, pl->name, pl->dir, old)) {
		e = errno;
		unlinkat(pl->dir, old, AT_REMOVEDIR);
		tool_error(VERB, "%s: %s", pl->out, strerror(e));
		return -1;
	}
	if (renameat(pl->dir, tmp, pl->dir, pl->name)) {
		e = errno;
		renameat(pl->dir, old, pl->dir, pl->name); /* the old one back */
		tool_error(VERB, "%s: %s", pl->out, strerror(e));
		return -1;
	}
	remove_tree(pl, old);
	return 0;
}

int convert_ctf(struct conv *cv, const struct place *pl, bool force)
{
	char tmp[NAME_MAX + 1];
	bool exists;
	int fd, ret;

	if (check_output(pl, true, force, &exists))
		return EXIT_FAIL;
	if (make_side(pl, "tmp", true, tmp, sizeof(tmp)) < 0) {
		tool_error(VERB, "%s: cannot make a directory beside it: %s", pl->out,
			   strerror(errno));
		return EXIT_FAIL;
	}
	fd = openat(pl->dir, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tool_error(VERB, "%s: %s", pl->out, strerror(errno));
		unlinkat(pl->dir, tmp, AT_REMOVEDIR);
		return EXIT_FAIL;
	}
	ret = ctf_write(cv, fd, pl->out);
	if (!ret && (fchmod(fd, file_mode(0777)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", pl->out, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(pl, tmp, true, exists)) {
		remove_tree(pl, tmp);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

int convert_json(struct conv *cv, const struct place *pl, bool force)
{
	char tmp[NAME_MAX + 1];
	bool exists;
	FILE *f;
	int fd, ret;

	if (check_output(pl, false, force, &exists))
		return EXIT_FAIL;
	fd = make_side(pl, "tmp", false, tmp, sizeof(tmp));
	if (fd < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", pl->out, strerror(errno));
		return EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		tool_error(VERB, "%s: %s", pl->out, strerror(errno));
		close(fd);
		unlinkat(pl->dir, tmp, 0);
		return EXIT_FAIL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ret = json_write(cv, f, pl->out);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", pl->out, strerror(errno));
		ret = -1;
	}
	if (fclose(f) && !ret) {
		tool_error(VERB, "%s: writing: %s", pl->out, strerror(errno));
		ret = -1;
	}
	if (ret || commit(pl, tmp, false, exists)) {
		unlinkat(pl->dir, tmp, 0);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

int conv_write_file(const char *out, bool force, int (*fill)(int fd, const char *out, void *arg),
		    void *arg)
{
	char tmp[NAME_MAX + 1];
	struct place pl;
	bool exists;
	int fd, ret = -1;

	if (place_open(&pl, out))
		return -1;
	if (check_output(&pl, false, force, &exists))
		goto out;
	fd = make_side(&pl, "tmp", false, tmp, sizeof(tmp));
	if (fd < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", out, strerror(errno));
		goto out;
	}
	ret = fill(fd, out, arg);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(&pl, tmp, false, exists)) {
		unlinkat(pl.dir, tmp, 0);
		ret = -1;
	}
out:
	close(pl.dir);
	return ret;
}
