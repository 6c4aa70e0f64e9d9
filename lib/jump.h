/* SPDX-License-Identifier: MIT */
/* lib/jump.c: the jump-label sites, patched to follow their events' enable words. */
#ifndef TPOINT_JUMP_H
#define TPOINT_JUMP_H

#include <stdbool.h>
#include <tpoint/tpoint.h>
#include "hidden.h"

/* The jump-label sites of `ev` follow its enable word (call after changing the word). */
HIDDEN void tp_jump_event_changed(struct tpoint_event *ev);
/* Sites follow the USDT semaphores too (polled); whether the process has any sites. */
HIDDEN bool tp_jump_follow_words(void);
/* How often the control thread calls it while there are sites, in milliseconds. */
#define TP_JUMP_FOLLOW_MS 200
HIDDEN void tp_jump_fork_prepare(void);
HIDDEN void tp_jump_fork_parent(void);
HIDDEN void tp_jump_fork_child(void);

#endif
