/* SPDX-License-Identifier: MIT */
/*
 * The one matcher of event globs, linked by the runtime (TPOINT_EVENTS, tpoint_enable(),
 * an attached client's selection) and by the tool (every verb that takes -e or a glob), so
 * that both select the same events (tpoint(1), "EVENT GLOBS"):
 *
 * - a glob with a ':' is a system glob and a name glob, each matched with fnmatch(3)
 *   against its part ("sys:name", "sys:*", "*:name"; a second ':' belongs to the name glob,
 *   so it matches no event);
 * - a glob without one selects the events whose system or whose name it matches ("sys",
 *   "name", "ctl_*"): never "sys:name" as one string.
 *
 * A list is comma-separated. The runtime and the tool take a list only when it is valid
 * (tp_globs_valid()); the matchers, and tp_globs_next(), skip empty items.
 */
#ifndef TPOINT_GLOBS_H
#define TPOINT_GLOBS_H

#include <stdbool.h>
#include <stddef.h>

/* Do the len bytes of glob (one glob, no ',') select system:name? */
bool tp_glob_selects(const char *glob, size_t len, const char *system, const char *name);

/* Does any glob of the comma-separated list select system:name? */
bool tp_globs_select(const char *list, const char *system, const char *name);

/*
 * The next glob of a comma-separated list, for a caller that says which glob matched
 * nothing: *glob points at it in the list (not NUL-terminated: its length is *len), and
 * *cursor moves past it. Empty items are skipped; blanks belong to the glob (a valid list
 * has neither). false at the end of the list (or for a NULL *cursor). Nothing is copied:
 *
 *	for (const char *at = list, *g; tp_globs_next(&at, &g, &len);)
 *		tp_glob_selects(g, len, system, name)...
 */
bool tp_globs_next(const char **cursor, const char **glob, size_t *len);

/* Is the list one to take: at least one item, none empty, no blank in any? */
bool tp_globs_valid(const char *list);

#endif
