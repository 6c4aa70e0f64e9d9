/* SPDX-License-Identifier: MIT */
/*
 * procmaps - the process's own mappings (/proc/self/maps), read in a signal handler too:
 * open(), read() and close() only, into a buffer on the stack, no malloc and no stdio.
 * What the user stack walk (lib/ustack.c) needs to know which frames it may read, and what
 * the recording of a stack (lib/ustack_maps.c) writes down so that a reader can name them.
 */
#ifndef TPOINT_PROCMAPS_H
#define TPOINT_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hidden.h"

/* The longest path kept of a line; a longer one is cut (and then names no file). */
#define TP_MAPS_PATH_MAX 256

struct tp_map {
	uintptr_t lo, hi;  /* [lo, hi) */
	uint64_t pgoff;    /* the file offset of lo */
	bool readable, executable;
	char path[TP_MAPS_PATH_MAX]; /* "" for an anonymous mapping; "[stack]", "[vdso]", ... */
};

/*
 * One line of the maps file ("lo-hi perms pgoff dev inode   path", without its newline,
 * `len` bytes) into *m. False for a line that is not one.
 */
HIDDEN bool tp_maps_parse_line(const char *line, size_t len, struct tp_map *m);

/*
 * Each mapping of the process, in address order, to fn(ctx, m) until it returns false.
 * Returns 0, or -errno when the file cannot be read (no /proc).
 */
HIDDEN int tp_maps_each(bool (*fn)(void *ctx, const struct tp_map *m), void *ctx);

#endif
