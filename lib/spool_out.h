/* SPDX-License-Identifier: MIT */
/* lib/spool_out.c: the spool file, for the rest of the library (spool.h has the rest). */
#ifndef TPOINT_SPOOL_OUT_H
#define TPOINT_SPOOL_OUT_H

#include <stddef.h>
#include "hidden.h"

/* A new, empty spool at `path`: created exclusively, mode 0600, checked to be ours alone.
 * 0, or -errno with why. */
HIDDEN int tp_spool_create(const char *path, char *why, size_t whylen);
HIDDEN void tp_spool_after_fork(void);

#endif
