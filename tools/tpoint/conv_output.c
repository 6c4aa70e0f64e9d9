/* SPDX-License-Identifier: MIT */
/*
 * The outputs of `tpoint convert`: written under a temporary name beside them and put in
 * place only when all of it was written and synced (lib/outplace.c), so that a full disk,
 * a damaged input or an interrupted run never leaves a trace that looks complete. What is
 * here is the verb's policy: an output that exists and is not empty is replaced only with
 * --force, and then only if it holds nothing but files (a CTF directory, or the file of an
 * earlier run); it gets the mode a new file would (the umask's).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conv_output.h"
#include "convert_backend.h"
#include "outplace.h"
#include "tool.h"

#define VERB "convert"

int place_open(struct outplace *pl, const char *out)
{
	char err[1024];

	if (tp_outplace_open(pl, out, err, sizeof(err))) {
		tool_error(VERB, "%s", err);
		return -1;
	}
	return 0;
}

/*
 * Whether the output may be written: 0 (*exists says whether something is to be replaced),
 * or -1 with the reason said.
 */
static int check_output(const struct outplace *pl, bool dir, bool force, bool *exists)
{
	const char *out = pl->path;
	struct stat st;
	bool empty = true;

	*exists = false;
	if (fstatat(pl->dir.fd, pl->name, &st, AT_SYMLINK_NOFOLLOW)) {
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
		int fd = openat(pl->dir.fd, pl->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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

static mode_t file_mode(mode_t mode)
{
	mode_t mask = umask(0);

	umask(mask);
	return mode & ~mask;
}

/* Puts tmp in the output's place (the old output, if any, removed after): 0, or -1 said. */
static int commit(struct outplace *pl, const char *tmp, bool dir, bool exists)
{
	int err = tp_outplace_commit(pl, tmp, dir, exists);

	if (err) {
		tool_error(VERB, "%s: %s", pl->path, strerror(-err));
		return -1;
	}
	return 0;
}

int convert_ctf(struct conv *cv, struct outplace *pl, bool force)
{
	char tmp[OUTPLACE_SIDE_MAX];
	bool exists;
	int fd, ret;

	if (check_output(pl, true, force, &exists))
		return EXIT_FAIL;
	ret = tp_outplace_side(pl, "tmp", true, 0700, tmp);
	if (ret < 0) {
		tool_error(VERB, "%s: cannot make a directory beside it: %s", pl->path,
			   strerror(-ret));
		return EXIT_FAIL;
	}
	fd = openat(pl->dir.fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tool_error(VERB, "%s: %s", pl->path, strerror(errno));
		tp_outplace_discard(pl, tmp, true);
		return EXIT_FAIL;
	}
	ret = ctf_write(cv, fd, pl->path);
	if (!ret && (fchmod(fd, file_mode(0777)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", pl->path, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(pl, tmp, true, exists)) {
		tp_outplace_discard(pl, tmp, true);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

int convert_json(struct conv *cv, struct outplace *pl, bool force)
{
	char tmp[OUTPLACE_SIDE_MAX];
	bool exists;
	FILE *f;
	int fd, ret;

	if (check_output(pl, false, force, &exists))
		return EXIT_FAIL;
	fd = tp_outplace_side(pl, "tmp", false, 0600, tmp);
	if (fd < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", pl->path, strerror(-fd));
		return EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		tool_error(VERB, "%s: %s", pl->path, strerror(errno));
		close(fd);
		tp_outplace_discard(pl, tmp, false);
		return EXIT_FAIL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ret = json_write(cv, f, pl->path);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", pl->path, strerror(errno));
		ret = -1;
	}
	if (fclose(f) && !ret) {
		tool_error(VERB, "%s: writing: %s", pl->path, strerror(errno));
		ret = -1;
	}
	if (ret || commit(pl, tmp, false, exists)) {
		tp_outplace_discard(pl, tmp, false);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

int conv_write_file(const char *out, bool force, int (*fill)(int fd, const char *out, void *arg),
		    void *arg)
{
	char tmp[OUTPLACE_SIDE_MAX];
	struct outplace pl;
	bool exists;
	int fd, ret = -1;

	if (place_open(&pl, out))
		return -1;
	if (check_output(&pl, false, force, &exists))
		goto out;
	fd = tp_outplace_side(&pl, "tmp", false, 0600, tmp);
	if (fd < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", out, strerror(-fd));
		goto out;
	}
	ret = fill(fd, out, arg);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(&pl, tmp, false, exists)) {
		tp_outplace_discard(&pl, tmp, false);
		ret = -1;
	}
out:
	tp_outplace_close(&pl);
	return ret;
}
