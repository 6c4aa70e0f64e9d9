/* SPDX-License-Identifier: MIT */
/* lib/session_env.c: the environment's recording. */
#ifndef TPOINT_SESSION_ENV_H
#define TPOINT_SESSION_ENV_H

#include "hidden.h"
#include "session.h"

/* TPOINT_BUFFER_SIZE, TPOINT_MODE, TPOINT_COMPRESS, TPOINT_EVENTS and TPOINT_FILTER. */
HIDDEN void tp_session_configure_from_env(void);
/* TPOINT_RECORD's or TPOINT_SPOOL_DIR's recording, as the library loads. */
HIDDEN void tp_session_env_start(void);
/* At exit: the recording completed, the children's files written, what never matched said. */
HIDDEN void tp_session_env_at_exit(void);
/* In a forked child, after every module's reset: its recording goes on as the parent's did. */
HIDDEN void tp_session_env_after_fork(struct session_parent *parent);

#endif
