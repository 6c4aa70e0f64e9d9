/* SPDX-License-Identifier: MIT */
/* lib/snapshot_trigger.c: the `snapshot` trigger's files, written off the hot path. */
#ifndef TPOINT_SNAPSHOT_TRIGGER_H
#define TPOINT_SNAPSHOT_TRIGGER_H

#include <stddef.h>
#include "hidden.h"

/*
 * Queued firings: a firing that finds them all waiting is not written (counted, and said
 * once the queue drains).
 */
#define TP_SNAPSHOT_QUEUE 4

/*
 * A snapshot trigger is being set: its directory (TPOINT_SNAPSHOT_DIR, else TPOINT_RECORD's,
 * else the working directory) checked, the writer thread started if it is not yet, and the
 * firing hook set. 0, or -errno with err saying why (naming the directory).
 */
HIDDEN int tp_snapshot_trigger_arm(char *err, size_t errlen);
/* At exit, before the recording stops: the snapshots asked for are written now. */
HIDDEN void tp_snapshot_trigger_flush(void);
/* Around fork(): the child gets a writer thread and a wake-up of its own. */
HIDDEN void tp_snapshot_trigger_fork_prepare(void);
HIDDEN void tp_snapshot_trigger_fork_parent(void);
HIDDEN void tp_snapshot_trigger_after_fork(void);

#endif
