/* SPDX-License-Identifier: MIT */
/* lib/session.c: a recording, its public calls, a client's requests (session_state.h: its state). */
#ifndef TPOINT_SESSION_H
#define TPOINT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tpoint/tpoint.h>
#include "hidden.h"

/* The public calls of the same names (entry.c). */
HIDDEN int tp_session_set_buffer_size(size_t bytes);
HIDDEN int tp_session_set_mode(enum tpoint_mode mode);
HIDDEN int tp_session_record_start(const char *path);
HIDDEN int tp_session_record_stop(void);
HIDDEN int tp_session_flush(void);
/* The session mutex, held across fork() (init.c). */
HIDDEN void tp_session_lock(void);
HIDDEN void tp_session_unlock(void);
/* What the parent recorded, for the child to go on (session_env.c). */
struct session_parent {
	bool was_recording;
	bool spool_only;
	char *out; /* the parent's file, the child's now (freed by tp_session_env_after_fork()) */
};
/* In the child: the parent's recording, then the child's state, forgotten. */
HIDDEN void tp_session_fork_child(struct session_parent *parent);
HIDDEN void tp_session_forget_parent(void);
/* "none", "memory", "file:PATH" or "spool:PATH", for `tpoint ps`. */
HIDDEN const char *tp_session_describe(void);
/* Make sure enabled events have somewhere to go: an in-memory pool if nothing records. */
HIDDEN int tp_session_ensure_recording(void);
/* The same, if an event is enabled (tpoint_enable(), TPOINT_EVENTS, a registration). */
HIDDEN void tp_session_keep_enabled(void);
/*
 * Record for a client (tpoint record -p / stream): the events matching `patterns`, spooled to
 * `spool`. *memfd and *info (fmt/control_msg.h) let the client salvage the pages if this
 * process dies. Returns the number of events enabled, or -errno (-EBUSY: something records
 * already).
 */
struct ctl_attach_reply;
HIDDEN int tp_session_attach(const char *spool, const char *patterns, enum tpoint_mode mode,
			     size_t pool_size, bool live, int *memfd,
			     struct ctl_attach_reply *info);
/* The client is done (keep: complete the spool) or gone (drop the spool); events revert. */
HIDDEN int tp_session_detach(bool keep);
/* Write the recording's current contents into a spool; `path` gets the spool to read. */
HIDDEN int tp_session_snapshot(const char *dir, char *path, size_t pathlen);

#endif
