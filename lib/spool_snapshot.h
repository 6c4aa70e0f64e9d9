/* SPDX-License-Identifier: MIT */
/* lib/spool_snapshot.c: a spool of what the pool holds now. */
#ifndef TPOINT_SPOOL_SNAPSHOT_H
#define TPOINT_SPOOL_SNAPSHOT_H

#include "hidden.h"
#include "pool.h"

/* Write what the pool holds now into a spool of its own, leaving the pages in place.
 * -EBUSY while a spool runs (its own sync is the way then). */
HIDDEN int tp_spool_snapshot(struct pool *p, const char *path);
/* While a spool runs: bring it up to date and copy it whole into `path` (the snapshot's
 * file, which the client made: it reads no other). */
HIDDEN int tp_spool_snapshot_copy(const char *path);

#endif
