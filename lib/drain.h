/* SPDX-License-Identifier: MIT */
/* lib/drain.c: the drain thread that moves full pages into the spool; the spool's start and stop. */
#ifndef TPOINT_DRAIN_H
#define TPOINT_DRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <tpoint/tpoint.h>
#include "hidden.h"
#include "pool.h"

/* live: also spool partly filled pages every 50 ms, for a reader that follows the file. */
HIDDEN int tp_spool_start(struct pool *p, const char *path, bool live);
/*
 * A live spool of a pool that something else owns (the in-memory flight recorder): it copies
 * what writers commit, full pages and pages being written alike, and never takes a page,
 * so the pool keeps everything a snapshot would show. Stopped with tp_spool_stop().
 */
HIDDEN int tp_spool_start_reader(struct pool *p, const char *path);
/*
 * Drain what is queued and what the writers' current pages hold, then sync the spool. The
 * spool's length then goes to *synced (may be NULL): the drain thread appends on at once, and
 * a write of its under way shows in the file a page at a time, so a reader of the spool
 * while it runs takes only these bytes as whole chunks.
 */
HIDDEN int tp_spool_sync(uint64_t *synced);
HIDDEN int tp_spool_stop(void);
HIDDEN void tp_spool_set_live(bool live);
HIDDEN void tp_spool_set_mode(struct pool *p, enum tpoint_mode mode);
HIDDEN void tp_spool_fork_prepare(void);

#endif
