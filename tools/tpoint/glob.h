/* SPDX-License-Identifier: MIT */
/*
 * The tool's use of the one matcher of event globs (lib/globs.h, which the runtime links
 * too: the rules are written there once).
 */
#ifndef TPOINT_GLOB_H
#define TPOINT_GLOB_H

#include <stdbool.h>

/* Does any glob of the comma-separated list select it? */
bool globs_select(const char *globs, const char *system, const char *name);
/* The same, for an event named "system:name" (false when it has no ':'). */
bool globs_select_event(const char *globs, const char *event);
/*
 * Is the list one the runtime takes (no empty item, no blank)? 0, or -1 after saying
 * "tpoint VERB: 'GLOBS': expected comma-separated globs like 'sys:*,sys:event'", the
 * library's words for the same refusal.
 */
int globs_check(const char *verb, const char *globs);

#endif
