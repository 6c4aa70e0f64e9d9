/* SPDX-License-Identifier: MIT */
/* ownfile.c: only our own descriptors, only regular files. */
#ifndef TPOINT_OWNFILE_H
#define TPOINT_OWNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "hidden.h"

struct owned_fd {
	int fd;    /* -1: none */
	dev_t dev; /* what it was opened on: checked before each use */
	ino_t ino;
};
#define OWNED_FD_NONE ((struct owned_fd){ .fd = -1 })
/* Keep `fd`, just opened: moved to a high number, its identity noted. Closes it on error. */
HIDDEN int tp_ownfd_adopt(struct owned_fd *o, int fd);
/* `fd`, just opened again, in place of *o if it is still the file *o was: 0, or -errno
 * (-ESTALE: another file by that name now; fd is closed then). */
HIDDEN int tp_ownfd_adopt_same(struct owned_fd *o, int fd);
/* Still the file we opened? Not when the program closed the descriptor or reused its number. */
HIDDEN bool tp_ownfd_intact(const struct owned_fd *o);
/* Close it if it is still ours (never the program's descriptor); forget it either way. */
HIDDEN void tp_ownfd_close(struct owned_fd *o);
/* Open `path` again, at `pos`, if it is still the file *o was: 0, or -errno (-ESTALE: not). */
HIDDEN int tp_ownfd_reopen(struct owned_fd *o, const char *path, off_t pos);
/* The same, of `name` in the directory dfd. */
HIDDEN int tp_ownfd_reopen_at(struct owned_fd *o, int dfd, const char *name, off_t pos);
/*
 * The directory that holds an output, and the output's name in it: every output of the
 * library and the tool is reached through this. `path` is walked one component at a time
 * (openat, O_NOFOLLOW); a symbolic link on the way is followed only when it is the caller's
 * or root's, or when no one else can have put it there (its directory is the caller's or
 * root's, writable by neither group nor others). A link of another user in a sticky or
 * shared directory is refused, as fs.protected_symlinks would refuse it, and so is one in
 * another user's directory. The last component is not followed (it is the caller's to
 * check: O_NOFOLLOW); it may not be "." or "..". An O_PATH descriptor of the directory and
 * the name in `name`, or -errno with `err` saying why (naming the link refused).
 */
HIDDEN int tp_output_dir(const char *path, char *name, size_t namelen, char *err,
			 size_t errlen);
/* 0 if `path` is a regular file or does not exist; otherwise -errno, and `err` says what it is. */
HIDDEN int tp_output_check(const char *path, char *err, size_t errlen);
/* The same of `name` in the directory dfd (reached by tp_output_dir(path)), `path` for `err`. */
HIDDEN int tp_output_check_at(int dfd, const char *name, const char *path, char *err,
			      size_t errlen);
/* Open `path` for writing, created if need be: a regular file only, never blocking, never
 * through a link. A descriptor, or -errno with `err` saying why. */
enum {
	OUTPUT_TRUNCATE = 1, /* emptied, once known to be a regular file */
	OUTPUT_FIFO = 2,     /* a FIFO with a reader already is taken too (a spool: ownfile.c) */
};
HIDDEN int tp_output_open(const char *path, unsigned flags, char *err, size_t errlen);

#endif
