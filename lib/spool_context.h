/* SPDX-License-Identifier: MIT */
/* lib/spool_context.c: what a spool needs besides records, for the rest of the library. */
#ifndef TPOINT_SPOOL_CONTEXT_H
#define TPOINT_SPOOL_CONTEXT_H

#include "hidden.h"

/* After a fork: the child counts from zero (spool_context.c). */
HIDDEN void tp_spool_stats_forget(void);
/* A recording begins: the counts its spools carry are from here on. */
/* Newly registered events' definitions, into the spool now (session mutex held). */
HIDDEN void tp_spool_put_events(void);
HIDDEN void tp_spool_mark_stats(void);

#endif
