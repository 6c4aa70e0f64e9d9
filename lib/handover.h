/* SPDX-License-Identifier: MIT */
/* handover.c: a pool that outlives its image (exec) or its process (_exit). */
#ifndef TPOINT_HANDOVER_H
#define TPOINT_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "hidden.h"

struct pool;

/* The spool of generation `gen` (0: base itself; n: base with .exec<n> before .spool). */
HIDDEN char *tp_handover_spool_name(const char *base, int gen);
/*
 * Before an env-started recording of this pid begins: adopt the pool of the image before
 * exec, adding what it holds to its spool. The generation of the spool to record into now;
 * *base (malloc'ed, or NULL) becomes the base of the image before's spools when adopted.
 */
HIDDEN int tp_handover_adopt(char **base);
/* After it began: keep the pool across exec, and pass it to the collector, if any. */
HIDDEN void tp_handover_publish(struct pool *p, const char *base, int gen);
/*
 * A collector: makes the socket pair and TPOINT_COLLECT; returns the sending end, the
 * receiving one in *recv_fd (keep_recv: kept across exec, for the owner's next image).
 */
HIDDEN int tp_collect_make(int *recv_fd, bool keep_recv);
/* The receiving end an image before this one (same pid) made, or -1. */
HIDDEN int tp_collect_owned(void);
struct collected {
	pid_t pid; /* the sender, by its credentials */
	int gen;
	int memfd;
	uint32_t npages;
	size_t meta_off;
	char base[4096]; /* the spool of generation 0, or "" if the sender did not say */
};
/* The next pool passed, without waiting: 1, or 0 when none is queued. */
HIDDEN int tp_collect_next(int recv_fd, struct collected *out);
/*
 * The watcher of TPOINT_RECORD's owner (handover.c): started before it records (or, in an
 * image after exec, found again), told of each pool and spool, and that the file is done.
 */
HIDDEN void tp_watch_start(void);
HIDDEN void tp_watch_publish(struct pool *p, const char *base, int gen, const char *out,
			     const char *what);
HIDDEN void tp_watch_done(void);
HIDDEN void tp_watch_after_fork(void);
/* Gone, or a zombie: either way it will write nothing more. */
HIDDEN bool tp_pid_gone(pid_t pid);

#endif
