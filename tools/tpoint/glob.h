/* SPDX-License-Identifier: MIT */
/*
 * The tool's one matcher of event globs, the rules tpoint(1) documents and the runtime
 * applies (lib/patterns.c, which cannot link the tool; tests/glob.sh checks that the two
 * agree): a glob with a ':' is a system glob and a name glob, each matched with fnmatch(3)
 * against its part ("sys:name", "sys:*", "*:name"); a glob without one selects the events
 * whose system or whose name it matches ("sys", "name", "ctl_*"). A list is comma-separated;
 * empty items are skipped.
 */
#ifndef TPOINT_GLOB_H
#define TPOINT_GLOB_H

#include <stdbool.h>

/* Does one glob select the event system:name? */
bool glob_selects(const char *glob, const char *system, const char *name);
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
