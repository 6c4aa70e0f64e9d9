/* SPDX-License-Identifier: MIT */
/*
 * outplace.c: an output written under a temporary name beside its target and put in place
 * only when whole. The trace.dat of the library (tracedat.c) and every output of
 * `tpoint convert` go this way; what may be replaced is the caller's policy, not this.
 */
#ifndef TPOINT_OUTPLACE_H
#define TPOINT_OUTPLACE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "hidden.h"
#include "ownfile.h"

/*
 * Where the output goes: its directory, reached as every output is (tp_output_dir(): no
 * other user's link followed on the way), and its name there. Everything is done relative
 * to that directory's descriptor: what is checked is what is replaced.
 */
struct outplace {
	const char *path; /* as given: for the messages, and to reach the directory again */
	struct owned_fd dir; /* checked before each use: a program may close it (ownfile.c) */
	char name[NAME_MAX + 1];
};

/* A side name: ".NAME.WHAT-XXXXXX", WHAT "tmp" (what is being written) or "old". */
#define OUTPLACE_SIDE_MAX (NAME_MAX + 1)

/* The directory of `path` opened, its name in pl: 0, or -errno with `err` saying why. */
HIDDEN int tp_outplace_open(struct outplace *pl, const char *path, char *err, size_t errlen);
/*
 * The directory's descriptor, for the caller's own checks: still the one opened, or the
 * same directory reached again by its path (the program closed ours); -ESTALE if the path
 * leads elsewhere now, or another -errno.
 */
HIDDEN int tp_outplace_dir(struct outplace *pl);
/*
 * A new side file or directory beside the output (name in side, OUTPLACE_SIDE_MAX bytes),
 * made exclusively (O_EXCL, mkdir), never through a link, so that nothing already there is
 * used: a file's descriptor (read and write), 0 for a directory, or -errno.
 */
HIDDEN int tp_outplace_side(struct outplace *pl, const char *what, bool dir, mode_t mode,
			    char *side);
/*
 * side put in the output's place. A file renamed over it; a directory too, or, when
 * `replace` (a directory is there, the caller checked that it may go), exchanged with it
 * in one step, or where the file system cannot, the old one moved aside first (and back on
 * failure); the old one then removed. 0, or -errno (side is still the caller's to discard).
 */
HIDDEN int tp_outplace_commit(struct outplace *pl, const char *side, bool dir, bool replace);
/* A side file or directory removed: a directory with the files in it (only files: ours). */
HIDDEN void tp_outplace_discard(struct outplace *pl, const char *side, bool dir);
/* The directory closed (if it is still ours). */
HIDDEN void tp_outplace_close(struct outplace *pl);

#endif
